"""The operation tables the engine and the state machine read are the ones the pipeline has always had.

The literals below were copied from contract.py, states.py and engine.py before those tables
became derived from the operations' own declarations; they are the truth the derivation must
reproduce, row for row.
"""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from knowledge_harness.pipeline import engine, registry, states
from knowledge_harness.pipeline.contract import State
from knowledge_harness.pipeline.ops.o03_screen import ScreenSafety
from knowledge_harness.vault.paths import Vault

S = State
TERMINAL = frozenset({S.REJECTED, S.NO_CANDIDATE, S.HOLD, S.APPROVED})

NAMES = {
    "O-01": "Capture Request",
    "O-02": "Authorize Run",
    "O-03": "Screen Safety",
    "O-04": "Collect Evidence",
    "O-05": "Build Evidence Packet",
    "O-06": "Judge Candidate",
    "O-07": "Plan Article",
    "O-08": "Draft Article",
    "O-09": "Validate Draft",
    "O-10": "Prepare Review",
    "O-11": "Decide Publication",
    "O-12": "Apply Feedback",
    "O-13": "Record Outcome",
}

TRANSITIONS = {
    "O-01": {None: frozenset({S.CAPTURED, S.REJECTED}), S.CAPTURED: frozenset({S.CAPTURED, S.REJECTED})},
    "O-02": {S.CAPTURED: frozenset({S.AUTHORIZED})},
    "O-03": {S.AUTHORIZED: frozenset({S.SCREENED, S.REJECTED, S.AUTHORIZED})},
    "O-04": {S.SCREENED: frozenset({S.EVIDENCE_READY, S.HOLD, S.SCREENED})},
    "O-05": {S.EVIDENCE_READY: frozenset({S.EVIDENCE_READY, S.NO_CANDIDATE})},
    "O-06": {S.EVIDENCE_READY: frozenset({S.CANDIDATE_ACCEPTED, S.NO_CANDIDATE, S.HOLD})},
    "O-07": {S.CANDIDATE_ACCEPTED: frozenset({S.PLAN_READY, S.HOLD, S.CANDIDATE_ACCEPTED})},
    "O-08": {S.PLAN_READY: frozenset({S.DRAFT_READY, S.HOLD})},
    "O-09": {S.DRAFT_READY: frozenset({S.VALIDATED, S.HOLD}), S.REVISED: frozenset({S.VALIDATED, S.HOLD})},
    "O-10": {S.VALIDATED: frozenset({S.REVIEW_READY, S.HOLD})},
    "O-11": {
        S.REVIEW_READY: frozenset({S.APPROVED, S.REVISION, S.HOLD}),
        S.REVISION: frozenset({S.HOLD}),
        S.REVISED: frozenset({S.HOLD}),
        S.VALIDATED: frozenset({S.HOLD}),
    },
    "O-12": {S.REVISION: frozenset({S.REVISED, S.DRAFT_READY, S.HOLD})},
    "O-13": {t: frozenset({t}) for t in TERMINAL},
}

NEXT_BY_STATE = {
    S.CAPTURED: "O-02",
    S.AUTHORIZED: "O-03",
    S.SCREENED: "O-04",
    S.EVIDENCE_READY: "O-06",
    S.CANDIDATE_ACCEPTED: "O-07",
    S.PLAN_READY: "O-08",
    S.DRAFT_READY: "O-09",
    S.REVISED: "O-09",
    S.VALIDATED: "O-10",
    S.REVIEW_READY: "O-11",
    S.REVISION: "O-12",
}

IN_PLACE = {S.CAPTURED: ["O-01"], S.EVIDENCE_READY: ["O-05"]}

JUDGED_AUTHORS = {"O-06": ("O-05",), "O-09": ("O-08", "O-12")}


def test_the_transition_table_is_the_one_the_pipeline_always_had() -> None:
    assert states.TRANSITIONS == TRANSITIONS
    assert list(states.TRANSITIONS) == list(NAMES)
    assert states.TERMINAL == TERMINAL


def test_the_next_operation_of_each_state_and_the_in_place_steps_are_unchanged() -> None:
    assert engine.NEXT_BY_STATE == NEXT_BY_STATE
    assert engine.IN_PLACE == IN_PLACE


def test_each_ai_judge_knows_the_operations_whose_output_it_judges() -> None:
    assert engine.JUDGED_AUTHORS == JUDGED_AUTHORS


