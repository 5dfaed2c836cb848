"""What search keeps in memory (bounded, clearable), the layers of vanished vaults, and the layer
brought in step by a build through the sidecar."""

from __future__ import annotations

import dataclasses
import os
import sqlite3
import threading
import time
from contextlib import closing
from pathlib import Path

import pytest
from tests.conftest import start_sidecar, stop_sidecar
from tests.support.index_vaults import write_note

from knowledge_harness.index import query, search
from knowledge_harness.index.build import build_index
from knowledge_harness.index.vault_index import VaultIndex
from knowledge_harness.vault.paths import Vault


def _vault(root: Path, word: str) -> Vault:
    write_note(root, "Notes/Only.md", f"# About {word}\nA note on {word}.\n")
    write_note(root, "Notes/Other.md", "# Something else\nNothing to see.\n")
    handle = Vault.open(root)
    build_index(handle)
    return handle


def _layer_manifest(location: Path) -> str | None:
    with closing(sqlite3.connect(f"{location.as_uri()}?mode=ro", uri=True)) as db:
        try:
            row = db.execute("SELECT value FROM meta WHERE key = 'manifest'").fetchone()
        except sqlite3.OperationalError:  # the file is there, its tables not yet (the sidecar is making them)
            return None
    return None if row is None else str(row[0])


def test_each_vault_index_holds_its_vault_alone_and_clear_empties_it(tmp_path: Path) -> None:
    words = ["quillwort", "zyzzogeton", "bladderwrack"]
    vaults = [_vault(tmp_path / f"v{k}", w) for k, w in enumerate(words)]
    indexes = [VaultIndex(handle) for handle in vaults]
    for _ in range(2):
        for handle, ix, word in zip(vaults, indexes, words, strict=True):
            assert [h.path for h in query.search(handle, word, index=ix).hits] == ["Notes/Only.md"]
            assert len(ix.search.layers) == 1
            assert len(ix.query.manifests) == 1 and len(ix.query.staleness) == 1
    with pytest.raises(ValueError, match="was given for the vault"):
        query.search(vaults[1], words[1], index=indexes[0])
    ix = indexes[0]
    assert set(ix.sizes().values()) != {0}
    ix.clear()
    assert not ix.search.layers and not ix.query.manifests and not ix.query.staleness
    assert set(ix.sizes().values()) == {0}
    assert [h.path for h in query.search(vaults[0], words[0], index=ix).hits] == ["Notes/Only.md"]
    for ix in indexes:
        ix.close()


def test_the_layer_of_a_vault_that_is_gone_is_pruned(tmp_path: Path) -> None:
    gone, kept = _vault(tmp_path / "gone", "quillwort"), _vault(tmp_path / "kept", "bladderwrack")
    query.search(gone, "quillwort")
    query.search(kept, "bladderwrack")
    gone_layer, kept_layer = search.layer_path(gone), search.layer_path(kept)
    assert gone_layer.exists() and kept_layer.exists()
    for path in sorted(gone.root.rglob("*"), reverse=True):
        path.unlink() if path.is_file() else path.rmdir()
    gone.root.rmdir()
    assert [h.path for h in query.search(kept, "bladderwrack").hits] == ["Notes/Only.md"]
    assert not gone_layer.exists() and kept_layer.exists()


def test_a_build_through_the_sidecar_brings_the_search_layer_in_step(tmp_path: Path) -> None:
    handle = _vault(tmp_path / "v", "quillwort")
    running = start_sidecar(handle.root)
    try:
        with running.client() as client:
            assert client.get("/v1/index/search", params={"q": "quillwort"}).json()["hits"]
            write_note(handle.root, "Notes/Other.md", "# Something else\nNow about bladderwrack.\n")
            assert client.post("/v1/index/build").status_code == 200
            manifest = handle.harness_dir / "index" / "manifest.json"
            st = manifest.stat()
            key = f"{st.st_size}:{st.st_mtime_ns}"
            # no search in between: the build itself starts bringing the layer in step
            deadline = time.monotonic() + 60
            while _layer_manifest(search.layer_path(handle)) != key and time.monotonic() < deadline:
                time.sleep(0.1)
            assert _layer_manifest(search.layer_path(handle)) == key
            hits = client.get("/v1/index/search", params={"q": "bladderwrack"}).json()["hits"]
            assert [h["path"] for h in hits] == ["Notes/Other.md"]
    finally:
        stop_sidecar(running)


