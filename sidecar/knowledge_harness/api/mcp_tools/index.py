"""MCP tools of the reasoning index, in the agent's reading order (docs/design/reasoning-index.md).

1. index_search / index_tree: find candidate notes  2. index_note_headings: pick a section
3. index_read_section: read the original Markdown and answer from it.
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import MCPServer

from ...index.query import (
    build_now,
    check_index,
    get_tree,
    note_headings,
    read_section,
)
from ...index.schema import DEFAULT_HEADINGS, MAX_HEADINGS, SearchQuery
from ...trust_view import trusted_search
from ..context import AppContext

READING_ORDER = """How to use the Knowledge Harness reasoning index:

If you already know which note answers the question, skip the index: call
index_read_section (or read the file) directly.

Otherwise:
1. index_search with a few words (and filters: type, status, tag, category, trust such as
   "fresh-l2") -- or index_tree to see the folders -- to find candidate notes. Each hit lists
   its best sections with line/end_line: often you can go straight to step 5 with those.
2. Narrow to one or a few notes from titles, sections, categories and trust.
3. index_note_headings on a candidate to see its heading tree with line ranges.
4. Choose the heading (or line range) to read.
5. index_read_section to read the original Markdown of that range.
6. Answer from the original Markdown, citing the note path and lines -- never from the index alone.

Every answer carries "stale": when true the vault changed since the index was built; a note
that changed is parsed live ("note_changed": true). Without an index, index_note_headings and
index_read_section still read a note by its path (parsed live), index_search answers from a
plain text scan ("fallback": "plain", bounded, not ranked), and index_build builds the index
(seconds for thousands of notes), after which index_search ranks. If the index does not narrow
the search, fall back to listing and reading notes.
"""


def register(mcp: MCPServer, ctx: AppContext) -> None:
    @mcp.tool(
        description=(
            "Step 1 of the reading order. Ranked search of the vault's notes by their whole text, "
            "with optional filters type, status, tag, category (an index note), "
            "trust ('fresh-l2', 'l1', 'fresh') and folder. Use it first when you do not know "
            "which note answers the question. Each hit has `sections`: its best sections for the query with "
            "line/end_line and a snippet -- pass path, line and end_line to index_read_section to read one. "
            "Also: titles, categories, trust, staleness."
        )
    )
    def index_search(
        query: str = "",
        type: str | None = None,
        status: str | None = None,
        tag: str | None = None,
        category: str | None = None,
        trust: str | None = None,
        folder: str | None = None,
        limit: int = 10,
    ) -> dict[str, Any]:
        asked = SearchQuery.asked(
            q=query, type=type, status=status, tag=tag, category=category, trust=trust, folder=folder, limit=limit
        )
        return trusted_search(ctx.catalog, asked, auditor=ctx.auditor, index=ctx.index).model_dump()

    @mcp.tool(
        description=(
            "Step 1 (alternative). The folder/note tree with heading counts (folder: one folder; depth: levels)."
        )
    )
    def index_tree(folder: str | None = None, depth: int | None = 2) -> dict[str, Any]:
        return get_tree(ctx.vault, folder, depth, index=ctx.index).model_dump()

    @mcp.tool(
        description=(
            "Step 3. The heading tree of one note (a path, or a unique file name) with 1-based inclusive line "
            "ranges (line, end_line) and its links, to pick the section to read. "
            f"At most {MAX_HEADINGS} headings per answer (default {DEFAULT_HEADINGS}); when truncated is true, "
            "call again with offset=next_offset."
        )
    )
    def index_note_headings(path: str, offset: int = 0, limit: int = DEFAULT_HEADINGS) -> dict[str, Any]:
        return note_headings(ctx.vault, path, offset=offset, limit=limit, index=ctx.index).model_dump()

    @mcp.tool(
        description=(
            "Step 5. Read the original Markdown of a note's section: give heading (its title) or line and "
            "end_line. Answer from this text, not from the index. Size-bounded by max_chars."
        )
    )
    def index_read_section(
        path: str,
        heading: str | None = None,
        line: int | None = None,
        end_line: int | None = None,
        max_chars: int = 20_000,
    ) -> dict[str, Any]:
        return read_section(
            ctx.vault, path, heading=heading, line=line, end_line=end_line, max_chars=max_chars, index=ctx.index
        ).model_dump()

    @mcp.tool(description=("Is the index fresh, stale (changed, added, removed notes) or missing?"))
    def index_check() -> dict[str, Any]:
        return check_index(ctx.vault, index=ctx.index).model_dump()

    @mcp.tool(description=("Build or update the index (full: every note); for index_missing answers."))
    def index_build(full: bool = False) -> dict[str, Any]:
        return build_now(ctx.vault, full=full, who="agent", index=ctx.index).model_dump()

    @mcp.prompt(name="reasoning_index_reading_order", description="How to walk the reasoning index, in order.")
    def reading_order() -> str:
        return READING_ORDER

    @mcp.resource("harness://index/reading-order", name="reading-order", mime_type="text/plain")
    def reading_order_resource() -> str:
        return READING_ORDER
