"""The agent judge over /mcp (streamable HTTP, the agent token) on a real `kh serve`: one MCP session
asks for a validation with the agent judge and waits; another (a stand-in agent through the official
client) takes the task and answers. The stdio door: tests/cli/test_validate.py."""

from __future__ import annotations

import json
from typing import Any

import anyio

from ..conftest import Sidecar
from ..support.standin_agent import answer_one, call, http_agent

PAGE = "東京タワーは1958年に完成した。高さは333メートルである。"


def test_an_agent_over_mcp_judges_a_validation_another_session_waits_for(sidecar: Sidecar) -> None:
    async def run() -> tuple[dict[str, Any], dict[str, Any]]:
        results: dict[str, Any] = {}

        async def ask() -> None:
            async with http_agent(sidecar, name="codex-mcp-client", version="0.9") as session:
                results["validation"] = await call(
                    session,
                    "validate",
                    claims=[{"id": "c1", "text": "東京タワーは1958年に完成した。"}],
                    evidence=[{"source_id": "s1", "url": "https://example.org/tower", "text": PAGE}],
                    options={"judge": "agent"},
                )

        async with anyio.create_task_group() as group:
            group.start_soon(ask)
            async with http_agent(sidecar, name="standin-agent", version="1.0") as judge:
                results["answered"] = await answer_one(judge, "closest", wait_seconds=30)
        return results["validation"], results["answered"]

    validation, answered = anyio.run(run)
    assert answered["submitted"]["accepted"] is True
    assert validation["verdict"] == "pass", json.dumps(validation, ensure_ascii=False)
    assert validation["validator"] == {
        "name": "agent",
        "version": "1",
        "model": None,
        "client": "standin-agent",
        "client_version": "1.0",
    }
    [quote] = validation["findings"][0]["quotes"]
    assert PAGE[quote["start"] : quote["end"]] == quote["text"] == "東京タワーは1958年に完成した。"
