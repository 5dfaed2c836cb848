"""FastAPI dependencies shared by the routers: the vault context and who is asking."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from .. import actors
from ..actors import Actor
from ..errors import PersonRequired, Unauthorized
from .context import AppContext
from .security import AUTH_SCOPE_KEY


async def get_context(request: Request) -> AppContext:
    # async: FastAPI runs a plain `def` dependency in the thread pool, a thread hop per request.
    ctx: AppContext = request.app.state.ctx
    return ctx


async def get_actor(request: Request) -> Actor:
    """The principal proven by the bearer token the security middleware matched."""
    scope = request.scope.get(AUTH_SCOPE_KEY)
    if scope == "person":
        return actors.person("http")
    if scope == "agent":
        return actors.agent("http")
    raise Unauthorized("A valid bearer token is required.")


async def require_person(request: Request) -> Actor:
    """Person-only actions: refused for the agent token before any resource is looked up."""
    actor = await get_actor(request)
    if not actor.is_person:
        raise PersonRequired(
            "Only a person may do this: the agent token cannot approve, authorize, answer, decide or shut down."
        )
    return actor


Ctx = Annotated[AppContext, Depends(get_context)]
AnyActor = Annotated[Actor, Depends(get_actor)]
PersonActor = Annotated[Actor, Depends(require_person)]
