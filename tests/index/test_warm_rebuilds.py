"""Rebuilds in the process that built before (the sidecar), and the one-shot path of a new
process, equal a full build of the same files.

Such a rebuild reuses unchanged folders' listings (WalkMemory), starts from the previous build's
notes in path order when the paths are the same, and re-derives only the touched notes' links:
after any sequence of edits, additions, removals and renames its layers, build.json entries and
report are those of a full build of a fresh copy.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.support.examples import examples
from tests.support.index_vaults import index_layers, write_note

from knowledge_harness.core import jsoncodec
from knowledge_harness.index.build import build_index
from knowledge_harness.index.build_state import BuildMemory
from knowledge_harness.index.query import check_index
from knowledge_harness.vault import paths as vault_paths
from knowledge_harness.vault.paths import Vault

NOTES = {
    "MOC/技術.md": "---\ntype: moc\n---\n# 技術\n\n- [[GitHub CI]]\n- [[Note A]]\n",
    "MOC/GitHub CI.md": "---\ntype: moc\n---\n# GitHub / CI\n\n上位: [[技術]]\n\n- [[Deep/Note B]]\n",
    "Note A.md": "---\ntitle: Alpha\ntags: [ai]\n---\n# Alpha\n\n## 自動生成物\n\ntext [[Note B#Section]]\n",
    "Deep/Note B.md": "# Note B\n\n## Section\n\n[[Note A]] [[Missing]] [[Dup]]\n",
    "Home.md": "[[技術]]\n",
    "x/Dup.md": "# Dup x\n",
    "y/Dup.md": "# Dup y\n",
}
BODIES = [
    "# Plain\n\ntext only\n",
    "# Linked\n\n[[Note A]] [[Dup]]\n",  # a link: the graph changes
    "# Other links\n\n[[Deep/Note B]] [[Home]] [[x/Dup]]\n",  # backlinks of notes that are not index notes
    "# To an index note\n\n[[GitHub CI]]\n",
    "---\ntitle: [broken\n---\n# YAML error\n",
    "---\ntype: moc\n---\n# Now an index note\n\n- [[Home]]\n",
]
NAMES = [*NOTES, "New/新しい.md", "y/Extra.md"]
STEPS = st.lists(
    st.tuples(
        st.sampled_from(["append", "rewrite", "remove", "rename", "touch", "nothing"]),
        st.sampled_from(NAMES),
        st.sampled_from(BODIES),
    ),
    min_size=1,
    max_size=6,
)
# folders' timestamps move in clock ticks of a few ms: pauses of several ticks keep every edit
# visible in its folder's stamp, so that the walk may reuse listings from the very last build
TICKS = 0.03


def _built(root: Path, index_toml: str | None = None, *, memory: BuildMemory) -> Vault:
    """The vault of NOTES written under `root` (with `.harness/index.toml` when given) and
    indexed once, in this process (its state kept in `memory`)."""
    for name, text in NOTES.items():
        write_note(root, name, text)
    if index_toml is not None:
        write_note(root, ".harness/index.toml", index_toml)
    vault = Vault.open(root)
    build_index(vault, memory=memory)
    return vault


def _apply(root: Path, action: str, name: str, body: str) -> None:
    path = root / name
    if action == "append" and path.exists():
        with path.open("a", encoding="utf-8") as handle:
            handle.write("\none more line\n")
    elif action == "rewrite":
        write_note(root, name, body)
    elif action == "remove" and path.exists():
        path.unlink()
    elif action == "rename" and path.exists():
        path.rename(path.with_name("renamed " + path.name))
    elif action == "touch" and path.exists():
        st_ = path.stat()
        os.utime(path, ns=(st_.st_atime_ns, st_.st_mtime_ns + 1_000_000_000))


def _build_maps(root: Path) -> tuple[object, object]:
    data = json.loads((root / ".harness/index/build.json").read_text())
    layers = dict(data["layers"])
    files = {p: stamp[0] for p, stamp in data["files"].items()}  # sizes: a copy has other mtimes
    return layers, files


@settings(max_examples=examples(0.3))
@given(STEPS)
def test_warm_rebuilds_equal_a_full_build(steps: list[tuple[str, str, str]]) -> None:
    with tempfile.TemporaryDirectory(prefix="kh-warm-") as tmp:
        root = Path(tmp) / "vault"
        memory = BuildMemory()
        vault = _built(root, memory=memory)
        state = memory.get(str(vault.root))
        assert state is not None
        state.walk.settle_ns = 0  # reuse every listing: the pauses stand in for settling
        for i, (action, name, body) in enumerate(steps):
            time.sleep(TICKS)
            _apply(root, action, name, body)
            time.sleep(TICKS)
            report = build_index(vault, memory=memory)
            fresh = Path(tmp) / f"fresh{i}"
            shutil.copytree(root, fresh, ignore=shutil.ignore_patterns(".harness"))
            expected = build_index(Vault.open(fresh), full=True, memory=memory)
            assert index_layers(root) == index_layers(fresh), f"step {i}: {action} {name}"
            assert _build_maps(root) == _build_maps(fresh), f"step {i}"
            keys = {"notes", "headings", "links", "errors", "fallback_notes"}
            assert {k: report._asdict()[k] for k in keys} == {k: expected._asdict()[k] for k in keys}, f"step {i}"
        state = memory.get(str(vault.root))
        assert state is not None and state.walk.folders  # listings were kept (and so reused)


def test_a_one_shot_build_patches_the_first_middle_and_last_manifest_lines(tmp_path: Path) -> None:
    """`kh index build` in a new process after edits that keep the links: the one-shot path finds
    each changed note's manifest line by its path (the first, one inside, the last) and the
    result is a full build's."""
    memory = BuildMemory()
    root = tmp_path / "vault"
    vault = _built(root, memory=memory)
    paths = sorted(NOTES)
    for name in (paths[0], paths[3], paths[4], paths[-1]):
        with (root / name).open("a", encoding="utf-8") as handle:
            handle.write("\nan edit that changes no link\n")
    memory = BuildMemory()  # a new process
    report = build_index(vault, resident=False, memory=memory)
    assert report.reparsed == 4
    assert any(p.name.startswith("u") for p in (root / ".harness/index/cache").iterdir())  # the one-shot path
    fresh = tmp_path / "fresh"
    shutil.copytree(root, fresh, ignore=shutil.ignore_patterns(".harness"))
    if (root / ".harness" / "index.toml").exists():  # the index's settings come along
        (fresh / ".harness").mkdir()
        shutil.copy(root / ".harness" / "index.toml", fresh / ".harness" / "index.toml")
    expected = build_index(Vault.open(fresh), full=True, memory=memory)
    assert index_layers(root) == index_layers(fresh)
    assert _build_maps(root) == _build_maps(fresh)
    keys = {"notes", "headings", "links", "errors", "fallback_notes"}
    assert {k: report._asdict()[k] for k in keys} == {k: expected._asdict()[k] for k in keys}


