"""Who really acts (issue: the pipeline for real agents): the next task of one run, the client on every
agent record, the same-client judge flag, and personal data refused at submit."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp_types import Implementation

from knowledge_harness import actors
from knowledge_harness.errors import NotFound, SubmissionRefused
from knowledge_harness.pipeline.contract import State
from knowledge_harness.pipeline.engine import Pipeline

from ..conftest import Sidecar, start_sidecar, stop_sidecar
from ..support.part2_support import QUESTION, judge_output, make_blog, make_vault, pipeline, task_of
from ..support.people import PERSON
from ..support.pipeline_helpers import harness_text, packet_for, request_note, write_configs, write_note

CLAUDE = actors.agent("mcp-http", "claude-code", client_version="2.0.1")
CODEX = actors.agent("mcp-stdio", "codex-mcp-client", client_version="0.40")


def _to_evidence_ready(p: Pipeline, vault: Path, note: str = "Requests/q.md") -> str:
    write_note(vault, note, request_note(QUESTION))
    run_id = p.capture_note(note).run_id
    p.authorize(run_id, actor=PERSON)
    assert p.advance(run_id).state == State.EVIDENCE_READY
    return run_id


def test_the_next_task_of_one_run(tmp_path: Path) -> None:
    vault = make_vault(tmp_path, blog=None)
    p = pipeline(vault)
    first = _to_evidence_ready(p, vault, "Requests/a.md")
    second = _to_evidence_ready(p, vault, "Requests/b.md")
    oldest = p.next_task()
    assert oldest is not None
    other = second if oldest.run_id == first else first
    task = p.next_task(run_id=other)
    assert task is not None and task.run_id == other and task.operation == "O-05"
    assert p.next_task(run_id=other, operation="O-06") is None
    with pytest.raises(NotFound):
        p.next_task(run_id="20260101-000000-nope00")


def test_every_agent_record_names_its_client_and_a_judge_of_its_own_work_is_flagged(tmp_path: Path) -> None:
    vault = make_vault(tmp_path, blog=make_blog(tmp_path))
    p = pipeline(vault)
    run_id = _to_evidence_ready(p, vault)
    task = task_of(p, "O-05")
    p.submit(task.task_id, packet_for(task.inputs["sources"]), actor=CLAUDE)
    p.submit(task_of(p, "O-06").task_id, judge_output(), actor=CLAUDE)
    status = p.status(run_id)
    assert status.state == State.CANDIDATE_ACCEPTED  # "flag" (the default) records, it does not hold
    o06 = next(r for r in status.records if r["operation"] == "O-06")
    assert "JUDGE_SAME_CLIENT_AS_AUTHOR" in o06["reason_codes"]
    assert any(u["code"] == "JUDGE_SAME_CLIENT_AS_AUTHOR" for u in o06["uncertainties"])
    acted = {a["operation"]: a["acted_by"] for a in p.detail(run_id)["acted_by"]}
    assert acted["O-05"]["client"] == "claude-code" and acted["O-05"]["client_version"] == "2.0.1"
    assert acted["O-06"] == {
        "scope": "agent",
        "name": "agent:claude-code",
        "via": "mcp-http",
        "client": "claude-code",
        "client_version": "2.0.1",
        "token": "agent",
    }
    assert set(acted) == {"O-05", "O-06"}  # program records carry no agent


def test_another_client_judging_is_not_flagged_and_required_independence_holds(tmp_path: Path) -> None:
    vault = make_vault(tmp_path / "a", blog=make_blog(tmp_path / "a"))
    p = pipeline(vault)
    run_id = _to_evidence_ready(p, vault)
    task = task_of(p, "O-05")
    p.submit(task.task_id, packet_for(task.inputs["sources"]), actor=CLAUDE)
    p.submit(task_of(p, "O-06").task_id, judge_output(), actor=CODEX)
    o06 = next(r for r in p.status(run_id).records if r["operation"] == "O-06")
    assert "JUDGE_SAME_CLIENT_AS_AUTHOR" not in o06["reason_codes"] and o06["result"] == "ADVANCE"
    assert p.detail(run_id)["acted_by"][-1]["acted_by"]["token"] == "none"  # kh mcp over stdio

    strict = make_vault(
        tmp_path / "b", blog=make_blog(tmp_path / "b"), extra_toml='[agents]\nindependent_judge = "required"\n'
    )
    q = pipeline(strict)
    held = _to_evidence_ready(q, strict)
    task = task_of(q, "O-05")
    q.submit(task.task_id, packet_for(task.inputs["sources"]), actor=CLAUDE)
    # the author's own judgment is refused at submit; the task stays open and the run can resume
    judge_task = task_of(q, "O-06")
    with pytest.raises(SubmissionRefused) as refused:
        q.submit(judge_task.task_id, judge_output(), actor=CLAUDE)
    reason = refused.value.detail["reasons"][0]
    assert reason["code"] == "JUDGE_SAME_CLIENT_AS_AUTHOR" and "different client" in reason["message"]
    assert q.status(held).state == State.EVIDENCE_READY
    assert q.next_task(run_id=held) is not None and q.next_task(run_id=held).task_id == judge_task.task_id
    q.submit(judge_task.task_id, judge_output(), actor=CODEX)
    status = q.status(held)
    o06 = next(r for r in status.records if r["operation"] == "O-06")
    assert o06["result"] == "ADVANCE" and "JUDGE_SAME_CLIENT_AS_AUTHOR" not in o06["reason_codes"]
    assert status.state == State.CANDIDATE_ACCEPTED


@pytest.mark.parametrize(
    ("statement", "code"),
    [
        ("問い合わせは 090-1234-5678 まで。", "PERSONAL_INFO_IN_OUTPUT"),
        ("連絡先 taro.yamada@example.co.jp", "PERSONAL_INFO_IN_OUTPUT"),
        ("田中さんの年収は公開されていない。", "PRIVATE_CONTENT_IN_OUTPUT"),
        ("【社外秘】来期の計画。", "PRIVATE_CONTENT_IN_OUTPUT"),
    ],
)
def test_personal_data_in_a_submission_is_refused_and_nothing_is_stored(
    tmp_path: Path, statement: str, code: str
) -> None:
    vault = make_vault(tmp_path, blog=None)
    p = pipeline(vault)
    run_id = _to_evidence_ready(p, vault)
    task = task_of(p, "O-05")
    packet = packet_for(task.inputs["sources"])
    packet["issues"][0]["facts"][0]["statement"] = statement
    with pytest.raises(SubmissionRefused) as refused:
        p.submit(task.task_id, packet, actor=CLAUDE)
    reasons = (refused.value.detail or {})["reasons"]
    assert code in {r["code"] for r in reasons}
    assert statement not in harness_text(vault)
    assert p.status(run_id).waiting_for == f"agent:O-05 task={task.task_id}"
    # the fixed packet is accepted
    p.submit(task.task_id, packet_for(task.inputs["sources"]), actor=CLAUDE)
    assert p.status(run_id).records[-1]["operation"] == "O-05"


async def _as_recorded_agent(sidecar: Sidecar, run_id: str) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {sidecar.agent_token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as http,
        streamable_http_client(f"{sidecar.url}/mcp", http_client=http) as streams,
        ClientSession(
            streams[0], streams[1], client_info=Implementation(name="test-recording", version="1.2.3")
        ) as session,
    ):
        await session.initialize()
        missing = await session.call_tool("harness_next_task", {"run_id": "20260101-000000-nope00"})
        assert missing.is_error and "not_found" in missing.content[0].text  # type: ignore[union-attr]
        got = await session.call_tool("harness_next_task", {"run_id": run_id})
        assert not got.is_error, got
        task = got.structured_content["task"]  # type: ignore[index]
        assert task["run_id"] == run_id and task["operation"] == "O-05"
        leaking = packet_for(task["inputs"]["sources"])
        leaking["issues"][0]["facts"][0]["statement"] = "問い合わせは 090-1234-5678 まで。"
        refused = await session.call_tool("harness_submit_result", {"task_id": task["task_id"], "output": leaking})
        assert refused.structured_content["accepted"] is False  # type: ignore[index]
        codes = {r["code"] for r in refused.structured_content["reasons"]}  # type: ignore[index]
        assert "PERSONAL_INFO_IN_OUTPUT" in codes
        good = packet_for(task["inputs"]["sources"])
        accepted = await session.call_tool("harness_submit_result", {"task_id": task["task_id"], "output": good})
        assert accepted.structured_content["accepted"] is True, accepted  # type: ignore[index]
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {sidecar.token}"}, timeout=60) as http:
        detail: dict[str, Any] = (await http.get(f"{sidecar.url}/v1/pipeline/runs/{run_id}/detail")).json()
    return detail


def test_over_mcp_the_record_names_the_client_from_the_handshake_and_the_token(example_vault: Path) -> None:
    write_note(example_vault, "Requests/kh-acting.md", request_note(QUESTION))
    write_configs(example_vault, pipeline_toml='[evidence]\nproviders = ["vault"]\n')
    sidecar = start_sidecar(example_vault)
    try:
        with sidecar.client() as client:
            run_id = client.post("/v1/pipeline/runs", json={"note": "Requests/kh-acting.md"}).json()["run_id"]
            client.post(f"/v1/pipeline/runs/{run_id}/authorize", json={"via": "api"})
            assert client.post(f"/v1/pipeline/runs/{run_id}/advance").json()["state"] == "EVIDENCE_READY"
        detail = anyio.run(_as_recorded_agent, sidecar, run_id)
    finally:
        stop_sidecar(sidecar)
    acted = detail["acted_by"][-1]
    assert acted["operation"] == "O-05"
    assert acted["acted_by"] == {
        "scope": "agent",
        "name": "agent:test-recording",
        "via": "mcp-http",
        "client": "test-recording",
        "client_version": "1.2.3",
        "token": "agent",
    }
    assert "090-1234-5678" not in harness_text(example_vault)
