"""Reading, hashing and parsing one note a build needs (in this process or in a forked helper:
index/parsing.py decides, index/parallel.py runs the helpers)."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path

from ..vault.note import MAX_NOTE_BYTES
from ..vault.paths import NoteFile
from .build_state import IndexedNote, StagedLines, new_note
from .links import Resolver
from .record import TOO_LARGE, parse_record_and_sections, resolve_links, unreadable_record
from .serialize import note_layer_bytes
from .store import write_staged

# (file, bytes read, sha256, problem, the parsed note or None when its bytes are known)
Parsed = tuple[NoteFile, int, str, str | None, IndexedNote | None]


class ParseJob:
    """What every parse needs besides the file: the scan's paths, and where layers may go."""

    def __init__(self, resolver: Resolver, paths_key: tuple[str, ...], paths_fp: str) -> None:
        self.resolver = resolver
        self.paths_key = paths_key
        self.paths_fp = paths_fp
        self.staging: Path | None = None  # parallel builds write note layers and cache parts here
        self.old_layers: dict[str, str] = {}  # rel -> digest already on disk
        self.cache_parts: list[str] = []  # staged cache parts, one per chunk
        self.lines: StagedLines | None = None  # where the parent finds a helper's note's cache line
        # a job's report, before each note (or chunk) this process parses: (parsed, to parse, "parse")
        self.checkpoint: Callable[[int, int, str], None] | None = None


def read_note_bytes(fs: NoteFile) -> tuple[bytes | None, str]:
    if fs.size > MAX_NOTE_BYTES:
        h = hashlib.sha256()
        with open(fs.disk, "rb") as handle:
            while chunk := handle.read(1 << 20):
                h.update(chunk)
        return None, h.hexdigest()
    fd = os.open(fs.disk, os.O_RDONLY)  # unbuffered: no fstat, ioctl or lseek per note
    try:
        raw = os.read(fd, fs.size + 1)
        if len(raw) > fs.size:  # the file grew since the walk's stat: read the rest
            chunks = [raw]
            while chunk := os.read(fd, 1 << 20):
                chunks.append(chunk)
            raw = b"".join(chunks)
    finally:
        os.close(fd)
    digest = hashlib.sha256(raw).hexdigest()
    return (None if len(raw) > MAX_NOTE_BYTES else raw), digest


def read_one(fs: NoteFile, known_sha: str | None, job: ParseJob) -> Parsed:
    """Read, hash and (unless the hash is known) parse one note, resolve its links, lay it out."""
    try:
        raw, sha = read_note_bytes(fs)
    except OSError as exc:
        return (fs, fs.size, "", f"Cannot read the note: {exc.strerror}.", None)
    if known_sha == sha:
        return (fs, fs.size, sha, None, None)
    sections = None
    if raw is None:
        size = fs.size
        record = unreadable_record(fs.path, TOO_LARGE)
    else:
        size = len(raw)
        record, sections = parse_record_and_sections(fs.path, raw)
    note = new_note(fs.path, size, fs.mtime_ns, sha, record, sections)
    resolved, links_out = resolve_links(fs.path, record["links"], job.resolver)
    note.res_key = job.paths_key
    note.res_fp = job.paths_fp
    note.resolved, note.link_count, note.links_out = resolved, len(resolved), links_out
    layer = note_layer_bytes(fs.path, note.parsed.id, sha, record, resolved)
    note.digest = hashlib.sha256(layer).hexdigest()
    if job.staging is None:
        note.layer = layer
    else:
        rel = f"notes/{note.parsed.id}.json"
        if job.old_layers.get(rel) != note.digest:
            write_staged(job.staging, rel, layer)
            note.staged = True
    return (fs, size, sha, None, note)
