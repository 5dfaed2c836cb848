"""A parallel parse: this process and forked helper processes claim chunks of notes in turn.

The processes are forked with os.fork and claim chunk numbers from a pipe that holds them all
(a read of 4 bytes from a pipe is atomic among its readers). multiprocessing did the same with
a shared counter and a lock, but importing it (and ctypes for the counter) and starting its
Process took ~15-25 ms, serial, before any note was parsed: ~5 % of a 1,666-note build.
"""

from __future__ import annotations

import os
import pickle
import signal
from collections.abc import Iterator
from typing import Any

from ..core import jsoncodec
from ..vault.paths import NoteFile
from .build_state import IndexedNote, StagedLines
from .reading import Parsed, ParseJob, read_one
from .record import ParsedNote
from .store import discard_staging, write_staged


def available() -> bool:
    return hasattr(os, "fork")


def _chunk_part(i: int) -> str:
    return f"cache/c{i:05}.jsonl"


def _stage_cache_part(job: ParseJob, i: int, lines: list[bytes]) -> None:
    assert job.staging is not None
    write_staged(job.staging, _chunk_part(i), b"\n".join(lines) + b"\n")


_WORKER_JOB: ParseJob | None = None  # set before forking the pool; workers inherit it


# A note parsed in a helper process crosses the process boundary as a flat tuple: its ParsedNote
# without the record (`ParsedNote.facts`), _LIGHT's fields, and the index of its line in the
# chunk's staged cache part (which holds the record and resolved links); the parent reads that
# line back only if it needs more (see IndexedNote._materialize).
_LIGHT = (
    "digest",
    "m_head",
    "m_mid",
    "m_tail",
    "links_out",
    "link_count",
    "staged",
    "res_fp",
)
_FACTS = ParsedNote._fields.index("record_json")  # the fields of ParsedNote.facts


def _parse_chunk(i: int, chunk: list[tuple[NoteFile, str | None]], job: ParseJob) -> list[tuple[Any, ...]]:
    """A helper's work on one chunk: notes as light tuples, their cache lines staged as a part."""
    out: list[tuple[Any, ...]] = []
    lines: list[bytes] = []
    for fs, known in chunk:
        _, size, sha, problem, note = read_one(fs, known, job)
        light = None
        if note is not None:
            light = (*note.parsed.facts(), *(getattr(note, name) for name in _LIGHT), len(lines))
            lines.append(note.cache_line())
        out.append((size, sha, problem, light))  # not its NoteFile: the parent has it in the chunk
    _stage_cache_part(job, i, lines)
    return out


def _parse_own_chunk(i: int, chunk: list[tuple[NoteFile, str | None]], job: ParseJob) -> list[Parsed]:
    """The parent's work on one chunk: whole notes, their cache lines staged as a part."""
    parsed = [read_one(fs, known, job) for fs, known in chunk]
    lines: list[bytes] = []
    for *_, note in parsed:
        if note is not None:
            lines.append(note.cache_line())
            note.c_staged = True
    _stage_cache_part(job, i, lines)
    return parsed


_TOKEN = 4  # bytes of one chunk number in the claims pipe


def _claims_pipe(order: list[int]) -> int:
    """The read end of a pipe holding the chunk numbers in `order` (its write end closed)."""
    if len(order) * _TOKEN > 65536:  # a pipe's default capacity: the write below must not block
        raise ValueError(f"{len(order)} chunks are too many for one claims pipe")
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, b"".join(i.to_bytes(_TOKEN, "little") for i in order))
    finally:
        os.close(write_end)
    return read_end


def _claim_order(chunks: list[list[tuple[NoteFile, str | None]]]) -> list[int]:
    """Chunk numbers, the most bytes first: the last chunks taken are the smallest, so a process
    that runs out of chunks waits less for the others to finish theirs. (Only the order of the
    claims changes; each chunk keeps its number, and so its cache part.)"""
    weight = [sum(fs.size for fs, _ in chunk) for chunk in chunks]
    return sorted(range(len(chunks)), key=lambda i: -weight[i])


def _claim(claims: int) -> Iterator[int]:
    """Chunk numbers taken in turn from the claims pipe shared by the parent and its helpers."""
    while token := os.read(claims, _TOKEN):
        yield int.from_bytes(token, "little")


_RESULTS = "results"  # a folder of the staging folder: one pickle per chunk a helper parsed


