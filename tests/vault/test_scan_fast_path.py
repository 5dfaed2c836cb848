"""list_note_files' plain pass and its WalkMemory list exactly what the walk listed before them.

The oracle is the walk as it was before the plain pass (every entry in name order, one rule at a
time), kept here verbatim. Random vaults mix what the passes must agree on: hidden and excluded
folders, symbolic links (inside, into `.git`, out of the vault, looping, dangling), NFC and NFD
Japanese names that collide, `.md` in other cases, names the doors refuse, names that are not
UTF-8, paths longer than the limit; a note that vanishes between the listing and its stat; and,
for WalkMemory, edits, additions, removals and renames between two walks.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
import time
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from knowledge_harness.vault import paths
from knowledge_harness.vault.paths import (
    EXCLUDED_DIRS,
    MAX_PATH_BYTES,
    NOTE_SUFFIX,
    NoteFile,
    ScanProblem,
    Vault,
    WalkMemory,
    changed_notes_if_no_folder_changed,
    internal_folder,
    list_note_files,
    printable_path,
    unservable_name,
)
from tests.support.examples import examples


def _walk_before_the_plain_pass(vault: Vault, problems: list[ScanProblem]) -> list[NoteFile]:
    """list_note_files as it was before the plain pass and WalkMemory: the oracle."""
    sink = problems
    root = str(vault.root)
    prefix = root if root.endswith("/") else root + "/"
    cut = len(prefix)
    normalize = unicodedata.normalize

    def rel(disk: str) -> str:
        return "." if disk == root else normalize("NFC", disk[cut:])

    found: dict[str, NoteFile] = {}
    visited_dirs: set[tuple[int, int]] = set()
    stack: list[str] = [root]
    while stack:
        folder = stack.pop()
        try:
            st_ = os.stat(folder)
        except OSError as exc:
            sink.append(ScanProblem(rel(folder), f"Cannot read folder: {exc.strerror}."))
            continue
        key = (st_.st_dev, st_.st_ino)
        if key in visited_dirs:
            sink.append(ScanProblem(rel(folder), "Folder reached twice (symbolic link loop); skipped."))
            continue
        visited_dirs.add(key)
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            sink.append(ScanProblem(rel(folder), f"Cannot list folder: {exc.strerror}."))
            continue
        for entry in entries:
            name = entry.name
            if name[0] == "." or name in EXCLUDED_DIRS:
                continue
            disk = entry.path
            if not name.isascii() and not paths._is_utf8_name(name):
                sink.append(ScanProblem(printable_path(rel(disk)), "The name is not valid UTF-8; skipped."))
                continue
            if paths._UNSERVABLE.search(name) is not None:
                why = unservable_name(name)
                if why is not None:
                    if name.endswith(NOTE_SUFFIX) or entry.is_dir():
                        sink.append(ScanProblem(paths._shown(rel(disk)), why))
                    continue
            try:
                if entry.is_symlink():
                    real = Path(disk).resolve()
                    if not real.is_relative_to(vault.root):
                        sink.append(ScanProblem(rel(disk), "Symbolic link leaves the vault; skipped."))
                        continue
                    inside = internal_folder(real.relative_to(vault.root).parts)
                    if inside is not None:
                        message = f"Symbolic link leads into {inside!r}, which is not part of the notes; skipped."
                        sink.append(ScanProblem(rel(disk), message))
                        continue
                if entry.is_dir():
                    stack.append(disk)
                    continue
                if not name.endswith(NOTE_SUFFIX) or not entry.is_file():
                    continue
                entry_stat = entry.stat()
            except (OSError, RuntimeError) as exc:
                sink.append(ScanProblem(rel(disk), f"Cannot read: {exc}."))
                continue
            path = normalize("NFC", disk[cut:])
            if len(path) * 4 > MAX_PATH_BYTES and len(path.encode("utf-8")) > MAX_PATH_BYTES:
                sink.append(ScanProblem(path, f"The path is longer than {MAX_PATH_BYTES} bytes; skipped."))
                continue
            if path in found:
                sink.append(
                    ScanProblem(path, "Two files have this name after Unicode NFC normalization; only one is used.")
                )
                continue
            found[path] = NoteFile(path, disk, entry_stat.st_size, entry_stat.st_mtime_ns)
    return [found[p] for p in sorted(found)]


GA_NFC = unicodedata.normalize("NFC", "が")
GA_NFD = unicodedata.normalize("NFD", "が")
FOLDERS = ["", "a", "a/b", GA_NFC, GA_NFD, f"{GA_NFC}/日記", "sub dir", ".hidden", "node_modules", "a/.git"]
NAMES: list[str | bytes] = [
    "n.md",
    "N.MD",
    "n.Md",
    "z.md",
    "a b.md",
    "a.md",
    f"{GA_NFC}.md",
    f"{GA_NFD}.md",
    "\u0301x.md",  # a combining mark first: composes with nothing after "/"
    "tab\t.md",
    "back\\slash.md",
    "50%.md",
    "a%20b.md",
    ".hid.md",
    "image.png",
    "x" * 250 + ".md",
    b"caf\xe9.md",  # Latin-1, not UTF-8
    "b",  # a folder name, when made a folder
]
KINDS = ["file", "file", "file", "dir", "link-file", "link-dir", "link-loop", "link-out", "link-git", "dangling"]


def _disk(root: Path, folder: str, name: str | bytes) -> bytes:
    base = os.fsencode(root / folder) if folder else os.fsencode(root)
    return base + b"/" + (name if isinstance(name, bytes) else os.fsencode(name))


def _make(root: Path, outside: Path, spec: list[tuple[int, int, int]]) -> None:
    for folder in FOLDERS:
        with contextlib.suppress(OSError):
            os.makedirs(_disk(root, folder, b"")[:-1], exist_ok=True)
    (root / ".git" / "config.md").parent.mkdir(exist_ok=True)
    (root / ".git" / "config.md").write_text("# not a note")
    (outside / "outside.md").write_text("# outside")
    for folder_i, name_i, kind_i in spec:
        target = _disk(root, FOLDERS[folder_i], NAMES[name_i])
        kind = KINDS[kind_i]
        with contextlib.suppress(OSError):
            if kind == "file":
                with open(target, "wb") as handle:
                    handle.write(b"# note\n" * (folder_i + name_i))
            elif kind == "dir":
                os.makedirs(target, exist_ok=True)
                with open(target + b"/inner.md", "wb") as handle:
                    handle.write(b"# inner\n")
            elif kind == "link-file":
                os.symlink(root / "a" / "n.md", target)
            elif kind == "link-dir":
                os.symlink(root / "a", target, target_is_directory=True)
            elif kind == "link-loop":
                os.symlink(root, target, target_is_directory=True)
            elif kind == "link-out":
                os.symlink(outside / "outside.md", target)
            elif kind == "link-git":
                os.symlink(root / ".git" / "config.md", target)
            else:
                os.symlink(root / "missing.md", target)
    with contextlib.suppress(OSError):  # a folder when the spec made one of that name
        (root / "a" / "n.md").write_text("# the note some links lead to\n")
    # always a collision across folders and one within a folder (NFC and NFD of the same name)
    # (and "solo.md" in the NFD folder alone, which the edit "twin" gives the NFC folder too)
    twins = ((GA_NFC, "n.md"), (GA_NFD, "n.md"), ("", f"{GA_NFC}.md"), ("", f"{GA_NFD}.md"), (GA_NFD, "solo.md"))
    for folder, name in twins:
        with contextlib.suppress(OSError), open(_disk(root, folder, name), "ab") as handle:
            handle.write(b"# twin\n")
    # and one folder of plain names alone, so that some folder always takes the plain pass
    (root / "plain").mkdir()
    (root / "plain" / "plain note.md").write_text("# plain\n")


def _both(vault: Vault, memory: WalkMemory | None = None) -> tuple[Any, Any]:
    before: list[ScanProblem] = []
    now: list[ScanProblem] = []
    expected = _walk_before_the_plain_pass(vault, before)
    got = list_note_files(vault, now, memory=memory)
    return (expected, before), (got, now)


@contextlib.contextmanager
def _vault() -> Iterator[tuple[Path, Path]]:
    with tempfile.TemporaryDirectory(prefix="kh-scan-") as tmp:
        root, outside = Path(tmp) / "vault", Path(tmp) / "outside"
        root.mkdir()
        outside.mkdir()
        yield root.resolve(), outside.resolve()


SPEC = st.lists(
    st.tuples(
        st.integers(0, len(FOLDERS) - 1),
        st.integers(0, len(NAMES) - 1),
        st.integers(0, len(KINDS) - 1),
    ),
    max_size=25,
)


@settings(max_examples=examples(1))
@given(SPEC)
def test_the_walk_lists_what_the_walk_before_the_plain_pass_listed(spec: list[tuple[int, int, int]]) -> None:
    with _vault() as (root, outside):
        _make(root, outside, spec)
        expected, got = _both(Vault.open(root))
        assert got == expected


EDITS = st.lists(
    st.tuples(st.sampled_from(["append", "remove", "add", "rename", "mkdir", "rmdir", "twin"]), st.integers(0, 10_000)),
    min_size=1,
    max_size=4,
)


def _edit(root: Path, edits: list[tuple[str, int]]) -> None:
    notes = sorted(p for p in root.rglob("*.md") if ".git" not in p.parts and not p.is_symlink())
    folders = sorted(p for p in root.rglob("*") if p.is_dir() and not p.is_symlink() and ".git" not in p.parts)
    for action, pick in edits:
        with contextlib.suppress(OSError):
            if action == "append" and notes:
                with notes[pick % len(notes)].open("a") as handle:
                    handle.write("one more line\n")
            elif action == "remove" and notes:
                notes[pick % len(notes)].unlink()
            elif action == "add" and folders:
                (folders[pick % len(folders)] / f"new {pick}.md").write_text("# new\n")
            elif action == "rename" and notes:
                note = notes[pick % len(notes)]
                note.rename(note.with_name(f"renamed {pick}.md"))
            elif action == "mkdir" and folders:
                (folders[pick % len(folders)] / f"folder {pick}").mkdir()
                (folders[pick % len(folders)] / f"folder {pick}" / "inside.md").write_text("# inside\n")
            elif action == "twin":  # the NFC folder, walked first, takes a path the NFD folder holds
                (root / GA_NFC / "solo.md").write_text("# the NFC twin\n")
            elif action == "rmdir" and len(folders) > 1:
                shutil.rmtree(folders[1 + pick % (len(folders) - 1)])


# A folder's timestamps change in clock ticks (a few ms): a pause of several ticks between making
# the vault, walking it and editing it lets every edit change its folder's stamp.
TICKS = 0.03


@settings(max_examples=examples(0.5))
@given(SPEC, EDITS, EDITS)
def test_a_walk_with_memory_lists_what_a_fresh_walk_lists_after_edits(
    spec: list[tuple[int, int, int]], first: list[tuple[str, int]], second: list[tuple[str, int]]
) -> None:
    with _vault() as (root, outside):
        _make(root, outside, spec)
        vault = Vault.open(root)
        memory = WalkMemory(settle_ns=0)  # every folder's listing is kept: the pauses stand in for settling
        time.sleep(TICKS)
        expected, got = _both(vault, memory)
        assert got == expected
        # some folder took the plain pass and was kept, unless a link to "a" took its place (a
        # folder reached through a link is never kept)
        assert memory.folders or any(KINDS[kind] == "link-dir" for *_, kind in spec)
        for edits in (first, second, []):
            time.sleep(TICKS)
            _edit(root, edits)
            time.sleep(TICKS)
            expected, got = _both(vault, memory)
            assert got == expected


def test_a_folder_changed_within_the_settling_time_is_listed_again(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "one.md").write_text("# one")
    vault = Vault.open(tmp_path)
    memory = WalkMemory()  # the default: folders changed in the last seconds are not kept
    list_note_files(vault, memory=memory)
    assert memory.folders == {}
    settled = WalkMemory(settle_ns=0)
    time.sleep(TICKS)
    list_note_files(vault, memory=settled)
    assert set(settled.folders) == {str(vault.root), str(vault.root / "a")}
    (tmp_path / "a" / "one.md").write_text("# one, edited in place: its folder's stamp stays")
    (tmp_path / "a" / "two.md").write_bytes(b"")
    time.sleep(TICKS)
    assert [(f.path, f.size) for f in list_note_files(vault, memory=settled)] == [
        ("a/one.md", len("# one, edited in place: its folder's stamp stays")),
        ("a/two.md", 0),
    ]


def test_a_note_that_vanishes_between_listing_and_stat(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The listing still names the note, its stat fails: both walks report it the same way."""
    (tmp_path / "keep.md").write_text("# keep")
    victim = tmp_path / "gone.md"
    real_scandir = os.scandir

    def listing_then_unlink(path: Any) -> Any:
        with real_scandir(path) as it:
            entries = list(it)
        victim.unlink(missing_ok=True)
        return contextlib.nullcontext(iter(entries))

    monkeypatch.setattr(os, "scandir", listing_then_unlink)
    vault = Vault.open(tmp_path)
    before: list[ScanProblem] = []
    victim.write_text("# gone")
    expected = _walk_before_the_plain_pass(vault, before)
    for memory in (None, WalkMemory(settle_ns=0)):
        now: list[ScanProblem] = []
        victim.write_text("# gone")
        assert list_note_files(vault, now, memory=memory) == expected
        assert now == before
    assert [f.path for f in expected] == ["keep.md"]
    assert [p.path for p in before] == ["gone.md"]


