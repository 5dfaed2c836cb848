"""The engine on real tmp vaults: records, state machine, idempotency, O-01…O-05, O-13."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from knowledge_harness.errors import Conflict, IllegalTransition, PersonRequired, SubmissionRefused
from knowledge_harness.pipeline.contract import RECORD_KEYS, Result, State
from knowledge_harness.pipeline.engine import Pipeline
from knowledge_harness.pipeline.states import check_transition
from knowledge_harness.vault.paths import Vault

from ..support.part2_support import make_vault as yaml_vault
from ..support.people import AGENT, PERSON
from ..support.pipeline_helpers import (
    SUMMARY_JA,
    harness_text,
    packet_for,
    request_note,
    run_files,
    snapshot,
    write_note,
)

AWS = "AKIA" + "Z7QXW3ERTY5UIOPA"


def make_vault(tmp_path: Path) -> Path:
    """The pipeline tests' YAML vault (no blog) with one unrelated note."""
    vault = yaml_vault(tmp_path, blog=None)
    write_note(vault, "Notes/other.md", "# 料理\n\nカレーの作り方。玉ねぎを炒める。\n")
    return vault


QUESTION = "Obsidian のプロパティ（frontmatter）は YAML 1.2 として読まれるのか。yes/no の真偽値の扱いを知りたい。"


def to_evidence_ready(vault: Path, note: str = "Requests/q.md") -> tuple[Pipeline, str]:
    write_note(vault, note, request_note(QUESTION))
    p = Pipeline(Vault.open(vault))
    run_id = p.capture_note(note).run_id
    p.authorize(run_id, actor=PERSON)
    status = p.advance(run_id)
    assert status.state == State.EVIDENCE_READY, status
    return p, run_id


def test_capture_waits_for_the_label_and_is_idempotent(tmp_path: Path) -> None:
    vault = make_vault(tmp_path)
    write_note(vault, "Requests/q.md", request_note(QUESTION))
    p = Pipeline(Vault.open(vault))
    status = p.capture_note("Requests/q.md")
    assert status.state == State.CAPTURED
    assert status.waiting_for == "authorization"
    assert [r["operation"] for r in status.records] == ["O-01"]
    assert set(status.records[0]) == set(RECORD_KEYS)
    before = snapshot(vault)
    # capturing again, and advancing without the label, write nothing and start nothing
    assert p.capture_note("Requests/q.md").run_id == status.run_id
    again = p.advance(status.run_id)
    assert again.state == State.CAPTURED and again.waiting_for == "authorization"
    assert snapshot(vault) == before


def test_a_label_in_the_request_note_does_not_authorize_a_run(tmp_path: Path) -> None:
    # An agent can write a note, so a note can never stand in for the person's run label.
    vault = make_vault(tmp_path)
    write_note(vault, "Requests/q.md", request_note(QUESTION, extra="harness_run: authorized"))
    p = Pipeline(Vault.open(vault))
    run_id = p.capture_note("Requests/q.md").run_id
    status = p.advance(run_id)
    assert status.state == State.CAPTURED and status.waiting_for == "authorization"
    with pytest.raises(PersonRequired):
        p.authorize(run_id, actor=AGENT)
    assert p.status(run_id).state == State.CAPTURED
    p.authorize(run_id, actor=PERSON)
    status = p.advance(run_id)
    assert [r["operation"] for r in status.records][:4] == ["O-01", "O-02", "O-03", "O-04"]
    assert f"label:terminal:{PERSON.name}" in status.records[1]["input_refs"]


