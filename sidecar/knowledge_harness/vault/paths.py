"""Confinement of note paths to the vault root.

Every path that crosses a door (REST, MCP, CLI) is a vault-relative POSIX path in NFC.
This module is the single place that turns such a string into a file on disk, and the
single place that decides which folders are never part of the vault's notes.
"""

from __future__ import annotations

import operator
import os
import re
import stat
import time
import unicodedata
from collections.abc import Mapping, Sequence
from itertools import compress, islice, repeat
from operator import attrgetter
from pathlib import Path
from typing import Any, NamedTuple, TypeGuard

from ..core import jsoncodec
from ..errors import NotFound, PathRejected

EXCLUDED_DIRS = frozenset({".obsidian", ".harness", ".git", ".trash", "node_modules"})
MAX_PATH_BYTES = 1024
MAX_SEGMENT_BYTES = 255
NOTE_SUFFIX = ".md"

_DRIVE = re.compile(r"^[A-Za-z]:")
_PERCENT_ESCAPE = re.compile(r"%[0-9A-Fa-f]{2}")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def is_excluded_segment(segment: str) -> bool:
    """Obsidian ignores dot-folders; we also skip tool folders that are never notes."""
    return segment in EXCLUDED_DIRS or segment.startswith(".")


def internal_folder(rel_parts: tuple[str, ...] | list[str]) -> str | None:
    """The first excluded or hidden segment of a real vault-relative location, or None.

    Checked on where a path really leads (symbolic links resolved): a link inside the vault
    that points into `.obsidian`, `.git`, `.harness`, `.trash`, `node_modules` or any dot-folder
    (or at a hidden file) never makes that file a note.
    """
    for segment in rel_parts:
        if is_excluded_segment(segment):
            return segment
    return None


def normalize_rel_path(raw: str) -> str:
    """Validate a vault-relative path and return it in NFC, or raise PathRejected."""
    if not raw:
        raise PathRejected("The path is empty.")
    if "\x00" in raw:
        raise PathRejected("The path contains a NUL byte.")
    if _CONTROL.search(raw):
        raise PathRejected("The path contains a control character.")
    if "\\" in raw:
        raise PathRejected("The path contains a backslash; use '/' between folders.")
    if raw.startswith("/") or raw.startswith("~"):
        raise PathRejected("The path is absolute; give it relative to the vault.")
    if _DRIVE.match(raw):
        raise PathRejected("The path starts with a drive letter; give it relative to the vault.")
    if _PERCENT_ESCAPE.search(raw):
        raise PathRejected("The path contains a percent-encoded escape after decoding; encode it once.")
    if len(raw.encode("utf-8")) > MAX_PATH_BYTES:
        raise PathRejected(f"The path is longer than {MAX_PATH_BYTES} bytes.")
    path = nfc(raw)
    segments = path.split("/")
    for segment in segments:
        if segment in ("", ".", ".."):
            raise PathRejected(f"The path has an empty, '.' or '..' segment: {raw!r}.")
        if len(segment.encode("utf-8")) > MAX_SEGMENT_BYTES:
            raise PathRejected(f"A path segment is longer than {MAX_SEGMENT_BYTES} bytes.")
    for segment in segments[:-1]:
        if is_excluded_segment(segment):
            raise PathRejected(f"The folder {segment!r} is not part of the vault's notes.")
    if segments[-1].startswith("."):
        raise PathRejected("Hidden files are not notes.")
    return path


def require_note_path(raw: str) -> str:
    path = normalize_rel_path(raw)
    if not path.endswith(NOTE_SUFFIX):
        raise PathRejected(f"Not a Markdown note (must end in {NOTE_SUFFIX}): {path}.")
    return path


