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
    def __init__(self) -> None:
        self._jobs: OrderedDict[str, Job] = OrderedDict()
        self._lock = threading.Lock()

    def start(self, job_id: str, action: str, owner: str) -> Job:
        job = Job(check_job_id(job_id), action, owner)
        with self._lock:
            earlier = self._jobs.get(job_id)
            if earlier is not None and earlier.cancel_requested and earlier.owner == owner:
                job.cancel_requested = True  # cancelled before its request arrived
            self._jobs[job_id] = job
            self._jobs.move_to_end(job_id)
            while len(self._jobs) > MAX_JOBS:
                self._jobs.popitem(last=False)
        return job

    def finish(self, job: Job, state: JobState) -> None:
        with job._lock:
            job.state = state

    def get(self, job_id: str, owner: str) -> Job | None:
        with self._lock:
            job = self._jobs.get(check_job_id(job_id))
        return job if job is not None and job.owner == owner else None

    def cancel(self, job_id: str, owner: str) -> Job:
        """Asks the job to stop at its next step. A job not (yet) known is remembered as cancelled, so
        a cancel that overtakes its own request still stops it."""
        with self._lock:
            job = self._jobs.get(check_job_id(job_id))
            if job is not None and job.owner != owner:
                job = None  # another scope's job: this caller cannot see it, nor stop it
                raise_unknown = True
            else:
                raise_unknown = False
            if job is None and not raise_unknown:
                job = Job(job_id, "unknown", owner)
                self._jobs[job_id] = job
                while len(self._jobs) > MAX_JOBS:
                    self._jobs.popitem(last=False)
        if job is None:
            raise NotFound(f"No job {job_id}.")
        with job._lock:
            if job.state == "running":
                job.cancel_requested = True
        return job
