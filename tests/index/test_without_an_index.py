"""Without an index an agent can still read: note headings and sections by path are parsed live,
search says how to build the index, and the MCP tool index_build builds it (MCP offers no POST)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcp.client.session import ClientSession
from tests.conftest import Sidecar, start_sidecar, stop_sidecar
from tests.support.index_vaults import write_note
from tests.support.mcp_clients import over_http

from knowledge_harness.index import query
from knowledge_harness.vault.paths import Vault

NOTE = "---\ntitle: Sync\n---\n# Sync\n\nIntro.\n\n## Conflicts\n\nquillwort conflicts.\n"


def _mcp(sidecar: Sidecar, calls: list[tuple[str, dict[str, Any]]]) -> list[tuple[bool, Any]]:
    async def work(session: ClientSession) -> list[tuple[bool, Any]]:
        out = []
        for name, args in calls:
            result = await session.call_tool(name, args)
            text = " ".join(getattr(c, "text", "") for c in result.content)
            out.append((bool(result.is_error), result.structured_content if not result.is_error else text))
        return out

    return over_http(sidecar, work)


def test_a_note_is_read_by_path_without_an_index(tmp_path: Path) -> None:
    write_note(tmp_path, "Notes/Sync.md", NOTE)
    handle = Vault.open(tmp_path)
    heads = query.note_headings(handle, "Notes/Sync.md")
    assert heads.source == "live" and heads.stale is True
    assert [h["title"] for h in heads.headings] == ["Sync"] and heads.headings[0]["children"][0]["title"] == "Conflicts"
    section = query.read_section(handle, "Notes/Sync.md", heading="Conflicts")
    assert section.text == "## Conflicts\n\nquillwort conflicts."
    assert not (tmp_path / ".harness" / "index").exists()  # reading built nothing


def test_an_agent_builds_the_index_over_mcp_when_search_says_it_is_missing(tmp_path: Path) -> None:
    write_note(tmp_path, "Notes/Sync.md", NOTE)
    running = start_sidecar(tmp_path)
    try:
        (missing, read, built, found) = _mcp(
            running,
            [
                ("index_search", {"query": "quillwort"}),
                ("index_read_section", {"path": "Notes/Sync.md", "heading": "Conflicts"}),
                ("index_build", {}),
                ("index_search", {"query": "quillwort"}),
            ],
        )
    finally:
        stop_sidecar(running)
    assert missing[0] is True and "index_build" in missing[1]
    assert read[0] is False and read[1]["text"].startswith("## Conflicts")
    assert built[0] is False and built[1]["notes"] == 1
    assert found[0] is False and [h["path"] for h in found[1]["hits"]] == ["Notes/Sync.md"]
