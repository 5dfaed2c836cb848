"""MCP tool sets; each module exposes register(mcp, ctx).

Every tool carries annotations (ANNOTATIONS, by tool name): `HarnessMCP.add_tool` refuses a tool
without them, so a new tool cannot be published unannotated.
"""

from __future__ import annotations

from mcp_types import ToolAnnotations


def reads(title: str) -> ToolAnnotations:
    """Changes nothing: not the vault, not `.harness/`."""
    return ToolAnnotations(
        title=title, read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
    )


def records(title: str, *, idempotent: bool, web: bool = False) -> ToolAnnotations:
    """Adds records under `.harness/` (runs, snapshots); never rewrites or deletes a note."""
    return ToolAnnotations(
        title=title, read_only_hint=False, destructive_hint=False, idempotent_hint=idempotent, open_world_hint=web
    )


ANNOTATIONS: dict[str, ToolAnnotations] = {
    "list_notes": reads("List notes"),
    "trust_audit": reads("Trust audit"),
    "trust_badge": reads("Trust badge of a note"),
    "trust_stale": reads("Stale notes"),
    "validate": reads("Judge claims against evidence"),
    "validate_note_dry_run": records("Dry-run validation of a note", idempotent=False, web=True),
    "index_search": reads("Search notes"),
    "index_tree": reads("Folder tree"),
    "index_note_headings": reads("Heading tree of a note"),
    "index_read_section": reads("Read a section"),
    "index_check": reads("Index freshness"),
    "index_links": reads("Links and backlinks of a note"),
    "index_changes": reads("Recently changed notes"),
    "index_build": records("Build the index", idempotent=True),  # writes .harness/index only
    "harness_next_task": reads("Next pipeline task"),
    "harness_submit_result": records("Submit a task result", idempotent=True),
    "harness_run_status": reads("Run status"),
    "harness_list_runs": reads("List runs"),
    "harness_review_packet": reads("Review Packet"),
    "harness_advance_run": records("Advance a run", idempotent=False, web=True),
    "judge_next_task": records("Take a judge task", idempotent=False),
    "judge_evidence": reads("Read a judge task's evidence"),
    "judge_submit": records("Answer a judge task", idempotent=False),
}
