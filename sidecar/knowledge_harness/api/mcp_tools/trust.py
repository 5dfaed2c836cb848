"""MCP tools for trust: the audit and a note's badge (read-only)."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import MCPServer

from ...core.dates import parse_day
from ...trust.audit.audit import current_policy, note_badge, run_audit, stale_report
from ..context import AppContext


def register(mcp: MCPServer, ctx: AppContext) -> None:
    @mcp.tool(
        name="trust_audit",
        description=(
            "Trust audit of the vault: Fresh L2 coverage against the threshold, revalidation windows, stale "
            "and disputed notes, metadata errors. today: YYYY-MM-DD; threshold: 0-1."
        ),
    )
    def trust_audit(today: str | None = None, threshold: float | None = None) -> dict[str, Any]:
        report = run_audit(
            ctx.catalog,
            current_policy(ctx.vault.root, auditor=ctx.auditor),
            today=parse_day(today or None, name="today"),
            threshold=threshold,
        )
        return report.model_dump(mode="json")

    @mcp.tool(
        name="trust_badge",
        description=(
            "A note's trust badge: level, status, fresh, stale triggers, revalidation window, validator. "
            "Check it before relying on a note: only Fresh L2 notes have checked evidence."
        ),
    )
    def trust_badge(path: str, today: str | None = None) -> dict[str, Any]:
        return note_badge(
            ctx.catalog,
            current_policy(ctx.vault.root, auditor=ctx.auditor),
            path,
            today=parse_day(today or None, name="today"),
        ).model_dump(mode="json")

    @mcp.tool(
        name="trust_stale",
        description="Stale notes with their triggers, and Fresh L2 notes due for revalidation soon.",
    )
    def trust_stale(today: str | None = None) -> dict[str, Any]:
        return stale_report(
            ctx.catalog,
            current_policy(ctx.vault.root, auditor=ctx.auditor),
            today=parse_day(today or None, name="today"),
        ).model_dump(mode="json")
