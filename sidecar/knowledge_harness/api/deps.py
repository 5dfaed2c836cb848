"""FastAPI dependencies shared by the routers."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from .context import AppContext


async def get_context(request: Request) -> AppContext:
    # async: FastAPI runs a plain `def` dependency in the thread pool, a thread hop per request.
    ctx: AppContext = request.app.state.ctx
    return ctx


Ctx = Annotated[AppContext, Depends(get_context)]
