"""The build's caches: in-process state, deferred cache writes, serialized fragments."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from tests.support.index_vaults import fresh_layers, index_layers, write_note

import knowledge_harness.index.build as build_module
from knowledge_harness.index.build import build_index, note_id
from knowledge_harness.index.build_state import BuildMemory
from knowledge_harness.vault.paths import Vault


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    v = tmp_path / "v"
    write_note(v, "MOC/Home.md", "---\ntype: moc\n---\n# Home\n\n- [[A]]\n- [[B]]\n")
    write_note(v, "A.md", "---\ntags: [x]\naliases: [Alpha]\n---\n# A\n\n## A1\n\n[[B]] [[Missing]]\n")
    write_note(v, "B.md", "# B\n\ntext #tag\n")
    write_note(v, "sub/C.md", "C\n===\n\n[[A#A1]]\n")
    return v


def _manifest(v: Path) -> dict[str, dict[str, object]]:
    data = json.loads((v / ".harness/index/manifest.json").read_text())
    return {n["path"]: n for n in data["notes"]}


def test_every_layer_is_canonical_json(vault: Path) -> None:
    """The joined fragments are exactly json.dumps(sort_keys, compact, no ASCII escaping)."""
    build_index(Vault.open(vault))

    def canon(obj: object) -> str:
        return json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"))

    root = vault / ".harness/index"
    raw = (root / "manifest.json").read_text()
    lines = raw.split("\n")
    assert lines[0] == '{"format":1,"notes":['
    for line in lines[1:-2]:
        entry = json.loads(line.rstrip(","))
        assert canon(entry) == line.rstrip(",")
    json.loads(raw)
    tree = (root / "tree.json").read_text()
    assert canon(json.loads(tree)) + "\n" == tree
    for f in (root / "notes").iterdir():
        text = f.read_text()
        assert canon(json.loads(text)) + "\n" == text


def test_in_process_rebuilds_pick_up_edits_deletions_and_additions(vault: Path, tmp_path: Path) -> None:
    memory = BuildMemory()
    v = Vault.open(vault)
    build_index(v, memory=memory)
    write_note(vault, "B.md", "# B changed\n\n[[A]]\n")
    report = build_index(v, memory=memory)
    assert report.reparsed == 1
    m = _manifest(vault)
    assert m["B.md"]["top_headings"] == ["B changed"] and m["A.md"]["links_in"] == ["B.md", "MOC/Home.md", "sub/C.md"]
    assert index_layers(vault) == fresh_layers(vault, tmp_path, "f1")

    (vault / "A.md").unlink()
    report = build_index(v, memory=memory)
    m = _manifest(vault)
    assert "A.md" not in m and report.removed == 1
    assert not (vault / f".harness/index/notes/{note_id('A.md')}.json").exists()
    layer = json.loads((vault / f".harness/index/notes/{note_id('B.md')}.json").read_text())
    assert [lk["status"] for lk in layer["links"]] == ["unresolved"]  # re-resolved although B is unchanged
    assert index_layers(vault) == fresh_layers(vault, tmp_path, "f2")

    write_note(vault, "A.md", "# A again\n")
    build_index(v, memory=memory)
    assert _manifest(vault)["B.md"]["links_out"] == ["A.md"]
    assert index_layers(vault) == fresh_layers(vault, tmp_path, "f3")


def test_an_edit_in_the_same_mtime_tick_with_another_size_is_caught(vault: Path, tmp_path: Path) -> None:
    memory = BuildMemory()
    v = Vault.open(vault)
    build_index(v, memory=memory)
    path = vault / "B.md"
    st = path.stat()
    path.write_text("# B but longer now\n", encoding="utf-8")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))  # same mtime, different size
    build_index(v, memory=memory)
    assert _manifest(vault)["B.md"]["top_headings"] == ["B but longer now"]
    assert index_layers(vault) == fresh_layers(vault, tmp_path, "f")


def test_a_touched_note_with_the_same_bytes_is_not_reparsed(vault: Path) -> None:
    memory = BuildMemory()
    v = Vault.open(vault)
    build_index(v, memory=memory)
    before = index_layers(vault)
    path = vault / "A.md"
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
    report = build_index(v, memory=memory)
    assert report.reparsed == 0 and index_layers(vault) == before
    memory = BuildMemory()  # a new process: the stamps come from build.json
    assert build_index(v, memory=memory).reparsed == 0 and index_layers(vault) == before


def test_a_new_process_after_deferred_cache_writes_gives_the_same_layers(
    vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cache may lag behind the in-process state; a new process must still be exact."""
    memory = BuildMemory()
    monkeypatch.setattr(build_module, "_CACHE_SLACK", 10_000)
    v = Vault.open(vault)
    build_index(v, memory=memory)
    cache_before = (vault / ".harness/index/cache/r.jsonl").read_bytes()
    write_note(vault, "B.md", "# B2\n\n[[sub/C]]\n")
    write_note(vault, "New.md", "# New\n\n[[B]]\n")
    (vault / "sub/C.md").unlink()
    build_index(v, memory=memory)
    assert (vault / ".harness/index/cache/r.jsonl").read_bytes() == cache_before  # deferred
    expected = fresh_layers(vault, tmp_path, "f1")
    assert index_layers(vault) == expected
    memory = BuildMemory()
    report = build_index(v, memory=memory)
    assert index_layers(vault) == expected
    assert report.reparsed == 2  # B.md and New.md were not in the old cache
    assert (vault / ".harness/index/cache/r.jsonl").read_bytes() != cache_before  # written by a process from disk
    memory = BuildMemory()
    assert build_index(v, memory=memory).reparsed == 0 and index_layers(vault) == expected