def test_full_part1_run_with_external_agent(tmp_path: Path) -> None:
    vault = make_vault(tmp_path)
    p, run_id = to_evidence_ready(vault)
    status = p.status(run_id)
    assert status.waiting_for is not None and status.waiting_for.startswith("agent:O-05 task=")
    ops = [(r["operation"], r["result"], r["state_after"]) for r in status.records]
    assert ops == [
        ("O-01", "ADVANCE", "CAPTURED"),
        ("O-02", "ADVANCE", "AUTHORIZED"),
        ("O-03", "ADVANCE", "SCREENED"),
        ("O-04", "ADVANCE", "EVIDENCE_READY"),
    ]
    assert all(r["summary_ja"] for r in status.records)
    o04 = status.records[3]
    assert "PRIMARY_TARGET_UNMET" in o04["reason_codes"]  # only vault notes: secondary
    evidence = p.artifact(run_id, "evidence_set")
    assert [s["title"] for s in evidence["sources"]] == ["YAML 1.1 と 1.2 の違い"]
    for key in (
        "searches",
        "fetch_attempts",
        "success_rate",
        "adopted",
        "primary_ratio",
        "duplicates",
        "unreachable",
        "contradictions",
        "missing_points",
        "seconds",
    ):
        assert key in evidence["metrics"]
    src = evidence["sources"][0]
    for key in (
        "source_id",
        "url",
        "repository_ref",
        "title",
        "publisher",
        "author",
        "published_at",
        "fetched_at",
        "target_version",
        "locator",
        "summary_ja",
        "source_class",
        "confidence",
        "confidence_reason",
    ):
        assert key in src
    task = p.next_task()
    assert task is not None and task.operation == "O-05" and task.run_id == run_id
    assert task.instructions_ja and task.instructions_en and task.output_schema["type"] == "object"
    # waiting again publishes nothing new
    before = snapshot(vault)
    assert p.advance(run_id).waiting_for == status.waiting_for
    assert snapshot(vault) == before
    # unknown source_id → refused with reasons, nothing recorded
    bad = packet_for(task.inputs["sources"])
    bad["issues"][0]["facts"][0]["source_ids"] = ["S-doesnotexist"]
    with pytest.raises(SubmissionRefused) as refused:
        p.submit(task.task_id, bad)
    assert any(r["code"] == "UNKNOWN_SOURCE_ID" for r in refused.value.detail["reasons"])
    assert len(p.status(run_id).records) == 4
    # schema violation (categories mixed into one list) → refused
    with pytest.raises(SubmissionRefused) as refused:
        p.submit(task.task_id, {"issues": [{"issue_id": "I1", "title": "x", "statements": []}]})
    assert refused.value.detail["reasons"][0]["code"] == "SUBMISSION_SCHEMA_INVALID"
    good = packet_for(task.inputs["sources"])
    result = p.submit(task.task_id, good)
    assert result["accepted"] and result["record"]["producer"] == "agent"
    assert result["record"]["operation"] == "O-05" and result["record"]["result"] == "ADVANCE"
    after = p.status(run_id)
    assert after.state == State.EVIDENCE_READY
    assert after.waiting_for is not None and after.waiting_for.startswith("agent:O-06 task=")  # part 2
    packet = p.artifact(run_id, "evidence_packet")
    assert packet["carried_uncertainties"]  # the evidence set's uncertainties are carried over
    # the same submission again is idempotent; another one is refused
    files = run_files(vault, run_id)
    assert p.submit(task.task_id, good)["record"] == result["record"]
    assert run_files(vault, run_id) == files
    with pytest.raises(Conflict):
        p.submit(task.task_id, {**good, "uncertainties": []})


def test_rerun_with_unchanged_inputs_returns_the_stored_record(tmp_path: Path) -> None:
    vault = make_vault(tmp_path)
    p, run_id = to_evidence_ready(vault)
    before = snapshot(vault)
    stored = p.status(run_id).records[2]
    again = p.run_operation(run_id, "O-03")
    assert again.contract_view() == stored
    assert snapshot(vault) == before
    # changed input (the note) → O-03 would need a new attempt, which the state machine refuses now
    write_note(vault, "Requests/q.md", request_note(QUESTION + " 追記。"))
    with pytest.raises(IllegalTransition):
        p.run_operation(run_id, "O-03")
    assert snapshot(vault) == before


def test_illegal_transitions_are_refused(tmp_path: Path) -> None:
    vault = make_vault(tmp_path)
    write_note(vault, "Requests/q.md", request_note(QUESTION))
    p = Pipeline(Vault.open(vault))
    run_id = p.capture_note("Requests/q.md").run_id
    with pytest.raises(IllegalTransition):
        p.run_operation(run_id, "O-04")  # CAPTURED → needs SCREENED
    with pytest.raises(IllegalTransition):
        check_transition("O-03", State.AUTHORIZED, State.EVIDENCE_READY, Result.ADVANCE)
    with pytest.raises(IllegalTransition):
        check_transition("O-04", State.SCREENED, State.HOLD, Result.ADVANCE)  # HOLD needs result HOLD
    with pytest.raises(IllegalTransition):
        check_transition("O-02", State.REJECTED, State.AUTHORIZED, Result.ADVANCE)
    check_transition("O-04", State.SCREENED, State.EVIDENCE_READY, Result.ADVANCE)


