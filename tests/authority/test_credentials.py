"""Two credentials on a real `kh serve`: the person token pulls the trigger, the agent token does
everything up to it. Tried as an agent would: with its own token, on every person-only door."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

from knowledge_harness.actors import os_account_name

from ..conftest import Sidecar, start_sidecar, stop_sidecar
from ..support.batch_support import git_vault, run_record, tree_bytes

pytestmark = pytest.mark.usefixtures("evidence_site")

UNKNOWN_PLAN = "plan-20260101T000000Z-00000000"
UNKNOWN_RUN = "run-20260101T000000Z-00000000"
PERSON_ONLY = [
    (f"/v1/batches/{UNKNOWN_PLAN}/approve", {"challenge": "APPROVE_PRODUCTION 000000000000"}),
    (f"/v1/pipeline/runs/{UNKNOWN_RUN}/authorize", {}),
    (f"/v1/pipeline/runs/{UNKNOWN_RUN}/answers", {"question_id": "Q-01", "answer": "yes"}),
    (f"/v1/pipeline/runs/{UNKNOWN_RUN}/decision", {"choice": "reject"}),
    ("/v1/pipeline/policy-proposals/no-such-proposal/accept", {"option": 1}),
    ("/v1/pipeline/policy-proposals/no-such-proposal/decline", {}),
    ("/v1/shutdown", None),
]


@pytest.fixture
def served(tmp_path: Path) -> Any:
    vault = git_vault(tmp_path)
    running = start_sidecar(vault)
    try:
        yield running
    finally:
        stop_sidecar(running)


def test_the_agent_token_is_refused_every_person_only_action_before_any_lookup(served: Sidecar) -> None:
    with served.agent_client() as agent:
        for path, body in PERSON_ONLY:
            response = agent.post(path, json=body)
            assert response.status_code == 403, (path, response.text)
            assert response.json()["error"]["code"] == "person_required", path
    with served.client() as person:  # the same unknown ids with the person token: looked up, not found
        for path, body in PERSON_ONLY[:-1]:
            assert person.post(path, json=body).status_code == 404, path
    assert served.process.poll() is None  # the agent's shutdown did nothing


def test_the_agent_token_reads_validates_and_plans(served: Sidecar) -> None:
    with served.agent_client() as agent:
        assert agent.get("/v1/notes").status_code == 200
        assert agent.get("/v1/trust/audit").status_code == 200
        validated = agent.post(
            "/v1/validate",
            json={
                "claims": [{"id": "c1", "text": "Mount Fuji is 3776 m high."}],
                "evidence": [{"source_id": "s1", "url": "https://e.org", "text": "Mount Fuji is 3776 m high."}],
            },
        )
        assert validated.status_code == 200, validated.text
        planned = agent.post("/v1/batches", json={"stage": "canary"})
        assert planned.status_code == 200, planned.text
        plan = planned.json()
        before = tree_bytes(served.vault)
        # The agent has the digest, and still cannot apply the plan.
        refused = agent.post(
            f"/v1/batches/{plan['plan_id']}/approve", json={"challenge": f"APPROVE_PRODUCTION {plan['digest']}"}
        )
        assert refused.status_code == 403 and refused.json()["error"]["code"] == "person_required"
        assert tree_bytes(served.vault) == before
        assert agent.get(f"/v1/batches/{plan['plan_id']}").json()["status"] == "open"


def test_an_approval_records_the_os_account_that_the_person_token_proves(served: Sidecar) -> None:
    with served.client() as person:
        plan = person.post("/v1/batches", json={"stage": "canary"}).json()
        approved = person.post(
            f"/v1/batches/{plan['plan_id']}/approve",
            json={"challenge": f"APPROVE_PRODUCTION {plan['digest']}", "via": "plugin"},
        )
        assert approved.status_code == 200, approved.text
    record = run_record(served.vault, approved.json()["run_id"])
    assert record["approved_by"] == f"{os_account_name()} via Obsidian"
    assert record["approved_by"] != "person" and record["approved_via"] == "plugin"


def test_a_pipeline_run_is_authorized_by_the_person_and_recorded_as_them_not_as_the_body_says(
    served: Sidecar,
) -> None:
    with served.agent_client() as agent, served.client() as person:
        created = agent.post("/v1/pipeline/runs", json={"question": "Pythonのasyncioでタイムアウトを設定する方法"})
        assert created.status_code == 201, created.text
        run_id = created.json()["run_id"]
        refused = agent.post(f"/v1/pipeline/runs/{run_id}/authorize", json={"by": "person", "via": "plugin"})
        assert refused.status_code == 403 and refused.json()["error"]["code"] == "person_required"
        assert agent.get(f"/v1/pipeline/runs/{run_id}/detail").json()["label"] is None
        authorized = person.post(f"/v1/pipeline/runs/{run_id}/authorize", json={"by": "someone-else"})
        assert authorized.status_code == 200, authorized.text
        label = person.get(f"/v1/pipeline/runs/{run_id}/detail").json()["label"]
    assert label["by"] == os_account_name() and label["via"] == "http"


def test_mcp_takes_only_the_agent_token(served: Sidecar) -> None:
    with served.client() as person:
        refused = person.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert refused.status_code == 403
    assert "agent token" in refused.json()["error"]["message"]

    async def list_tools() -> list[str]:
        headers = {"Authorization": f"Bearer {served.agent_token}"}
        async with (
            httpx.AsyncClient(headers=headers, timeout=30) as http,
            streamable_http_client(f"{served.url}/mcp", http_client=http) as streams,
            ClientSession(streams[0], streams[1]) as session,
        ):
            await session.initialize()
            return [tool.name for tool in (await session.list_tools()).tools]

    tools = anyio.run(list_tools)
    assert "validate" in tools and "harness_next_task" in tools


def test_the_person_can_fetch_the_agent_connection_and_the_agent_cannot(served: Sidecar) -> None:
    with served.client() as person, served.agent_client() as agent:
        connection = person.get("/v1/agent-connection")
        assert connection.status_code == 200, connection.text
        assert agent.get("/v1/agent-connection").status_code == 403
    body = connection.json()
    assert body["token"] == served.agent_token and body["token"] != served.token
    assert body["mcp_url"] == f"{served.url}/mcp"
    assert served.agent_token in body["claude_command"] and "--transport http" in body["claude_command"]
    assert "bearer_token_env_var" in body["codex_config"]