class Vault(NamedTuple):
    """A vault root on disk; resolves note paths without ever leaving it."""

    root: Path

    @classmethod
    def open(cls, root: str | Path) -> Vault:
        resolved = Path(root).expanduser().resolve()
        if not resolved.is_dir():
            raise NotFound(f"The vault folder does not exist: {root}.")
        return cls(resolved)

    @property
    def harness_dir(self) -> Path:
        return self.root / ".harness"

    def resolve(self, raw: str) -> Path:
        """Map a vault-relative path to the file on disk (NFC or NFD name), confined to the root."""
        return Path(self._walk(normalize_rel_path(raw))[0])

    def _walk(self, rel: str) -> tuple[str, os.stat_result | None]:
        """The path on disk of `rel` and the lstat of its last part (None when it does not exist).

        One lstat per segment, which the NFC/NFD lookup needs anyway, also tells whether a symbolic
        link is on the way; only then is the real location worked out (`check_real`). `root` is
        already real (Vault.open resolves it), so without a link the path is its own real location.
        """
        current = str(self.root)
        st: os.stat_result | None = None
        via_link = False
        for segment in rel.split("/"):
            candidate = current + os.sep + segment  # strings, not Path: this runs per request
            try:
                st = os.lstat(candidate)
            except (FileNotFoundError, NotADirectoryError):
                candidate = str(self._find_by_nfc(Path(current), segment))  # NotFound when there is none
                st = _lstat_or_none(candidate)
            if st is not None and stat.S_ISLNK(st.st_mode):
                via_link = True
            current = candidate
        if via_link:
            self.check_real(Path(current), rel)
        return current, st

    def check_real(self, disk: Path, rel: str) -> Path:
        """The real location of `disk`; PathRejected when a symbolic link takes it out of the
        vault or into a folder that is never notes (`.obsidian`, `.git`, `.harness`, ...)."""
        real = disk.resolve()
        if not real.is_relative_to(self.root):
            raise PathRejected(f"The path leaves the vault through a symbolic link: {rel}.")
        inside = internal_folder(real.relative_to(self.root).parts)
        if inside is not None:
            raise PathRejected(
                f"The path leads into {inside!r} through a symbolic link; that is not part of the vault's notes: {rel}."
            )
        return real

    def resolve_note(self, raw: str) -> Path:
        return Path(self.locate_note(raw)[0])

    def locate_note(self, raw: str) -> tuple[str, os.stat_result]:
        """A note's path on disk and its stat (one walk; the badge route asks per request)."""
        disk, st = self._walk(require_note_path(raw))
        if st is not None and stat.S_ISLNK(st.st_mode):
            st = _stat_or_none(disk)
        if st is None or not stat.S_ISREG(st.st_mode):
            raise NotFound(f"No such note: {nfc(raw)}.")
        return disk, st

    def rel(self, disk_path: Path) -> str:
        return nfc(disk_path.relative_to(self.root).as_posix())

    def rel_of(self, disk: str) -> str:
        """`rel` for a path on disk that `resolve` or `locate_note` gave (a string under the root)."""
        return nfc(disk[len(str(self.root)) + 1 :].replace(os.sep, "/"))

    def _find_by_nfc(self, folder: Path, segment: str) -> Path:
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    if nfc(entry.name) == segment:
                        return folder / entry.name
        except (FileNotFoundError, NotADirectoryError):
            pass
        raise NotFound(f"No such file in the vault: {segment}.")


def _lstat_or_none(path: str) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None


def _stat_or_none(path: str) -> os.stat_result | None:
    try:
        return os.stat(path)  # noqa: PTH116 - a string path on the per-request walk
    except (FileNotFoundError, NotADirectoryError):
        return None


class NoteFile(NamedTuple):
    """A note on disk: its vault-relative NFC path, its path on disk, and its stat."""

    path: str
    disk: str
    size: int
    mtime_ns: int

    @property
    def disk_path(self) -> Path:
        return Path(self.disk)


class ScanProblem(NamedTuple):
    path: str
    message: str