def test_the_sidecar_brings_the_search_layer_in_step_at_start_up_without_a_query(tmp_path: Path) -> None:
    handle = _vault(tmp_path / "v", "quillwort")
    layer = search.layer_path(handle)
    assert not layer.exists()  # the build alone (outside the sidecar) makes no search layer
    st = (handle.harness_dir / "index" / "manifest.json").stat()
    key = f"{st.st_size}:{st.st_mtime_ns}"
    running = start_sidecar(handle.root)
    try:
        deadline = time.monotonic() + 60
        while not (layer.exists() and _layer_manifest(layer) == key) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _layer_manifest(layer) == key
        with closing(sqlite3.connect(f"{layer.as_uri()}?mode=ro", uri=True)) as db:
            stored = sorted(str(p) for (p,) in db.execute("SELECT path FROM notes"))
        assert stored == ["Notes/Only.md", "Notes/Other.md"]
    finally:
        stop_sidecar(running)


def test_a_sidecar_on_a_vault_without_an_index_starts_and_makes_no_search_layer(tmp_path: Path) -> None:
    root = tmp_path / "v"
    write_note(root, "Notes/Only.md", "# About quillwort\n")
    running = start_sidecar(root)
    try:
        with running.client() as client:
            answer = client.get("/v1/index/search", params={"q": "quillwort"})  # plain search, no layer
            assert answer.status_code == 200 and answer.json()["fallback"] == "plain"
        assert not search.layer_path(Vault.open(root)).exists()
    finally:
        stop_sidecar(running)


