"""The pipeline demo's walkthrough (docs/pipeline.md, "Walkthrough: from a request to the review
packet"), scripted: `scripts/demo_pipeline.py` prepares the blog and the vault and captures the
request; the person authorizes at a terminal; an agent holding the agent token does every agent
step over MCP with the recorded outputs of examples/demo-pipeline/ until the run is REVIEW_READY
and `kh pipeline review` shows the Review Packet."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import httpx2
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp_types import Implementation

from knowledge_harness.pipeline.engine import Pipeline
from knowledge_harness.vault.paths import Vault

from ..conftest import KH, Sidecar, start_sidecar, stop_sidecar
from ..support.terminal import run_at_terminal

REPO = Path(__file__).resolve().parents[2]
RECORDED = json.loads((REPO / "examples" / "demo-pipeline" / "recorded-agent-outputs.json").read_text("utf-8"))
_PLACEHOLDER = re.compile(r"\{\{(source|past):([^}]+)\}\}")


def _demo_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("demo_pipeline", REPO / "scripts" / "demo_pipeline.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def replay(task: dict[str, Any]) -> Any:
    """The recorded output for a task, its placeholders bound to this machine's ids."""
    inputs = task["inputs"]
    sources = inputs.get("sources") or inputs.get("packet", {}).get("sources") or []
    past = inputs.get("past_articles") or []

    def bind(value: Any) -> Any:
        if isinstance(value, str):
            match = _PLACEHOLDER.fullmatch(value)
            if match and match.group(1) == "source":
                return next(s["source_id"] for s in sources if (s["repository_ref"] or "").startswith(match.group(2)))
            if match:
                return next(p["ref_id"] for p in past if p["slug"] == match.group(2))
            return value
        if isinstance(value, list):
            return [bind(v) for v in value]
        if isinstance(value, dict):
            return {k: bind(v) for k, v in value.items()}
        return value

    output = bind(json.loads(json.dumps(RECORDED[task["operation"]])))
    if task["operation"] == "O-07":  # keyed by uncertainty id; "*" covers those carried from O-04
        rules = output["uncertainty_handling"]
        output["uncertainty_handling"] = [
            {"uncertainty_id": u["id"], **rules.get(u["id"], rules["*"])} for u in inputs["uncertainties"]
        ]
    return output


async def _agent(sidecar: Sidecar, run_id: str) -> list[str]:
    """Claude Code / Codex with the agent token: advance, then next task → submit, until no task is left."""
    done: list[str] = []
    headers = {"Authorization": f"Bearer {sidecar.agent_token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=120) as http,
        streamable_http_client(f"{sidecar.url}/mcp", http_client=http) as streams,
        # recorded outputs, labelled as such: the records name this client
        ClientSession(
            streams[0], streams[1], client_info=Implementation(name="test-recording", version="1")
        ) as session,
    ):
        await session.initialize()
        advanced = await session.call_tool("harness_advance_run", {"run_id": run_id})
        assert not advanced.is_error, advanced
        for _ in range(10):
            got = await session.call_tool("harness_next_task", {})
            task = (got.structured_content or {}).get("task")
            if task is None:
                break
            result = await session.call_tool(
                "harness_submit_result", {"task_id": task["task_id"], "output": replay(task)}
            )
            assert result.structured_content["accepted"] is True, (task["operation"], result.structured_content)
            done.append(task["operation"])
    return done


def test_demo_reaches_review_ready_with_an_agent_over_mcp(tmp_path: Path) -> None:
    demo = _demo_script().prepare(tmp_path / "demo", ["vault"])
    vault, blog, run_id = Path(demo["vault"]), Path(demo["blog"]), demo["run_id"]
    assert demo["state"] == "CAPTURED" and demo["waiting_for"] == "authorization"
    posts = sorted(p.name for p in (blog / "docs" / "blog" / "posts").iterdir())
    assert len(posts) == 3 and (blog / "docs" / "conf.py").read_text("utf-8").count('"ablog"') == 1
    # the person authorizes at a terminal
    authorized = run_at_terminal([str(KH), "pipeline", "authorize", str(vault), run_id], ["yes"], env=dict(os.environ))
    assert authorized.exit_code == 0, authorized.screen
    sidecar = start_sidecar(vault)
    try:
        done = anyio.run(_agent, sidecar, run_id)
    finally:
        stop_sidecar(sidecar)
    assert done == ["O-05", "O-06", "O-07", "O-08", "O-09", "O-10"]
    pipeline = Pipeline(Vault.open(vault))
    status = pipeline.status(run_id)
    assert status.state == "REVIEW_READY" and status.waiting_for == "human:Q-01 publication_decision"
    producers = {r["operation"]: r["producer"] for r in status.records}
    assert producers == {
        "O-01": "program",
        "O-02": "program",  # the program records the label the person set at the terminal
        "O-03": "program",
        "O-04": "program",
        "O-05": "agent",
        "O-06": "ai_judge",
        "O-07": "agent",
        "O-08": "agent",
        "O-09": "ai_judge",
        "O-10": "agent",
    }
    acted = {a["operation"]: a["acted_by"] for a in pipeline.detail(run_id)["acted_by"]}
    assert sorted(acted) == ["O-05", "O-06", "O-07", "O-08", "O-09", "O-10"]
    assert {(a["client"], a["token"], a["via"]) for a in acted.values()} == {("test-recording", "agent", "mcp-http")}
    # one client wrote the packet and the draft and judged both: the judgments say so
    for judged in ("O-06", "O-09"):
        record = next(r for r in status.records if r["operation"] == judged)
        assert "JUDGE_SAME_CLIENT_AS_AUTHOR" in record["reason_codes"], record
    review = pipeline.review(run_id)["review_packet"]["markdown"]  # what `kh pipeline review` prints
    assert "公開候補の確認待ち" in review and "記録済みのエージェント出力" in review
    assert "要約（AI）: （記録済みのエージェント出力）このノートは" in review  # the agent's summary of a cited source
    branches = subprocess.run(
        ["git", "-C", str(blog), "branch", "--format=%(refname:short)"], capture_output=True, text=True, check=True
    ).stdout.split()
    assert sorted(branches) == ["harness/" + run_id, "main"]