def _is_utf8_name(name: str) -> bool:
    """False for a name whose bytes are not UTF-8 (os.scandir decodes them to lone surrogates)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def printable_path(path: str) -> str:
    """A path from the file system as text that can be shown and stored: bytes that are not
    UTF-8 (decoded by Python to lone surrogates) become `\\xNN` escapes, unique per name."""
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


_UNSERVABLE = re.compile(r"[\x00-\x1f\x7f\\%]")  # what normalize_rel_path may refuse in a segment


def unservable_name(name: str) -> str | None:
    """Why a file or folder name can never cross a door (so it must not be listed), or None.

    The doors refuse control characters, backslashes and percent-escapes in paths
    (normalize_rel_path); a note named so would be listed but unreadable.
    """
    if _UNSERVABLE.search(name) is None:
        return None
    if _CONTROL.search(name):
        return "The name holds a control character (a tab, a line break, ...); skipped."
    if "\\" in name:
        return "The name holds a backslash; skipped."
    if _PERCENT_ESCAPE.search(name):
        return "The name holds a percent-escape such as %20; skipped."
    return None


def _shown(path: str) -> str:
    """A path with its control characters escaped (\\t, \\n, \\xNN), safe to show and store."""
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), path)


class _KeptFolder(NamedTuple):
    """A folder the plain pass listed: its stamp then, its notes and their (size, mtime_ns)
    as last stat-ed, and its subfolders (paths on disk, sorted)."""

    stamp: tuple[int, int, int, int]  # dev, inode, mtime_ns, ctime_ns
    notes: list[NoteFile]
    stats: list[tuple[int, int]]
    subfolders: list[str]


class _WholeWalk(NamedTuple):
    """A walk's notes (in path order) with their (size, mtime_ns) and paths on disk, kept when the
    walk kept every folder it visited and reported no problem (see `_unchanged_walk`)."""

    notes: list[NoteFile]
    stats: list[tuple[int, int]]
    disks: list[str]


class WalkMemory:
    """What a process that walks the same vault again keeps between walks (the sidecar's build).

    Holds: for each folder the plain pass listed, its listing (see _KeptFolder); about 300
    bytes per note. A later walk reuses a folder's listing while the folder's stamp (device,
    inode, mtime, ctime) is the same, and still stat-s every note in it: editing a file in
    place changes neither its folder's mtime nor its ctime. POSIX has creating, removing and
    renaming an entry (link, unlink, rename, mkdir, rmdir, symlink) update the folder's mtime
    and ctime, and changing its permissions update its ctime. A folder whose ctime is less than
    `settle_ns` before the walk (or after it) is listed again, so that a change in the same
    clock tick as the listing (coarse timestamps; 2 s on FAT) is never missed.
    Bound: one entry per folder of the vault; replaced whole by each walk.
    """

    def __init__(self, settle_ns: int = 3_000_000_000) -> None:
        self.settle_ns = settle_ns
        self.folders: dict[str, _KeptFolder] = {}
        self.changed = False  # the last walk kept a listing it made, or stopped keeping one
        self.whole: _WholeWalk | None = None  # the last walk's answer, when it kept every folder it visited

    def saved(self, root: str) -> bytes:
        """The listings as JSON, for a later process (`loaded`): each folder (its path on disk
        under `root`), its stamp, its notes' and subfolders' names. The notes' stats are not in
        it: the loader takes them from the index's build.json, which holds them anyway."""
        folders: dict[str, list[Any]] = {}
        cut = len(_folder_prefix(root))
        for folder, kept in self.folders.items():
            key = "" if folder == root else folder[cut:]
            if _is_utf8_name(key):  # a folder under a name that is not UTF-8 is listed again
                notes = [n.disk.rpartition("/")[2] for n in kept.notes]
                folders[key] = [*kept.stamp, notes, [s.rpartition("/")[2] for s in kept.subfolders]]
        return jsoncodec.dumps({"format": _SAVED_WALK_FORMAT, "folders": folders})

    @classmethod
    def loaded(cls, data: bytes | None, root: str, stats: Mapping[str, Sequence[int]]) -> WalkMemory:
        """The memory `saved` wrote, with each note's (size, mtime_ns) from `stats` (path -> stat
        as last seen); an empty memory for anything malformed. A folder with a note `stats`
        lacks, or a name that could lead out of its folder, is left out: it is listed again."""
        memory = cls()
        try:
            folders = _saved_folders(data)
            for key, (dev, ino, mtime_ns, ctime_ns, names, subnames) in folders.items():
                kept = _loaded_folder(key, root, (dev, ino, mtime_ns, ctime_ns), names, subnames, stats)
                if kept is not None:
                    memory.folders[_saved_folder(root, key)[0]] = kept
        except (AttributeError, TypeError, ValueError, KeyError):  # ValueError: not JSON
            return cls()
        return memory


_SAVED_WALK_FORMAT = 1


def _saved_folders(data: bytes | None) -> dict[str, Any]:
    """The folders of a saved walk; {} when there is none or it is of another format (ValueError
    and the like for what is not JSON of that shape)."""
    if data is None:
        return {}
    saved = jsoncodec.loads(data)
    if saved.get("format") != _SAVED_WALK_FORMAT:
        return {}
    folders: dict[str, Any] = saved["folders"]
    return folders


class StampedScan(NamedTuple):
    """The vault's notes against the stamps of a build (`scan_against_stamps`)."""

    paths: list[str]  # every note, in path order
    moved: list[NoteFile]  # the notes whose (size, mtime_ns) differ from the stamps, or that they lack
    walk: WalkMemory | None  # the listings the walk used and kept; None when no folder was listed


def scan_against_stamps(
    vault: Vault, saved: bytes | None, stamps: Mapping[str, Sequence[int]], problems: list[ScanProblem] | None = None
) -> StampedScan:
    """The vault's notes compared with a build's stamps (path -> [size, mtime_ns], in path order)
    and the walk that build saved (`WalkMemory.saved`): when no folder changed since, no folder is
    listed (`changed_notes_if_no_folder_changed`); otherwise the walk reuses the saved listings
    of the folders that did not change. Either way the answer is a fresh walk's."""
    root = str(vault.root)
    quick = changed_notes_if_no_folder_changed(root, saved, stamps) if stamps else None
    if quick is not None and all(map(operator.lt, stamps, islice(stamps, 1, None))):
        return StampedScan(list(stamps), quick, None)
    walk = WalkMemory.loaded(saved, root, stamps)
    scan = list_note_files(vault, problems, memory=walk)
    moved = [nf for nf in scan if tuple(stamps.get(nf.path, ())) != (nf.size, nf.mtime_ns)]
    return StampedScan([nf.path for nf in scan], moved, walk)


def changed_notes_if_no_folder_changed(
    root: str, saved: bytes | None, stats: Mapping[str, Sequence[int]]
) -> list[NoteFile] | None:
    """The notes whose (size, mtime_ns) differ from `stats` (path -> stat as last seen, the
    index's build.json), found without listing a folder, or None when that cannot be known so.

    It answers only when the saved walk (`WalkMemory.saved`) holds the whole vault, from the
    root down every subfolder, each folder with the stamp it has now (and not reached through a
    symbolic link), and its notes are exactly the paths of `stats`: then `list_note_files` with
    that memory would reuse every folder, report no problem and list exactly those paths, and
    this gives its answer for the notes that changed. It skips the walk's bookkeeping: one stat
    per folder and per note, no NoteFile for a note that did not change.
    """
    try:
        folders = _saved_folders(saved)
        paths: list[str] = []
        disks: list[str] = []
        keys = [""]
        for key in keys:  # grows as subfolders are found (never twice: a listing has distinct names)
            dev, ino, mtime_ns, ctime_ns, names, subnames = folders[key]
            folder, folder_rel = _saved_folder(root, key)
            st = os.lstat(folder)
            stamp_now = (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_ctime_ns)
            if stat.S_ISLNK(st.st_mode) or stamp_now != (dev, ino, mtime_ns, ctime_ns):
                return None
            if not _saved_listing(names, subnames):
                return None
            paths += _note_paths(folder_rel, names)
            disks += map(_folder_prefix(folder).__add__, names)
            keys += map((key + "/" if key else "").__add__, subnames)
        if len(keys) != len(set(keys)) or len(paths) != len(stats) or stats.keys() != set(paths):
            return None
        now = list(map(_SIZE_AND_MTIME, map(os.stat, disks)))
    except (OSError, AttributeError, TypeError, ValueError, KeyError):  # ValueError: not JSON
        return None
    before = map(tuple, map(stats.__getitem__, paths))
    moved = compress(range(len(paths)), map(operator.ne, now, before))
    return [_new_note_file(NoteFile, (paths[i], disks[i], *now[i])) for i in sorted(moved, key=paths.__getitem__)]


def _loaded_folder(
    key: str,
    root: str,
    stamp: tuple[int, int, int, int],
    names: list[str],
    subnames: list[str],
    stats: Mapping[str, Sequence[int]],
) -> _KeptFolder | None:
    """One saved folder's listing, or None when a value is not what `saved` writes or a note is
    not in `stats`. Every step runs over the whole folder in C (10,000 notes are loaded per
    `kh index build`)."""
    if not all(type(v) is int for v in stamp) or not _saved_listing(names, subnames):
        return None
    folder, folder_rel = _saved_folder(root, key)
    paths = _note_paths(folder_rel, names)
    if len(set(paths)) != len(paths):  # one name in NFC and in NFD: the walk reports it
        return None
    try:
        note_stats: list[tuple[int, int]] = list(map(tuple, map(stats.__getitem__, paths)))  # type: ignore[arg-type]
    except (KeyError, TypeError):  # a note build.json does not know
        return None
    if note_stats and set(map(len, note_stats)) != {2}:
        return None
    prefix = _folder_prefix(folder)
    rows = zip(paths, map(prefix.__add__, names), *zip(*note_stats, strict=True), strict=True) if names else ()
    notes = list(map(_new_note_file, repeat(NoteFile), rows))
    return _KeptFolder(stamp, notes, note_stats, list(map(prefix.__add__, subnames)))


_NAME_END = "\x00"  # no file name holds it


def _saved_listing(names: object, subnames: object) -> bool:
    """A folder's saved note and subfolder names are what a plain listing gives: plain names,
    each once, the notes' ending in .md, no excluded folder."""
    if not _plain_names(names) or not _plain_names(subnames):
        return False
    if len(set(names)) != len(names) or len(set(subnames)) != len(subnames) or "node_modules" in subnames:
        return False
    return (_NAME_END.join(names) + _NAME_END).count(NOTE_SUFFIX + _NAME_END) == len(names)


def _plain_names(names: object) -> TypeGuard[list[str]]:
    """Names of entries inside one folder: a list of non-empty text, none holding "/" or NUL,
    none hidden (which rules out "." and ".." too)."""
    if type(names) is not list or not all(names):
        return False
    if not names:
        return True
    try:
        joined = _NAME_END + _NAME_END.join(names)
    except TypeError:
        return False
    return joined.count(_NAME_END) == len(names) and "/" not in joined and _NAME_END + "." not in joined


def _folder_prefix(root: str) -> str:
    return root if root.endswith("/") else root + "/"


def _saved_folder(root: str, key: str) -> tuple[str, str]:
    """A saved folder's path on disk and its notes' path prefix ("" or the NFC path and "/"),
    from its key (its path on disk under `root`; "" for the root), as the walk makes them."""
    if key == "":
        return root, ""
    return _folder_prefix(root) + key, unicodedata.normalize("NFC", key) + "/"


def list_note_files(
    vault: Vault, problems: list[ScanProblem] | None = None, *, memory: WalkMemory | None = None
) -> list[NoteFile]:
    """Every Markdown note of the vault, in sorted NFC path order.

    Excluded and hidden folders are pruned; symlinks are followed only while they stay in
    the vault (a loop or an escape is reported, never followed); names that collide after
    NFC normalization are reported and only the first is kept. It is the one walk the audit,
    catalog and index share, and an incremental index rebuild spends most of its time here.

    Each folder first gets the plain pass (`_plain_folder`): no sorting, no Path objects, names
    in NFC only where they are not already; a folder in which anything needs a decision (a
    symbolic link, a name to report, two names with one path in NFC, a name taken by an earlier
    folder) gets the careful pass instead (`_careful_folder`), which visits its entries in name
    order. The notes, the problems, their order and the order folders are visited in are the
    careful pass's alone; the plain pass only takes the folders where it would decide nothing. With `memory`, a folder the plain pass
    listed before and that has not changed since is not listed again (see WalkMemory); the
    result is the same. tests/vault/test_scan_fast_path.py checks all three against the walk
    as it was before the plain pass.
    """
    if memory is not None and (unchanged := _unchanged_walk(memory)) is not None:
        return unchanged
    sink = problems if problems is not None else []
    problems_before = len(sink)
    every_folder_kept = memory is not None
    root = str(vault.root)
    cut = len(root if root.endswith("/") else root + "/")
    found: dict[str, NoteFile] = {}
    visited_dirs: set[tuple[int, int]] = set()
    stack: list[str] = [root]
    kept = memory.folders if memory is not None else {}
    keep: dict[str, _KeptFolder] = {}
    settled_before = time.time_ns() - memory.settle_ns if memory is not None else 0
    listed_kept = False
    while stack:
        folder = stack.pop()
        try:
            st = os.lstat(folder)
            # a folder reached through a symbolic link is never reused from memory
            is_link = stat.S_ISLNK(st.st_mode)
            if is_link:
                # the careful pass checked the links it took; a saved memory (a file in the vault)
                # may name one it never took
                if (why := _link_refusal(vault, folder)) is not None:
                    sink.append(ScanProblem(_rel(folder, root, cut), why))
                    continue
                st = os.stat(folder)  # noqa: PTH116 - strings, not Path objects: this walk is hot
        except (OSError, RuntimeError) as exc:  # RuntimeError: resolving a link that loops
            reason = exc.strerror if isinstance(exc, OSError) else str(exc)
            sink.append(ScanProblem(_rel(folder, root, cut), f"Cannot read folder: {reason}."))
            continue
        key = (st.st_dev, st.st_ino)
        if key in visited_dirs:
            sink.append(ScanProblem(_rel(folder, root, cut), "Folder reached twice (symbolic link loop); skipped."))
            continue
        visited_dirs.add(key)
        stamp = (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_ctime_ns)
        before = kept.get(folder)
        if (
            before is not None
            and before.stamp == stamp
            and not is_link
            and (again := _restat(before, found)) is not None
        ):
            keep[folder] = again
            found.update(zip(map(_PATH, again.notes), again.notes, strict=True))
            stack.extend(again.subfolders)
            continue
        try:
            with os.scandir(folder) as it:
                entries = list(it)
        except OSError as exc:
            sink.append(ScanProblem(_rel(folder, root, cut), f"Cannot list folder: {exc.strerror}."))
            continue
        folder_rel = "" if folder == root else _rel(folder, root, cut) + "/"
        plain = _plain_folder(entries, folder_rel, found)
        if plain is None:
            every_folder_kept = False
            _careful_folder(vault, sorted(entries, key=_NAME), root, cut, found, stack, sink)
            continue
        notes, subfolders = plain
        found.update(zip(map(_PATH, notes), notes, strict=True))
        subfolders.sort()
        stack.extend(subfolders)
        if memory is not None and not is_link and max(st.st_ctime_ns, st.st_mtime_ns) < settled_before:
            keep[folder] = _KeptFolder(stamp, notes, list(map(_NOTE_STAT, notes)), subfolders)
            listed_kept = True
        else:
            every_folder_kept = False
    result = [found[p] for p in sorted(found)]
    if memory is not None:
        memory.changed = listed_kept or keep.keys() != kept.keys()
        memory.folders = keep
        whole = every_folder_kept and len(sink) == problems_before
        memory.whole = _WholeWalk(result, list(map(_NOTE_STAT, result)), list(map(_DISK, result))) if whole else None
    return result


def _unchanged_walk(memory: WalkMemory) -> list[NoteFile] | None:
    """The last walk's answer with every note stat-ed again, when that walk kept every folder it
    visited (`memory.whole`) and none of them changed since (stamp, as `list_note_files` checks
    it): the walk would then reuse every listing, visit the same folders and find the same notes
    in the same order, so it is skipped with its per-folder bookkeeping (~10 ms at 10,000 notes).
    None otherwise (the walk runs). The kept folders learn the new stats of the notes that changed."""
    whole = memory.whole
    if whole is None:
        return None
    try:
        for folder, kept in memory.folders.items():
            st = os.lstat(folder)
            if (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_ctime_ns) != kept.stamp:
                return None
        stats: list[tuple[int, int]] = list(map(_SIZE_AND_MTIME, map(os.stat, whole.disks)))
    except OSError:
        return None
    notes = list(whole.notes)
    for i in compress(range(len(stats)), map(operator.ne, stats, whole.stats)):
        notes[i] = _new_note_file(NoteFile, (notes[i].path, notes[i].disk, *stats[i]))
        key = notes[i].disk.rpartition("/")[0]
        kept = memory.folders[key]
        at = kept.notes.index(whole.notes[i])
        memory.folders[key] = kept._replace(
            notes=[*kept.notes[:at], notes[i], *kept.notes[at + 1 :]],
            stats=[*kept.stats[:at], stats[i], *kept.stats[at + 1 :]],
        )
    memory.whole = _WholeWalk(notes, stats, whole.disks)
    memory.changed = False
    return list(notes)


def _restat(before: _KeptFolder, found: dict[str, NoteFile]) -> _KeptFolder | None:
    """A kept folder's notes stat-ed again (a new NoteFile where the size or mtime changed), or
    None when a note cannot be stat-ed or a path is taken by an earlier folder: the folder is
    listed again then, and the passes decide."""
    notes = before.notes
    if not found.keys().isdisjoint(map(_PATH, notes)):
        return None
    try:
        stats = list(map(_SIZE_AND_MTIME, map(os.stat, map(_DISK, notes))))
    except OSError:
        return None
    if stats != before.stats:
        notes = [
            n if s == old else _new_note_file(NoteFile, (n.path, n.disk, *s))
            for n, s, old in zip(notes, stats, before.stats, strict=True)
        ]
    return _KeptFolder(before.stamp, notes, stats, before.subfolders)


_NAME = attrgetter("name")
_PATH = attrgetter("path")
_SIZE_AND_MTIME = attrgetter("st_size", "st_mtime_ns")
_DISK = attrgetter("disk")
_NOTE_STAT = attrgetter("size", "mtime_ns")
_new_note_file = tuple.__new__


def _rel(disk: str, root: str, cut: int) -> str:
    return "." if disk == root else unicodedata.normalize("NFC", disk[cut:])


def _note_paths(folder_rel: str, names: list[str]) -> list[str]:
    """The index paths of notes with these names on disk in the folder whose path is `folder_rel`
    ("" or its NFC path and "/"): each name in NFC (macOS writes Japanese names in NFD: デ as テ
    and a combining mark). NFC of a path is NFC of each segment: nothing composes with "/", nor
    reorders across it."""
    if _NAME_END.join(names).isascii():
        return list(map(folder_rel.__add__, names))
    return [folder_rel + unicodedata.normalize("NFC", name) for name in names]


def _plain_folder(
    entries: list[os.DirEntry[str]], folder_rel: str, found: dict[str, NoteFile]
) -> tuple[list[NoteFile], list[str]] | None:
    """The notes and subfolders (paths on disk) of a folder in which the careful pass would
    decide nothing, or None: a symbolic link, a name that is not UTF-8 or that the doors refuse,
    a stat that fails, a path too long, or two notes of the folder, or a note and one of an
    earlier folder, with one path (the same name in NFC and in NFD).

    Each step runs over the whole folder in C (map, join, one regex search): a Python loop
    over 10,000 entries costs more than their stat calls. The names are checked joined by "/",
    which no name holds: UTF-8 and servable together exactly when each one is. Paths are
    `_note_paths`: the NFC of the whole path, as the careful pass computes it.
    """
    shown = [e for e in entries if e.name[0] != "." and e.name not in EXCLUDED_DIRS]
    names = "/".join(map(_NAME, shown))
    if not (names.isascii() or _is_utf8_name(names)) or not _servable(names) or any(map(_IS_SYMLINK, shown)):
        return None
    try:
        is_dir = list(map(_IS_DIR, shown))
        files = [e for e, folder in zip(shown, is_dir, strict=True) if not folder and e.name.endswith(NOTE_SUFFIX)]
        files = list(filter(_IS_FILE, files))
        stats = list(map(_SIZE_AND_MTIME, map(_STAT, files)))
    except OSError:
        return None
    paths = _note_paths(folder_rel, list(map(_NAME, files)))
    if len(set(paths)) != len(paths):  # one name in NFC and in NFD: the careful pass reports it
        return None
    too_long = paths and max(map(len, paths)) * 4 > MAX_PATH_BYTES
    if too_long and any(len(p.encode("utf-8")) > MAX_PATH_BYTES for p in paths):
        return None
    if not found.keys().isdisjoint(paths):
        return None
    sizes_and_mtimes = zip(*stats, strict=True)
    rows = zip(paths, map(_PATH, files), *sizes_and_mtimes, strict=True) if paths else ()
    notes = [_new_note_file(NoteFile, row) for row in rows]
    return notes, [e.path for e in compress(shown, is_dir)]


def _servable(names: str) -> bool:
    """No name in `names` holds what unservable_name looks for (printable text has no control
    character; `in` is a fast scan, the regex is not)."""
    if "\\" in names or "%" in names:
        return False
    return names.isprintable() or _CONTROL.search(names) is None


_IS_SYMLINK = os.DirEntry.is_symlink
_IS_DIR = os.DirEntry.is_dir
_IS_FILE = os.DirEntry.is_file
_STAT = os.DirEntry.stat


def _link_refusal(vault: Vault, disk: str) -> str | None:
    """Why a symbolic link must not be followed (it leaves the vault or leads into a folder that
    is not part of the notes), or None."""
    real = Path(disk).resolve()
    if not real.is_relative_to(vault.root):
        return "Symbolic link leaves the vault; skipped."
    inside = internal_folder(real.relative_to(vault.root).parts)
    if inside is not None:
        return f"Symbolic link leads into {inside!r}, which is not part of the notes; skipped."
    return None


def _careful_folder(
    vault: Vault,
    entries: list[os.DirEntry[str]],
    root: str,
    cut: int,
    found: dict[str, NoteFile],
    stack: list[str],
    sink: list[ScanProblem],
) -> None:
    """One folder's entries, in name order: notes into `found`, subfolders onto `stack`, and
    every name, link, collision or error that needs a word into `sink`."""
    for entry in entries:
        name = entry.name
        if name[0] == "." or name in EXCLUDED_DIRS:  # is_excluded_segment, inlined
            continue
        disk = entry.path
        if not name.isascii() and not _is_utf8_name(name):
            sink.append(ScanProblem(printable_path(_rel(disk, root, cut)), "The name is not valid UTF-8; skipped."))
            continue
        if _UNSERVABLE.search(name) is not None:
            why = unservable_name(name)
            if why is not None:
                if name.endswith(NOTE_SUFFIX) or entry.is_dir():  # other files are never notes: no noise
                    sink.append(ScanProblem(_shown(_rel(disk, root, cut)), why))
                continue
        try:
            if entry.is_symlink() and (why := _link_refusal(vault, disk)) is not None:
                sink.append(ScanProblem(_rel(disk, root, cut), why))
                continue
            if entry.is_dir():
                stack.append(disk)
                continue
            if not name.endswith(NOTE_SUFFIX) or not entry.is_file():
                continue
            entry_stat = entry.stat()
        except (OSError, RuntimeError) as exc:
            sink.append(ScanProblem(_rel(disk, root, cut), f"Cannot read: {exc}."))
            continue
        path = unicodedata.normalize("NFC", disk[cut:])
        if len(path) * 4 > MAX_PATH_BYTES and len(path.encode("utf-8")) > MAX_PATH_BYTES:
            sink.append(ScanProblem(path, f"The path is longer than {MAX_PATH_BYTES} bytes; skipped."))
            continue
        if path in found:
            sink.append(
                ScanProblem(path, "Two files have this name after Unicode NFC normalization; only one is used.")
            )
            continue
        found[path] = _new_note_file(NoteFile, (path, disk, entry_stat.st_size, entry_stat.st_mtime_ns))
