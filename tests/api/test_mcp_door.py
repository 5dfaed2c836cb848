"""The MCP door over a real `kh serve` with the agent token, through the official Python client."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, TypeVar

import anyio
import httpx2
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult, TextContent

from ..conftest import Sidecar

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


def error_of(result: CallToolResult) -> dict[str, Any]:
    """The error envelope of a refused call: isError true, the text is {"error": {code, message, detail}}."""
    assert result.is_error, result
    first = result.content[0]
    assert isinstance(first, TextContent)
    body = json.loads(first.text)
    assert set(body["error"]) == {"code", "message", "detail"}
    return dict(body["error"])


def test_refusals_carry_the_error_code_message_and_detail(sidecar: Sidecar) -> None:
    async def work(session: ClientSession) -> list[CallToolResult]:
        return [
            await session.call_tool("harness_submit_result", {"task_id": "T-nope", "output": {}}),
            await session.call_tool("trust_badge", {"path": "../../etc/passwd.md"}),
            await session.call_tool("harness_review_packet", {"run_id": "R-nope"}),
            await session.call_tool("harness_submit_result", {"task_id": "T-nope", "output": "{not json"}),
            await session.call_tool("trust_badge", {"path": "Keywords/鮮度管理.md"}),
        ]

    submit, badge, review, not_json, fine = over_http(sidecar, work)
    assert error_of(submit)["code"] == "not_found" and "T-nope" in error_of(submit)["message"]
    rejected = error_of(badge)
    assert rejected["code"] == "path_rejected" and "'..'" in rejected["message"]
    assert error_of(review)["code"] == "not_found" and "R-nope" in error_of(review)["message"]
    assert error_of(not_json)["code"] == "invalid_input" and "not JSON" in error_of(not_json)["message"]
    assert not fine.is_error and fine.structured_content is not None
    assert fine.structured_content["path"] == "Keywords/鮮度管理.md"


def test_a_refusal_with_details_lists_them(sidecar: Sidecar) -> None:
    policy = sidecar.vault / ".harness" / "policy.toml"
    policy.write_text(policy.read_text(encoding="utf-8") + '\n[judge]\nbase_url = "https://evil.example/v1"\n')

    async def work(session: ClientSession) -> CallToolResult:
        return await session.call_tool("trust_audit", {})

    refused = error_of(over_http(sidecar, work))
    assert refused["code"] == "invalid_input" and "judge.base_url" in refused["message"]
    assert refused["detail"] == [
        {"key": "judge.base_url", "message": "belongs in the machine configuration, not the vault"}
    ]
