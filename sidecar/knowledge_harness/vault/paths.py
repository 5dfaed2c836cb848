"""Confinement of note paths to the vault root.

Every path that crosses a door (REST, MCP, CLI) is a vault-relative POSIX path in NFC.
This module is the single place that turns such a string into a file on disk, and the
single place that decides which folders are never part of the vault's notes.
"""

from __future__ import annotations

import os
import re
import stat
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

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


@dataclass(frozen=True, slots=True)
class Vault:
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


@dataclass(frozen=True, slots=True)
class ScanProblem:
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


def list_note_files(vault: Vault, problems: list[ScanProblem] | None = None) -> list[NoteFile]:
    """Every Markdown note of the vault, in sorted NFC path order.

    Excluded and hidden folders are pruned; symlinks are followed only while they stay in
    the vault (a loop or an escape is reported, never followed); names that collide after
    NFC normalization are reported and only the first is kept. The walk works on plain
    strings (a `pathlib.Path` per entry costs about 0.2 s for 10,000 notes, twice the budget
    of an incremental index rebuild); it is the one walk the audit, catalog and index share.
    """
    sink = problems if problems is not None else []
    root = str(vault.root)
    prefix = root if root.endswith("/") else root + "/"
    cut = len(prefix)
    normalize = unicodedata.normalize
    new = tuple.__new__

    def rel(disk: str) -> str:
        return "." if disk == root else normalize("NFC", disk[cut:])

    found: dict[str, NoteFile] = {}
    visited_dirs: set[tuple[int, int]] = set()
    stack: list[str] = [root]
    while stack:
        folder = stack.pop()
        try:
            st = os.stat(folder)  # noqa: PTH116 - strings, not Path objects: this walk is hot
        except OSError as exc:
            sink.append(ScanProblem(rel(folder), f"Cannot read folder: {exc.strerror}."))
            continue
        key = (st.st_dev, st.st_ino)
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
            if name[0] == "." or name in EXCLUDED_DIRS:  # is_excluded_segment, inlined
                continue
            disk = entry.path
            if not name.isascii() and not _is_utf8_name(name):
                sink.append(ScanProblem(printable_path(rel(disk)), "The name is not valid UTF-8; skipped."))
                continue
            if _UNSERVABLE.search(name) is not None:
                why = unservable_name(name)
                if why is not None:
                    if name.endswith(NOTE_SUFFIX) or entry.is_dir():  # other files are never notes: no noise
                        sink.append(ScanProblem(_shown(rel(disk)), why))
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
            found[path] = new(NoteFile, (path, disk, entry_stat.st_size, entry_stat.st_mtime_ns))
    return [found[p] for p in sorted(found)]
