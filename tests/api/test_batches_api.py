"""The approval gate over HTTP with a real `kh serve`: plan, read, typed approval, run record, recovery."""

from __future__ import annotations

import html
import re
import signal
import urllib.parse
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest

from ..conftest import start_sidecar, stop_sidecar
from ..support.batch_support import (
    git_vault,
    plan_json,
    run_record,
    spawn_approval,
    tree_bytes,
    wait_for,
)

pytestmark = pytest.mark.usefixtures("evidence_site")
SITE = Path(__file__).resolve().parents[2] / "examples" / "evidence-site"


def plans(vault: Path) -> list[str]:
    folder = vault / ".harness" / "plans"
    return sorted(p.name for p in folder.glob("*.json")) if folder.is_dir() else []


def assert_a_cancel_stops_a_plan_before_it_stores_anything(client: httpx.Client, vault: Path) -> None:
    """A cancel that overtakes its own request (the plugin gave up first): the plan stops at its first note."""
    before = plans(vault)
    assert client.post("/v1/jobs/plugin-job-0001/cancel").json()["cancel_requested"] is True
    refused = client.post("/v1/batches", json={"stage": "canary"}, headers={"X-KH-Job": "plugin-job-0001"})
    assert refused.status_code == 409, refused.text
    error = refused.json()["error"]
    assert error["code"] == "cancelled" and error["detail"]["done"] == 0
    assert plans(vault) == before
    assert client.get("/v1/jobs/plugin-job-0001").json()["state"] == "cancelled"


def assert_the_job_shows_its_steps(client: httpx.Client, agent: httpx.Client, plan: dict[str, Any]) -> None:
    job = client.get("/v1/jobs/plugin-job-0002").json()
    assert (job["state"], job["done"], job["total"], job["step"]) == ("finished", 0, 1, plan["targets"][0]["path"])
    assert job["action"] == "POST /v1/batches"
    # a finished job is not cancelled after the fact; another token's job is not there for it
    assert client.post("/v1/jobs/plugin-job-0002/cancel").json()["state"] == "finished"
    assert agent.get("/v1/jobs/plugin-job-0002").status_code == 404
    assert agent.post("/v1/jobs/plugin-job-0002/cancel").status_code == 404
    assert client.get("/v1/jobs/no").status_code == 400  # too short to be an id


def assert_badge_shows_the_proof(client: httpx.Client, vault: Path, record: dict[str, Any]) -> None:
    """The written note's badge carries each claim with its quote and the page it is from."""
    path = record["files"][0]["path"]
    badge = client.get(f"/v1/trust/notes/{urllib.parse.quote(path)}").json()
    quotes = badge["quotes"]
    assert [q["claim_id"] for q in quotes] == [f["claim_id"] for f in record["files"][0]["findings"]]
    note = (vault / path).read_text(encoding="utf-8")
    supported = [q for q in quotes if q["verdict"] == "supported"]
    assert supported, quotes
    for q in supported:
        # the URL is one the note cites, and the quote is the page's own words
        assert q["source_url"] and q["source_url"] in note
        page = (SITE / urllib.parse.urlsplit(q["source_url"]).path.lstrip("/")).read_text(encoding="utf-8")
        text = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())
        assert q["quote"] and " ".join(q["quote"].split()).lstrip("- ") in text
        assert q["claim"] and q["claim"] in note
    # a note no run wrote has no quotes
    assert client.get(f"/v1/trust/notes/{urllib.parse.quote('ホーム.md')}").json()["quotes"] == []