def _equal_to_a_fresh_full_build(root: Path, fresh: Path, report: object, label: str) -> None:
    shutil.copytree(root, fresh, ignore=shutil.ignore_patterns(".harness"))
    if (root / ".harness" / "index.toml").exists():  # the index's settings come along
        (fresh / ".harness").mkdir()
        shutil.copy(root / ".harness" / "index.toml", fresh / ".harness" / "index.toml")
    expected = build_index(Vault.open(fresh), full=True)
    assert index_layers(root) == index_layers(fresh), label
    assert _build_maps(root) == _build_maps(fresh), label
    keys = {"notes", "headings", "links", "errors", "fallback_notes"}
    assert {k: report._asdict()[k] for k in keys} == {k: expected._asdict()[k] for k in keys}, label  # type: ignore[attr-defined]


@settings(max_examples=examples(0.3))
@given(STEPS, st.booleans())
def test_new_process_rebuilds_equal_a_full_build(steps: list[tuple[str, str, str]], standard_json: bool) -> None:
    """`kh index build` after each edit, in a new process each time: the one-shot path where it
    applies (links gained or lost included), the full incremental build otherwise. A new process
    has not loaded orjson, so its one-shot path writes with the standard library's json
    (`standard_json`); one that has, with orjson: the same bytes either way."""
    memory = BuildMemory()
    with tempfile.TemporaryDirectory(prefix="kh-new-") as tmp:
        root = Path(tmp) / "vault"
        vault = _built(root, memory=memory)
        for i, (action, name, body) in enumerate(steps):
            _apply(root, action, name, body)
            memory = BuildMemory()  # a new process
            with jsoncodec.standard_library_only(even_if_loaded=standard_json):
                report = build_index(vault, resident=False, memory=memory)
            _equal_to_a_fresh_full_build(root, Path(tmp) / f"fresh{i}", report, f"step {i}: {action} {name}")


