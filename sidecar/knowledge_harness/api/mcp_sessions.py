"""A per-token cap on MCP sessions that evicts the least recently used idle one.

Red-team item 5: 256 `initialize` calls with the agent token filled the SDK's session table, and
every other HTTP MCP client got 503 for up to 30 minutes (the idle timeout). Here each credential
may hold `per_token` sessions; a new `initialize` beyond that ends the credential's least
recently used session that has no request in flight (a client holding its event stream open
is in flight and is never cut). The SDK's own table limit stays as the last bound.

When a session ends — the client closes it (DELETE), it is evicted here, the SDK forgets it, or
the client's event stream (the GET the official client holds open for the session's life) ends
because its connection dropped — `on_end(session_id, why)` is told: the judge tasks that session
held go back to the queue instead of making their validation wait to its timeout.

The SDK offers no public way to list or end a session from outside, so this reads its session
table (`_server_instances`) and ends a session by terminating its transport, which the SDK
then forgets (tests/hardening/test_connection_limits.py pins that behaviour on the installed SDK:
an evicted session answers 404, a flood of `initialize` calls never meets the SDK's 503).
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field
from typing import Any

import anyio

from .security import AUTH_SCOPE_KEY

log = logging.getLogger(__name__)

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
SessionEnded = Callable[[str, str], Awaitable[None]]
ASGIApp = Callable[[Scope, Callable[[], Awaitable[Message]], Callable[[Message], Awaitable[None]]], Awaitable[None]]

SESSION_HEADER = b"mcp-session-id"
SESSIONS_PER_TOKEN = 32


@dataclass
class _Token:
    sessions: OrderedDict[str, None] = field(default_factory=OrderedDict)  # least recently used first


@dataclass
class SessionLimiter:
    app: ASGIApp
    manager: Any  # mcp's StreamableHTTPSessionManager
    per_token: int = SESSIONS_PER_TOKEN
    tokens: dict[str, _Token] = field(default_factory=dict)
    in_flight: dict[str, int] = field(default_factory=dict)
    evicted: int = 0
    on_end: SessionEnded | None = None

    async def _ended(self, sid: str, why: str) -> None:
        if self.on_end is not None:
            try:
                with anyio.CancelScope(shield=True):  # also when the dropped request is being cancelled
                    await self.on_end(sid, why)
            except Exception:  # a session's end never fails the request that revealed it
                log.exception("MCP session %s: releasing its work failed", sid[:8])

    def _live(self) -> dict[str, Any]:
        table: dict[str, Any] = getattr(self.manager, "_server_instances", {})
        return table

    async def _forget_dead(self, token: _Token) -> None:
        live = self._live()
        for sid in [s for s in token.sessions if s not in live]:
            del token.sessions[sid]
            self.in_flight.pop(sid, None)
            await self._ended(sid, "the MCP session ended")

    async def _make_room(self, token: _Token) -> None:
        await self._forget_dead(token)
        while len(token.sessions) >= self.per_token:
            idle = next((s for s in token.sessions if not self.in_flight.get(s)), None)
            if idle is None:
                return  # every session is busy: the SDK's own limit decides
            del token.sessions[idle]
            transport = self._live().pop(idle, None)
            if transport is not None:
                self.evicted += 1
                log.info("MCP session %s ended: least recently used idle session over the cap", idle[:8])
                await transport.terminate()
                await self._ended(idle, "the MCP session was ended to make room for a new one")

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        who = str(scope.get(AUTH_SCOPE_KEY) or "none")
        token = self.tokens.setdefault(who, _Token())
        sid = next((bytes(v).decode("latin-1") for k, v in scope.get("headers", []) if k == SESSION_HEADER), None)
        if sid is None:
            if scope.get("method") == "POST":
                await self._make_room(token)

            async def learn_session(message: Message) -> None:
                if message["type"] == "http.response.start" and message.get("status", 500) < 400:
                    for key, value in message.get("headers", []):
                        if bytes(key).lower() == SESSION_HEADER:
                            token.sessions[bytes(value).decode("latin-1")] = None
                await send(message)

            await self.app(scope, receive, learn_session)
            return
        if sid in token.sessions:
            token.sessions.move_to_end(sid)
        self.in_flight[sid] = self.in_flight.get(sid, 0) + 1
        method = scope.get("method")
        status = 0

        async def watch(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message.get("status", 500))
            await send(message)

        try:
            await self.app(scope, receive, watch)
        finally:
            left = self.in_flight.get(sid, 1) - 1
            if left > 0:
                self.in_flight[sid] = left
            else:
                self.in_flight.pop(sid, None)
            if method == "DELETE" and status < 400:
                token.sessions.pop(sid, None)
                await self._ended(sid, "the agent closed its MCP session")
            elif method == "GET" and status < 400 and sid in self._live():
                await self._ended(sid, "the agent's MCP connection dropped")
