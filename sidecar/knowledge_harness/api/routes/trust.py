"""Trust routes: the audit, one note's badge, the stale and window lists (all read-only,
except `?record=true`, which appends one summary line to .harness/audits.jsonl).

The audit and the badge answer with JSON serialized straight from their models (the
`response_model` still documents them): FastAPI would validate and re-encode every answer,
which costs more than computing a badge.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import time
from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import Response
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from ...errors import HarnessError
from ...trust.audit.audit import (
    AuditReport,
    AuditTrend,
    Badge,
    StaleReport,
    audit_body,
    audit_trend,
    badge_of,
    current_policy,
    record_audit,
    run_audit,
    stale_report,
)
from ...vault.lock import ensure_writable
from ..deps import Ctx
from ..openapi import ErrorInfo

router = APIRouter(prefix="/v1/trust", tags=["trust"])

JSON = "application/json"
log = logging.getLogger(__name__)


@router.get("/audit", response_model=AuditReport)
async def get_audit(
    ctx: Ctx,
    today: Annotated[dt.date | None, Query(description="Audit as of this date.")] = None,
    threshold: Annotated[float | None, Query(ge=0.0, le=1.0)] = None,
    record: Annotated[bool, Query(description="Append a summary line to .harness/audits.jsonl.")] = False,
) -> Response:
    arrived = time.monotonic_ns()  # requests queued behind a running audit share the next one
    if record:
        ensure_writable(ctx.vault, "audit record")  # a read-only vault: 507 before the audit runs

    def audit() -> bytes:
        policy = current_policy(ctx.vault.root, auditor=ctx.auditor)
        report = run_audit(ctx.catalog, policy, today=today, threshold=threshold, arrived=arrived)
        if record:
            record_audit(ctx.catalog, report)
        return audit_body(report, ctx.auditor)

    # Audits run one at a time (run_audit serializes them per catalog anyway) on the runtime's one
    # audit thread: queued requests wait there rather than holding pool threads, and the audit's
    # large allocations stay in one malloc arena (measured: spread over the thread pool's threads
    # they grew the sidecar's RSS by ~40 MB under 32 concurrent audits of a 10,000-note vault).
    body = await asyncio.get_running_loop().run_in_executor(ctx.runtime.audit_thread.executor(), audit)
    if log.isEnabledFor(logging.DEBUG):  # the audit is what fills the memory: its sizes after each (kh serve -vv)
        log.debug("runtime memory: %s", ctx.runtime.describe())
    return Response(body, media_type=JSON)


@router.get("/audits", response_model=AuditTrend)
def get_audit_trend(ctx: Ctx, limit: Annotated[int, Query(ge=1, le=5000)] = 365) -> AuditTrend:
    """Audits recorded with `?record=true` or `kh audit --record`, oldest first: the dashboard's trend."""
    return audit_trend(ctx.catalog, limit=limit)


@router.get("/stale", response_model=StaleReport)
def get_stale(ctx: Ctx, today: Annotated[dt.date | None, Query()] = None) -> StaleReport:
    return stale_report(ctx.catalog, current_policy(ctx.vault.root, auditor=ctx.auditor), today=today)


@router.get("/notes/{path:path}", response_model=Badge)
async def get_badge(ctx: Ctx, path: str, today: Annotated[dt.date | None, Query()] = None) -> Response:
    # On the event loop: a few stats and a small read when the note is cached (the common case);
    # a note that must be read and parsed goes to the thread pool.
    policy = current_policy(ctx.vault.root, auditor=ctx.auditor)
    note_file = ctx.catalog.locate(path)
    note = ctx.catalog.cached(note_file)
    if note is None:
        note = await run_in_threadpool(ctx.catalog.load, note_file)
    badge = badge_of(ctx.catalog, policy, note, today or dt.date.today())
    return Response(badge.model_dump_json().encode("utf-8"), media_type=JSON)


# The most paths one POST /v1/trust/badges may ask for (the plugin sends batches of 100).
MAX_BADGE_PATHS = 500


class BadgeBatchRequest(BaseModel):
    paths: list[str] = Field(max_length=MAX_BADGE_PATHS, description=f"Vault paths, at most {MAX_BADGE_PATHS}.")
    today: dt.date | None = None


class BadgeBatch(BaseModel):
    badges: dict[str, Badge] = Field(description="The badge of every path that has one (as GET /notes/{path}).")
    errors: dict[str, ErrorInfo] = Field(description="Why a path has no badge (not_found, path_rejected, ...).")


@router.post("/badges", response_model=BadgeBatch)
def post_badges(ctx: Ctx, body: BadgeBatchRequest) -> Response:
    """Many badges in one request: each path answers like GET /v1/trust/notes/{path}, or an error."""
    policy = current_policy(ctx.vault.root, auditor=ctx.auditor)
    today = body.today or dt.date.today()
    badges: dict[str, Badge] = {}
    errors: dict[str, ErrorInfo] = {}
    for path in dict.fromkeys(body.paths):  # duplicates answered once
        try:
            note = ctx.catalog.load(ctx.catalog.locate(path))
            badges[path] = badge_of(ctx.catalog, policy, note, today)
        except HarnessError as error:
            errors[path] = ErrorInfo(code=error.code, message=error.message, detail=error.detail)
        except OSError as error:
            errors[path] = ErrorInfo(
                code="not_found", message=f"The note cannot be read: {error.strerror}.", detail=None
            )
    batch = BadgeBatch(badges=badges, errors=errors)
    return Response(batch.model_dump_json().encode("utf-8"), media_type=JSON)
