"""The doors against a real `kh serve`: REST and the official MCP client as the external agent (the CLI:
tests/cli/test_pipeline.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import httpx2
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

from ..conftest import Sidecar, start_sidecar, stop_sidecar
from ..support.pipeline_helpers import packet_for, request_note, write_configs, write_note


def _request_note_of(vault: Path) -> str:
    """The example vault's request note (frontmatter `harness: request`) under Requests/.

    Until examples/vault ships one, a request note is written into this test's private copy.
    """
    for path in sorted((vault / "Requests").glob("*.md")) if (vault / "Requests").is_dir() else []:
        if "harness: request" in path.read_text(encoding="utf-8"):
            return path.relative_to(vault).as_posix()
    write_note(
        vault,
        "Requests/メタデータ更新の依頼.md",
        request_note("メタデータだけを更新する方法と、検証の仕組みを知りたい。"),
    )
    return "Requests/メタデータ更新の依頼.md"


async def _agent(sidecar: Sidecar, run_id: str) -> dict[str, Any]:
    """Play Claude Code / Codex: next task, a wrong submission, then a right one, over MCP."""
    headers = {"Authorization": f"Bearer {sidecar.agent_token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as http,
        streamable_http_client(f"{sidecar.url}/mcp", http_client=http) as streams,
        ClientSession(streams[0], streams[1]) as session,
    ):
        await session.initialize()
        tools = {t.name for t in (await session.list_tools()).tools}
        assert {"harness_next_task", "harness_submit_result", "harness_run_status", "harness_list_runs"} <= tools
        got = await session.call_tool("harness_next_task", {})
        assert not got.is_error
        task = got.structured_content["task"]
        assert task["operation"] == "O-05" and task["run_id"] == run_id
        # without run_id the answer says it is any run's task; with it, no note
        assert run_id in got.structured_content["note"] and "Pass run_id" in got.structured_content["note"]
        scoped = await session.call_tool("harness_next_task", {"run_id": run_id})
        assert (
            scoped.structured_content["task"]["task_id"] == task["task_id"] and "note" not in scoped.structured_content
        )
        assert task["instructions_ja"] and task["instructions_en"] and task["output_schema"]
        bad = packet_for(task["inputs"]["sources"])
        bad["issues"][0]["facts"][0]["source_ids"] = ["S-unknown0000"]
        refused = await session.call_tool("harness_submit_result", {"task_id": task["task_id"], "output": bad})
        assert refused.structured_content["accepted"] is False
        assert any(r["code"] == "UNKNOWN_SOURCE_ID" for r in refused.structured_content["reasons"])
        good = packet_for(task["inputs"]["sources"])
        accepted = await session.call_tool("harness_submit_result", {"task_id": task["task_id"], "output": good})
        assert not accepted.is_error, accepted
        assert accepted.structured_content["accepted"] is True
        status = await session.call_tool("harness_run_status", {"run_id": run_id})
        data: dict[str, Any] = status.structured_content
        return data


def test_example_vault_run_to_evidence_ready_with_an_mcp_agent(example_vault: Path) -> None:
    note = _request_note_of(example_vault)
    write_configs(example_vault, pipeline_toml='[evidence]\nproviders = ["vault"]\n')
    sidecar = start_sidecar(example_vault)
    try:
        with sidecar.client() as client:
            created = client.post("/v1/pipeline/runs", json={"note": note})
            assert created.status_code == 201, created.text
            run_id = created.json()["run_id"]
            assert created.json()["state"] == "CAPTURED"
            assert client.post(f"/v1/pipeline/runs/{run_id}/advance").json()["waiting_for"] == "authorization"
            assert (
                client.post(f"/v1/pipeline/runs/{run_id}/authorize", json={"via": "plugin"}).json()["state"]
                == "AUTHORIZED"
            )
            advanced = client.post(f"/v1/pipeline/runs/{run_id}/advance").json()
            assert advanced["state"] == "EVIDENCE_READY", advanced
            assert advanced["waiting_for"].startswith("agent:O-05")
            nxt = client.get("/v1/pipeline/tasks/next").json()["task"]
            assert nxt["operation"] == "O-05"
            assert client.get("/v1/pipeline/runs").json()["runs"][0]["run_id"] == run_id
            assert client.get("/v1/pipeline/runs/nope-run").status_code == 404
            unauth = httpx2.get(f"{sidecar.url}/v1/pipeline/runs", timeout=10)
            assert unauth.status_code == 401
        status = anyio.run(_agent, sidecar, run_id)
        assert status["state"] == "EVIDENCE_READY"
        assert [r["operation"] for r in status["records"]] == ["O-01", "O-02", "O-03", "O-04", "O-05"]
        assert status["records"][-1]["producer"] == "agent"
        assert status["waiting_for"].startswith("agent:O-06 task=")
    finally:
        stop_sidecar(sidecar)
