"""Read-side service over a vault: list notes, read one note, with a parse cache.

The cache is keyed by (size, mtime_ns) per path, so repeated audits, badges and listings
re-read only files that changed on disk.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel

from ..core.jsonutil import jsonable
from ..errors import InvalidNote
from .note import MAX_NOTE_BYTES, Note, NoteProblem, read_note, read_note_file
from .paths import NoteFile, ScanProblem, Vault, list_note_files

T = TypeVar("T")


class NoteError(BaseModel):
    message: str
    line: int | None = None
    column: int | None = None


class NoteSummary(BaseModel):
    path: str
    title: str
    size: int
    mtime: float
    has_frontmatter: bool
    error: NoteError | None = None


class NotePage(BaseModel):
    notes: list[NoteSummary]
    total: int
    next_cursor: str | None


class NoteDetail(BaseModel):
    path: str
    title: str
    size: int
    mtime: float
    has_frontmatter: bool
    has_bom: bool
    line_endings: str
    frontmatter_end_line: int | None
    properties: dict[str, Any]
    sha256: str
    content_sha256: str
    references: list[str]
    references_sha256: str
    error: NoteError | None = None


def _error(problem: NoteProblem | None) -> NoteError | None:
    return NoteError(message=problem.message, line=problem.line, column=problem.column) if problem else None


@dataclass(slots=True)
class _Cached:
    size: int
    mtime_ns: int
    note: Note


class NoteCatalog:
    def __init__(self, vault: Vault, *, max_note_bytes: int = MAX_NOTE_BYTES) -> None:
        self.vault = vault
        self.max_note_bytes = max_note_bytes
        self._cache: dict[str, _Cached] = {}
        self._lock = threading.Lock()
        self._derived: dict[str, object] = {}

    def derived(self, key: str, make: Callable[[], T]) -> T:
        """What an upper layer computes from this catalog's notes (the audit's facts of each Note
        object, its last report), made once and kept as long as the catalog: the state lives and
        dies with the catalog its entries are valid for."""
        with self._lock:
            found = self._derived.get(key)
            if found is None:
                found = self._derived[key] = make()
        return found  # type: ignore[return-value]

    def forget_derived(self) -> None:
        with self._lock:
            self._derived.clear()

    def scan(self) -> tuple[list[NoteFile], list[ScanProblem]]:
        problems: list[ScanProblem] = []
        files = list_note_files(self.vault, problems)
        with self._lock:
            live = {f.path for f in files}
            for gone in set(self._cache) - live:
                del self._cache[gone]
        return files, problems

    def load(self, note_file: NoteFile) -> Note:
        cached = self.cached(note_file)
        if cached is not None:
            return cached
        try:
            note = read_note_file(note_file.path, note_file.disk_path, max_bytes=self.max_note_bytes)
        except OSError as exc:
            return Note(note_file.path, b"", None, {}, NoteProblem(f"Cannot read the note: {exc.strerror}."), "")
        with self._lock:
            self._cache[note_file.path] = _Cached(note_file.size, note_file.mtime_ns, note)
        return note

    def cached(self, note_file: NoteFile) -> Note | None:
        """The cached note while its (size, mtime) is unchanged, else None (nothing is read)."""
        with self._lock:
            cached = self._cache.get(note_file.path)
        if cached and cached.size == note_file.size and cached.mtime_ns == note_file.mtime_ns:
            return cached.note
        return None

    def locate(self, rel_path: str) -> NoteFile:
        """One note's file through path confinement, with its current size and mtime (one stat).

        Same answers as `read_note` (NotFound, PathRejected, InvalidNote when too large).
        """
        disk, st = self.vault.locate_note(rel_path)
        rel = self.vault.rel_of(disk)
        if st.st_size > self.max_note_bytes:
            raise InvalidNote(
                f"The note is {st.st_size} bytes, more than the limit of {self.max_note_bytes} bytes.",
                detail={"path": rel, "size": st.st_size},
            )
        return NoteFile(rel, disk, st.st_size, st.st_mtime_ns)

    def note(self, rel_path: str) -> Note:
        """One note through path confinement, from the cache while its (size, mtime) is unchanged.

        Same answers as `read_note` (NotFound, PathRejected, InvalidNote when too large), without
        re-reading and re-parsing a note that has not changed (the badge path).
        """
        return self.load(self.locate(rel_path))

    def notes(self) -> list[tuple[NoteFile, Note]]:
        return self.notes_and_problems()[0]

    def notes_and_problems(self) -> tuple[list[tuple[NoteFile, Note]], list[ScanProblem]]:
        """Every note, and what the scan skipped (symlink loops, names that are not UTF-8, …)."""
        files, problems = self.scan()
        return [(f, self.load(f)) for f in files], problems

    def list_page(self, *, limit: int, cursor: str | None) -> NotePage:
        files, _ = self.scan()
        start = 0
        if cursor:
            start = next((i for i, f in enumerate(files) if f.path > cursor), len(files))
        page = files[start : start + limit]
        summaries = []
        for f in page:
            note = self.load(f)
            summaries.append(
                NoteSummary(
                    path=f.path,
                    title=note.title,
                    size=f.size,
                    mtime=f.mtime_ns / 1e9,
                    has_frontmatter=note.has_frontmatter,
                    error=_error(note.problem),
                )
            )
        more = start + limit < len(files)
        return NotePage(notes=summaries, total=len(files), next_cursor=page[-1].path if more and page else None)

    def detail(self, rel_path: str) -> NoteDetail:
        note = read_note(self.vault, rel_path, max_bytes=self.max_note_bytes)
        disk = self.vault.resolve_note(rel_path)
        st = disk.stat()
        return NoteDetail(
            path=note.path,
            title=note.title,
            size=st.st_size,
            mtime=st.st_mtime_ns / 1e9,
            has_frontmatter=note.has_frontmatter,
            has_bom=note.has_bom,
            line_endings="crlf" if b"\r\n" in note.raw else "lf",
            frontmatter_end_line=note.span.close_line if note.span else None,
            properties=jsonable(note.properties),
            sha256=note.sha256,
            content_sha256=note.content_sha256,
            references=note.references,
            references_sha256=note.references_sha256,
            error=_error(note.problem),
        )
