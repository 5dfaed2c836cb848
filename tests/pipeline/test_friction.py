"""Friction (issue 18, item 5): DECISIONS.md proposes only questions that could have been avoided."""

from __future__ import annotations

from pathlib import Path

from knowledge_harness.pipeline.contract import State
from knowledge_harness.pipeline.engine import Pipeline
from knowledge_harness.vault.paths import Vault

from ..support.people import PERSON
from ..support.pipeline_helpers import request_note, write_note


def test_an_avoidable_question_asked_in_three_runs_is_proposed_once_per_count(tmp_path: Path) -> None:
    vault = tmp_path / "v"
    (vault / ".harness").mkdir(parents=True)
    p = Pipeline(Vault.open(vault))
    decisions = vault / ".harness" / "DECISIONS.md"
    for n in range(3):
        write_note(vault, f"Requests/r{n}.md", request_note(f"質問その{n}について知りたい。", publishable=None))
        run_id = p.capture_note(f"Requests/r{n}.md").run_id
        assert p.status(run_id).waiting_for == "human:Q-01 publishability"
        assert p.answer(run_id, "Q-01", "not_publishable", actor=PERSON).state == State.REJECTED
        assert decisions.exists() == (n == 2)
    text = decisions.read_text(encoding="utf-8")
    assert text.count("繰り返される人間への質問「publishability」（3実行）") == 1
