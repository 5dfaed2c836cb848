"""Trust routes: the audit, one note's badge, the stale and window lists (all read-only,
except `?record=true`, which appends one summary line to .harness/audits.jsonl)."""

from __future__ import annotations

import datetime as dt
from typing import Annotated

from fastapi import APIRouter, Query

from ...trust.audit import (
    AuditReport,
    AuditTrend,
    Badge,
    StaleReport,
    audit_trend,
    note_badge,
    record_audit,
    run_audit,
    stale_report,
)
from ...trust.policy import load_policy
from ..deps import Ctx

router = APIRouter(prefix="/v1/trust", tags=["trust"])


@router.get("/audit", response_model=AuditReport)
def get_audit(
    ctx: Ctx,
    today: Annotated[dt.date | None, Query(description="Audit as of this date.")] = None,
    threshold: Annotated[float | None, Query(ge=0.0, le=1.0)] = None,
    record: Annotated[bool, Query(description="Append a summary line to .harness/audits.jsonl.")] = False,
) -> AuditReport:
    report = run_audit(ctx.catalog, load_policy(ctx.vault.root), today=today, threshold=threshold)
    if record:
        record_audit(ctx.catalog, report)
    return report


@router.get("/audits", response_model=AuditTrend)
def get_audit_trend(ctx: Ctx, limit: Annotated[int, Query(ge=1, le=5000)] = 365) -> AuditTrend:
    """Audits recorded with `?record=true` or `kh audit --record`, oldest first: the dashboard's trend."""
    return audit_trend(ctx.catalog, limit=limit)


@router.get("/stale", response_model=StaleReport)
def get_stale(ctx: Ctx, today: Annotated[dt.date | None, Query()] = None) -> StaleReport:
    return stale_report(ctx.catalog, load_policy(ctx.vault.root), today=today)


@router.get("/notes/{path:path}", response_model=Badge)
def get_badge(ctx: Ctx, path: str, today: Annotated[dt.date | None, Query()] = None) -> Badge:
    return note_badge(ctx.catalog, load_policy(ctx.vault.root), path, today=today)