def test_a_cjk_name_inside_the_query_counts_as_a_word(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "v"
    write_note(root, "外观/主题.md", "# 主题\n更改应用的外观与配色。\n")
    write_note(root, "外观/colors.md", "# Colors\n自定义主题颜色。自定义主题的方法：自定义主题。\n")
    write_note(root, "其他/笔记.md", "# 笔记\n无关的内容。\n")
    handle = Vault.open(root)
    build_index(handle)
    # 自定义主题 ("custom theme") holds the whole name of the note 主题 ("theme")
    assert [h.path for h in query.search(handle, "自定义主题").hits] == ["外观/主题.md", "外观/colors.md"]
    monkeypatch.setattr(search, "NAME_PART", 0.0)  # without the rule, bigrams alone rank the other first
    assert query.search(handle, "自定义主题").hits[0].path == "外观/colors.md"


def test_a_warmed_layer_is_warmed_again_after_a_build_by_another_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A layer warmed in this process (a sidecar's) is warmed again in the background when a
    search finds the index rebuilt elsewhere (kh index build); a layer never warmed is not."""
    monkeypatch.setattr(search, "REMEMBER_ROWS", 1)

    def warm_threads() -> list[threading.Thread]:
        return [t for t in threading.enumerate() if t.name == "kh-search-warm"]

    cold = _vault(tmp_path / "cold", "quillwort")
    cold_index = VaultIndex(cold)
    query.search(cold, "quillwort", index=cold_index)
    write_note(cold.root, "Notes/New.md", "# New\nquillwort again.\n")
    build_index(cold)
    query.search(cold, "quillwort", index=cold_index)
    assert cold_index.search.open_layer(cold).needs_warm  # synced, and no warm was started for it
    cold_index.close()
    for k in range(4):  # a term in fewer than half the notes is remembered
        write_note(tmp_path / "v", f"Notes/Filler {k}.md", f"# Filler {k}\nplain words.\n")
    handle = _vault(tmp_path / "v", "quillwort")
    ix = VaultIndex(handle)
    query.warm_search(handle, index=ix)
    layer = ix.search.open_layer(handle)
    assert layer.remembered_rows() > 0
    write_note(handle.root, "Notes/New.md", "# New\nquillwort again.\n")
    build_index(handle)  # as another process would: the sidecar learns of it at the next search
    assert [h.path for h in query.search(handle, "again", index=ix).hits] == ["Notes/New.md"]
    for thread in warm_threads():
        thread.join(timeout=60)
    # a term the query did not ask was remembered again (the build made the layer forget all)
    assert {term for _, term in layer._postings_of} >= {"quillwort"} and not layer.needs_warm
    ix.close()


def test_warming_after_a_build_answers_staleness_for_the_new_index(tmp_path: Path) -> None:
    """The sidecar warms the search layer after each build; it also answers staleness for the new
    manifest then, so that the first search after the build does not walk the vault."""
    handle = _vault(tmp_path / "v", "quillwort")
    ix = VaultIndex(handle)
    query.warm_search(handle, index=ix)
    key = query._manifest_key(handle)
    answer = ix.query.staleness[str(handle.root)]
    assert answer.manifest_key == key and answer.report == query.check_index(handle)
    write_note(handle.root, "Notes/Only.md", "# About quillwort\nEdited after the build.\n")
    write_note(handle.root, "Notes/Added.md", "# Added\n")
    query.warm_search(handle, index=ix)  # the same index: the answer it has stands until the throttle renews it
    assert ix.query.staleness[str(handle.root)] is answer
    build_index(handle, memory=ix.build)
    query.warm_search(handle, index=ix)
    renewed = ix.query.staleness[str(handle.root)]
    assert renewed.manifest_key == query._manifest_key(handle) != key
    assert renewed.report.fresh and renewed.report == query.check_index(handle)
    ix.close()


def _renewed(handle: Vault, ix: VaultIndex) -> None:
    deadline = time.monotonic() + 30
    while str(handle.root) in ix.query.refreshing and time.monotonic() < deadline:
        time.sleep(0.01)


def test_the_first_search_after_a_build_takes_the_builds_own_answer_and_renews_it_as_any(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Right after a build (another process's, or the sidecar's), the vault-wide staleness is the
    build's own: the vault was its index when scanned. A scan renews it in the background once it
    is STALENESS_SECONDS old, as the throttle renews any answer; a hit's own note is always
    checked exactly."""
    monkeypatch.setattr(query, "STALENESS_SECONDS", 60.0)  # a slow machine never makes the build too old
    handle = _vault(tmp_path / "v", "quillwort")
    ix = VaultIndex(handle)
    write_note(handle.root, "Notes/Other.md", "# Something else\nEdited after the build.\n")
    first = query.search(handle, "quillwort", index=ix)
    assert [h.path for h in first.hits] == ["Notes/Only.md"]
    assert (first.stale, first.changed) == (False, [])  # as built: no scan held this search up
    assert str(handle.root) not in ix.query.refreshing  # nor runs beside it
    root = str(handle.root)
    answer = ix.query.staleness[root]
    ix.query.staleness[root] = dataclasses.replace(answer, checked_at=answer.checked_at - 61)  # a minute on
    assert query.search(handle, "quillwort", index=ix).changed == []  # the old answer, while the scan renews it
    _renewed(handle, ix)
    later = query.search(handle, "quillwort", index=ix)
    assert (later.stale, later.changed) == (True, ["Notes/Other.md"])
    ix.close()


def test_an_older_build_or_one_with_problems_is_checked_before_the_first_search_answers(tmp_path: Path) -> None:
    handle = _vault(tmp_path / "v", "quillwort")
    write_note(handle.root, "Notes/Other.md", "# Something else\nEdited after the build.\n")
    build_json = handle.root / ".harness/index/build.json"
    old = time.time() - 60
    os.utime(build_json, (old, old))  # built a minute ago: its answer is too old to stand in
    assert query.search(handle, "quillwort").changed == ["Notes/Other.md"]
    (handle.root / "Notes/Broken.md").write_bytes(b"\xff\xfe not UTF-8")  # the build reports it
    build_index(handle)
    write_note(handle.root, "Notes/Other.md", "# Something else\nEdited again.\n")
    assert query.search(handle, "quillwort").changed == ["Notes/Other.md"]


def test_a_query_across_the_term_memory_trim_keeps_its_own_terms(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The remembered term counts are cleared when they would pass MAX_REMEMBERED_TERMS; a query
    with some terms remembered and some not, arriving right at that boundary, once lost its
    remembered terms to the trim and answered 500 (KeyError in _df)."""
    root = tmp_path / "v"
    write_note(root, "Notes/Sync.md", "# 同期の競合を解決\n同期 の 競合 を 解決 する 方法。conflict resolution.\n")
    write_note(root, "Notes/Other.md", "# Something else\nNothing to see.\n")
    handle = Vault.open(root)
    build_index(handle)
    expected = [h.path for h in query.search(handle, "同期の競合を解決").hits]
    assert expected and expected[0] == "Notes/Sync.md"
    for limit in range(1, 12):  # every position of the boundary against the query's terms
        ix = VaultIndex(handle)
        monkeypatch.setattr(search, "MAX_REMEMBERED_TERMS", limit)
        assert [h.path for h in query.search(handle, "競合", index=ix).hits] == ["Notes/Sync.md"]  # one term remembered
        assert [h.path for h in query.search(handle, "同期の競合を解決", index=ix).hits] == expected
        assert next(h.path for h in query.search(handle, "conflict 同期 resolution", index=ix).hits) == "Notes/Sync.md"
        ix.close()
