"""What the person is told to do next: the first look at a vault (`kh init`) and the candidates of
the next batch (what `kh discover` lists). Thin doors over trust/audit/onboarding.py and trust/approve/discovery.py.

GET /v1/trust/init and GET /v1/trust/candidates are read-only; POST /v1/trust/init/write writes
`.harness/policy.toml` and only for the person token (an agent gets 403 `person_required`).
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated

from fastapi import APIRouter, Body, Query
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from ...trust.approve.discovery import CandidateList, candidate_list
from ...trust.audit.audit import current_policy
from ...trust.audit.onboarding import InitApplied, InitReport, apply_proposal, inspect_vault
from ..deps import Ctx, PersonActor

router = APIRouter(prefix="/v1/trust", tags=["onboarding"])


@router.get("/init", response_model=InitReport)
async def get_init(ctx: Ctx, today: Annotated[dt.date | None, Query()] = None) -> InitReport:
    """The `kh init VAULT --json` report: why the audit counts what it counts, and a proposed [keywords] rule."""
    return await run_in_threadpool(inspect_vault, ctx.vault, today=today)


class InitWriteRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    proposed_toml: str = Field(
        max_length=100_000,
        description="The `proposed_toml` of the report the person confirmed; refused (412) when the vault now "
        "proposes something else.",
    )
    force: bool = Field(default=False, description="Replace the [keywords] table of an existing policy.")


@router.post("/init/write", response_model=InitApplied)
async def post_init_write(ctx: Ctx, _person: PersonActor, request: Annotated[InitWriteRequest, Body()]) -> InitApplied:
    """`kh init VAULT --write`: write the confirmed rule to .harness/policy.toml. Person token only; an
    existing policy only with `force` (409 `refused` otherwise)."""
    return await run_in_threadpool(apply_proposal, ctx.vault, seen_toml=request.proposed_toml, force=request.force)


@router.get("/candidates", response_model=CandidateList)
async def get_candidates(ctx: Ctx, today: Annotated[dt.date | None, Query()] = None) -> CandidateList:
    """The candidates of the next batch, by reason (as `kh discover` lists them); writes nothing."""
    day = today or dt.date.today()
    return await run_in_threadpool(
        candidate_list, ctx.catalog, current_policy(ctx.vault.root, auditor=ctx.auditor), day
    )
