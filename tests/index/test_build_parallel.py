"""Building with worker processes (the CLI's choice): the same bytes as one process, staging cleaned up.

Workers parse, resolve links and write note layers straight into a staging folder; these tests
lower the threshold so small vaults take that path, and compare with single-process builds.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from tests.support.index_vaults import fresh_layers, index_layers, write_note

import knowledge_harness.index.build as build_module
import knowledge_harness.index.parsing as parsing_module
import knowledge_harness.index.reading as reading_module
from knowledge_harness.index.build import build_index, note_id
from knowledge_harness.index.build_state import BuildMemory
from knowledge_harness.index.query import check_index
from knowledge_harness.vault.paths import NoteFile, Vault

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def parallel_for_small_vaults(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parsing_module, "PARALLEL_MIN_NOTES", 2)


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    v = tmp_path / "v"
    shutil.copytree(REPO / "examples" / "vault", v, ignore=shutil.ignore_patterns(".harness"))
    write_note(v, "MOC/索引.md", "---\ntype: moc\n---\n# 索引\n\n- [[ホーム]]\n- [[Missing]]\n")
    for i in range(40):
        write_note(
            v, f"gen/ノート{i:02}.md", f"# ノート {i}\n\n## 節\n\n[[ノート{(i + 1) % 40:02}]] [[索引]] #tag{i % 3}\n"
        )
    return v


def _stagings(vault: Path) -> list[str]:
    harness = vault / ".harness"
    return sorted(p.name for p in harness.iterdir() if p.name.startswith(".index-new-")) if harness.is_dir() else []


def test_a_parallel_first_build_writes_the_same_bytes_as_one_process(vault: Path, tmp_path: Path) -> None:
    report = build_index(Vault.open(vault), full=True, workers=2)
    assert report.reparsed == report.notes > 70
    assert index_layers(vault) == fresh_layers(vault, tmp_path, "one")
    assert _stagings(vault) == []
    assert check_index(Vault.open(vault)).fresh


def test_a_parallel_rebuild_over_an_existing_index_moves_only_changed_layers(vault: Path, tmp_path: Path) -> None:
    memory = BuildMemory()
    v = Vault.open(vault)
    build_index(v, workers=1, memory=memory)
    layer = vault / ".harness" / "index" / "notes" / f"{note_id('gen/ノート05.md')}.json"
    untouched_inode = layer.stat().st_ino
    for i in range(0, 40, 2):
        write_note(vault, f"gen/ノート{i:02}.md", f"# 改訂 {i}\n\n[[ホーム]]\n")
    (vault / "gen" / "ノート39.md").unlink()
    memory = BuildMemory()  # a new process: the previous build comes from disk
    report = build_index(v, workers=2, memory=memory)
    assert report.reparsed == 20 and report.removed == 1
    assert index_layers(vault) == fresh_layers(vault, tmp_path, "one")
    assert layer.stat().st_ino == untouched_inode  # an unchanged layer is not rewritten
    assert _stagings(vault) == []
    cache = sorted(p.name for p in (vault / ".harness" / "index" / "cache").iterdir())
    assert cache[-1] == "r.jsonl" and all(name.startswith("c") for name in cache[:-1])
    memory = BuildMemory()  # the chunk parts and the rest part hold every note's line
    assert build_index(v, workers=1, memory=memory).reparsed == 0
    assert index_layers(vault) == fresh_layers(vault, tmp_path, "two")


def test_a_full_parallel_rebuild_equals_a_single_process_one(vault: Path, tmp_path: Path) -> None:
    memory = BuildMemory()
    v = Vault.open(vault)
    build_index(v, workers=2, memory=memory)
    write_note(vault, "gen/ノート07.md", "Setext\n===\n\n[[gen/ノート08]]\n")
    build_index(v, full=True, workers=2, memory=memory)
    assert index_layers(vault) == fresh_layers(vault, tmp_path, "one")


def test_the_same_process_keeps_building_incrementally_after_a_parallel_build(vault: Path, tmp_path: Path) -> None:
    """Notes a helper parsed come back light; later builds read the rest from its cache part."""
    memory = BuildMemory()
    v = Vault.open(vault)
    build_index(v, full=True, workers=2, memory=memory)
    write_note(vault, "新しい.md", "# 新しい\n\n[[ノート03]]\n")  # changes the set of paths: links re-resolve
    os.utime(vault / "gen" / "ノート04.md", ns=(1, 2_000_000_000))  # touched, same bytes: restamped
    (vault / "gen" / "ノート10.md").unlink()  # links to it become unresolved
    build_index(v, workers=1, memory=memory)
    assert index_layers(vault) == fresh_layers(vault, tmp_path, "one")
    memory = BuildMemory()
    build_index(v, workers=1, memory=memory)  # and from the cache parts the parallel build wrote
    assert index_layers(vault) == fresh_layers(vault, tmp_path, "two")


def test_a_small_edit_after_a_parallel_build_defers_the_cache_and_a_new_process_agrees(
    vault: Path, tmp_path: Path
) -> None:
    memory = BuildMemory()
    v = Vault.open(vault)
    build_index(v, full=True, workers=2, memory=memory)
    write_note(vault, "gen/ノート12.md", "# 十二\n\n[[ノート13]]\n")
    assert build_index(v, workers=1, memory=memory).reparsed == 1  # in memory: the cache parts are left as they are
    assert index_layers(vault) == fresh_layers(vault, tmp_path, "one")
    memory = BuildMemory()
    assert build_index(v, workers=1, memory=memory).reparsed == 1  # its stale cache line is caught by its hash
    assert index_layers(vault) == fresh_layers(vault, tmp_path, "two")


def test_a_note_that_cannot_be_read_in_a_worker_is_reported_and_links_re_resolve(
    vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory = BuildMemory()
    real_read = reading_module.read_note_bytes

    def failing_read(fs: NoteFile) -> tuple[bytes | None, str]:
        if fs.path == "gen/ノート10.md":
            raise PermissionError(13, "Permission denied")
        return real_read(fs)

    monkeypatch.setattr(reading_module, "read_note_bytes", failing_read)  # workers are forked: they inherit it
    report = build_index(Vault.open(vault), full=True, workers=2, memory=memory)
    assert [e["path"] for e in report.errors if "Cannot read" in e["message"]] == ["gen/ノート10.md"]
    parallel = index_layers(vault)
    expected_vault = tmp_path / "expected"
    shutil.copytree(vault, expected_vault, ignore=shutil.ignore_patterns(".harness"))
    (expected_vault / "gen" / "ノート10.md").unlink()
    build_index(Vault.open(expected_vault), full=True, workers=1, memory=memory)
    assert parallel == index_layers(expected_vault)  # the link to it is unresolved in ノート09's layer
    assert _stagings(vault) == []


@pytest.mark.parametrize("stage", ["parsing in a worker", "deriving categories in the parent"])
def test_a_parallel_build_that_fails_leaves_the_previous_index_and_no_staging(
    vault: Path, monkeypatch: pytest.MonkeyPatch, stage: str
) -> None:
    memory = BuildMemory()
    v = Vault.open(vault)
    build_index(v, workers=1, memory=memory)
    before = index_layers(vault)
    real_parse = reading_module.parse_record_and_sections

    def crashing_parse(path: str, raw: bytes) -> tuple[dict[str, object], object]:
        if path == "gen/ノート20.md":
            raise RuntimeError("parser bug")
        return real_parse(path, raw)

    def crashing_categories(*args: object) -> object:
        raise RuntimeError("parser bug")

    if stage == "parsing in a worker":
        monkeypatch.setattr(reading_module, "parse_record_and_sections", crashing_parse)
    else:
        monkeypatch.setattr(build_module, "category_chains", crashing_categories)
    memory = BuildMemory()
    with pytest.raises(RuntimeError, match="parser bug"):
        build_index(v, full=True, workers=2, memory=memory)
    assert index_layers(vault) == before
    assert _stagings(vault) == []


def test_a_staging_folder_left_by_a_killed_build_is_removed_by_the_next(vault: Path, tmp_path: Path) -> None:
    harness = vault / ".harness"
    harness.mkdir()
    proc = subprocess.Popen(["true"])  # a pid that has exited
    proc.wait()
    leftover = harness / f".index-new-{proc.pid}-abc123"
    (leftover / "notes").mkdir(parents=True)
    (leftover / "notes" / "half.json").write_text("{")
    alive = harness / f".index-new-{os.getpid()}-live"  # an owner still running: kept
    alive.mkdir()
    build_index(Vault.open(vault), full=True, workers=2)
    assert not leftover.exists() and alive.exists()
    assert index_layers(vault) == fresh_layers(vault, tmp_path, "one")


def test_a_large_build_in_one_process_stages_its_files_and_keeps_each_record_once(
    vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sidecar parses in its own process: with many notes (here the lowered threshold) its
    layers and cache lines go to the staging folder as they are made, and each note keeps only its
    cache line, from which a later rebuild unpacks it, with the bytes of a small build."""
    memory = BuildMemory()
    memory = BuildMemory()
    v = Vault.open(vault)
    build_index(v, full=True, workers=1, memory=memory)
    assert _stagings(vault) == []
    monkeypatch.setattr(parsing_module, "PARALLEL_MIN_NOTES", 10_000)  # the copy: one process, nothing staged
    assert index_layers(vault) == fresh_layers(vault, tmp_path, "small")
    cache = vault / ".harness/index/cache"
    assert sorted(p.name for p in cache.iterdir()) == ["r.jsonl"]
    assert (cache / "r.jsonl").read_bytes() == (tmp_path / "small/.harness/index/cache/r.jsonl").read_bytes()
    state = memory.get(str(v.root))
    assert state is not None and all(note.parsed.record_json is None for note in state.notes.values())
    # a warm rebuild that needs the records (a renamed note re-resolves every link) unpacks them
    (vault / "gen/ノート05.md").rename(vault / "gen/ノート05b.md")
    build_index(v, workers=1, memory=memory)
    assert index_layers(vault) == fresh_layers(vault, tmp_path, "renamed")
