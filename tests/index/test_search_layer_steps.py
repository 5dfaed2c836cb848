"""The search layer kept in step note by note equals one made from scratch.

After any sequence of edits, additions, removals and renames, each followed by an incremental
build and a search, the layer's tables (rows compared by path, since ids differ), the name and
path tables the process keeps in memory, and the ranking of a few queries are those of a layer
made from a fresh copy of the vault; the manifest read line by line (the lines of the previous
one reused) is json.loads of its bytes.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from tests.index.test_warm_rebuilds import NOTES, STEPS, _apply
from tests.support.examples import examples
from tests.support.index_vaults import write_note

from knowledge_harness.index import search as search_module
from knowledge_harness.index.build import build_index
from knowledge_harness.index.query import load_manifest, search
from knowledge_harness.index.vault_index import VaultIndex
from knowledge_harness.vault.paths import Vault

QUERIES = ("Note A", "技術", "text only", "Section", "index note", "one more line", "Dup")


def _layer(vault: Vault, ix: VaultIndex) -> search_module.SearchLayer:
    search(vault, "warm", index=ix)
    return ix.search.open_layer(vault)


def _rows(layer: search_module.SearchLayer) -> dict[str, Any]:
    """The layer's tables with ids replaced by paths."""
    db = layer.db
    path_of = {int(i): str(p) for i, p in db.execute("SELECT id, path FROM notes")}
    size = search_module.MAX_SECTIONS_PER_NOTE

    def sid(i: int) -> tuple[str, int]:
        return path_of[i // size], i % size

    return {
        "notes": sorted(db.execute("SELECT path, sha256, links_key, title, names FROM notes")),
        "links": sorted((path_of[s], d, h or "", t) for s, d, h, t in db.execute("SELECT * FROM links")),
        "sections": sorted((sid(r[0]), *r[1:]) for r in db.execute("SELECT * FROM sections")),
        "note_fts": sorted((path_of[r[0]], *r[1:]) for r in db.execute("SELECT rowid, * FROM note_fts")),
        "text_fts": sorted((path_of[r[0]], *r[1:]) for r in db.execute("SELECT rowid, * FROM text_fts")),
        "section_fts": sorted(
            (sid(r[0]), *r[1:5]) for r in db.execute("SELECT rowid, heading, body, code, links_in FROM section_fts")
        ),
        "meta_notes": layer.meta("notes"),
    }


def _memory(layer: search_module.SearchLayer) -> dict[str, Any]:
    return {
        "names": {k: list(v) for k, v in layer.names().items()},
        "names_by_path": {p: sorted(sorted(s) for s in sets) for p, sets in layer.names_by_path().items()},
        "paths": sorted(layer._paths().values()),
    }


def _parsed(vault: Vault, ix: VaultIndex) -> dict[str, Any]:
    """The manifest as load_manifest read it (line by line, reusing the previous one's lines)."""
    return {k: v for k, v in load_manifest(vault, index=ix).items() if k not in ("by_path", "linked_from")}


def _ranked(vault: Vault, ix: VaultIndex) -> list[list[tuple[str, float]]]:
    return [[(h.path, h.score) for h in search(vault, q, index=ix).hits] for q in QUERIES]


@settings(max_examples=examples(0.3), deadline=None)
@given(STEPS)
def test_a_layer_kept_in_step_equals_one_made_from_scratch(steps: list[tuple[str, str, str]]) -> None:
    with tempfile.TemporaryDirectory(prefix="kh-layer-") as tmp:
        root = Path(tmp) / "vault"
        for name, text in NOTES.items():
            write_note(root, name, text)
        vault = Vault.open(root)
        ix = VaultIndex(vault)
        build_index(vault, memory=ix.build)
        layer = _layer(vault, ix)
        _memory(layer)  # the name and path tables are read now, and must be kept in step
        for i, (action, name, body) in enumerate(steps):
            _apply(root, action, name, body)
            build_index(vault, memory=ix.build)
            assert _layer(vault, ix) is layer
            fresh_root = Path(tmp) / f"fresh{i}"
            shutil.copytree(root, fresh_root, ignore=shutil.ignore_patterns(".harness"))
            fresh = Vault.open(fresh_root)
            fresh_ix = VaultIndex(fresh)
            build_index(fresh, full=True, memory=fresh_ix.build)
            made = _layer(fresh, fresh_ix)
            assert _rows(layer) == _rows(made), f"step {i}: {action} {name}"
            assert _memory(layer) == _memory(made), f"step {i}: {action} {name}"
            assert _ranked(vault, ix) == _ranked(fresh, fresh_ix), f"step {i}: {action} {name}"
            assert _parsed(vault, ix) == json.loads((root / ".harness/index/manifest.json").read_bytes()), f"step {i}"
            fresh_ix.close()
        ix.close()


def test_a_manifest_is_parsed_only_where_its_lines_changed(tmp_path: Path) -> None:
    root = tmp_path / "v"
    for name, text in NOTES.items():
        write_note(root, name, text)
    vault = Vault.open(root)
    ix = VaultIndex(vault)
    build_index(vault, memory=ix.build)
    before = {e["path"]: e for e in load_manifest(vault, index=ix)["notes"]}
    write_note(root, "Home.md", "[[技術]] and one more line\n")
    build_index(vault, memory=ix.build)
    raw = (root / ".harness/index/manifest.json").read_bytes()
    after = load_manifest(vault, index=ix)
    assert {k: v for k, v in after.items() if k not in ("by_path", "linked_from")} == json.loads(raw)
    same = {p for p, e in after["by_path"].items() if e is before.get(p)}
    assert "Home.md" not in same and same >= {"Note A.md", "x/Dup.md", "y/Dup.md"}
    # another layout (written by hand, say) is parsed whole
    (root / ".harness/index/manifest.json").write_text(json.dumps(json.loads(raw), indent=2), encoding="utf-8")
    again = load_manifest(vault, index=ix)
    assert {k: v for k, v in again.items() if k not in ("by_path", "linked_from")} == json.loads(raw)
