"""REST door of the reasoning index: /v1/index/…"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request, Response

from ...index.query import (
    build_now,
    check_index,
    get_tree,
    note_headings,
    read_section,
)
from ...index.schema import (
    DEFAULT_HEADINGS,
    MAX_HEADINGS,
    BuildReport,
    CheckReport,
    HeadingsResult,
    SearchQuery,
    SearchResult,
    SectionResult,
    TreeResult,
)
from ...trust_view import trusted_search
from ..deps import Ctx
from .jobs import RequestJob, running

router = APIRouter(prefix="/v1/index", tags=["index"])


@router.post("/build", response_model=BuildReport)
def build(ctx: Ctx, http: Request, job: RequestJob, full: bool = False) -> BuildReport:
    """Build or update the index. With an `X-KH-Job` header, GET /v1/jobs/{id} shows the phase (`wait`,
    `scan`, `parse` with notes parsed of those to parse, `links`) and a cancel stops the build before
    it writes anything (409 `cancelled`): the previous index stays as it was."""
    # one writer of .harness/ at a time: a build by the CLI (or a batch) makes this wait, then 423 busy
    with running(http, job):
        return build_now(ctx.vault, full=full, progress=job.report if job is not None else None, index=ctx.index)


@router.get("/check", response_model=CheckReport)
def check(ctx: Ctx) -> CheckReport:
    return check_index(ctx.vault, index=ctx.index)


@router.get("/tree", response_model=TreeResult)
def tree(
    ctx: Ctx,
    folder: Annotated[str | None, Query(max_length=1024)] = None,
    depth: Annotated[int | None, Query(ge=0, le=64)] = None,
) -> TreeResult:
    return get_tree(ctx.vault, folder, depth, index=ctx.index)


@router.get("/search", response_model=SearchResult)
def search_notes(ctx: Ctx, asked: Annotated[SearchQuery, Query()]) -> Response:
    result = trusted_search(ctx.catalog, asked, auditor=ctx.auditor, index=ctx.index)
    # The answer was built and validated as a SearchResult: serialized once here, not validated
    # again by the response model (a tenth of a search's time at 10,000 notes).
    return Response(content=result.model_dump_json(), media_type="application/json")


@router.get("/notes/{path:path}/headings", response_model=HeadingsResult)
def headings(
    ctx: Ctx,
    path: str,
    offset: Annotated[int, Query(ge=0, description="The first heading (document order) of the page")] = 0,
    limit: Annotated[int, Query(ge=1, le=MAX_HEADINGS, description="Headings per page")] = DEFAULT_HEADINGS,
) -> HeadingsResult:
    return note_headings(ctx.vault, path, offset=offset, limit=limit, index=ctx.index)


@router.get("/notes/{path:path}/section", response_model=SectionResult)
def section(
    ctx: Ctx,
    path: str,
    heading: Annotated[str | None, Query(max_length=1000)] = None,
    line: Annotated[int | None, Query(ge=1)] = None,
    end_line: Annotated[int | None, Query(ge=1)] = None,
    max_chars: Annotated[int, Query(ge=1, le=200_000)] = 20_000,
) -> SectionResult:
    return read_section(
        ctx.vault, path, heading=heading, line=line, end_line=end_line, max_chars=max_chars, index=ctx.index
    )