def test_a_corrupt_cache_falls_back_to_a_full_parse(vault: Path) -> None:
    memory = BuildMemory()
    v = Vault.open(vault)
    build_index(v, memory=memory)
    before = index_layers(vault)
    (vault / ".harness/index/cache/r.jsonl").write_text("[broken\n")
    memory = BuildMemory()
    assert build_index(v, memory=memory).reparsed == 4 and index_layers(vault) == before


def test_a_build_json_written_by_another_process_invalidates_the_state_in_memory(vault: Path) -> None:
    memory = BuildMemory()
    v = Vault.open(vault)
    build_index(v, memory=memory)
    state = memory.get(str(v.root))
    assert state is not None
    write_note(vault, "B.md", "# B other\n")
    # another process rebuilds (simulated: forget the state, build, then restore the stale one)
    memory = BuildMemory()
    build_index(v, memory=memory)
    memory.put(str(v.root), state)
    write_note(vault, "B.md", "# B third\n")
    build_index(v, memory=memory)
    assert _manifest(vault)["B.md"]["top_headings"] == ["B third"]


def test_a_rebuild_that_keeps_the_link_graph_agrees_with_a_full_build(vault: Path, tmp_path: Path) -> None:
    """Edits that change no link take the short way (only their rows are redone); same result."""
    memory = BuildMemory()
    v = Vault.open(vault)
    build_index(v, memory=memory)

    def build_maps(root: Path) -> tuple[object, object]:
        data = json.loads((root / ".harness/index/build.json").read_text())
        layers = dict(data["layers"])
        return layers, {p: stamp[0] for p, stamp in data["files"].items()}

    steps = [
        ("B.md", "# B renamed\n\n## more\n\ntext #tag\n"),  # title and headings change: the tree too
        ("A.md", "---\ntags: [x]\naliases: [Alpha]\n---\n# A\n\n## A1\n\n[[B]] [[Missing]]\n\nmore text\n"),
        ("B.md", "---\na: [unclosed\n---\n# B broken\n\ntext #tag\n"),  # an error appears
        ("B.md", "# B fixed\n\ntext #tag\n"),  # and goes
    ]
    for i, (name, text) in enumerate(steps):
        write_note(vault, name, text)
        report = build_index(v, memory=memory)
        assert report.reparsed == 1
        other = tmp_path / f"fresh{i}"
        expected = fresh_layers(vault, tmp_path, f"fresh{i}")
        assert index_layers(vault) == expected, f"step {i}"
        assert build_maps(vault) == build_maps(other), f"step {i}"
        fresh_errors = build_index(Vault.open(other), memory=memory).errors
        assert sorted(e["path"] for e in report.errors) == sorted(e["path"] for e in fresh_errors)
    assert [e["path"] for e in report.errors] == []


def test_the_cache_file_of_earlier_versions_is_removed(vault: Path) -> None:
    memory = BuildMemory()
    v = Vault.open(vault)
    build_index(v, memory=memory)
    legacy = vault / ".harness/index/cache.json"
    legacy.write_text('{"format":2,"notes":[\n]}\n')
    memory = BuildMemory()
    assert build_index(v, memory=memory).reparsed == 0  # the cache/ parts are read; cache.json is not
    assert not legacy.exists()
    assert (vault / ".harness/index/.gitignore").read_text() == "build.json\ncache/\n"
