"""Part 2 end to end: O-06 … O-13 in a tmp vault and a real blog git repository, the external agent
driven by the test, decisions through the engine, the CLI and REST."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path

import pytest

from knowledge_harness.actors import os_account_name
from knowledge_harness.errors import Conflict, DecisionRefused, SubmissionRefused
from knowledge_harness.pipeline.contract import RECORD_KEYS, State

from ..conftest import KH, start_sidecar, stop_sidecar
from ..support.part2_support import (
    B1,
    draft_output,
    git,
    judge_output,
    make_blog,
    make_vault,
    merge,
    pipeline,
    plan_asking,
    plan_output,
    review_output,
    start_run,
    task_of,
    to_judged,
    to_plan_ready,
    to_review_ready,
    validate_output,
)
from ..support.people import PERSON
from ..support.pipeline_helpers import run_files, snapshot
from ..support.terminal import TerminalRun, run_at_terminal


def _decide_at_terminal(*args: str) -> TerminalRun:
    """`kh pipeline decide` as the person runs it: at a terminal, confirming with yes."""
    return run_at_terminal([str(KH), "pipeline", "decide", *args], ["yes"], env=dict(os.environ))


def _kh(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(KH), *args], capture_output=True, text=True, timeout=60)


def _branches(blog: Path) -> list[str]:
    return [b for b in git(blog, "branch", "--format=%(refname:short)").splitlines() if b]


def test_full_run_from_capture_to_approved(tmp_path: Path) -> None:
    blog = make_blog(tmp_path)
    vault = make_vault(tmp_path, blog=blog)
    p = pipeline(vault)
    run_id = to_review_ready(p, vault)
    status = p.status(run_id)
    ops = [(r["operation"], r["result"], r["state_after"], r["producer"]) for r in status.records]
    assert ops == [
        ("O-01", "ADVANCE", "CAPTURED", "program"),
        ("O-02", "ADVANCE", "AUTHORIZED", "program"),
        ("O-03", "ADVANCE", "SCREENED", "program"),
        ("O-04", "ADVANCE", "EVIDENCE_READY", "program"),
        ("O-05", "ADVANCE", "EVIDENCE_READY", "agent"),
        ("O-06", "ADVANCE", "CANDIDATE_ACCEPTED", "ai_judge"),
        ("O-07", "ADVANCE", "PLAN_READY", "agent"),
        ("O-08", "ADVANCE", "DRAFT_READY", "agent"),
        ("O-09", "ADVANCE", "VALIDATED", "ai_judge"),
        ("O-10", "ADVANCE", "REVIEW_READY", "agent"),
    ]
    assert all(set(r) == set(RECORD_KEYS) and r["summary_ja"] for r in status.records)
    assert status.waiting_for == "human:Q-01 publication_decision"
    # O-06 saw the past article of the blog
    assert "JUDGE_ALL_PASS" in status.records[5]["reason_codes"]
    assert any(
        ref.startswith("blog:docs/blog/posts/2026-03-02-curry.rst@sha256:") for ref in status.records[5]["input_refs"]
    )
    # draft.rst + manifest in the run folder; the manifest matches the draft
    run_dir = vault / ".harness/runs/pipeline" / run_id
    draft = (run_dir / "draft.rst").read_text(encoding="utf-8")
    manifest = json.loads((run_dir / "draft_manifest.json").read_text(encoding="utf-8"))
    assert manifest["draft_sha256"] == hashlib.sha256(draft.encode()).hexdigest()
    assert [b["block_id"] for b in manifest["blocks"]] == ["B1", "B2"]
    assert ":公開日: 未確定" in draft and ":対象バージョン: 未確認" in draft and ":情報基準日: 2026-03-01" in draft
    # the candidate: one branch, one commit, the post directive, the date after the run date not used by a post
    candidate = p.artifact(run_id, "publication_candidate")
    assert candidate["path"] == "docs/blog/posts/2026-03-03-obsidian-yaml12-booleans.rst"
    assert candidate["branch"] == f"harness/{run_id}"
    assert _branches(blog) == sorted(["main", f"harness/{run_id}"])
    assert git(blog, "rev-list", "--count", f"main..harness/{run_id}") == "1"
    assert git(blog, "status", "--porcelain") == ""  # the working tree was never touched
    committed = git(blog, "show", f"harness/{run_id}:{candidate['path']}")
    assert committed.startswith(".. post:: 2026-03-03\n") and "   :language: ja" in committed
    assert ":公開日: 2026-03-03" in committed and "Obsidian のプロパティで true/false を使う理由" in committed
    assert B1.split("\n")[0] in committed
    # the review packet: Japanese, the four choices, no answer = HOLD, SHA-256s
    review = p.review(run_id)
    md = review["review_packet"]["markdown"]
    for text in (
        "公開候補の確認待ち",
        "中心メッセージ",
        "主要根拠",
        "不確実性",
        "検証結果",
        "AIが担当した範囲",
        "人間が確認する範囲",
        "変更ファイル",
        "公開を承認する",
        "今回だけ修正を求める",
        "公開しない",
        "今後の方針として検討する",
        "無回答の場合は公開せず、HOLD",
        candidate["sha256"],
        candidate["commit"],
    ):
        assert text in md, text
    assert review["review_packet_sha256"] == hashlib.sha256(md.encode()).hexdigest()
    assert (run_dir / "REVIEW_PACKET.md").read_text(encoding="utf-8") == md
    # advancing again writes nothing; re-running O-10 returns the stored record (no second branch or commit)
    before = snapshot(vault)
    assert p.advance(run_id).waiting_for == "human:Q-01 publication_decision"
    assert p.run_operation(run_id, "O-10").operation == "O-10"
    assert snapshot(vault) == before and len(_branches(blog)) == 2
    # approval before the merge is refused, nothing recorded
    commit, sha = candidate["commit"], review["review_packet_sha256"]
    refused = _decide_at_terminal(str(vault), run_id, "--choice", "approve", "--commit", commit, "--review-sha256", sha)
    assert refused.exit_code == 1 and "merge" in refused.screen
    assert snapshot(vault) == before
    # without a terminal (a script, an agent's shell) the decision is refused before anything happens
    scripted = _kh("pipeline", "decide", str(vault), run_id, "--choice", "reject")
    assert scripted.returncode == 1 and "terminal" in scripted.stderr
    assert snapshot(vault) == before
    # the person merges (real git merge), then approves at the terminal
    merge(blog, candidate["branch"])
    ok = _decide_at_terminal(str(vault), run_id, "--choice", "approve", "--commit", commit[:12], "--review-sha256", sha)
    assert ok.exit_code == 0, ok.screen
    assert "公開を承認しました" in ok.screen
    final = p.status(run_id)
    assert final.state == State.APPROVED and final.waiting_for is None
    # the published post on main reads as published: its status and its AI notice
    published = git(blog, "show", f"main:{candidate['path']}")
    assert ":記事状態: 公開\n" in published and "公開候補" not in published and "レビュー待ち" not in published
    assert "この下書き" not in published and "人間が内容を確認して公開を判断したものです" in published
    assert "この記事は AI が Evidence Packet と Article Plan から作成しました" in published
    assert [(r["operation"], r["result"], r["producer"]) for r in final.records[-2:]] == [
        ("O-11", "ADVANCE", "human"),
        ("O-13", "ADVANCE", "program"),
    ]
    decision = p.artifact(run_id, "publication_decision")
    assert decision["decider"] == os_account_name() and decision["decided_at"]
    assert decision["verified"]["merged"] is True
    assert (
        decision["verified"]["candidate_commit"] == commit
        and decision["verified"]["published_sha256"] == candidate["sha256"]
    )
    # idempotent: the same decision again, by the same person, records nothing new
    files = run_files(vault, run_id)
    again = p.decide(run_id, "approve", commit=commit[:12], review_packet_sha256=sha, actor=PERSON)
    assert again["message_ja"] == "公開を承認しました"
    assert run_files(vault, run_id) == files
    # the budget: asked once, for the final decision
    budget = p.detail(run_id)["human_budget"]
    assert (
        budget["total_asked"] == 1 and budget["final_decision"] == {"asked": 1, "limit": 3} and budget["within_budget"]
    )
    shown = _kh("pipeline", "status", str(vault), run_id)
    assert "人間への確認: 1回（最終公開判断 1/3）" in shown.stdout and "publication_decision" in shown.stdout
    handoff = (run_dir / "HANDOFF.md").read_text(encoding="utf-8")
    assert "APPROVED" in handoff and "DECISION_APPROVED" in handoff


def test_a_mistyped_sha_is_refused_and_the_run_stays_review_ready(tmp_path: Path) -> None:
    blog = make_blog(tmp_path)
    vault = make_vault(tmp_path, blog=blog)
    p = pipeline(vault)
    run_id = to_review_ready(p, vault)
    candidate = p.artifact(run_id, "publication_candidate")
    sha = p.review(run_id)["review_packet_sha256"]
    merge(blog, candidate["branch"])
    before = snapshot(vault)
    result = _decide_at_terminal(
        str(vault), run_id, "--choice", "公開を承認する", "--commit", candidate["commit"], "--review-sha256", "0" * 64
    )
    assert result.exit_code == 1
    assert "DECISION_SHA_MISMATCH" in result.screen and "REVIEW_READY" in result.screen
    assert p.status(run_id).state == State.REVIEW_READY and snapshot(vault) == before
    # once merged, 「公開しない」 would leave a HOLD record for a published article: refused
    with pytest.raises(DecisionRefused) as merged:
        p.decide(run_id, "公開しない", instructions="やめます。", review_packet_sha256=sha, actor=PERSON)
    assert merged.value.detail["reason"] == "DECISION_CONTRADICTORY" and snapshot(vault) == before
    # the corrected decision, given by its Japanese label, is accepted
    ok = _decide_at_terminal(
        str(vault), run_id, "--choice", "公開を承認する", "--commit", candidate["commit"], "--review-sha256", sha
    )
    assert ok.exit_code == 0 and "公開を承認しました" in ok.screen
    final = p.status(run_id)
    assert final.state == State.APPROVED
    assert [r["reason_codes"] for r in final.records if r["operation"] == "O-11"] == [["DECISION_APPROVED"]]


def test_revisions_then_the_third_is_held(tmp_path: Path) -> None:
    blog = make_blog(tmp_path)
    vault = make_vault(tmp_path, blog=blog)
    p = pipeline(vault)
    run_id = to_review_ready(p, vault)
    branch = f"harness/{run_id}"
    for round_no in (1, 2):
        before = p.artifact(run_id, "draft_manifest")
        result = p.decide(
            run_id,
            "revise",
            instructions=f"B1 の説明を{round_no}回目として短く言い換えてください。",
            blocks=["B1"],
            review_packet_sha256=p.review(run_id)["review_packet_sha256"],
            actor=PERSON,
        )
        assert result["message_ja"] == "修正後に再確認します"
        task = task_of(p, "O-12")
        assert [t["block_id"] for t in task.inputs["target_blocks"]] == ["B1"]
        # a revision of a block that was not named is refused
        with pytest.raises(SubmissionRefused) as refused:
            p.submit(
                task.task_id,
                {
                    "revisions": [
                        {"block_id": "B2", "rst": "別の本文。", "packet_refs": ["N1"], "change_summary_ja": "x"}
                    ]
                },
            )
        assert {r["code"] for r in refused.value.detail["reasons"]} >= {"BLOCK_NOT_TARGETED", "TARGET_BLOCK_MISSING"}
        new_b1 = (
            f"YAML 1.2 では true と false だけが真偽値です（{round_no}回目の修正）。\n\n対象バージョンは未確認です。"
        )
        done = p.submit(
            task.task_id,
            {
                "revisions": [
                    {"block_id": "B1", "rst": new_b1, "packet_refs": ["F1", "X1"], "change_summary_ja": "短くした"}
                ]
            },
        )
        assert done["record"]["state_after"] == "REVISED" and done["record"]["summary_ja"].startswith(
            "修正しました。再検証します"
        )
        revision = p.artifact(run_id, "revision_manifest")
        after = p.artifact(run_id, "draft_manifest")
        old = {b["block_id"]: b["sha256"] for b in before["blocks"]}
        new = {b["block_id"]: b["sha256"] for b in after["blocks"]}
        assert old["B2"] == new["B2"] and old["B1"] != new["B1"]  # only the named block changed
        assert revision["revision"] == round_no
        assert revision["blocks"] == [
            {
                "block_id": "B1",
                "request": f"B1 の説明を{round_no}回目として短く言い換えてください。",
                "change_summary_ja": "短くした",
                "packet_refs": ["F1", "X1"],
                "sha256_before": old["B1"],
                "sha256_after": new["B1"],
            }
        ]
        # back through O-09, O-10 (same branch, one new commit) to O-11
        p.submit(task_of(p, "O-09").task_id, validate_output())
        p.submit(task_of(p, "O-10").task_id, review_output())
        assert p.status(run_id).state == State.REVIEW_READY
        assert _branches(blog) == sorted(["main", branch])
        assert git(blog, "rev-list", "--count", f"main..{branch}") == str(round_no + 1)
    budget = p.detail(run_id)["human_budget"]
    assert budget["final_decision"] == {"asked": 3, "limit": 3}
    # the round-3 packet no longer offers 「今回だけ修正を求める」, and choosing it is refused with the reason
    review = p.review(run_id)["review_packet"]
    assert [c["code"] for c in review["choices"]] == ["approve", "reject", "policy"]
    assert "- **今回だけ修正を求める**" not in review["markdown"] and "--choice revise" not in review["markdown"]
    assert "「今回だけ修正を求める」は選べません" in review["markdown"]
    sha = p.review(run_id)["review_packet_sha256"]
    # choosing it anyway takes the design's "limit reached → HOLD" edge: recorded, no AI revision
    held = _decide_at_terminal(
        str(vault),
        run_id,
        "--choice",
        "今回だけ修正を求める",
        "--instructions",
        "もう一度 B1 を直してください。",
        "--blocks",
        "B1",
        "--review-sha256",
        sha,
    )
    assert held.exit_code == 0, held.screen
    assert "修正回数の上限に達したため公開せず保留します" in held.screen
    final = p.status(run_id)
    assert final.state == State.HOLD and p.next_task() is None
    o11 = [r for r in final.records if r["operation"] == "O-11"][-1]
    assert (o11["result"], o11["reason_codes"], o11["producer"]) == ("HOLD", ["REVISION_LIMIT_REACHED"], "human")
    assert p.artifact(run_id, "publication_decision")["instructions"] == "もう一度 B1 を直してください。"
    assert [r["operation"] for r in final.records][-2:] == ["O-11", "O-13"]  # no third O-12


def test_terminal_paths_of_judge_and_decision(tmp_path: Path) -> None:
    blog = make_blog(tmp_path)
    vault = make_vault(tmp_path, blog=blog)
    p = pipeline(vault)
    # O-06: a FAIL → NO_CANDIDATE, nobody asked
    run_id = start_run(p, vault, "Requests/a.md")
    p.submit(task_of(p, "O-06").task_id, judge_output(novelty="FAIL"))
    st = p.status(run_id)
    assert st.state == State.NO_CANDIDATE and st.records[-2]["reason_codes"] == ["JUDGE_AXIS_FAIL"]
    assert p.detail(run_id)["human_budget"]["total_asked"] == 0
    # O-06: a PASS below 0.70 → HOLD; HIGH impact → HOLD
    run_id = start_run(p, vault, "Requests/b.md")
    p.submit(task_of(p, "O-06").task_id, judge_output(confidence=0.69))
    assert p.status(run_id).state == State.HOLD
    assert p.status(run_id).records[-2]["reason_codes"] == ["JUDGE_LOW_CONFIDENCE"]
    run_id = start_run(p, vault, "Requests/c.md")
    p.submit(task_of(p, "O-06").task_id, judge_output(impact="HIGH"))
    assert p.status(run_id).records[-2]["reason_codes"] == ["UNCERTAINTY_IMPACT_HIGH"]
    # O-10 … O-11: 「公開しない」 and 「今後の方針として検討する」 by their labels end in HOLD
    for note, label, extra, message, code in (
        (
            "Requests/d1.md",
            "公開しない",
            {"instructions": "今回は公開を見送ります。"},
            "公開しません",
            "DECISION_REJECTED",
        ),
        (
            "Requests/d2.md",
            "「今後の方針として検討する」",
            {"instructions": "AI生成記事の表記方針を決めたい。"},
            "方針判断のため保留します",
            "DECISION_POLICY",
        ),
    ):
        run_id = to_review_ready(p, vault, note)
        result = p.decide(
            run_id, label, **extra, review_packet_sha256=p.review(run_id)["review_packet_sha256"], actor=PERSON
        )
        assert result["message_ja"] == message, (label, result)
        st = p.status(run_id)
        assert st.state == State.HOLD and st.records[-1]["operation"] == "O-13"
        assert st.records[-2]["reason_codes"] == [code]
    assert "AI生成記事の表記方針を決めたい。" in (vault / ".harness" / "DECISIONS.md").read_text(encoding="utf-8")
    # input mistakes are refused with their reason; the run stays REVIEW_READY and nothing is written
    run_id = to_review_ready(p, vault, "Requests/e.md")
    commit = p.artifact(run_id, "publication_candidate")["commit"]
    sha = p.review(run_id)["review_packet_sha256"]
    before = snapshot(vault)
    mistakes = [
        ("approve", {"blocks": ["B1"], "commit": commit, "review_packet_sha256": sha}, "DECISION_CONTRADICTORY"),
        ("approve", {}, "DECISION_INCOMPLETE"),
        ("reject", {"instructions": "理由なしの判断です。"}, "DECISION_INCOMPLETE"),  # no Review Packet SHA-256
        (
            "revise",
            {"instructions": "make it shorter please", "blocks": ["B1"], "review_packet_sha256": sha},
            "DECISION_INCOMPLETE",
        ),
        ("revise", {"instructions": "直して", "review_packet_sha256": sha}, "DECISION_INCOMPLETE"),
        (
            "revise",
            {"instructions": "B9 を短くしてください。", "blocks": ["B9"], "review_packet_sha256": sha},
            "UNKNOWN_TARGET_BLOCK",
        ),
        ("reject", {"blocks": ["B1"], "review_packet_sha256": sha}, "DECISION_CONTRADICTORY"),
        ("maybe", {}, "DECISION_UNKNOWN"),
        ("公開する", {}, "DECISION_UNKNOWN"),
        ("approve", {"commit": commit[:5], "review_packet_sha256": sha}, "DECISION_COMMIT_MISMATCH"),
        (
            "approve",
            {"commit": commit, "review_packet_sha256": sha[:-1] + ("1" if sha[-1] == "0" else "0")},
            "DECISION_SHA_MISMATCH",
        ),
    ]
    for choice, extra, code in mistakes:
        with pytest.raises(DecisionRefused) as refused:
            p.decide(run_id, choice, **extra, actor=PERSON)
        assert refused.value.detail["reason"] == code, (choice, extra, refused.value.detail)
    assert p.status(run_id).state == State.REVIEW_READY and snapshot(vault) == before
    with pytest.raises(Conflict):
        p.decide(run_id, "approve", commit=commit, review_packet_sha256=sha, actor=PERSON)  # not merged yet
    # the corrected decision is accepted
    assert (
        p.decide(run_id, "reject", instructions="今回は見送ります。", review_packet_sha256=sha, actor=PERSON)[
            "message_ja"
        ]
        == "公開しません"
    )
    # three runs asked for the publication decision: required every run, never a repeated question
    decisions_md = (vault / ".harness" / "DECISIONS.md").read_text(encoding="utf-8")
    assert "publication_decision" not in decisions_md and "repeated-question" not in decisions_md


def test_no_blog_means_novelty_uncertain_and_hold(tmp_path: Path) -> None:
    vault = make_vault(tmp_path, blog=None)
    p = pipeline(vault)
    run_id = start_run(p, vault)
    task = task_of(p, "O-06")
    assert task.inputs["past_articles"] is None
    with pytest.raises(SubmissionRefused) as refused:
        p.submit(task.task_id, judge_output(novelty="PASS"))
    assert "NOVELTY_WITHOUT_PAST_ARTICLES" in {r["code"] for r in refused.value.detail["reasons"]}
    bad_ref = judge_output(novelty="UNCERTAIN")
    bad_ref["axes"]["reader_value"]["packet_refs"] = ["ZZ9"]
    with pytest.raises(SubmissionRefused) as refused:
        p.submit(task.task_id, bad_ref)
    assert refused.value.detail["reasons"][0]["code"] == "UNKNOWN_PACKET_REF"
    p.submit(task.task_id, judge_output(novelty="UNCERTAIN"))
    st = p.status(run_id)
    assert st.state == State.HOLD
    assert st.records[-2]["reason_codes"] == ["JUDGE_AXIS_UNCERTAIN", "NO_PAST_ARTICLES"]


def test_plan_and_draft_rules(tmp_path: Path) -> None:
    blog = make_blog(tmp_path)
    vault = make_vault(tmp_path, blog=blog)
    p = pipeline(vault)
    run_id = start_run(p, vault)
    p.submit(task_of(p, "O-06").task_id, judge_output())
    plan_task = task_of(p, "O-07")
    good_plan = plan_output(plan_task)

    def refused_codes(task_id: str, output: dict) -> set[str]:
        with pytest.raises(SubmissionRefused) as exc:
            p.submit(task_id, output)
        return {r["code"] for r in exc.value.detail["reasons"]}

    dup = json.loads(json.dumps(good_plan))
    dup["sections"][1]["id"] = "S1"
    assert "DUPLICATE_SECTION_ID" in refused_codes(plan_task.task_id, dup)
    missing = json.loads(json.dumps(good_plan))
    missing["uncertainty_handling"] = missing["uncertainty_handling"][1:]
    assert "UNCERTAINTY_UNHANDLED" in refused_codes(plan_task.task_id, missing)
    outside = json.loads(json.dumps(good_plan))
    outside["sections"][0]["packet_refs"] = ["F1", "NOPE"]
    outside["exclusions"][0]["reason"] = "https://example.com/new-source を参照"
    assert {"UNKNOWN_PACKET_REF", "URL_NOT_IN_PACKET"} <= refused_codes(plan_task.task_id, outside)
    two = json.loads(json.dumps(good_plan))
    two["central_message"] = "一文目です。二文目です。"
    assert "CENTRAL_MESSAGE_NOT_ONE_SENTENCE" in refused_codes(plan_task.task_id, two)
    asks = json.loads(json.dumps(good_plan))
    asks["author_question"] = {
        "essential_to_central_message": False,
        "recoverable_from_request_and_packet": True,
        "questions_ja": ["なぜ？"],
    }
    assert "AUTHOR_QUESTION_NOT_ALLOWED" in refused_codes(plan_task.task_id, asks)
    p.submit(plan_task.task_id, good_plan)
    draft_task = task_of(p, "O-08")
    assert "include" in refused_and(p, draft_task.task_id, draft_output(b1=B1 + "\n\n.. include:: ../../../secret.txt"))
    codes = refused_codes(draft_task.task_id, draft_output(b2=".. raw:: html\n\n   <script>x</script>"))
    assert codes == {"DIRECTIVE_FORBIDDEN"}
    assert refused_codes(draft_task.task_id, draft_output(b2=".. post:: 2026-03-03\n\nx")) >= {
        "POST_DIRECTIVE_FORBIDDEN"
    }
    assert refused_codes(draft_task.task_id, draft_output(b1="見出し\n======\n\n本文")) >= {"HEADING_IN_BLOCK"}
    # one submission, every refusal at once: the heading does not hide the raw and include directives
    with pytest.raises(SubmissionRefused) as all_at_once:
        p.submit(
            draft_task.task_id,
            draft_output(
                b1="見出し\n======\n\n本文\n\n.. include:: ../../../secret.txt",
                b2=".. raw:: html\n\n   <script>x</script>",
            ),
        )
    reasons = {(r["code"], r["path"]) for r in all_at_once.value.detail["reasons"]}
    assert {
        ("HEADING_IN_BLOCK", "$.blocks[0].rst"),
        ("DIRECTIVE_FORBIDDEN", "$.blocks[0].rst"),
        ("DIRECTIVE_FORBIDDEN", "$.blocks[1].rst"),
    } <= reasons
    swapped = draft_output()
    swapped["blocks"].reverse()
    assert "SECTION_ORDER" in refused_codes(draft_task.task_id, swapped)
    excluded = draft_output()
    excluded["blocks"][1]["packet_refs"] = ["N1", "U1", "CU1"]
    assert "EXCLUDED_ITEM_REFERENCED" in refused_codes(draft_task.task_id, excluded)
    unused = draft_output()
    unused["blocks"][0]["packet_refs"] = ["F1"]
    assert {"PLANNED_REF_UNUSED", "UNCERTAINTY_NOT_REFLECTED"} <= refused_codes(draft_task.task_id, unused)
    assert "AI_SCOPE_MISSING" in refused_codes(draft_task.task_id, draft_output(ai_scope_ja="下書きです。"))
    assert "UNSUPPORTED_VALUE" in refused_codes(draft_task.task_id, draft_output(target_version="v9.9"))
    assert "UNSUPPORTED_VALUE" in refused_codes(draft_task.task_id, draft_output(b2="2025-12-24 に変わった。"))
    assert p.status(run_id).state == State.PLAN_READY  # nothing was adopted
    # a trailing space: accepted by O-08, fixed once by O-09 (AUTOFIX_APPLIED), nothing else changed
    p.submit(draft_task.task_id, draft_output(b1=B1.replace("真偽値です。", "真偽値です。  ")))
    raw = p.artifact(run_id, "draft")["rst"]
    task = task_of(p, "O-09")
    fixed = task.inputs["draft_rst"]
    assert fixed == "\n".join(line.rstrip() for line in raw.split("\n"))
    assert [f["code"] for f in task.inputs["program_report"]["autofix"]] == ["TRAILING_WHITESPACE"]
    assert task.inputs["program_report"]["errors"] == []
    bad_ref = validate_output()
    bad_ref["axes"]["no_leap"]["block_refs"] = ["B9"]
    assert refused_codes(task.task_id, bad_ref) == {"UNKNOWN_BLOCK_REF"}
    p.submit(task.task_id, validate_output(confidence=0.6))
    st = p.status(run_id)
    assert st.state == State.HOLD
    assert set(st.records[-2]["reason_codes"]) == {"JUDGE_LOW_CONFIDENCE", "AUTOFIX_APPLIED"}
    assert p.artifact(run_id, "draft")["rst"] == fixed  # the fixed draft is kept


def refused_and(p, task_id: str, output: dict) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises(SubmissionRefused) as exc:
        p.submit(task_id, output)
    reasons = exc.value.detail["reasons"]
    assert [r["code"] for r in reasons] == ["DIRECTIVE_FORBIDDEN"]
    return str(reasons[0]["message"])


def test_program_errors_hold_without_asking_the_judge(tmp_path: Path) -> None:
    blog = make_blog(tmp_path)
    vault = make_vault(tmp_path, blog=blog)
    p = pipeline(vault)
    run_id = to_plan_ready(p, vault)
    leaky = (
        B1
        + "\n\n問い合わせは taro@example.jp へ。詳しくは :doc:`../../../../etc/passwd` と :doc:`missing-page` を参照。"
    )
    draft_task = task_of(p, "O-08")
    # personal data is refused at submit, before anything is stored (not only at O-09)
    with pytest.raises(SubmissionRefused) as refused:
        p.submit(draft_task.task_id, draft_output(b1=leaky))
    assert "PERSONAL_INFO_IN_OUTPUT" in {r["code"] for r in (refused.value.detail or {})["reasons"]}
    p.submit(draft_task.task_id, draft_output(b1=leaky.replace("taro@example.jp", "窓口")))
    st = p.status(run_id)
    assert st.state == State.HOLD and p.next_task() is None
    o09 = st.records[-2]
    assert o09["operation"] == "O-09" and o09["producer"] == "program"
    assert {"DRAFT_PROGRAM_ERRORS", "LOCAL_REF_OUTSIDE", "LOCAL_REF_MISSING"} <= set(o09["reason_codes"])
    report = p.artifact(run_id, "validation_report")
    assert all(e["line"] > 0 for e in report["errors"])
    assert "taro@example.jp" not in json.dumps(report, ensure_ascii=False)


def test_rest_door_review_and_decision(tmp_path: Path) -> None:
    blog = make_blog(tmp_path)
    vault = make_vault(tmp_path, blog=blog)
    p = pipeline(vault)
    run_id = to_review_ready(p, vault)
    sidecar = start_sidecar(vault)
    try:
        with sidecar.client() as client:
            choices = client.get("/v1/pipeline/decision-choices").json()["choices"]
            assert [c["label_ja"] for c in choices] == [
                "公開を承認する",
                "今回だけ修正を求める",
                "公開しない",
                "今後の方針として検討する",
            ]
            review = client.get(f"/v1/pipeline/runs/{run_id}/review").json()
            assert len(review["review_packet_sha256"]) == 64
            detail = client.get(f"/v1/pipeline/runs/{run_id}/detail").json()
            assert detail["human_budget"]["asked"][0]["kind"] == "publication_decision"
            mistake = {
                "choice": "今回だけ修正を求める",
                "instructions": "explain more",
                "blocks": ["B2"],
                "review_packet_sha256": review["review_packet_sha256"],
                "via": "plugin",
            }
            refused = client.post(f"/v1/pipeline/runs/{run_id}/decision", json=mistake)
            assert refused.status_code == 422 and refused.json()["error"]["code"] == "decision_refused"
            assert refused.json()["error"]["detail"]["reason"] == "DECISION_INCOMPLETE"
            assert client.get(f"/v1/pipeline/runs/{run_id}").json()["state"] == "REVIEW_READY"
            body = {
                "choice": "今回だけ修正を求める",
                "instructions": "B2 の結論をもう少し丁寧に説明してください。",
                "blocks": ["B2"],
                "review_packet_sha256": review["review_packet_sha256"],
                "decider": "hanako",  # a name in the body is ignored: the token says who decides
                "via": "plugin",
            }
            decided = client.post(f"/v1/pipeline/runs/{run_id}/decision", json=body)
            assert decided.status_code == 200, decided.text
            data = decided.json()
            assert data["message_ja"] == "修正後に再確認します" and data["status"]["state"] == "REVISION"
            assert data["decision"]["decider"] == f"{os_account_name()} via Obsidian"
            assert data["status"]["waiting_for"].startswith("agent:O-12 task=")
            again = client.post(f"/v1/pipeline/runs/{run_id}/decision", json=body)
            assert again.json()["record"] == data["record"]  # idempotent
            # a decision on no Review Packet of this run, once the run moved on: 409, nothing recorded
            other = client.post(
                f"/v1/pipeline/runs/{run_id}/decision",
                json={**body, "choice": "reject", "blocks": [], "review_packet_sha256": "0" * 64},
            )
            assert other.status_code == 409
            check = client.post("/v1/pipeline/check-draft", json={"rst": "題\n==\n\n.. include:: x.rst\n"})
            assert "DIRECTIVE_FORBIDDEN" in {e["code"] for e in check.json()["errors"]}
    finally:
        stop_sidecar(sidecar)
    # the person merges the reviewed candidate while the revision runs, and the revision cannot be
    # applied: the run ends in HOLD, and O-13 checks the merge fact again and says so
    merge(blog, f"harness/{run_id}")
    p.submit(task_of(p, "O-12").task_id, {"revisions": [], "cannot_apply": "新しい根拠が必要です。"})
    final = p.status(run_id)
    assert final.state == State.HOLD and final.records[-1]["operation"] == "O-13"
    assert "merge済み" in final.records[-1]["summary_ja"]
    assert p.artifact(run_id, "outcome")["metrics"]["candidate_merged"] is True


def test_author_question_once_then_plan(tmp_path: Path) -> None:
    blog = make_blog(tmp_path)
    vault = make_vault(tmp_path, blog=blog)
    p = pipeline(vault)
    run_id = to_judged(p, vault)
    task = task_of(p, "O-07")
    asking = plan_asking(task, "この記事を書こうと思った動機を一文で教えてください。")
    p.submit(task.task_id, asking)
    st = p.status(run_id)
    assert st.state == State.CANDIDATE_ACCEPTED and st.records[-1]["result"] == "HOLD"
    assert st.records[-1]["reason_codes"] == ["AUTHOR_QUESTION_ASKED"]
    assert st.waiting_for == "human:Q-01 author_motive" and p.next_task() is None
    answered = p.answer(run_id, "Q-01", "設定ミスで同期が壊れた経験を共有したい。", actor=PERSON)
    assert answered.waiting_for is not None and answered.waiting_for.startswith("agent:O-07 task=")
    task = task_of(p, "O-07")
    assert task.inputs["author_answer"] == "設定ミスで同期が壊れた経験を共有したい。"
    with pytest.raises(SubmissionRefused) as refused:
        p.submit(task.task_id, asking)  # never a second question
    assert refused.value.detail["reasons"][0]["code"] == "AUTHOR_QUESTION_NOT_ALLOWED"
    p.submit(task.task_id, plan_output(task))
    assert p.status(run_id).state == State.PLAN_READY
    budget = p.detail(run_id)["human_budget"]
    assert budget["exceptions"] == {"author_motive": 1} and budget["final_decision"]["asked"] == 0
