"""Line ranges are those of the note as it is now: a note edited since the build is parsed live,
so a search hit's section range, read back through index_read_section, gives that section's text
and nothing shifted (three lines inserted above a section once sent the reader three lines too
high and lost the section's last three lines)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp.client.session import ClientSession
from tests.conftest import Sidecar, start_sidecar, stop_sidecar
from tests.support.batch_support import kh
from tests.support.index_vaults import write_note
from tests.support.mcp_clients import over_http

from knowledge_harness.index import query
from knowledge_harness.index.build import build_index
from knowledge_harness.vault.paths import Vault

NOTE = (
    "---\ntitle: Sync\n---\n"
    "# Sync\n\nIntro.\n\n"
    "## Conflicts\n\nWhen two devices edit one note, quillwort conflicts appear.\n"
    "Resolve them by hand.\nThen sync again.\nLast line of the section.\n\n"
    "## Other\n\nNothing here.\n"
)
SECTION = (
    "## Conflicts\n\nWhen two devices edit one note, quillwort conflicts appear.\n"
    "Resolve them by hand.\nThen sync again.\nLast line of the section.\n"
)


def _edited(root: Path) -> None:
    text = NOTE.replace("Intro.\n", "Intro.\nOne more line.\nAnd another.\nAnd a third.\n")
    (root / "Notes" / "Sync.md").write_text(text, encoding="utf-8")


def _vault(tmp_path: Path) -> Vault:
    write_note(tmp_path / "v", "Notes/Sync.md", NOTE)
    write_note(tmp_path / "v", "Notes/Else.md", "# Else\nNothing.\n")
    handle = Vault.open(tmp_path / "v")
    build_index(handle)
    return handle


def _lines(text: str, line: int, end_line: int) -> str:
    return "\n".join(text.split("\n")[line - 1 : end_line]).rstrip("\n") + "\n"


def test_a_changed_notes_hit_carries_the_ranges_of_the_note_as_it_is_now(tmp_path: Path) -> None:
    handle = _vault(tmp_path)
    before = query.search(handle, "quillwort").hits[0].sections[0]
    assert _lines(NOTE, before.line, before.end_line) == SECTION
    _edited(handle.root)
    hit = query.search(handle, "quillwort").hits[0]
    assert hit.note_changed is True
    section = next(s for s in hit.sections if s.heading == "Conflicts")
    assert (section.line, section.end_line) == (before.line + 3, before.end_line + 3)
    now = (handle.root / "Notes" / "Sync.md").read_text(encoding="utf-8")
    assert _lines(now, section.line, section.end_line) == SECTION
    read = query.read_section(handle, hit.path, line=section.line, end_line=section.end_line)
    assert read.text.rstrip("\n") + "\n" == SECTION


def test_a_section_whose_heading_is_gone_is_left_out(tmp_path: Path) -> None:
    handle = _vault(tmp_path)
    (handle.root / "Notes" / "Sync.md").write_text(NOTE.replace("## Conflicts", "## Renamed"), encoding="utf-8")
    hit = query.search(handle, "quillwort").hits[0]
    assert hit.note_changed is True
    assert all(s.heading != "Conflicts" for s in hit.sections)


def test_a_note_deleted_since_the_build_is_left_out_of_search_not_an_error(tmp_path: Path) -> None:
    handle = _vault(tmp_path)
    (handle.root / "Notes" / "Else.md").unlink()
    # a new process, as `kh index search` runs: it finds the deletion at once and syncs its search layer
    # (before: NotFound for the deleted note refused the whole search)
    done = kh("index", "search", str(handle.root), "nothing", "--json")
    assert done.returncode == 0, done.stderr
    # (whether it already says `stale` depends on the age of the build's own scan: STALENESS_SECONDS)
    assert [h["path"] for h in json.loads(done.stdout)["hits"]] == ["Notes/Sync.md"]  # its "Nothing here."


def _mcp(sidecar: Sidecar, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    async def work(session: ClientSession) -> list[Any]:
        return [(await session.call_tool(name, args)).structured_content for name, args in calls]

    return over_http(sidecar, work)


def test_the_mcp_tools_read_back_a_changed_notes_section_as_it_is_now(tmp_path: Path) -> None:
    handle = _vault(tmp_path)
    _edited(handle.root)
    running = start_sidecar(handle.root)
    try:
        (search,) = _mcp(running, [("index_search", {"query": "quillwort"})])
        hit = search["hits"][0]
        section = next(s for s in hit["sections"] if s["heading"] == "Conflicts")
        args = {"path": hit["path"], "line": section["line"], "end_line": section["end_line"]}
        by_lines, by_heading = _mcp(
            running,
            [("index_read_section", args), ("index_read_section", {"path": hit["path"], "heading": "Conflicts"})],
        )
    finally:
        stop_sidecar(running)
    assert hit["note_changed"] is True
    assert by_lines["text"].rstrip("\n") + "\n" == SECTION
    assert by_heading["text"].rstrip("\n") + "\n" == SECTION


def test_changed_hits_are_parsed_without_a_walk_of_the_vault_each(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each changed hit's note is parsed once; the vault is not walked again per hit (a staleness
    check per changed hit made a search of 30 changed notes in 3,000 walk the vault 30 times)."""
    for i in range(5):
        write_note(tmp_path / "v", f"Notes/N{i}.md", NOTE)
    handle = Vault.open(tmp_path / "v")
    build_index(handle)
    for i in range(5):
        (handle.root / "Notes" / f"N{i}.md").write_text(NOTE.replace("Intro.\n", "Intro.\nOne more line.\n"))
    walks: list[str] = []
    real = query._check_index
    monkeypatch.setattr(query, "_check_index", lambda ix: walks.append("walk") or real(ix))
    hits = query.search(handle, "quillwort").hits
    assert len(hits) == 5 and all(h.note_changed for h in hits)
    assert len(walks) <= 1