def test_every_operation_is_registered_once_under_its_number_and_name() -> None:
    assert {op: type(impl).__name__ for op, impl in engine.OPERATION_REGISTRY.items()} == {
        "O-01": "CaptureRequest",
        "O-02": "AuthorizeRun",
        "O-03": "ScreenSafety",
        "O-04": "CollectEvidence",
        "O-05": "BuildEvidencePacket",
        "O-06": "JudgeCandidate",
        "O-07": "PlanArticle",
        "O-08": "DraftArticle",
        "O-09": "ValidateDraft",
        "O-10": "PrepareReview",
        "O-11": "DecidePublication",
        "O-12": "ApplyFeedback",
        "O-13": "RecordOutcome",
    }
    assert registry.OPERATIONS == NAMES
    assert list(registry.OPERATIONS) == list(NAMES)
    assert all(impl.operation == op for op, impl in engine.OPERATION_REGISTRY.items())


class _SecondScreen(ScreenSafety):
    """A second operation that claims to move a run out of AUTHORIZED, as O-03 does."""

    operation = "O-14"
    name = "Screen Again"


class _StuckInPlace(ScreenSafety):
    operation = "O-15"
    name = "Stuck"
    next_in = ()
    in_place = (State.SCREENED,)  # O-03 has no transition from SCREENED


def test_a_registry_that_contradicts_itself_is_refused_with_the_operations_named() -> None:
    with pytest.raises(ValueError, match=r"O-03 and O-14 .* AUTHORIZED"):
        registry.next_by_state((*registry.OPERATION_LIST, _SecondScreen()))
    with pytest.raises(ValueError, match=r"O-03 is registered twice"):
        registry.by_number((*registry.OPERATION_LIST, ScreenSafety()))
    with pytest.raises(ValueError, match=r"O-15 must advance in place in SCREENED"):
        registry.in_place_steps((_StuckInPlace(),))


# Pipeline's public methods as they were before the engine was split (inspect.signature at 71551b7)
FACADE = {
    "status": "(run_id: 'str') -> 'RunStatus'",
    "detail": "(run_id: 'str') -> 'dict[str, Any]'",
    "list_runs": "() -> 'list[RunSummary]'",
    "artifact": "(run_id: 'str', name: 'str') -> 'Any'",
    "capture_note": "(path: 'str', *, actor: 'Actor | None' = None) -> 'RunStatus'",
    "capture_text": "(question: 'str', *, title: 'str' = '', publishable: 'bool | None' = None, actor: 'Actor | None' = None) -> 'RunStatus'",
    "authorization_request": "(run_id: 'str') -> 'dict[str, Any]'",
    "authorize": "(run_id: 'str', *, actor: 'Actor') -> 'RunStatus'",
    "advance": "(run_id: 'str', *, max_steps: 'int' = 40) -> 'RunStatus'",
    "run_operation": "(run_id: 'str', operation: 'str') -> 'OperationRecord'",
    "answer": "(run_id: 'str', question_id: 'str', answer: 'str', *, actor: 'Actor') -> 'RunStatus'",
    "review": "(run_id: 'str') -> 'dict[str, Any]'",
    "article_html_path": "(run_id: 'str') -> 'Path'",
    "article_html": "(run_id: 'str') -> 'str'",
    "decide": "(run_id: 'str', choice: 'str', *, instructions: 'str | None' = None, blocks: 'list[str] | None' = None, commit: 'str | None' = None, review_packet_sha256: 'str | None' = None, actor: 'Actor', comment_ref: 'str | None' = None, policy_options: 'list[str] | None' = None, pr_url: 'str | None' = None) -> 'dict[str, Any]'",
    "next_task": "(*, operation: 'str | None' = None, run_id: 'str | None' = None) -> 'AgentTask | None'",
    "get_task": "(task_id: 'str') -> 'AgentTask'",
    "submit": "(task_id: 'str', output: 'Any', *, actor: 'Actor | None' = None) -> 'dict[str, Any]'",
    "next_operation": "(run: 'Run', records: 'list[OperationRecord]') -> 'str | None'",
}


def test_the_pipeline_facade_offers_every_door_the_methods_it_had(tmp_path: Path) -> None:
    (tmp_path / ".obsidian").mkdir()
    pipeline = engine.Pipeline(Vault.open(tmp_path))
    assert {name: str(inspect.signature(getattr(pipeline, name))) for name in FACADE} == FACADE
