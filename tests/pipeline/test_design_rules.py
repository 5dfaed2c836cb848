"""Rules of the design that docs/pipeline.md's rule table names and no other test shows."""

from __future__ import annotations

from pathlib import Path

import pytest

from knowledge_harness.errors import InvalidNote
from knowledge_harness.pipeline.contract import State
from knowledge_harness.pipeline.engine import Pipeline
from knowledge_harness.vault.paths import Vault

from ..support.part2_support import (
    draft_output,
    make_blog,
    make_vault,
    pipeline,
    task_of,
    to_plan_ready,
    validate_output,
)
from ..support.pipeline_helpers import request_note, write_note


def test_a_request_without_a_question_is_refused_and_starts_no_run(tmp_path: Path) -> None:
    vault = tmp_path / "v"
    write_note(vault, "Requests/empty.md", request_note("  \n"))
    p = Pipeline(Vault.open(vault))
    with pytest.raises(InvalidNote, match="no question"):
        p.capture_note("Requests/empty.md")
    assert p.list_runs() == []


def test_a_policy_candidate_of_o09_is_proposed_and_the_current_policy_kept(tmp_path: Path) -> None:
    vault = make_vault(tmp_path, blog=make_blog(tmp_path))
    p = pipeline(vault)
    run_id = to_plan_ready(p, vault)
    p.submit(task_of(p, "O-08").task_id, draft_output())
    policy = {
        "problem": "AI生成記事の冒頭注記の書き方を全記事で統一したい。",
        "options": ["現行どおり記事ごとに書く", "定型文を方針にする"],
        "impact": "定型文にすると記事ごとの説明が減る。",
    }
    result = p.submit(task_of(p, "O-09").task_id, {**validate_output(), "policy_candidate": policy})
    assert result["record"]["state_after"] == State.VALIDATED  # the current policy is kept; nothing waits
    assert "POLICY_PROPOSAL_RECORDED" in result["record"]["reason_codes"]
    decisions = (vault / ".harness" / "DECISIONS.md").read_text(encoding="utf-8")
    assert policy["problem"] in decisions and "自動採用しない" in decisions
    assert p.status(run_id).waiting_for is not None
