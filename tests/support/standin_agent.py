"""A STAND-IN judging agent (not a model): an MCP client through the official SDK that takes judge
tasks from a real `kh mcp VAULT` (stdio) or `kh serve` (/mcp) and answers by a fixed rule.

  closest     every claim `supported`, quoting the sentence of its source that shares the most
              words with it (what a careless reader would quote)
  claim       every claim `supported`, quoting the claim itself (a fabricated quote)
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx2
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import Implementation, TextContent

from ..conftest import KH, Sidecar
from .llm_standin import closest_sentence


@asynccontextmanager
async def stdio_agent(vault: Path, name: str = "standin-agent", version: str = "1.0") -> AsyncIterator[ClientSession]:
    env = {k: v for k, v in os.environ.items() if k not in ("KH_TOKEN", "KH_AGENT_TOKEN")}
    params = StdioServerParameters(command=str(KH), args=["mcp", str(vault)], env=env)
    async with (
        stdio_client(params) as streams,
        ClientSession(streams[0], streams[1], client_info=Implementation(name=name, version=version)) as session,
    ):
        await session.initialize()
        yield session


@asynccontextmanager
async def http_agent(
    sidecar: Sidecar, name: str = "standin-agent", version: str = "1.0"
) -> AsyncIterator[ClientSession]:
    headers = {"Authorization": f"Bearer {sidecar.agent_token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as http,
        streamable_http_client(f"{sidecar.url}/mcp", http_client=http) as streams,
        ClientSession(streams[0], streams[1], client_info=Implementation(name=name, version=version)) as session,
    ):
        await session.initialize()
        yield session


async def call(session: ClientSession, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await session.call_tool(tool, arguments)
    first = result.content[0]
    assert isinstance(first, TextContent)
    body: dict[str, Any] = json.loads(first.text)
    return body


async def whole_text(session: ClientSession, task_id: str, source: dict[str, Any]) -> str:
    parts = []
    for page in range(1, int(source["pages"]) + 1):
        got = await call(session, "judge_evidence", task_id=task_id, source_id=source["source_id"], page=page)
        parts.append(got["text"])
    return "".join(parts)


async def answer_one(session: ClientSession, rule: str = "closest", wait_seconds: float = 20) -> dict[str, Any]:
    """Take one judge task, answer it by `rule`; returns {"task": ..., "submitted": ...}."""
    taken = await call(session, "judge_next_task", wait_seconds=wait_seconds)
    task = taken["task"]
    assert task is not None, taken
    texts = {s["source_id"]: await whole_text(session, task["task_id"], s) for s in task["sources"]}
    findings = []
    for claim in task["claims"]:
        sid = (claim.get("source_ids") or list(texts))[0]
        quote = claim["text"] if rule == "claim" else closest_sentence(claim["text"], texts[sid])
        findings.append(
            {"claim_id": claim["id"], "verdict": "supported", "source_id": sid, "quotes": [quote], "reason": "stand-in"}
        )
    submitted = await call(
        session, "judge_submit", task_id=task["task_id"], answer={"findings": findings, "confidence": 0.9}
    )
    return {"task": task, "submitted": submitted}