def _one_shot_parts(root: Path) -> int:
    return sum(p.name.startswith("u") for p in (root / ".harness/index/cache").iterdir())


def test_a_link_gained_or_lost_by_a_plain_note_patches_its_targets_backlinks_in_one_shot(tmp_path: Path) -> None:
    memory = BuildMemory()
    root = tmp_path / "vault"
    vault = _built(root, "[index]\nmoc_names = false\n", memory=memory)  # Home a plain note, not a hub by its name
    # Home gains Note A and x/Dup, Note A loses Note B (and keeps nothing else)
    edits = {"Home.md": "[[技術]]\n\n[[Note A]] [[x/Dup]]\n", "Note A.md": "---\ntitle: Alpha\n---\n# Alpha\n"}
    for step, (name, text) in enumerate(edits.items()):
        write_note(root, name, text)
        memory = BuildMemory()
        report = build_index(vault, resident=False, memory=memory)
        assert _one_shot_parts(root) == step + 1 and report.reparsed == 1
        _equal_to_a_fresh_full_build(root, tmp_path / f"fresh{step}", report, name)
    manifest = {n["path"]: n for n in json.loads((root / ".harness/index/manifest.json").read_text())["notes"]}
    assert manifest["Note A.md"]["links_in"] == ["Deep/Note B.md", "Home.md", "MOC/技術.md"]
    assert manifest["x/Dup.md"]["links_in"] == ["Home.md"]
    assert manifest["Deep/Note B.md"]["links_in"] == ["MOC/GitHub CI.md"]


def test_a_link_to_an_index_note_takes_the_full_incremental_build(tmp_path: Path) -> None:
    """An index note's backlinks can decide where a cycle of index notes is entered (categories)."""
    memory = BuildMemory()
    root = tmp_path / "vault"
    vault = _built(root, memory=memory)
    write_note(root, "Home.md", "[[技術]]\n\n[[GitHub CI]]\n")
    memory = BuildMemory()
    report = build_index(vault, resident=False, memory=memory)
    assert _one_shot_parts(root) == 0
    _equal_to_a_fresh_full_build(root, tmp_path / "fresh", report, "Home.md")


def test_a_new_process_finds_in_place_edits_without_listing_a_folder_once_the_folders_settled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A build saves the folders' listings (cache/walk.json); a folder changed in the last 3 s is
    not saved, so the test waits that long. Then a new process after in-place edits stats the
    notes and lists no folder, and its index is a full build's."""
    memory = BuildMemory()
    root = tmp_path / "vault"
    vault = _built(root, memory=memory)
    time.sleep(3.1)  # WalkMemory.settle_ns
    memory = BuildMemory()
    build_index(vault, resident=False, memory=memory)  # lists every folder again and saves their listings
    saved = json.loads((root / ".harness/index/cache/walk.json").read_bytes())
    assert set(saved["folders"]) == {"", "MOC", "Deep", "x", "y"}
    for name in ("Home.md", "Deep/Note B.md"):
        with (root / name).open("a", encoding="utf-8") as handle:
            handle.write("\nan edit in place\n")

    def no_walk(*args: object, **kwargs: object) -> object:
        raise AssertionError("a folder was listed")

    monkeypatch.setattr(vault_paths, "list_note_files", no_walk)
    staleness = check_index(vault)  # the sidecar's staleness answer takes the same way
    assert (staleness.status, staleness.changed, staleness.added, staleness.removed) == (
        "stale",
        ["Deep/Note B.md", "Home.md"],
        [],
        [],
    )
    memory = BuildMemory()
    report = build_index(vault, resident=False, memory=memory)
    assert check_index(vault).status == "fresh"
    assert report.reparsed == 2 and _one_shot_parts(root) == 1
    _equal_to_a_fresh_full_build(root, tmp_path / "fresh", report, "in-place edits")
    monkeypatch.undo()
    write_note(root, "x/Added.md", "# Added\n")  # a folder changed: the walk lists it
    memory = BuildMemory()
    assert check_index(vault).added == ["x/Added.md"]
    report = build_index(vault, resident=False, memory=memory)
    _equal_to_a_fresh_full_build(root, tmp_path / "fresh2", report, "a note added")


