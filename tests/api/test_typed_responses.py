"""The typed answers of the dry run, the approval gate and the pipeline are what the services return
or describe it: a real `kh serve` sends them key for key and in their order, records over REST carry
`reasons`, and the CLI's shapes stay fixed (tests/api/test_dry_run_doors.py: the dry run's bytes)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any
from urllib.parse import quote

import anyio
import pytest
from pydantic import BaseModel

from knowledge_harness.pipeline.contract import REASONS, RECORD_KEYS, ReasonCode
from knowledge_harness.pipeline.rest_models import (
    DecisionView,
    ReviewView,
    RunDetail,
    RunStatusView,
    record_with_reasons,
    status_with_reasons,
)
from knowledge_harness.trust.approve.batch import approve, build_plan, plan_view, show_plan, show_run
from knowledge_harness.trust.approve.models import BatchRun, PlanView, StoredPlan
from knowledge_harness.trust.records import read_run, write_run
from knowledge_harness.trust.validate.dry_run_models import DryRunReport
from knowledge_harness.trust.validate.validation_service import dry_run
from knowledge_harness.vault.paths import Vault

from ..conftest import KH, start_sidecar, stop_sidecar
from ..support.batch_support import TODAY, fixture_now, git_vault
from ..support.part2_support import make_blog, make_vault, pipeline, to_review_ready
from ..support.people import PERSON


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def assert_describes(model: type[BaseModel], data: Any) -> None:
    """The model takes the dict as it is and gives it back unchanged: same keys, same order, same values."""
    again = model.model_validate(data).model_dump(mode="json", exclude_unset=True)
    assert dumps(again) == dumps(data)


def same_json(body: bytes, data: Any) -> None:
    assert dumps(json.loads(body)) == dumps(data)


def plan_in_process(vault: Vault) -> StoredPlan:
    async def make() -> StoredPlan:
        return await build_plan(vault, stage="canary", now=fixture_now())

    return anyio.run(make)


@pytest.mark.usefixtures("evidence_site")
def test_dry_run_and_the_approval_gate_keep_their_json(tmp_path: Path) -> None:
    vault = git_vault(tmp_path)
    handle = Vault.open(vault)
    report = anyio.run(lambda: dry_run(handle, "Keywords/FinanceBench.md"))
    assert_describes(DryRunReport, report.model_dump(mode="json"))  # the doors' JSON reads back as it was
    # the CLI's plan keeps the public keys (docs/approval.md) (and prints the same dict as before)
    out = subprocess.run(
        [str(KH), "batch", "plan", str(vault), "--json", "--today", TODAY], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    cli_plan = json.loads(out.stdout)
    assert {"plan_id", "digest", "targets", "expires_at"} <= cli_plan.keys()
    assert {"path", "sha256_before", "proposed"} <= cli_plan["targets"][0].keys()
    assert_describes(PlanView, cli_plan)
    # POST /v1/batches and …/approve answer with these dicts: the models keep them byte for byte
    made = plan_in_process(handle)
    assert_describes(PlanView, plan_view(handle, made).model_dump(mode="json", exclude_unset=True))
    record = approve(handle, made.plan_id, f"APPROVE_PRODUCTION {made.digest[:12]}", actor=PERSON, now=fixture_now())
    assert record["run_status"] == "SUCCEEDED"
    assert_describes(BatchRun, record)
    sidecar = start_sidecar(vault)
    try:
        with sidecar.client() as client:
            validated = client.post(f"/v1/trust/notes/{quote('Keywords/FinanceBench.md')}/validate?dry_run=true")
            assert validated.status_code == 200, validated.text
            assert_describes(DryRunReport, validated.json())

            planned = client.post("/v1/batches", json={"stage": "pilot", "out_of_order": True})
            assert planned.status_code == 200, planned.text
            plan = planned.json()
            assert plan == show_plan(handle, plan["plan_id"]).model_dump(mode="json", exclude_unset=True)
            # GET reads the stored plan (sorted keys): same values; typed keys in the model's order
            shown = client.get(f"/v1/batches/{plan['plan_id']}")
            assert shown.json() == plan and list(shown.json()) == list(plan)

            approved = client.post(
                f"/v1/batches/{plan['plan_id']}/approve", json={"challenge": f"APPROVE_PRODUCTION {plan['digest']}"}
            )
            assert approved.status_code == 200, approved.text
            record = approved.json()
            assert record["run_status"] == "SUCCEEDED"
            assert_describes(BatchRun, record)
            # GET sends the stored record in the same order as the approval's answer (the file sorts its keys)
            run = client.get(f"/v1/runs/{record['run_id']}")
            assert run.json() == record and list(run.json()) == list(record)
            assert run.json() == show_run(handle, record["run_id"])
            assert "recovered_at" not in record and all("disk" not in f for f in record["files"])

            # a run found IN_PROGRESS is closed as FAILED; its optional keys appear only then
            interrupted = {**read_run(handle, record["run_id"]), "run_status": "IN_PROGRESS", "finished_at": None}
            interrupted["files"] = [{**f, "result": "APPLIED"} for f in interrupted["files"]]
            write_run(handle, record["run_id"], interrupted)
            recovered = client.get(f"/v1/runs/{record['run_id']}")
            assert recovered.status_code == 200, recovered.text
            data = recovered.json()
            assert (data["run_status"], data["failure_reason"]) == ("FAILED", "interrupted")
            assert data["recovered_at"] and all(f["disk"] == "new" for f in data["files"])
            assert data == show_run(handle, record["run_id"])
            assert_describes(BatchRun, data)
    finally:
        stop_sidecar(sidecar)


def test_every_reason_code_is_explained() -> None:
    assert set(REASONS) == set(ReasonCode)
    record = record_with_reasons({"reason_codes": ["RUN_LABEL_PRESENT", "NOT_A_CODE"]})
    assert record["reasons"] == [
        {"code": "RUN_LABEL_PRESENT", "ja": "人間が実行ラベルを付けた", "en": "The person set the run label."},
        {"code": "NOT_A_CODE", "ja": "", "en": ""},
    ]


def test_pipeline_review_decision_and_detail_are_typed(tmp_path: Path) -> None:
    blog = make_blog(tmp_path)
    vault = make_vault(tmp_path, blog=blog)
    p = pipeline(vault)
    run_id = to_review_ready(p, vault)
    sidecar = start_sidecar(vault)
    try:
        with sidecar.client() as client:
            status = client.get(f"/v1/pipeline/runs/{run_id}")
            same_json(status.content, status_with_reasons(p.status(run_id).model_dump(mode="json")))
            records = status.json()["records"]
            assert all(list(r)[: len(RECORD_KEYS)] == list(RECORD_KEYS) and r["reasons"] for r in records)
            assert all(reason["ja"] for r in records for reason in r["reasons"])
            assert records[1]["reasons"][0]["ja"] == "人間が実行ラベルを付けた"
            assert_describes(RunStatusView, status.json())

            detail = client.get(f"/v1/pipeline/runs/{run_id}/detail")
            same_json(detail.content, status_with_reasons(p.detail(run_id)))
            assert_describes(RunDetail, detail.json())

            review = client.get(f"/v1/pipeline/runs/{run_id}/review")
            same_json(review.content, p.review(run_id))
            packet = review.json()
            assert_describes(ReviewView, packet)
            assert packet["review_packet"]["commit"] and len(packet["review_packet_sha256"]) == 64

            # approval before the merge: 409, nothing recorded
            refused = client.post(
                f"/v1/pipeline/runs/{run_id}/decision",
                json={
                    "choice": "approve",
                    "commit": packet["review_packet"]["commit"],
                    "review_packet_sha256": packet["review_packet_sha256"],
                    "via": "plugin",
                },
            )
            assert refused.status_code == 409
            assert refused.json()["error"]["detail"]["reason"] == "MERGE_NOT_FOUND"
            assert p.status(run_id).state == "REVIEW_READY"

            body = {
                "choice": "reject",
                "instructions": "今回は公開しないことにします。",
                "review_packet_sha256": packet["review_packet_sha256"],
                "via": "plugin",
            }
            decided = client.post(f"/v1/pipeline/runs/{run_id}/decision", json=body)
            assert decided.status_code == 200, decided.text
            answer = decided.json()
            assert answer["message_ja"] == "公開しません" and answer["status"]["state"] == "HOLD"
            assert answer["record"]["reasons"][0]["code"] == "DECISION_REJECTED"
            assert_describes(DecisionView, answer)
            assert "merged" in answer["decision"]["verified"]
            again = client.post(f"/v1/pipeline/runs/{run_id}/decision", json=body)
            assert again.content == decided.content

            # an author's free-text answer may be as long as the engine takes (4000), not cut at the door
            url = f"/v1/pipeline/runs/{run_id}/answers"
            long_answer = client.post(url, json={"question_id": "Q-99", "answer": "動機" * 2000})
            assert long_answer.status_code != 422 and long_answer.json()["error"]["code"] != "invalid_input"
            too_long = client.post(url, json={"question_id": "Q-99", "answer": "動機" * 2000 + "。"})
            assert too_long.status_code == 422 and "4000" in too_long.text

            choices = client.get("/v1/pipeline/decision-choices").json()["choices"]
            assert [c["code"] for c in choices] == ["approve", "revise", "reject", "policy"]
            check = client.post("/v1/pipeline/check-draft", json={"rst": "題\n==\n\n.. include:: x.rst\n"})
            assert "DIRECTIVE_FORBIDDEN" in {e["code"] for e in check.json()["errors"]}
    finally:
        stop_sidecar(sidecar)
    # the CLI's status keeps exactly the contract's keys (no `reasons`)
    out = subprocess.run(
        [str(KH), "pipeline", "status", str(vault), run_id, "--json"], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    cli = json.loads(out.stdout)
    assert set(cli) == {"run_id", "state", "waiting_for", "records"}
    assert all(set(r) == set(RECORD_KEYS) for r in cli["records"])
