"""MCP: a note's links and backlinks, recent changes, and notes as resources (all read-only).

`harness://note/{+path}` reads a note's Markdown; the path goes through the vault layer's
confinement like every other door (no `..`, absolute paths, hidden folders or symlinks out), so a
hostile path answers with its error code (`path_rejected`, `not_found`).
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.resources import ResourceSecurity

from ...errors import InvalidNote
from ...index.graph import note_links, recent_changes
from ...vault.note import read_note
from ..context import AppContext

MAX_RESOURCE_BYTES = 2 * 1024 * 1024


def register(mcp: MCPServer, ctx: AppContext) -> None:
    @mcp.tool(
        description=(
            "A note's outgoing links and backlinks (the notes linking to it), each with its line, the "
            "section it sits in and the line's text. Notes edited since the index build are read live."
        )
    )
    def index_links(path: str, limit: int = 100) -> dict[str, Any]:
        return note_links(ctx.vault, path, limit=limit, index=ctx.index).model_dump()

    @mcp.tool(
        description=(
            "Notes added, changed or removed since an ISO time (by file time; an edit a second ago counts) or, "
            "without since, since the index build; newest first, paged by cursor."
        )
    )
    def index_changes(since: str | None = None, limit: int = 50, cursor: str | None = None) -> dict[str, Any]:
        return recent_changes(ctx.vault, since, limit=limit, cursor=cursor, index=ctx.index).model_dump()

    # The SDK's own path checks would answer a hostile path with a bare "Unknown resource"; the
    # vault layer refuses it with a code instead (and also knows hidden folders and symlinks).
    @mcp.resource(
        "harness://note/{+path}",
        name="note",
        description="A note's Markdown by vault-relative path, e.g. harness://note/Keywords/RAG.md",
        mime_type="text/markdown",
        security=ResourceSecurity(exempt_params={"path"}),
    )
    def note_markdown(path: str) -> str:
        note = read_note(ctx.vault, path, max_bytes=MAX_RESOURCE_BYTES)
        try:
            return note.raw.decode("utf-8").removeprefix("\ufeff")
        except UnicodeDecodeError as exc:
            raise InvalidNote(f"The note is not UTF-8 text: {note.path}.") from exc
