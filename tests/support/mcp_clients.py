"""MCP sessions through the official Python client: streamable HTTP on a real `kh serve` (agent
token) and stdio on a real `kh mcp VAULT` (launched as a desktop client launches it)."""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import anyio
import httpx2
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult, TextContent

from ..conftest import KH, Sidecar

T = TypeVar("T")


@asynccontextmanager
async def http_session(sidecar: Sidecar) -> AsyncIterator[ClientSession]:
    headers = {"Authorization": f"Bearer {sidecar.agent_token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30) as http,
        streamable_http_client(f"{sidecar.url}/mcp", http_client=http) as streams,
        ClientSession(streams[0], streams[1]) as session,
    ):
        await session.initialize()
        yield session


def over_http(sidecar: Sidecar, work: Callable[[ClientSession], Awaitable[T]]) -> T:
    async def run() -> T:
        async with http_session(sidecar) as session:
            return await work(session)

    return anyio.run(run)


@asynccontextmanager
async def stdio_session(vault: Path, errlog: Any = None) -> AsyncIterator[ClientSession]:
    """`kh mcp VAULT` launched as a desktop client does: no token in its environment."""
    env = {k: v for k, v in os.environ.items() if k not in ("KH_TOKEN", "KH_AGENT_TOKEN")}
    params = StdioServerParameters(command=str(KH), args=["mcp", str(vault)], env=env)
    async with (
        stdio_client(params, **({"errlog": errlog} if errlog else {})) as streams,
        ClientSession(streams[0], streams[1]) as session,
    ):
        await session.initialize()
        yield session


def over_stdio(vault: Path, work: Callable[[ClientSession], Awaitable[T]]) -> T:
    async def run() -> T:
        async with stdio_session(vault) as session:
            return await work(session)

    return anyio.run(run)


def error_of(result: CallToolResult) -> dict[str, Any]:
    """The error envelope of a refused call: isError true, the text is {"error": {code, message, detail}}."""
    assert result.is_error, result
    first = result.content[0]
    assert isinstance(first, TextContent)
    body = json.loads(first.text)
    assert set(body["error"]) == {"code", "message", "detail"}
    return dict(body["error"])