def _stats(notes: list[NoteFile]) -> dict[str, list[int]]:
    """What build.json keeps of a walk: each note's [size, mtime_ns]."""
    return {n.path: [n.size, n.mtime_ns] for n in notes}


@settings(max_examples=examples(0.5))
@given(SPEC, EDITS)
def test_a_saved_walk_gives_a_new_process_what_a_fresh_walk_gives(
    spec: list[tuple[int, int, int]], edits: list[tuple[str, int]]
) -> None:
    """`kh index build` runs in a new process: it walks with the memory the last build saved, or,
    when no folder changed, only stats the notes. Both agree with a fresh walk after edits."""
    with _vault() as (root, outside):
        _make(root, outside, spec)
        vault = Vault.open(root)
        memory = WalkMemory(settle_ns=0)
        time.sleep(TICKS)
        last = _stats(list_note_files(vault, memory=memory))
        saved = memory.saved(str(vault.root))
        time.sleep(TICKS)
        _edit(root, edits)
        time.sleep(TICKS)
        loaded = WalkMemory.loaded(saved, str(vault.root), last)
        loaded.settle_ns = 0
        expected, got = _both(vault, loaded)
        assert got == expected
        quick = changed_notes_if_no_folder_changed(str(vault.root), saved, last)
        if quick is not None:
            notes, problems = expected
            assert problems == []
            assert [n.path for n in notes] == list(last)
            assert quick == [n for n in notes if [n.size, n.mtime_ns] != last[n.path]]


