"""The approval gate over HTTP: POST /v1/batches, GET /v1/batches/{id}, POST /v1/batches/{id}/approve,
GET /v1/runs/{id}. Same services as `kh batch` / `kh runs` (trust/approve/batch.py, docs/approval.md).
The answers are the services' models (trust/approve/models.py); a run record goes out as its stored dict.

An approval answers 200 with the run record whenever the run took place (its `run_status`,
`consumption` and `result` say how it went, FAILED included); refusals before anything is
written are errors: 409 `challenge_refused` / `plan_expired` / `conflict` (already approved),
423 `busy`, 404 for an unknown plan.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Literal

import anyio
from fastapi import APIRouter, Body, Request
from pydantic import BaseModel, ConfigDict, Field, field_validator

from ... import actors
from ...actors import Actor
from ...core.jobs import Job
from ...machine_config import load_machine_config
from ...trust.approve.batch import (
    approve,
    build_plan,
    plan_view,
    preview_plan,
    recover_interrupted_runs,
    require_agent_judge_budget,
    rollout,
    show_plan,
    show_run,
)
from ...trust.approve.models import BatchRun, PlanView, Rollout
from ...trust.validate.judge_budget import Reservation, reserve_plan_calls, settle_plan_calls
from ..context import AppContext
from ..deps import AnyActor, Ctx, PersonActor
from .jobs import RequestJob, running

router = APIRouter(tags=["batches"])


class PlanRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    stage: Literal["canary", "pilot", "progressive"] = "canary"
    notes: list[Annotated[str, Field(min_length=1, max_length=1024)]] | None = Field(default=None, max_length=10_000)
    today: dt.date | None = Field(
        default=None, description="Refused: a plan takes the machine's date (a caller cannot date a write)."
    )
    judge: str | None = Field(default=None, max_length=64)
    out_of_order: bool = Field(default=False, description="Plan this stage before the previous one succeeded.")

    @field_validator("today")
    @classmethod
    def _dated_by_the_clock(cls, value: dt.date | None) -> None:
        if value is not None:
            raise ValueError(
                "today is not accepted: a plan takes the machine's date, so that no caller can date what a run "
                "writes (last_validated, revalidate_after)"
            )
        return None


class ApproveRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    challenge: str = Field(max_length=200, description='Exactly "APPROVE_PRODUCTION <digest>" as typed by a person.')
    via: Literal["api", "plugin"] = Field(default="api", description='"plugin" records the person as "… via Obsidian".')


@router.post("/v1/batches", response_model=PlanView, response_model_exclude_unset=True)
async def post_batch(
    ctx: Ctx, actor: AnyActor, request: Annotated[PlanRequest, Body()], http: Request, job: RequestJob
) -> PlanView:
    """Build a plan (dry-run validation of each target); writes no note. With the agent token, a plan that
    would call a paid judge needs the machine configuration's `[agents] judge_calls_per_day`. With an
    `X-KH-Job` header, GET /v1/jobs/{id} shows which note of how many, and a cancel stops it."""
    with running(http, job):
        return await _plan(ctx, actor, request, job)


async def _plan(ctx: AppContext, actor: Actor, request: PlanRequest, job: Job | None) -> PlanView:
    await anyio.to_thread.run_sync(recover_interrupted_runs, ctx.vault)
    agent_calls = 0
    reservation: Reservation | None = None
    if not actor.is_person:

        def budget() -> int:
            preview = preview_plan(
                ctx.vault,
                stage=request.stage,
                notes=request.notes,
                judge_name=request.judge,
                out_of_order=request.out_of_order,
            )
            return require_agent_judge_budget(
                ctx.vault, preview, load_machine_config(ctx.auditor.machine_configs).agents.judge_calls_per_day
            )

        # check and reserve in one step: two agent plans at once cannot both pass a check one fits
        reservation = await anyio.to_thread.run_sync(reserve_plan_calls, ctx.vault, budget)
        agent_calls = reservation.calls
    stored = False
    try:
        plan = await build_plan(
            ctx.vault,
            stage=request.stage,
            notes=request.notes,
            judge_name=request.judge,
            out_of_order=request.out_of_order,
            agent_judge_calls=agent_calls,
            progress=job.report if job is not None else None,
        )
        stored = True
    finally:
        if reservation is not None:
            await anyio.to_thread.run_sync(lambda: settle_plan_calls(ctx.vault, reservation, stored=stored))
    return plan_view(ctx.vault, plan)


@router.get("/v1/batches/next", response_model=Rollout)
async def get_next_stage(ctx: Ctx) -> Rollout:
    """The stage the plugin's main button plans: canary first, then pilot, then progressive."""
    await anyio.to_thread.run_sync(recover_interrupted_runs, ctx.vault)
    return await anyio.to_thread.run_sync(rollout, ctx.vault)


@router.get("/v1/batches/{plan_id}", response_model=PlanView, response_model_exclude_unset=True)
async def get_batch(ctx: Ctx, plan_id: str) -> PlanView:
    """A plan with its digest and status (open, expired, consumed)."""
    return await anyio.to_thread.run_sync(show_plan, ctx.vault, plan_id)


@router.post("/v1/batches/{plan_id}/approve", response_model=BatchRun, response_model_exclude_unset=True)
async def post_approve(
    ctx: Ctx, person: PersonActor, plan_id: str, request: Annotated[ApproveRequest, Body()]
) -> dict[str, Any]:
    """Apply the plan after the exact typed challenge; the run record. Person token only."""
    actor = actors.person("plugin") if request.via == "plugin" else person

    def run() -> dict[str, Any]:
        return approve(ctx.vault, plan_id, request.challenge, actor=actor)

    return await anyio.to_thread.run_sync(run)


@router.get("/v1/runs/{run_id}", response_model=BatchRun, response_model_exclude_unset=True)
async def get_run(ctx: Ctx, run_id: str) -> dict[str, Any]:
    """A batch run record."""
    return await anyio.to_thread.run_sync(show_run, ctx.vault, run_id)
