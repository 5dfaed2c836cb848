"""`kh serve`'s /mcp: the MCP server over streamable HTTP, built when its first request comes.

Importing the MCP SDK is about a third of the sidecar's start-up (~0.5 s of ~1.6 s), and the
plugin, the badges and every REST client never use it. So the server, its session manager and
the per-token session cap (api/mcp_sessions.py) are made on the first request to /mcp, which
waits for them; the session manager then runs in the lifespan's task group until shutdown, as
it would have from the start. Other paths never reach here (api/app.py answers them 404).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import anyio
from anyio.abc import TaskGroup, TaskStatus

from ..core.memory import freeze_long_lived
from ..settings import Settings
from .context import AppContext
from .mcp_sessions import ASGIApp, SessionEnded, SessionLimiter


class LazyMcpDoor:
    """An ASGI app for /mcp that builds the MCP server on its first request."""

    def __init__(self, settings: Settings, ctx: AppContext, on_end: SessionEnded) -> None:
        self._settings = settings
        self._ctx = ctx
        self._on_end = on_end
        self._door: ASGIApp | None = None
        self._building = anyio.Lock()
        self._tasks: TaskGroup | None = None

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """The lifespan's part: where the session manager runs once built; it ends with the app."""
        async with anyio.create_task_group() as tasks:
            self._tasks = tasks
            try:
                yield
            finally:
                self._tasks = None
                tasks.cancel_scope.cancel()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        door = self._door or await self._build()
        await door(scope, receive, send)

    async def _build(self) -> ASGIApp:
        async with self._building:
            if self._door is None:
                if self._tasks is None:
                    raise RuntimeError("The MCP door is not running (the app's lifespan has not started).")
                mcp, app = await anyio.to_thread.run_sync(self._make)
                await self._tasks.start(self._serve, mcp.session_manager)
                self._door = SessionLimiter(app, mcp.session_manager, on_end=self._on_end)
        return self._door

    def _make(self) -> tuple[Any, ASGIApp]:
        from mcp.server.transport_security import TransportSecuritySettings

        from .mcp import build_mcp

        mcp = build_mcp(self._ctx)
        # Our own middleware checks Host, Origin and the token for /mcp too.
        app = mcp.streamable_http_app(
            streamable_http_path="/mcp",
            # sessions, not stateless: a tool call then knows the client's initialize handshake (its name
            # and version), which every agent record names; idle sessions end, their number is bounded
            stateless_http=False,
            session_idle_timeout=30 * 60,
            max_sessions=256,
            json_response=True,
            transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
            max_request_body_size=self._settings.max_body_bytes,
        )
        freeze_long_lived(collect_first=False)  # the SDK's objects join start-up's (core/memory.py)
        return mcp, app

    @staticmethod
    async def _serve(manager: Any, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        async with manager.run():
            task_status.started()
            await anyio.sleep_forever()