def _helper(chunks: list[list[tuple[NoteFile, str | None]]], claims: int, parent: int) -> None:
    """A forked helper process: parse claimed chunks and leave each result in the staging folder.

    It stops at the next chunk when its parent is gone (a killed build), so it never outlives
    the build by more than a chunk (nor holds the inherited vault lock longer). An exception
    is left there too, for the parent to raise.
    """
    job = _WORKER_JOB
    assert job is not None and job.staging is not None
    try:
        for i in _claim(claims):
            if os.getppid() != parent:
                os._exit(1)
            payload = pickle.dumps(_parse_chunk(i, chunks[i], job), protocol=pickle.HIGHEST_PROTOCOL)
            write_staged(job.staging, f"{_RESULTS}/{i:05}.pickle", payload)
    except BaseException as exc:
        try:
            error = pickle.dumps(exc)
        except Exception:
            error = pickle.dumps(RuntimeError(f"{type(exc).__name__}: {exc}"))
        write_staged(job.staging, f"{_RESULTS}/error-{os.getpid()}.pickle", error)
        raise


def _note_from_light(
    values: tuple[Any, ...], paths_key: tuple[str, ...], source: StagedLines, part: str
) -> IndexedNote:
    note = IndexedNote.__new__(IndexedNote)
    note.parsed = ParsedNote(*values[:_FACTS])
    for name, value in zip(_LIGHT, values[_FACTS:-1], strict=True):
        setattr(note, name, value)
    note.c_line, note.c_ref, note.c_staged = b"", (source, part, values[-1]), True
    note.resolved = []
    note.res_key = paths_key
    note.layer, note.m_key, note.m_line = None, None, b""
    return note


def parse_with_helpers(chunks: list[list[tuple[NoteFile, str | None]]], helpers: int, job: ParseJob) -> list[Parsed]:
    """`_parse_in_parallel` with `job` where the forked helpers find it."""
    global _WORKER_JOB
    _WORKER_JOB = job
    # every note's record is written with orjson: imported here once rather than in each process
    jsoncodec.load_fast_codec()
    try:
        # markdown-it is not made here for the helpers to inherit: the scanner decides most
        # notes without it, and a process imports it (~30 ms) only if one of its notes needs it
        return _parse_in_parallel(chunks, helpers, job)
    finally:
        _WORKER_JOB = None


def _parse_in_parallel(chunks: list[list[tuple[NoteFile, str | None]]], helpers: int, job: ParseJob) -> list[Parsed]:
    """This process and `helpers` forked processes parse the chunks, each claiming the next free one.

    The parent keeps its own notes whole; a helper's notes come back light (see _LIGHT), as a
    pickle per chunk in the staging folder, read once the helper has exited. (Files rather
    than a pipe: a helper never blocks on a parent that is busy, or dead.)
    """
    assert job.staging is not None
    source = job.lines = StagedLines(job.staging)
    results = job.staging / _RESULTS
    results.mkdir()
    order = _claim_order(chunks)
    claims = _claims_pipe(order)
    pids: dict[int, int | None] = {}  # helper pid -> exit code once reaped
    finished = False
    try:
        parent = os.getpid()
        for _ in range(helpers):
            pid = os.fork()
            if pid == 0:  # the helper: it never returns into the build
                status = 1
                try:
                    _helper(chunks, claims, parent)
                    status = 0
                finally:
                    os._exit(status)
            pids[pid] = None
        by_chunk: dict[int, list[Parsed]] = {}
        total = sum(map(len, chunks))
        taken_before = {i: k for k, i in enumerate(order)}
        for i in _claim(claims):
            if job.checkpoint is not None:  # the chunks taken before i are parsed or under way
                job.checkpoint(min(taken_before[i] * len(chunks[0]), total), total, "parse")
            by_chunk[i] = _parse_own_chunk(i, chunks[i], job)
        for pid in pids:
            pids[pid] = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
        for error in sorted(results.glob("error-*.pickle")):
            raise pickle.loads(error.read_bytes())  # noqa: S301 - written by our own helper
        if any(code != 0 for code in pids.values()):
            codes = list(pids.values())
            raise RuntimeError(f"An index parser process ended unexpectedly (exit codes {codes}).")
        for i in range(len(chunks)):
            if i in by_chunk:
                continue
            part = _chunk_part(i)
            payload = pickle.loads((results / f"{i:05}.pickle").read_bytes())  # noqa: S301 - ours
            by_chunk[i] = [
                (
                    fs,
                    size,
                    sha,
                    problem,
                    None if light is None else _note_from_light(light, job.paths_key, source, part),
                )
                for (fs, _), (size, sha, problem, light) in zip(chunks[i], payload, strict=True)
            ]
        job.cache_parts = [_chunk_part(i) for i in range(len(chunks))]
        finished = True
        return [parsed for i in range(len(chunks)) for parsed in by_chunk[i]]
    finally:
        os.close(claims)
        for pid, code in pids.items():
            if code is None:
                if not finished:
                    os.kill(pid, signal.SIGKILL)  # its results are not wanted
                os.waitpid(pid, 0)
        discard_staging(results)
