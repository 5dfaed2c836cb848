"""#42's judge-task lifecycle over HTTP `/mcp` (stdio: tests/trust/test_agent_judge.py and friends).

Over stdio a `kh mcp` agent that disconnects ends its process, and its task opens again. Over
HTTP every agent is served by the one `kh serve` process, so before, a task taken over a session
that was closed, or whose client was killed, stayed `taken` until the validation's timeout, and
another session of a client with the same name could answer for it. A real `kh serve`, stand-in
agents (not models) through the official MCP SDK client over streamable HTTP, one of them leaving
without closing its session (its connection just ends, as when its process is killed)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import httpx2
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp_types import Implementation

from ..conftest import Sidecar, start_sidecar, stop_sidecar
from ..support.standin_agent import answer_one, call, http_agent

PAGE = "東京タワーは1958年に完成した。高さは333メートルである。"
CLAIMS = [{"id": "c1", "text": "東京タワーは1958年に完成した。"}]
EVIDENCE = [{"source_id": "s1", "url": "https://example.org/tower", "text": PAGE}]


def _tasks(vault: Path) -> list[dict[str, Any]]:
    folder = vault / ".harness" / "judge-tasks"
    tasks = [json.loads(p.read_text()) for p in folder.glob("jt-*.json") if not p.name.endswith(".evidence.json")]
    return sorted(tasks, key=lambda t: float(t["created"]))


async def _validate(sidecar: Sidecar, results: dict[str, Any], key: str) -> None:
    async with http_agent(sidecar, name="codex-mcp-client", version="0.9") as session:
        results[key] = await call(session, "validate", claims=CLAIMS, evidence=EVIDENCE, options={"judge": "agent"})


async def _take_and_vanish(sidecar: Sidecar) -> dict[str, Any]:
    """Take a task, then leave without DELETE: the session's event stream just ends."""
    headers = {"Authorization": f"Bearer {sidecar.agent_token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as http,
        streamable_http_client(f"{sidecar.url}/mcp", http_client=http, terminate_on_close=False) as streams,
        ClientSession(streams[0], streams[1], client_info=Implementation(name="standin-agent", version="1.0")) as s,
    ):
        await s.initialize()
        taken = await call(s, "judge_next_task", wait_seconds=20)
        await anyio.sleep(0.3)  # the event stream is open by now
        return taken


def test_over_http_a_released_task_goes_to_another_agent_no_other_session_answers_for_it_a_late_answer_is_refused(
    small_vault: Path,
) -> None:
    # a validation waits 60 s for its agent: both must be done long before
    (small_vault / ".harness").mkdir()
    (small_vault / ".harness" / "policy.toml").write_text("[judge]\nwait_seconds = 60\n", encoding="utf-8")
    sidecar = start_sidecar(small_vault)
    try:

        async def run() -> dict[str, Any]:
            results: dict[str, Any] = {}
            async with http_agent(sidecar, name="standin-agent", version="1.0") as second:
                async with anyio.create_task_group() as group:
                    group.start_soon(_validate, sidecar, results, "closed")
                    async with http_agent(sidecar, name="standin-agent", version="1.0") as first:
                        task = (await call(first, "judge_next_task", wait_seconds=20))["task"]
                        answer = {"findings": [], "confidence": 0.5}
                        # the same client's other session may not answer for the one that took it
                        results["stolen"] = await call(second, "judge_submit", task_id=task["task_id"], answer=answer)
                    # closed (DELETE) without answering: the task is open again at once, not after 60 s
                    with anyio.fail_after(15):
                        results["after_close"] = await answer_one(second, "closest", wait_seconds=10)
                async with anyio.create_task_group() as group:
                    group.start_soon(_validate, sidecar, results, "dropped")
                    assert (await _take_and_vanish(sidecar))["task"] is not None
                    with anyio.fail_after(15):
                        results["after_drop"] = await answer_one(second, "closest", wait_seconds=10)
                # a validation that waits 1 s; its task taken, answered after the wait is over
                (small_vault / ".harness" / "policy.toml").write_text("[judge]\nwait_seconds = 1\n", encoding="utf-8")
                async with anyio.create_task_group() as group:
                    group.start_soon(_validate, sidecar, results, "timed_out")
                    task = (await call(second, "judge_next_task", wait_seconds=20))["task"]
                # the group ended with the validation: it gave up waiting
                answer = {"findings": [], "confidence": 0.5}
                results["late"] = await call(second, "judge_submit", task_id=task["task_id"], answer=answer)
            return results

        results = anyio.run(run)
    finally:
        stop_sidecar(sidecar)
    assert results["stolen"]["accepted"] is False and results["stolen"]["error"] == "submission_refused"
    assert "not_taken_by_you" in results["stolen"]["reasons"]
    for key in ("after_close", "after_drop"):
        assert results[key]["submitted"]["accepted"] is True
    for key in ("closed", "dropped"):
        assert results[key]["verdict"] == "pass", json.dumps(results[key], ensure_ascii=False)
    assert results["timed_out"]["verdict"] == "unverifiable"
    assert "took judge task" in results["timed_out"]["findings"][0]["reason"]
    assert results["late"]["accepted"] is False and results["late"]["reasons"] == ["expired"]
    closed, dropped, timed_out = _tasks(small_vault)
    assert timed_out["state"] == "expired" and "answer" not in timed_out
    assert [(a["client"], a["session"] is not None) for a in timed_out["late_answers"]] == [("standin-agent", True)]
    assert [(r["why"], r["client"]) for r in closed["released"]] == [
        ("the agent closed its MCP session", "standin-agent")
    ]
    assert [r["why"] for r in dropped["released"]] == ["the agent's MCP connection dropped"]
