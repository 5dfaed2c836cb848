from typing import Annotated

from fastapi import APIRouter, Query

from ...vault.catalog import NoteDetail, NotePage
from ..deps import Ctx

router = APIRouter(prefix="/v1/notes", tags=["notes"])


@router.get("", response_model=NotePage)
def list_notes(
    ctx: Ctx,
    limit: Annotated[int, Query(ge=1, le=5000)] = 500,
    cursor: Annotated[str | None, Query(max_length=2048)] = None,
) -> NotePage:
    return ctx.catalog.list_page(limit=limit, cursor=cursor)


@router.get("/{path:path}", response_model=NoteDetail)
def get_note(ctx: Ctx, path: str) -> NoteDetail:
    return ctx.catalog.detail(path)
