"""The job registry keeps each token scope's jobs apart: the agent cannot hide or push out the person's."""

from __future__ import annotations

import pytest

from knowledge_harness.core.jobs import MAX_JOBS, JobRegistry
from knowledge_harness.errors import Cancelled, NotFound


def test_the_agent_cannot_push_the_persons_running_job_out_of_reach() -> None:
    jobs = JobRegistry()
    running = jobs.start("person-job-0001", "POST /v1/batches", "person")
    for n in range(MAX_JOBS + 1):  # cancels of made-up ids each leave a placeholder
        jobs.cancel(f"agent-made-up-{n:04d}", "agent")
    assert jobs.get("person-job-0001", "person") is running
    jobs.cancel("person-job-0001", "person")
    with pytest.raises(Cancelled):
        running.report(1, 2, "b.md")


def test_an_agent_job_under_the_persons_id_does_not_replace_it() -> None:
    jobs = JobRegistry()
    running = jobs.start("person-job-0001", "POST /v1/batches", "person")
    jobs.start("person-job-0001", "POST /v1/batches", "agent")
    assert jobs.get("person-job-0001", "person") is running
    other = jobs.start("person-job-0002", "POST /v1/batches", "person")
    with pytest.raises(NotFound):
        jobs.cancel("person-job-0002", "agent")
    assert other.is_cancelled() is False


def test_each_scope_keeps_at_most_max_jobs() -> None:
    jobs = JobRegistry()
    for n in range(MAX_JOBS + 5):
        jobs.start(f"person-job-{n:04d}", "x", "person")
    assert jobs.get("person-job-0000", "person") is None
    assert jobs.get(f"person-job-{MAX_JOBS + 4:04d}", "person") is not None
