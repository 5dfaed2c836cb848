"""The search layer takes the sections the build parsed (VaultIndex.built_sections) instead of
parsing those notes again; a note changed since the build is parsed by the search layer itself,
and either way its sections are the ones a parse of its bytes gives."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest
from tests.support.index_vaults import write_note

from knowledge_harness.index import query
from knowledge_harness.index import search as search_module
from knowledge_harness.index.build import build_index
from knowledge_harness.index.search import note_document
from knowledge_harness.index.vault_index import VaultIndex
from knowledge_harness.vault.paths import Vault

NOTES = {
    "A.md": "---\ntitle: Alpha\n---\nIntro words.\n\n# Fern\n\nmoss fern [[B#Gully|gully link]]\n\n```\ncode fern\n```\n",
    "B.md": "# Bravo\n\nBody.\n\n## Gully\n\nfern by the gully\n",
    "C.md": "plain fern text, no heading\n",
}


def _vault(tmp_path: Path) -> Vault:
    for rel, text in NOTES.items():
        write_note(tmp_path / "v", rel, text)
    return Vault.open(tmp_path / "v")


def _parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    real = search_module.parse_structure

    def counted(text: str, lines: list[str]) -> Any:
        seen.append(text)
        return real(text, lines)

    monkeypatch.setattr(search_module, "parse_structure", counted)
    return seen


def test_the_search_layer_parses_no_note_the_build_parsed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    vault = _vault(tmp_path)
    ix = VaultIndex(vault)
    build_index(vault, memory=ix.build)
    parses = _parses(monkeypatch)
    hits = query.search(vault, "fern", index=ix).hits
    assert parses == []
    assert sorted(h.path for h in hits) == sorted(NOTES)
    for rel, text in NOTES.items():
        raw = text.encode()
        sha = hashlib.sha256(raw).hexdigest()
        handed = note_document(rel, raw, sha, "t", [], [], ix.built_sections(rel, sha))
        assert handed == note_document(rel, raw, sha, "t", [], [])
    ix.close()


def test_a_note_changed_since_the_build_is_parsed_by_the_search_layer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = _vault(tmp_path)
    ix = VaultIndex(vault)
    build_index(vault, memory=ix.build)
    (vault.root / "B.md").write_text(NOTES["B.md"].replace("Body.\n", "Body.\nMore.\nLines.\n"), encoding="utf-8")
    parses = _parses(monkeypatch)
    hit = next(h for h in query.search(vault, "gully", index=ix).hits if h.path == "B.md")
    assert len(parses) == 1
    section = next(s for s in hit.sections if s.heading == "Gully")
    assert (section.line, section.end_line) == (7, 9)
    assert ix.built_sections("B.md", hashlib.sha256(NOTES["B.md"].encode()).hexdigest()) is not None
    ix.close()


def test_the_next_build_drops_the_sections_it_did_not_parse(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    ix = VaultIndex(vault)
    build_index(vault, memory=ix.build)
    changed = NOTES["C.md"] + "more\n"
    (vault.root / "C.md").write_text(changed, encoding="utf-8")
    build_index(vault, memory=ix.build)
    state = ix.build.get(str(vault.root))
    assert state is not None
    kept = {p for p, note in state.notes.items() if note.parsed.sections is not None}
    assert kept == {"C.md"} and state.sectioned == ["C.md"]
    ix.close()
