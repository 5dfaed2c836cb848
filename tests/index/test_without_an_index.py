"""Without an index an agent can still read: note headings and sections by path are parsed live,
search falls back to plain search (a bounded text scan, saying so and how to build the index) on
every door, and the MCP tool index_build builds it (MCP offers no POST)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp.client.session import ClientSession
from tests.conftest import Sidecar, start_sidecar, stop_sidecar
from tests.support.index_vaults import write_note
from tests.support.mcp_clients import over_http

from knowledge_harness.errors import IndexMissing
from knowledge_harness.index import query
from knowledge_harness.index.schema import SearchQuery
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


def test_plain_search_without_an_index_finds_every_word_at_the_current_line(tmp_path: Path) -> None:
    write_note(tmp_path, "Notes/Sync.md", NOTE)
    write_note(tmp_path, "Notes/Other.md", "# Other\nQuillwort twice: quillwort, and Conflicts.\n")
    write_note(tmp_path, "Drafts/Draft.md", "# Draft\nquillwort conflicts\n")
    write_note(tmp_path, "Templates/T.md", "---\nwhen: {{date}}\n---\nquillwort conflicts\n")
    write_note(tmp_path, ".obsidian/templates.json", '{"folder": "Templates"}')
    handle = Vault.open(tmp_path)
    result = query.search(handle, "QUILLWORT conflicts")
    assert result.fallback == "plain" and result.stale is True
    assert result.reason is not None and "kh index build" in result.reason and "index_build" in result.reason
    # every word in any case; most occurrences first (then by path); templates are no notes
    assert [(h.path, h.score) for h in result.hits] == [
        ("Notes/Other.md", 3),
        ("Notes/Sync.md", 3),
        ("Drafts/Draft.md", 2),
    ]
    sync = result.hits[1]  # its section: the first line with both words, not the heading above it
    assert [(s.line, s.end_line, s.snippet) for s in sync.sections] == [(10, 10, "quillwort conflicts.")]
    assert query.search(handle, SearchQuery(q="quillwort", folder="Notes")).total == 2
    assert query.search(handle, "quillwort absentword").hits == []
    with pytest.raises(IndexMissing):  # filters that need the index still say how to build it
        query.search(handle, SearchQuery(q="quillwort", type="guide"))
    with pytest.raises(IndexMissing):
        query.search(handle, SearchQuery(q="", folder="Notes"))
    assert not (tmp_path / ".harness" / "index").exists()  # searching built nothing


def test_plain_search_is_bounded_and_says_how_much_it_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from knowledge_harness.index import plain

    for i in range(5):
        write_note(tmp_path, f"n{i}.md", f"# N{i}\nquillwort\n")
    monkeypatch.setattr(plain, "MAX_PLAIN_NOTES", 3)
    result = query.search(Vault.open(tmp_path), "quillwort")
    assert [h.path for h in result.hits] == ["n0.md", "n1.md", "n2.md"]
    assert result.reason is not None and "Scanned 3 of 5 notes" in result.reason


def test_the_cli_prints_plain_search_as_a_fallback(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from knowledge_harness.cli.root import app

    write_note(tmp_path, "Notes/Sync.md", NOTE)
    out = CliRunner().invoke(app, ["index", "search", str(tmp_path), "quillwort"])
    assert out.exit_code == 0, out.output
    assert "plain search" in out.output and "Notes/Sync.md" in out.output and "lines 10-10" in out.output
    as_json = CliRunner().invoke(app, ["index", "search", str(tmp_path), "quillwort", "--json"])
    assert json.loads(as_json.output)["fallback"] == "plain"


def test_an_agent_builds_the_index_over_mcp_after_plain_search(tmp_path: Path) -> None:
    write_note(tmp_path, "Notes/Sync.md", NOTE)
    running = start_sidecar(tmp_path)
    try:
        with running.client() as http:
            rest = http.get("/v1/index/search", params={"q": "quillwort"})
        (plain_hits, read, built, found) = _mcp(
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
    assert rest.status_code == 200 and rest.json()["fallback"] == "plain"
    assert [h["path"] for h in rest.json()["hits"]] == ["Notes/Sync.md"]
    assert plain_hits[0] is False and plain_hits[1]["fallback"] == "plain" and "index_build" in plain_hits[1]["reason"]
    assert [h["path"] for h in plain_hits[1]["hits"]] == ["Notes/Sync.md"]
    assert read[0] is False and read[1]["text"].startswith("## Conflicts")
    assert built[0] is False and built[1]["notes"] == 1
    assert found[0] is False and [h["path"] for h in found[1]["hits"]] == ["Notes/Sync.md"]
    assert found[1]["fallback"] is None
