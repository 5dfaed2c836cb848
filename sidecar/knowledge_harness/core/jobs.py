"""Long work a caller can watch and cancel: steps and counts, and a Cancel that stops the work.

A caller names its request's job with the `X-KH-Job` header (an id it made up); the door registers
the job and hands the service `job.report` as its `progress(done, total, step)` callback. The
service calls it before each step, so a cancelled job stops there with `Cancelled` (nothing half
done is stored: a plan is written only after its last note). `GET /v1/jobs/{id}` reads the
progress, `POST /v1/jobs/{id}/cancel` asks to stop. The plugin cancels a request it gave up on
(its timeout), since Obsidian's requestUrl cannot abort a connection.
"""

from __future__ import annotations

import re
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Literal

from ..errors import Cancelled, InputError, NotFound

JOB_HEADER = "X-KH-Job"
_ID = re.compile(r"^[A-Za-z0-9_-]{8,64}$")
# Finished jobs stay readable for a while (the plugin's last poll); the registry keeps this many.
MAX_JOBS = 64

JobState = Literal["running", "finished", "failed", "cancelled"]


def check_job_id(value: str) -> str:
    if _ID.match(value) is None:
        raise InputError(f"Not a valid job id: {value[:80]!r} (8 to 64 letters, digits, '-' or '_').")
    return value


@dataclass
class Job:
    job_id: str
    action: str
    owner: str = ""  # the token's scope that started it: only that scope reads or cancels it
    state: JobState = "running"
    done: int = 0
    total: int | None = None
    step: str = ""
    started: float = field(default_factory=time.monotonic)
    cancel_requested: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def report(self, done: int, total: int, step: str) -> None:
        """The services' `progress(done, total, step)`: records it, and stops cancelled work here."""
        with self._lock:
            self.done, self.total, self.step = done, total, step
            stop = self.cancel_requested
        if stop:
            raise Cancelled(
                f"Cancelled after {done} of {total}: nothing was stored.",
                detail={"job_id": self.job_id, "done": done, "total": total},
            )

    def is_cancelled(self) -> bool:
        with self._lock:
            return self.cancel_requested

    def view(self) -> dict[str, Any]:
        with self._lock:
            return {
                "job_id": self.job_id,
                "action": self.action,
                "state": self.state,
                "done": self.done,
                "total": self.total,
                "step": self.step,
                "elapsed_seconds": round(time.monotonic() - self.started, 1),
                "cancel_requested": self.cancel_requested,
            }


class JobRegistry:
    """Each token scope ("person", "agent") has its own jobs, bounded to MAX_JOBS: one scope's jobs
    (or cancels of made-up ids) can neither replace nor push out the other's."""

    def __init__(self) -> None:
        self._jobs: dict[str, OrderedDict[str, Job]] = {}
        self._lock = threading.Lock()

    def _put(self, job: Job) -> None:
        jobs = self._jobs.setdefault(job.owner, OrderedDict())
        jobs[job.job_id] = job
        jobs.move_to_end(job.job_id)
        while len(jobs) > MAX_JOBS:
            jobs.popitem(last=False)

    def _find(self, job_id: str, owner: str) -> Job | None:
        jobs = self._jobs.get(owner)
        return jobs.get(job_id) if jobs is not None else None

    def _others(self, job_id: str, owner: str) -> bool:
        return any(job_id in jobs for scope, jobs in self._jobs.items() if scope != owner)

    def start(self, job_id: str, action: str, owner: str) -> Job:
        job = Job(check_job_id(job_id), action, owner)
        with self._lock:
            earlier = self._find(job_id, owner)
            if earlier is not None and earlier.cancel_requested:
                job.cancel_requested = True  # cancelled before its request arrived
            self._put(job)
        return job

    def finish(self, job: Job, state: JobState) -> None:
        with job._lock:
            job.state = state

    def get(self, job_id: str, owner: str) -> Job | None:
        with self._lock:
            return self._find(check_job_id(job_id), owner)

    def cancel(self, job_id: str, owner: str) -> Job:
        """Asks the job to stop at its next step. A job not (yet) known is remembered as cancelled, so
        a cancel that overtakes its own request still stops it. Another scope's job: this caller
        cannot see it, nor stop it (NotFound)."""
        with self._lock:
            job = self._find(check_job_id(job_id), owner)
            if job is None:
                if self._others(job_id, owner):
                    raise NotFound(f"No job {job_id}.")
                job = Job(job_id, "unknown", owner)
                self._put(job)
        with job._lock:
            if job.state == "running":
                job.cancel_requested = True
        return job
