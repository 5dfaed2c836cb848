"""Long work's progress and its Cancel (core/jobs.py): GET /v1/jobs/{id}, POST /v1/jobs/{id}/cancel."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, Field

from ...actors import Actor
from ...core.jobs import JOB_HEADER, Job, JobRegistry
from ...errors import Cancelled, NotFound
from ..deps import get_actor

router = APIRouter(prefix="/v1/jobs", tags=["jobs"])


class JobView(BaseModel):
    job_id: str
    action: str = Field(description="What the job does, e.g. 'batch plan'.")
    state: Literal["running", "finished", "failed", "cancelled"]
    done: int = Field(description="Steps done before the current one.")
    total: int | None = Field(description="Steps in all; null until the work knows.")
    step: str = Field(description="What the current step works on (a note's path).")
    elapsed_seconds: float
    cancel_requested: bool


def registry(request: Request) -> JobRegistry:
    jobs: JobRegistry = request.app.state.jobs  # made with the app (api/app.py)
    return jobs


def _owner(actor: Actor) -> str:
    return "person" if actor.is_person else "agent"


async def request_job(request: Request, actor: Annotated[Actor, Depends(get_actor)]) -> Job | None:
    """The job the request names in its X-KH-Job header (None without one)."""
    job_id = request.headers.get(JOB_HEADER)
    if not job_id:
        return None
    action = f"{request.method} {request.url.path}"
    return registry(request).start(job_id, action, _owner(actor))


RequestJob = Annotated[Job | None, Depends(request_job)]


@contextmanager
def running(request: Request, job: Job | None) -> Iterator[None]:
    """Marks the job finished, cancelled or failed when the work ends."""
    if job is None:
        yield
        return
    jobs = registry(request)
    try:
        yield
    except Cancelled:
        jobs.finish(job, "cancelled")
        raise
    except BaseException:
        jobs.finish(job, "failed")
        raise
    jobs.finish(job, "finished")


@router.get("/{job_id}", response_model=JobView)
async def get_job(request: Request, job_id: str, actor: Annotated[Actor, Depends(get_actor)]) -> JobView:
    job = registry(request).get(job_id, _owner(actor))
    if job is None:
        raise NotFound(f"No job {job_id}.")
    return JobView(**job.view())


@router.post("/{job_id}/cancel", response_model=JobView)
async def cancel_job(request: Request, job_id: str, actor: Annotated[Actor, Depends(get_actor)]) -> JobView:
    """Stops the job at its next step (a cancel may arrive before its request: the job then never starts)."""
    return JobView(**registry(request).cancel(job_id, _owner(actor)).view())
