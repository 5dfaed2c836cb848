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
        assert memory.folders  # the root at least took the plain pass or was kept
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