def _plain_vault(root: Path) -> tuple[Vault, WalkMemory, dict[str, list[int]]]:
    for rel in ("a/one.md", "a/b/two.md", "日記/三.md", "top.md"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(f"# {rel}\n")
    vault = Vault.open(root)
    memory = WalkMemory(settle_ns=0)
    time.sleep(TICKS)
    return vault, memory, _stats(list_note_files(vault, memory=memory))


def test_with_no_folder_changed_only_the_edited_note_is_found_without_a_walk(tmp_path: Path) -> None:
    vault, memory, last = _plain_vault(tmp_path)
    saved = memory.saved(str(vault.root))
    assert changed_notes_if_no_folder_changed(str(vault.root), saved, last) == []
    with (tmp_path / "日記" / "三.md").open("a") as handle:
        handle.write("one more line\n")
    [changed] = changed_notes_if_no_folder_changed(str(vault.root), saved, last) or [None]
    assert changed is not None
    assert (changed.path, changed.size) == ("日記/三.md", len("# 日記/三.md\none more line\n".encode()))
    for rel in ("top.md", "a/b/two.md"):  # the root's note is stat-ed first, but comes last
        with (tmp_path / rel).open("a") as handle:
            handle.write("more\n")
    changed_now = changed_notes_if_no_folder_changed(str(vault.root), saved, last) or []
    assert [n.path for n in changed_now] == ["a/b/two.md", "top.md", "日記/三.md"]  # the walk's order
    time.sleep(TICKS)
    (tmp_path / "a" / "b" / "new.md").write_text("# new")  # a folder changed: the walk decides
    assert changed_notes_if_no_folder_changed(str(vault.root), saved, last) is None


@pytest.mark.parametrize(
    "forge",
    [
        lambda f: f[""][5].append("../outside"),  # a subfolder name that leaves its folder
        lambda f: f["a"][4].append("../../outside/secret.md"),  # a note name that does
        lambda f: f[""][5].extend(["a", "a"]),  # the same subfolder twice (a tree that doubles)
        lambda f: f["a"].__setitem__(4, "one.md"),  # not a list of names
        lambda f: f["a"].__setitem__(0, "1"),  # a stamp that is not a number
        lambda f: f["a"][4].append("notes.txt"),  # not a note
    ],
)
def test_a_forged_saved_walk_never_lists_a_file_a_fresh_walk_would_not(tmp_path: Path, forge: Any) -> None:
    vault_dir, outside = tmp_path / "vault", tmp_path / "outside"
    vault_dir.mkdir()
    outside.mkdir()
    (outside / "secret.md").write_text("# secret")
    vault, memory, last = _plain_vault(vault_dir)
    folders = json.loads(memory.saved(str(vault.root)))
    forge(folders["folders"])
    saved = json.dumps(folders).encode()
    forged_stats = {**last, "../outside/secret.md": [8, 0], "a/../../outside/secret.md": [8, 0], "a/notes.txt": [0, 0]}
    assert changed_notes_if_no_folder_changed(str(vault.root), saved, forged_stats) is None
    loaded = WalkMemory.loaded(saved, str(vault.root), forged_stats)
    expected, got = _both(vault, loaded)
    assert got == expected
    assert "secret" not in repr(got)


def test_a_saved_walk_never_reuses_a_folder_reached_through_a_link(tmp_path: Path) -> None:
    """A forged walk that names a link to a folder outside, with that folder's own stamp and
    notes, is not taken: the link is listed, and the careful pass refuses it."""
    vault_dir, outside = tmp_path / "vault", tmp_path / "outside"
    vault_dir.mkdir()
    outside.mkdir()
    (outside / "secret.md").write_text("# secret")
    vault, memory, last = _plain_vault(vault_dir)
    (vault_dir / "a" / "b" / "out").symlink_to(outside, target_is_directory=True)
    memory.folders = {}
    time.sleep(TICKS)
    list_note_files(vault, memory=memory)  # "a/b" now holds a link: its listing is careful, not kept
    saved = json.loads(memory.saved(str(vault.root)))
    st = os.stat(outside)
    saved["folders"]["a/b"] = [*_stamp(vault_dir / "a" / "b"), ["two.md"], ["out"]]
    saved["folders"]["a/b/out"] = [st.st_dev, st.st_ino, st.st_mtime_ns, st.st_ctime_ns, ["secret.md"], []]
    forged = json.dumps(saved).encode()
    stats = {**last, "a/b/out/secret.md": [8, (outside / "secret.md").stat().st_mtime_ns]}
    assert changed_notes_if_no_folder_changed(str(vault.root), forged, stats) is None
    problems: list[ScanProblem] = []
    got = list_note_files(vault, problems, memory=WalkMemory.loaded(forged, str(vault.root), stats))
    assert "a/b/out/secret.md" not in [n.path for n in got]
    assert [p.message for p in problems] == ["Symbolic link leaves the vault; skipped."]


def _stamp(folder: Path) -> tuple[int, int, int, int]:
    st = os.stat(folder)
    return st.st_dev, st.st_ino, st.st_mtime_ns, st.st_ctime_ns


def test_a_saved_walk_that_is_not_json_is_no_memory(tmp_path: Path) -> None:
    vault, _, last = _plain_vault(tmp_path)
    for data in (b"", b"{", b"[]", b'{"format": 99, "folders": {}}', b'{"format": 1, "folders": []}', None):
        assert WalkMemory.loaded(data, str(vault.root), last).folders == {}
        assert changed_notes_if_no_folder_changed(str(vault.root), data, last) is None


PLAIN = st.lists(
    st.tuples(st.sampled_from(["", "a", "a/b", "c", "日本語"]), st.sampled_from(["x.md", "y.md", "ノート.md"])),
    min_size=1,
    max_size=12,
)


@settings(max_examples=examples(0.5))
@given(PLAIN, st.lists(EDITS, min_size=1, max_size=3))
def test_a_walk_that_kept_every_folder_answers_again_with_fresh_stats_until_a_folder_changes(
    notes: list[tuple[str, str]], rounds: list[list[tuple[str, int]]]
) -> None:
    """A vault with no link and no name to decide: every folder is kept, so the next walk with that
    memory only stats the folders and notes (`_unchanged_walk`) until a folder changes; either
    way it lists what a fresh walk lists."""
    with _vault() as (root, _outside):
        for folder, name in notes:
            (root / folder).mkdir(parents=True, exist_ok=True)
            (root / folder / name).write_text(f"# {name}\n")
        vault = Vault.open(root)
        memory = WalkMemory(settle_ns=0)
        time.sleep(TICKS)
        assert list_note_files(vault, memory=memory) == list_note_files(vault)
        assert memory.whole is not None
        for edits in rounds:
            time.sleep(TICKS)
            _edit(root, edits)
            time.sleep(TICKS)
            assert list_note_files(vault, memory=memory) == list_note_files(vault)


def _folders_listed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The folders os.scandir lists from now on, in order."""
    listed: list[str] = []
    scandir = os.scandir
    monkeypatch.setattr(os, "scandir", lambda folder: listed.append(str(folder)) or scandir(folder))
    return listed


def test_an_edit_in_place_is_found_without_listing_a_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for folder in ("", "a", "a/b"):
        (tmp_path / folder).mkdir(parents=True, exist_ok=True)
        (tmp_path / folder / "n.md").write_text("# n\n")
    vault = Vault.open(tmp_path)
    memory = WalkMemory(settle_ns=0)
    time.sleep(TICKS)
    first = list_note_files(vault, memory=memory)
    with (tmp_path / "a" / "n.md").open("a") as handle:
        handle.write("one more line\n")
    listed = _folders_listed(monkeypatch)
    again = list_note_files(vault, memory=memory)
    assert listed == []
    assert again == list_note_files(vault) != first
    assert [n.size for n in again] == [(tmp_path / n.path).stat().st_size for n in again]
    (tmp_path / "a" / "new.md").write_text("# new\n")  # the folder changes: it is listed again
    listed.clear()
    walked = list_note_files(vault, memory=memory)
    assert [Path(folder).name for folder in listed] == ["a"]
    assert walked == list_note_files(vault)


def _nfd(text: str) -> str:
    return unicodedata.normalize("NFD", text)


def test_notes_and_folders_named_in_nfd_are_kept_and_listed_in_nfc(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # macOS writes Japanese names in NFD (デ as テ and a combining mark): such a vault takes the plain pass
    # and keeps its listings like any other, and its notes' paths are NFC
    for rel in ("データ/ブログ.md", "データ/下書き/ドラフト.md", "ノート.md"):
        disk = tmp_path / _nfd(rel)
        disk.parent.mkdir(parents=True, exist_ok=True)
        disk.write_text(f"# {rel}\n")
    assert _nfd("データ") != "データ"
    vault = Vault.open(tmp_path)
    memory = WalkMemory(settle_ns=0)
    time.sleep(TICKS)
    first = list_note_files(vault, memory=memory)
    assert [n.path for n in first] == ["データ/ブログ.md", "データ/下書き/ドラフト.md", "ノート.md"]
    assert first[0].disk == str(tmp_path / _nfd("データ/ブログ.md"))
    assert memory.whole is not None and len(memory.folders) == 3  # every folder kept
    with (tmp_path / _nfd("データ/ブログ.md")).open("a") as handle:
        handle.write("one more line\n")
    listed = _folders_listed(monkeypatch)
    again = list_note_files(vault, memory=memory)
    assert listed == []
    assert again == list_note_files(vault) != first
    # a new process: the saved walk finds the edited note without listing a folder, under its NFC path
    saved, last = memory.saved(str(vault.root)), _stats(again)
    with (tmp_path / _nfd("データ/下書き/ドラフト.md")).open("a") as handle:
        handle.write("more\n")
    changed = changed_notes_if_no_folder_changed(str(vault.root), saved, last)
    assert [n.path for n in changed or []] == ["データ/下書き/ドラフト.md"]


def test_one_name_in_nfc_and_in_nfd_in_one_folder_is_still_reported_with_memory(tmp_path: Path) -> None:
    (tmp_path / "データ.md").write_text("# nfc\n")
    (tmp_path / _nfd("データ.md")).write_text("# nfd\n")
    vault = Vault.open(tmp_path)
    memory = WalkMemory(settle_ns=0)
    time.sleep(TICKS)
    fresh: list[ScanProblem] = []
    remembered: list[ScanProblem] = []
    assert list_note_files(vault, fresh) == list_note_files(vault, remembered, memory=memory)
    assert fresh == remembered
    assert [p.path for p in fresh] == ["データ.md"] and "NFC" in fresh[0].message
    assert memory.folders == {}  # the careful pass decided: nothing kept
    # a saved walk naming both spellings is no memory of that folder: it is listed again
    forged = json.dumps({"format": 1, "folders": {"": [0, 0, 0, 0, ["データ.md", _nfd("データ.md")], []]}}).encode()
    assert changed_notes_if_no_folder_changed(str(vault.root), forged, {"データ.md": [0, 0]}) is None
