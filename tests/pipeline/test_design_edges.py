"""The design's edges and smaller points: a question to the author that asks a fact, O-10's commit
codes, an English PR description, a policy decision's options from the CLI, and `check-draft --posts`
with a folder that is not there."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from knowledge_harness.errors import SubmissionRefused
from knowledge_harness.pipeline.contract import State
from knowledge_harness.pipeline.ops.o07_plan import asks_a_fact
from knowledge_harness.pipeline.proposals import ProposalBook
from knowledge_harness.vault.paths import Vault

from ..conftest import KH
from ..support.part2_support import (
    GOOD,
    draft_output,
    make_blog,
    make_vault,
    pipeline,
    plan_asking,
    review_output,
    task_of,
    to_judged,
    to_plan_ready,
    to_review_ready,
    validate_output,
)
from ..support.terminal import run_at_terminal


@pytest.mark.parametrize(
    ("question", "fact"),
    [
        ("Obsidianの最新バージョンは何ですか？", True),
        ("YAML 1.2 の既定値はどれですか？", True),
        ("What is the latest release of Obsidian?", True),
        ("この記事を書こうと思った動機を一文で教えてください。", False),
        ("誰に向けて書きたいですか。最新バージョンの読者を想定していますか？", False),
        ("記事で一番強調したい点は何ですか？", False),
    ],
)
def test_a_question_to_the_author_that_asks_a_fact_is_told_apart(question: str, fact: bool) -> None:
    assert asks_a_fact(question) is fact


def test_o07_refuses_a_fact_question_to_the_author(tmp_path: Path) -> None:
    vault = make_vault(tmp_path, blog=make_blog(tmp_path))
    p = pipeline(vault)
    run_id = to_judged(p, vault)
    task = task_of(p, "O-07")
    asking = plan_asking(task, "Obsidianの最新バージョンは何ですか？")
    with pytest.raises(SubmissionRefused) as refused:
        p.submit(task.task_id, asking)
    reason = refused.value.detail["reasons"][0]
    assert reason["code"] == "AUTHOR_QUESTION_ASKS_FACT" and reason["path"] == "$.author_question.questions_ja[0]"
    assert p.status(run_id).state == State.CANDIDATE_ACCEPTED and p.detail(run_id)["questions"] == []


def test_o10_names_one_commit_code_and_refuses_an_english_pr_description(tmp_path: Path) -> None:
    vault = make_vault(tmp_path, blog=make_blog(tmp_path))
    p = pipeline(vault)
    run_id = to_plan_ready(p, vault)
    p.submit(task_of(p, "O-08").task_id, draft_output())
    p.submit(task_of(p, "O-09").task_id, validate_output())
    task = task_of(p, "O-10")
    english = review_output() | {
        "pr_description_ja": "Central message: use true/false. Evidence: the vault note. No answer means no publication."
    }
    with pytest.raises(SubmissionRefused) as refused:
        p.submit(task.task_id, english)
    assert [r["code"] for r in refused.value.detail["reasons"]] == ["PR_DESCRIPTION_NOT_JAPANESE"]
    p.submit(task.task_id, review_output())
    o10 = next(r for r in p.status(run_id).records if r["operation"] == "O-10")
    assert o10["reason_codes"] == ["REVIEW_PREPARED", "BLOG_BRANCH_CREATED", "BLOG_COMMIT_CREATED"]


def test_a_policy_decision_takes_its_options_from_the_cli(tmp_path: Path) -> None:
    vault = make_vault(tmp_path, blog=make_blog(tmp_path))
    p = pipeline(vault)
    run_id = to_review_ready(p, vault)
    sha = p.review(run_id)["review_packet_sha256"]
    decided = run_at_terminal(
        [
            str(KH), "pipeline", "decide", str(vault), run_id, "--choice", "今後の方針として検討する",
            "--instructions", "AI が書いた記事の表示方法を決めたい。", "--option", "記事冒頭に毎回明記する",
            "--option", "フッターだけに明記する", "--review-sha256", sha,
        ],
        ["yes"],
        env=dict(os.environ),
    )  # fmt: skip
    assert decided.exit_code == 0, decided.screen
    assert p.status(run_id).state == State.HOLD
    proposals = ProposalBook(Vault.open(vault)).list()
    assert [pr.options for pr in proposals if run_id in pr.source_runs] == [
        ["記事冒頭に毎回明記する", "フッターだけに明記する"]
    ]


def test_check_draft_refuses_a_posts_folder_that_is_not_there(tmp_path: Path) -> None:
    draft = tmp_path / "draft.rst"
    draft.write_text(GOOD, encoding="utf-8")
    missing = subprocess.run(
        [str(KH), "pipeline", "check-draft", str(draft), "--posts", str(tmp_path / "nope"), "--json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert missing.returncode == 2 and "--posts" in missing.stderr and "not a folder" in missing.stderr
