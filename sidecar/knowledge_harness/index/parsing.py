"""Read and parse the notes a build needs: in this process, or with forked helpers when there are
many (index/parallel.py, imported only then); index/reading.py reads and parses each one."""

from __future__ import annotations

import os

from ..vault.paths import NoteFile, Vault
from .build_state import BuildState
from .reading import Parsed, ParseJob, read_one
from .store import new_index_staging

PARALLEL_MIN_NOTES = 1500


def read_and_parse(
    vault: Vault, to_read: list[NoteFile], state: BuildState, workers: int, job: ParseJob
) -> list[Parsed]:
    """Read, hash and parse notes; with forked helpers when there are many and workers allow.

    Every process resolves links against the scan's paths and writes changed note layers into
    `job.staging` (created here; build_index removes it if the build fails).
    """
    jobs = []
    for fs in to_read:
        old = state.notes.get(fs.path)
        jobs.append((fs, old.parsed.sha256 if old is not None else None))
    count = workers if workers > 0 else (os.cpu_count() or 1)
    if len(to_read) >= PARALLEL_MIN_NOTES:
        # many layers: each goes to the staging folder as it is made rather than waiting in
        # memory for the commit (10,000 notes' layers held ~150 MB more in one process)
        job.staging = new_index_staging(vault)
        job.old_layers = state.layers
        if count > 1:
            from . import parallel  # pickle and the fork machinery: only for builds that use them

            if parallel.available():
                size = max(50, len(jobs) // (count * 16))  # small chunks: little idle time at the end
                chunks = [jobs[i : i + size] for i in range(0, len(jobs), size)]
                return parallel.parse_with_helpers(chunks, count - 1, job)
    check = job.checkpoint
    if check is None:
        return [read_one(fs, known, job) for fs, known in jobs]
    parsed: list[Parsed] = []
    total = len(jobs)
    for fs, known in jobs:
        check(len(parsed), total, "parse")
        parsed.append(read_one(fs, known, job))
    return parsed