def test_plan_read_approve_and_run_record_over_http(tmp_path: Path) -> None:
    vault = git_vault(tmp_path)
    sidecar = start_sidecar(vault)
    try:
        with sidecar.client() as client:
            assert (
                client.post("/v1/batches", json={"stage": "canary"}, headers={"Authorization": ""}).status_code == 401
            )
            # a fresh vault: the main button's stage is the canary, and a pilot is refused, in the
            # person's language when the request names one, with the next step and no CLI flag
            fresh = client.get("/v1/batches/next").json()
            assert fresh == {"next_stage": "canary", "succeeded": [], "limits": fresh["limits"]}
            assert fresh["limits"]["canary"] >= 1
            early = client.post("/v1/batches", json={"stage": "pilot"}, headers={"Accept-Language": "ja-JP,ja;q=0.9"})
            assert early.status_code == 409
            error = early.json()["error"]
            assert (error["code"], error["lang"], error["detail"]["missing_stage"]) == ("refused", "ja", "canary")
            assert "カナリア" in error["message"] and "--" not in error["message"]
            assert "--out-of-order" in error["message_en"]  # the service's own words stay for the CLI's readers
            # the agent token spends nothing on a paid judge without the machine's budget (none configured)
            with sidecar.agent_client() as agent:
                before = tree_bytes(vault)
                paid = agent.post("/v1/batches", json={"stage": "canary", "judge": "openai_compat"})
                assert paid.status_code == 409, paid.text
                message = paid.json()["error"]["message"]
                assert "may not spend money" in message and "openai_compat" in message
                assert "judge_calls_per_day" in message
                assert tree_bytes(vault) == before  # nothing fetched, judged or planned
            dated = client.post("/v1/batches", json={"stage": "canary", "today": "2099-01-01"})
            assert dated.status_code == 422 and "machine's date" in dated.text  # no caller dates a write
            assert_a_cancel_stops_a_plan_before_it_stores_anything(client, vault)
            response = client.post("/v1/batches", json={"stage": "canary"}, headers={"X-KH-Job": "plugin-job-0002"})
            assert response.status_code == 200, response.text
            plan = response.json()
            with sidecar.agent_client() as agent:
                assert_the_job_shows_its_steps(client, agent, plan)
            assert {"plan_id", "digest", "targets", "expires_at"} <= plan.keys()
            assert {"path", "sha256_before", "proposed"} <= plan["targets"][0].keys()
            shown = client.get(f"/v1/batches/{plan['plan_id']}").json()
            assert shown["digest"] == plan["digest"] and shown["status"] == "open"

            before = tree_bytes(vault)
            for typed in ("OK", plan["digest"], f"approve_production {plan['digest']}"):
                refused = client.post(f"/v1/batches/{plan['plan_id']}/approve", json={"challenge": typed})
                assert refused.status_code == 409
                assert refused.json()["error"]["code"] == "challenge_refused"
            assert tree_bytes(vault) == before

            url = f"/v1/batches/{plan['plan_id']}/approve"
            approved = client.post(url, json={"challenge": f"APPROVE_PRODUCTION {plan['digest']}"})
            assert approved.status_code == 200, approved.text
            record = approved.json()
            assert (record["run_status"], record["consumption"], record["result"]) == (
                "SUCCEEDED",
                "CONSUMED",
                "APPLIED",
            )
            assert client.get(f"/v1/runs/{record['run_id']}").json() == record
            assert_badge_shows_the_proof(client, vault, record)
            assert client.get("/v1/batches/next").json()["next_stage"] == "pilot"  # the canary succeeded
            again = client.post(url, json={"challenge": f"APPROVE_PRODUCTION {plan['digest']}"})
            assert again.status_code == 409 and again.json()["error"]["code"] == "conflict"
            assert client.get(f"/v1/batches/{plan['plan_id']}").json()["status"] == "consumed"
            assert client.get("/v1/batches/plan-20260101T000000Z-00000000").status_code == 404
            assert client.get("/v1/runs/../../etc").status_code in (400, 404)
            assert client.get("/v1/runs/not-a-run").status_code == 400
    finally:
        stop_sidecar(sidecar)


def test_kh_serve_start_reports_an_interrupted_run_as_failed(tmp_path: Path) -> None:
    vault = git_vault(tmp_path)
    plan = plan_json(vault, "--stage", "pilot", "--out-of-order")
    proc = spawn_approval(
        vault, plan["plan_id"], f"APPROVE_PRODUCTION {plan['digest']}", env={"KH_TEST_PAUSE_AFTER_WRITE": "60"}
    )
    try:
        wait_for(
            lambda: any(f["result"] == "APPLIED" for f in run_record(vault, plan["run_id"])["files"]),
            what="the first write",
        )
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert run_record(vault, plan["run_id"])["run_status"] == "IN_PROGRESS"
    sidecar = start_sidecar(vault)
    try:
        record = run_record(vault, plan["run_id"])  # closed at start-up, before any request
        assert (record["run_status"], record["consumption"], record["result"]) == (
            "FAILED",
            "CONSUMED",
            "PROVISIONAL_RETAIN",
        )
        assert record["files_written"] == [plan["targets"][0]["path"]]
        with sidecar.client() as client:
            assert client.get(f"/v1/runs/{plan['run_id']}").json() == record
            # the note the failed run wrote carries verified/L2 blocks, yet is provisional everywhere
            written = plan["targets"][0]["path"]
            badge = client.get(f"/v1/trust/notes/{quote(written)}").json()
            assert badge["level"] == plan["targets"][0]["proposed"]["verification"]["level"]
            assert (badge["record"], badge["fresh"], badge["fresh_l2"], badge["counted_level"]) == (
                "provisional",
                False,
                False,
                0,
            )
            assert badge["provisional_run_id"] == plan["run_id"] and "interrupted" in badge["record_reason"]
            batch = client.post("/v1/trust/badges", json={"paths": [written]}).json()
            assert batch["badges"][written]["record"] == "provisional"
    finally:
        stop_sidecar(sidecar)
