"""The sidecar's front door: Host check, bearer token, CORS for Obsidian, body size limit.

A pure ASGI middleware so it also guards the mounted MCP app and streaming bodies.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from typing import Any

from ..errors import Forbidden, HarnessError, MisdirectedRequest, PayloadTooLarge, Unauthorized

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

PUBLIC_PATHS = frozenset({"/health"})
MCP_PATHS = frozenset({"/mcp", "/mcp/"})
# The ASGI scope key holding which credential matched: "person" or "agent" (api/deps.py reads it).
AUTH_SCOPE_KEY = "knowledge_harness.auth_scope"
LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "[::1]"})
# A request's header fields (their total size is bounded per connection: api/connections.py).
MAX_HEADERS = 100
CORS_METHODS = "GET, POST, PUT, DELETE, OPTIONS"
CORS_HEADERS = "Authorization, Content-Type, Mcp-Session-Id, Mcp-Protocol-Version"


async def send_error(send: Send, error: HarnessError, extra_headers: list[tuple[bytes, bytes]]) -> None:
    body = json.dumps(error.to_body(), ensure_ascii=False).encode("utf-8")
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        *extra_headers,
    ]
    if isinstance(error, Unauthorized):
        headers.append((b"www-authenticate", b"Bearer"))
    await send({"type": "http.response.start", "status": error.http_status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _send_too_many_headers(send: Send, count: int) -> None:
    message = f"The request has {count} header fields; at most {MAX_HEADERS} are read."
    body = json.dumps({"error": {"code": "headers_too_large", "message": message, "detail": None}}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 431, "headers": headers})
    await send({"type": "http.response.body", "body": body})


@dataclass
class PortRef:
    """The port the server listens on; None until known (port 0 is picked at bind time)."""

    port: int | None


class SecurityMiddleware:
    def __init__(
        self,
        app: ASGIApp,
        *,
        token: str,
        agent_token: str | None = None,
        agent_token_source: str,
        port_ref: PortRef,
        allowed_origins: tuple[str, ...],
        max_body_bytes: int,
    ) -> None:
        self.app = app
        self._token = token.encode("utf-8")
        self._agent_token = agent_token.encode("utf-8") if agent_token else None
        self.agent_token_source = agent_token_source
        self.port_ref = port_ref
        self.allowed_origins = allowed_origins
        self.max_body_bytes = max_body_bytes

    def _host_ok(self, host_header: str | None) -> bool:
        if not host_header:
            return False
        if host_header.startswith("["):
            close = host_header.find("]")
            host, rest = host_header[: close + 1], host_header[close + 1 :]
        else:
            host, sep, port = host_header.partition(":")
            rest = sep + port
        # nothing but ":PORT" may follow the name: `[::1]junk` or `127.0.0.1:x` is not this server
        if rest and not (rest.startswith(":") and rest[1:].isdigit() and rest[1:].isascii()):
            return False
        port = rest[1:]
        if host.lower() not in LOOPBACK_NAMES:
            return False
        expected = self.port_ref.port
        return expected is None or not port or port == str(expected)

    def _auth_scope(self, authorization: str | None) -> str | None:
        """Which credential the bearer token is: "person", "agent" or None (both compared in constant time)."""
        auth = authorization or ""
        scheme, _, presented = auth.partition(" ")
        if scheme.lower() != "bearer":
            return None
        given = presented.strip().encode("utf-8")
        is_person = hmac.compare_digest(given, self._token)
        is_agent = self._agent_token is not None and hmac.compare_digest(given, self._agent_token)
        return "person" if is_person else "agent" if is_agent else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        # One pass over the headers; the first occurrence of each counts, as in Starlette's Headers.get.
        origin = host = authorization = declared = None
        chunked = False
        headers = scope.get("headers", [])
        if len(headers) > MAX_HEADERS:
            await _send_too_many_headers(send, len(headers))
            return
        for key, value in headers:
            name = bytes(key).lower()
            if name == b"origin":
                origin = bytes(value).decode("latin-1") if origin is None else origin
            elif name == b"host":
                host = bytes(value).decode("latin-1") if host is None else host
            elif name == b"authorization":
                authorization = bytes(value).decode("latin-1") if authorization is None else authorization
            elif name == b"content-length":
                declared = bytes(value).decode("latin-1") if declared is None else declared
            elif name == b"transfer-encoding":
                chunked = True
        cors: list[tuple[bytes, bytes]] = []
        if origin is not None and origin in self.allowed_origins:
            cors = [
                (b"access-control-allow-origin", origin.encode()),
                (b"vary", b"Origin"),
                (b"access-control-allow-headers", CORS_HEADERS.encode()),
                (b"access-control-allow-methods", CORS_METHODS.encode()),
                (b"access-control-expose-headers", b"Mcp-Session-Id"),
            ]
        if not self._host_ok(host):
            await send_error(send, MisdirectedRequest("The Host header must name this loopback server."), cors)
            return
        if scope["method"] == "OPTIONS" and origin is not None:
            status = 204 if cors else 403
            await send(
                {
                    "type": "http.response.start",
                    "status": status,
                    "headers": [*cors, (b"content-length", b"0")],
                }
            )
            await send({"type": "http.response.body", "body": b""})
            return
        if scope["path"] not in PUBLIC_PATHS:
            auth_scope = self._auth_scope(authorization)
            if auth_scope is None:
                await send_error(send, Unauthorized("A valid bearer token is required."), cors)
                return
            if scope["path"] in MCP_PATHS and auth_scope != "agent":
                # Keeps the person token out of every agent's configuration.
                refusal = (
                    "/mcp takes the agent token, not the person token. "
                    f"This sidecar's agent token: {self.agent_token_source}."
                )
                await send_error(send, Forbidden(refusal), cors)
                return
            scope[AUTH_SCOPE_KEY] = auth_scope
        if declared is not None and declared.isdigit() and int(declared) > self.max_body_bytes:
            await send_error(send, PayloadTooLarge(f"The request body exceeds {self.max_body_bytes} bytes."), cors)
            return

        app_send = send
        if cors:

            async def send_with_cors(message: Message) -> None:
                if message["type"] == "http.response.start":
                    message["headers"] = [*message.get("headers", []), *cors]
                await send(message)

            app_send = send_with_cors

        if not chunked and (declared is None or declared == "0"):
            # No body can follow (HTTP/1.1 frames a body only by Content-Length or
            # Transfer-Encoding): nothing to bound, so no buffering (most requests are GETs).
            await self.app(scope, receive, app_send)
            return

        # Buffer the body (bounded) before the app sees it, so an oversized chunked body
        # gets a clean 413 instead of an exception halfway through a handler.
        chunks: list[bytes] = []
        received = 0
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                return
            chunk = message.get("body", b"")
            received += len(chunk)
            if received > self.max_body_bytes:
                await send_error(send, PayloadTooLarge(f"The request body exceeds {self.max_body_bytes} bytes."), cors)
                return
            chunks.append(chunk)
            more = message.get("more_body", False)
        body = b"".join(chunks)
        replayed = False

        async def replay_receive() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay_receive, app_send)
