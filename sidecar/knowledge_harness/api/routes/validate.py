"""POST /v1/validate (the read-only validator) and POST /v1/trust/notes/{path}/validate?dry_run=true.

The body of /v1/validate is read by hand: its JSON nesting depth is checked before parsing
(a deeply nested body would otherwise exhaust Python's recursion limit), then it is validated
against ValidationRequest, whose explicit limits turn 10,000 claims or oversized evidence into a
422; the middleware's body cap answers 413 before any of this.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

import anyio
from fastapi import APIRouter, Query, Request
from fastapi.exceptions import RequestValidationError
from pydantic import ValidationError

from ...errors import InputError
from ...trust.validate.dry_run_models import DryRunReport
from ...trust.validate.judge_budget import spend_for_note_dry_run, spend_for_validation
from ...trust.validate.validation_models import ValidationRequest, ValidationResult
from ...trust.validate.validation_service import dry_run, validate_request
from ..deps import AnyActor, Ctx
from .jobs import RequestJob, running

router = APIRouter(tags=["validate"])

MAX_JSON_DEPTH = 32


def json_depth_exceeds(raw: bytes, limit: int) -> bool:
    """True when the JSON text nests arrays/objects deeper than `limit` (strings are skipped)."""
    depth = 0
    in_string = False
    escaped = False
    for byte in raw:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):
            depth += 1
            if depth > limit:
                return True
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return False


def parse_request(raw: bytes) -> ValidationRequest:
    if json_depth_exceeds(raw, MAX_JSON_DEPTH):
        raise RequestValidationError(
            [{"loc": ("body",), "msg": f"JSON nested deeper than {MAX_JSON_DEPTH} levels", "type": "value_error"}]
        )
    try:
        data: Any = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise RequestValidationError(
            [{"loc": ("body",), "msg": f"Invalid JSON: {str(exc)[:200]}", "type": "json_invalid"}]
        ) from exc
    try:
        return ValidationRequest.model_validate(data)
    except ValidationError as exc:
        raise RequestValidationError(exc.errors(include_url=False, include_input=False)) from exc


@router.post(
    "/v1/validate",
    response_model=ValidationResult,
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": ValidationRequest.model_json_schema()}},
        }
    },
)
async def post_validate(ctx: Ctx, actor: AnyActor, request: Request) -> ValidationResult:
    """The read-only validator: ValidationRequest → ValidationResult. Reads and writes no note. With the
    agent token a paid judge needs the machine configuration's `[agents] judge_calls_per_day` (409)."""
    body = await request.body()
    parsed = parse_request(body)
    if not actor.is_person:
        judge = parsed.options.judge if parsed.options else None
        await anyio.to_thread.run_sync(spend_for_validation, ctx.vault, judge)
    return await anyio.to_thread.run_sync(validate_request, ctx.vault.root, parsed)


@router.post("/v1/trust/notes/{path:path}/validate", response_model=DryRunReport)
async def post_note_validate(
    ctx: Ctx,
    actor: AnyActor,
    path: str,
    dry_run_flag: Annotated[bool, Query(alias="dry_run")] = False,
    judge: Annotated[str | None, Query(max_length=64)] = None,
    refetch: Annotated[bool, Query(description="Fetch every cited page anew (no snapshot reuse).")] = False,
    *,
    http: Request,
    job: RequestJob,
) -> DryRunReport:
    """Evidence + validator + proposed blocks for one note; only `dry_run=true` (writes nothing but snapshots).
    With the agent token a paid judge needs the machine configuration's `[agents] judge_calls_per_day` (409).
    With an `X-KH-Job` header, GET /v1/jobs/{id} shows the step (`fetch`, then `judge`, 2 in all) and a
    cancel stops it (an agent judge's wait at once)."""
    if not dry_run_flag:
        raise InputError("Only dry_run=true is supported; production writes go through /v1/batches and approval.")
    if not actor.is_person:
        await anyio.to_thread.run_sync(spend_for_note_dry_run, ctx.vault, path, judge)
    with running(http, job):
        return await dry_run(
            ctx.vault,
            path,
            judge_name=judge,
            refetch=refetch,
            steps=job.report if job else None,
            cancelled=job.is_cancelled if job else None,
            workers=ctx.runtime.extraction,
        )
