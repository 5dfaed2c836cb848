"""create_app(): the FastAPI application with the security middleware, REST routes and /mcp."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any

import anyio
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from .. import __version__
from ..core.jobs import JobRegistry
from ..core.memory import freeze_long_lived
from ..errors import HarnessError, HttpError, InternalError, InvalidRequest, MethodNotAllowed, NotFound
from ..index.query import warm_search_in_background
from ..settings import Settings
from ..trust.validate.judge_queue import release_session
from .context import AppContext
from .mcp_door import LazyMcpDoor
from .messages import localized_body
from .openapi import envelope_openapi
from .routes import ROUTERS
from .security import PortRef, SecurityMiddleware

log = logging.getLogger(__name__)


def _render(error: HarnessError, request: Request | None = None) -> JSONResponse:
    """The one REST rendering of the error tree (errors.py): its envelope, at its HTTP status; its
    message in the request's language when it names one (api/messages.py)."""
    accept = request.headers.get("accept-language") if request is not None else None
    return JSONResponse(localized_body(error, accept), status_code=error.http_status)


def _only_mcp_path(mcp_app: Any) -> Any:
    """Mounted at "/" (a mount at "/mcp" answers POST /mcp with a 307), so pass only /mcp through."""

    async def asgi(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope.get("path") not in ("/mcp", "/mcp/"):
            response = _render(NotFound(f"No route {scope.get('path')}."))
            await response(scope, receive, send)
            return
        await mcp_app(scope, receive, send)

    return asgi


def create_app(settings: Settings, ctx: AppContext | None = None) -> FastAPI:
    ctx = ctx or AppContext.create(settings)

    async def session_ended(session: str, why: str) -> None:
        released = await anyio.to_thread.run_sync(release_session, ctx.vault, session, why)
        if released:
            log.info("%s: judge task(s) %s open again", why, ", ".join(released))

    mcp_door = LazyMcpDoor(settings, ctx, on_end=session_ended)

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        freeze_long_lived(collect_first=True)  # the imports' objects: core/memory.py says why
        # the first search after start-up should not pay for the search layer (20 s at 10,000 notes)
        warm_search_in_background(ctx.index)
        try:
            async with mcp_door.running():
                yield
        finally:
            ctx.runtime.close()  # the audit thread, the extraction workers, the search layers

    app = FastAPI(
        title="Knowledge Harness sidecar",
        version=__version__,
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
    )
    app.state.ctx = ctx
    app.state.jobs = JobRegistry()  # long work's progress and its Cancel (api/routes/jobs.py)
    app.openapi = lambda: envelope_openapi(app)  # type: ignore[method-assign]

    @app.exception_handler(HarnessError)
    async def harness_error(request: Request, exc: HarnessError) -> JSONResponse:
        return _render(exc, request)

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        detail = [{"loc": list(e.get("loc", ())), "msg": e.get("msg", "")} for e in exc.errors()[:20]]
        return _render(InvalidRequest("The request does not match the expected schema.", detail=detail), request)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if exc.status_code == 404:
            return _render(NotFound(f"No route matches {request.url.path!r}."), request)
        if exc.status_code == 405:
            return _render(MethodNotAllowed(f"{request.method} is not allowed on {request.url.path!r}."), request)
        return _render(HttpError(exc.status_code, f"{exc.detail}."), request)

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error")
        return _render(InternalError(f"Unexpected error: {type(exc).__name__}."), request)

    for router in ROUTERS:
        app.include_router(router)
    app.mount("/", _only_mcp_path(mcp_door))  # api/mcp_door.py

    app.state.port_ref = PortRef(settings.port or None)
    app.add_middleware(
        SecurityMiddleware,
        token=settings.token,
        agent_token=settings.agent_token,
        agent_token_source=settings.agent_token_source,
        port_ref=app.state.port_ref,
        allowed_origins=settings.allowed_origins,
        max_body_bytes=settings.max_body_bytes,
    )
    return app