def test_missing_publishability_is_the_one_question(tmp_path: Path) -> None:
    vault = make_vault(tmp_path)
    write_note(vault, "Requests/q.md", request_note(QUESTION, publishable=None))
    p = Pipeline(Vault.open(vault))
    status = p.capture_note("Requests/q.md")
    assert status.state == State.CAPTURED
    assert status.records[0]["result"] == "HOLD"
    assert status.records[0]["reason_codes"] == ["REQUEST_CAPTURED", "PUBLISHABILITY_UNKNOWN"]
    assert status.waiting_for == "human:Q-01 publishability"
    assert p.advance(status.run_id).waiting_for == "human:Q-01 publishability"  # no second question
    answered = p.answer(status.run_id, "Q-01", "publishable", actor=PERSON)
    assert answered.records[-1]["operation"] == "O-01" and answered.records[-1]["result"] == "ADVANCE"
    assert "PUBLISHABILITY_CONFIRMED" in answered.records[-1]["reason_codes"]
    assert answered.waiting_for == "authorization"
    assert len(p.detail(status.run_id)["questions"]) == 1


def test_changed_request_note_is_a_new_attempt(tmp_path: Path) -> None:
    vault = make_vault(tmp_path)
    write_note(vault, "Requests/q.md", request_note(QUESTION, publishable=None))
    p = Pipeline(Vault.open(vault))
    run_id = p.capture_note("Requests/q.md").run_id
    write_note(vault, "Requests/q.md", request_note(QUESTION, publishable="true"))
    with pytest.raises(PersonRequired):  # publishability is the person's: not from a script's re-capture
        p.capture_note("Requests/q.md", actor=AGENT)
    status = p.capture_note("Requests/q.md", actor=PERSON)
    assert status.run_id == run_id
    assert [(r["operation"], r["result"]) for r in status.records] == [("O-01", "HOLD"), ("O-01", "ADVANCE")]


def test_not_publishable_is_rejected_and_recorded(tmp_path: Path) -> None:
    vault = make_vault(tmp_path)
    write_note(vault, "Requests/q.md", request_note(QUESTION, publishable="false"))
    p = Pipeline(Vault.open(vault))
    run_id = p.capture_note("Requests/q.md").run_id
    assert p.status(run_id).state == State.REJECTED
    with pytest.raises(IllegalTransition):
        p.authorize(run_id, actor=PERSON)
    final = p.advance(run_id)
    assert [r["operation"] for r in final.records] == ["O-01", "O-13"]
    assert final.records[-1]["result"] == "REJECTED" and final.waiting_for is None
    assert (vault / ".harness/runs/pipeline" / run_id / "HANDOFF.md").is_file()


def test_rejected_by_screening(tmp_path: Path) -> None:
    vault = make_vault(tmp_path)
    write_note(vault, "Requests/q.md", request_note("【社外秘】設計資料について、YAML の扱いを知りたい。"))
    p = Pipeline(Vault.open(vault))
    run_id = p.capture_note("Requests/q.md").run_id
    p.authorize(run_id, actor=PERSON)
    status = p.advance(run_id)
    assert status.state == State.REJECTED
    assert [(r["operation"], r["result"]) for r in status.records][-2:] == [("O-03", "REJECTED"), ("O-13", "REJECTED")]
    assert status.records[2]["reason_codes"] == ["PRIVATE_MARKER"]
    handoff = (vault / ".harness/runs/pipeline" / run_id / "HANDOFF.md").read_text(encoding="utf-8")
    assert "REJECTED" in handoff and "PRIVATE_MARKER" in handoff


def test_undecidable_screening_asks_and_the_answer_decides(tmp_path: Path) -> None:
    vault = make_vault(tmp_path)
    write_note(vault, "Requests/q.md", request_note("社内の議事録をもとに YAML の真偽値の扱いを知りたい。"))
    p = Pipeline(Vault.open(vault))
    run_id = p.capture_note("Requests/q.md").run_id
    p.authorize(run_id, actor=PERSON)
    status = p.advance(run_id)
    assert status.state == State.AUTHORIZED
    assert status.records[-1]["reason_codes"] == ["SCREEN_UNDECIDABLE"]
    assert status.waiting_for == "human:Q-01 screening"
    final = p.answer(run_id, "Q-01", "private", actor=PERSON)
    assert final.state == State.REJECTED
    assert final.records[-2]["reason_codes"] == ["SCREEN_ANSWERED_PRIVATE"]


def test_secrets_are_masked_and_never_stored(tmp_path: Path) -> None:
    vault = make_vault(tmp_path)
    secret_note = f"{AWS} を誤ってコミットした。Obsidian の YAML 1.2 の真偽値の扱いと合わせて対処を知りたい。連絡は taro@example.jp"
    write_note(vault, "Requests/q.md", request_note(secret_note))
    p = Pipeline(Vault.open(vault))
    run_id = p.capture_note("Requests/q.md").run_id
    p.authorize(run_id, actor=PERSON)
    status = p.advance(run_id)
    o03 = status.records[2]
    assert o03["result"] == "ADVANCE"
    assert {"SECRET_MASKED", "PERSONAL_INFO_MASKED"} <= set(o03["reason_codes"])
    screened = p.artifact(run_id, "screened_request")
    assert "[MASKED:aws_access_key]" in screened["question_masked"]
    assert "[MASKED:email_address]" in screened["question_masked"]
    text = harness_text(vault)
    assert AWS not in text
    assert "taro@example.jp" not in p.artifact(run_id, "screened_request")["question_masked"]


AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"  # AWS's documented example secret access key


def test_secret_values_after_labels_and_key_shapes_are_masked_at_capture(tmp_path: Path) -> None:
    vault = make_vault(tmp_path)
    question = (
        f"AKIAIOSFODNN7EXAMPLE のアクセスキーと、the secret is {AWS_SECRET} を誤って公開した。\n"
        "my password was Hunter2hunter2 and the token is: ghx9Zq81_kk2mP0a. トークンは「Zz9-8Yy7xW」。\n"
        f"別の行に鍵だけ: {AWS_SECRET[::-1]} 。YAML 1.2 の真偽値の扱いと合わせて対処を知りたい。\n"
        "the token is refreshed every hour; commit 4d3bd10e932040a7319492b23cdac7b5383620c0 stays."
    )
    write_note(vault, "Requests/q.md", request_note(question))
    p = Pipeline(Vault.open(vault))
    run_id = p.capture_note("Requests/q.md").run_id
    stored = harness_text(vault)
    for value in (AWS_SECRET, AWS_SECRET[::-1], "Hunter2hunter2", "ghx9Zq81_kk2mP0a", "Zz9-8Yy7xW"):
        assert value not in stored, value
    masked = p.artifact(run_id, "request")["question_masked"]
    assert masked.count("[MASKED:") == 6, masked
    # plain words after a label and a git commit are no secrets
    assert "the token is refreshed every hour" in masked and "4d3bd10e932040a7319492b23cdac7b5383620c0" in masked


def test_packet_without_facts_is_no_candidate(tmp_path: Path) -> None:
    vault = make_vault(tmp_path)
    p, run_id = to_evidence_ready(vault)
    task = p.next_task()
    assert task is not None
    sid = task.inputs["sources"][0]["source_id"]
    packet: dict[str, Any] = {
        "issues": [
            {
                "issue_id": "I1",
                "title": "論点",
                "facts": [],
                "inferences": [],
                "reactions": [],
                "contradictions": [],
                "unknowns": [{"id": "U1", "statement": "核心は確認できない。", "source_ids": [sid]}],
            }
        ],
        "past_articles": None,
        "source_summaries": [{"source_id": sid, "summary_ja": SUMMARY_JA}],
    }
    result = p.submit(task.task_id, packet)
    assert result["record"]["result"] == "NO_CANDIDATE"
    final = p.status(run_id)
    assert final.state == State.NO_CANDIDATE
    assert [r["operation"] for r in final.records][-2:] == ["O-05", "O-13"]
    assert final.records[-1]["result"] == "NO_CANDIDATE" and final.waiting_for is None


def test_packet_program_rules(tmp_path: Path) -> None:
    vault = make_vault(tmp_path)
    p, _ = to_evidence_ready(vault)
    task = p.next_task()
    assert task is not None
    good = packet_for(task.inputs["sources"])
    sid = task.inputs["sources"][0]["source_id"]

    def codes(packet: dict[str, Any]) -> set[str]:
        with pytest.raises(SubmissionRefused) as exc:
            p.submit(task.task_id, packet)
        return {r["code"] for r in exc.value.detail["reasons"]}

    dup = json.loads(json.dumps(good))
    dup["issues"][0]["inferences"][0]["id"] = "F1"
    assert "DUPLICATE_ITEM_ID" in codes(dup)
    same = json.loads(json.dumps(good))
    same["issues"][0]["inferences"][0]["statement"] = same["issues"][0]["facts"][0]["statement"]
    assert "STATEMENT_IN_TWO_CATEGORIES" in codes(same)
    contra = json.loads(json.dumps(good))
    contra["issues"][0]["contradictions"] = [{"id": "C1", "statement": "食い違い", "source_ids": [sid]}]
    assert "CONTRADICTION_NEEDS_TWO_SOURCES" in codes(contra)
    past = json.loads(json.dumps(good))
    past["past_articles"] = {"diff_candidates": [{"id": "D1", "statement": "新しい点", "source_ids": [sid]}]}
    assert "PAST_ARTICLE_DIFF_WITHOUT_REFERENCE" in codes(past)
    leak = json.loads(json.dumps(good))
    leak["issues"][0]["facts"][0]["statement"] = f"キーは {AWS}"
    assert "SECRET_IN_OUTPUT" in codes(leak)
    assert p.submit(task.task_id, good)["accepted"]