def _stamps_are_the_files_stamps(root: Path) -> None:
    """build.json's files: every note, each with its size and mtime as the file has them now."""
    files = json.loads((root / ".harness/index/build.json").read_text())["files"]
    notes = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.md") if ".harness" not in p.parts)
    assert sorted(files) == notes
    assert files == {p: [(root / p).stat().st_size, (root / p).stat().st_mtime_ns] for p in files}


@pytest.mark.parametrize("standard_json", [True, False])
def test_a_one_shot_build_patches_build_json_entry_by_entry_and_never_inside_another_name(
    tmp_path: Path, standard_json: bool
) -> None:
    """`0"a.md` sorts before `a.md` and, written as JSON, holds `"a.md":` after an escaped quote;
    with the same stamp as a.md it is the first text that matches a.md's entry: it stays as it was."""
    memory = BuildMemory()
    root = tmp_path / "vault"
    vault = _built(root, memory=memory)
    for name in ('0"a.md', "a.md"):
        write_note(root, name, "# same\n")
        os.utime(root / name, ns=(1_700_000_000_000_000_000, 1_700_000_000_000_000_000))
    memory = BuildMemory()
    build_index(
        vault, resident=False, memory=memory
    )  # as `kh index build` does: build.json holds the manifest's digest
    with (root / "a.md").open("a", encoding="utf-8") as handle:
        handle.write("edited\n")
    memory = BuildMemory()  # a new process
    with jsoncodec.standard_library_only(even_if_loaded=standard_json):
        report = build_index(vault, resident=False, memory=memory)
    assert report.reparsed == 1 and _one_shot_parts(root) == 1
    _stamps_are_the_files_stamps(root)
    _equal_to_a_fresh_full_build(root, tmp_path / "fresh", report, "a.md edited")


def test_a_build_json_rewritten_by_another_tool_still_gives_a_one_shot_build_its_exact_build_json(
    tmp_path: Path,
) -> None:
    memory = BuildMemory()
    root = tmp_path / "vault"
    vault = _built(root, memory=memory)
    build_json = root / ".harness/index/build.json"
    build_json.write_text(json.dumps(json.loads(build_json.read_text()), indent=1) + "\n")  # same values, spaced
    with (root / "Home.md").open("a", encoding="utf-8") as handle:
        handle.write("edited\n")
    memory = BuildMemory()
    with jsoncodec.standard_library_only(even_if_loaded=True):
        report = build_index(vault, resident=False, memory=memory)
    assert report.reparsed == 1 and _one_shot_parts(root) == 1
    assert b'"files":{"' in build_json.read_bytes()  # written compact again, as a full build writes it
    _stamps_are_the_files_stamps(root)
    _equal_to_a_fresh_full_build(root, tmp_path / "fresh", report, "Home.md edited")


def test_after_a_build_in_the_sidecar_a_new_process_patches_the_index_in_one_shot(tmp_path: Path) -> None:
    """The sidecar's build leaves the manifest's digest in build.json, which a new `kh index
    build` process checks before patching the manifest."""
    memory = BuildMemory()
    root = tmp_path / "vault"
    vault = _built(root, memory=memory)
    for step, name in enumerate(("Home.md", "Note A.md")):
        with (root / name).open("a", encoding="utf-8") as handle:
            handle.write("one more line\n")
        if step == 0:
            build_index(vault, memory=memory)  # warm, in this process, as the sidecar builds
            continue
        memory = BuildMemory()  # a new process
        report = build_index(vault, resident=False, memory=memory)
        assert report.reparsed == 1 and _one_shot_parts(root) == 1
        _equal_to_a_fresh_full_build(root, tmp_path / "fresh", report, name)
