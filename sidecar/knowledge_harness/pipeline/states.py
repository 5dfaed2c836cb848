"""The pipeline's state machine (docs/design/pipeline.md): which operation may move a run from which state to which.

The table is data so that part 2 (O-06 … O-12) only fills in its rows. A record whose
state_after equals state_before is a wait (HOLD with a question, RETRYABLE_ERROR) or a
program step that adds an artifact without a state change (O-01 re-capture, O-05 packet,
O-13 on a terminal state). See docs/design/pipeline.md, "The transition table".
"""

from __future__ import annotations

from ..errors import IllegalTransition
from .contract import Result, State

S = State

TERMINAL: frozenset[State] = frozenset({S.REJECTED, S.NO_CANDIDATE, S.HOLD, S.APPROVED})

# operation -> {state_before (None: the run does not exist yet) -> allowed states_after}
TRANSITIONS: dict[str, dict[State | None, frozenset[State]]] = {
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
    # a second, conflicting decision arrives while the first one's revision is under way → HOLD
    "O-11": {
        S.REVIEW_READY: frozenset({S.APPROVED, S.REVISION, S.HOLD}),
        S.REVISION: frozenset({S.HOLD}),
        S.REVISED: frozenset({S.HOLD}),
        S.VALIDATED: frozenset({S.HOLD}),
    },
    "O-12": {S.REVISION: frozenset({S.REVISED, S.DRAFT_READY, S.HOLD})},
    "O-13": {t: frozenset({t}) for t in TERMINAL},
}


def require_can_start(operation: str, state: State | None) -> None:
    """Refuse to run an operation from a state the machine does not allow."""
    table = TRANSITIONS.get(operation)
    if table is None:
        raise IllegalTransition(f"Unknown operation {operation}.")
    if state not in table:
        wanted = ", ".join(str(s) for s in table if s is not None) or "a new run"
        raise IllegalTransition(
            f"{operation} cannot run on a run in state {state}; it needs {wanted}.",
            detail={"operation": operation, "state": str(state) if state else None},
        )


def check_transition(operation: str, before: State | None, after: State, result: Result) -> None:
    """Refuse a transition that is not in the table or a result that contradicts the new state."""
    require_can_start(operation, before)
    if after not in TRANSITIONS[operation][before]:
        raise IllegalTransition(
            f"{operation} may not move a run from {before} to {after}.",
            detail={"operation": operation, "state_before": before, "state_after": after},
        )
    if operation == "O-13":
        return
    if after == before or (before is None and after == S.CAPTURED):
        # a wait or an in-place step: never a terminal result
        if result not in (Result.HOLD, Result.RETRYABLE_ERROR, Result.ADVANCE):
            raise IllegalTransition(f"{operation}: result {result} needs a state change.")
        return
    expected = {
        S.REJECTED: Result.REJECTED,
        S.NO_CANDIDATE: Result.NO_CANDIDATE,
        S.HOLD: Result.HOLD,
    }.get(after, Result.ADVANCE)
    if result != expected:
        raise IllegalTransition(f"{operation}: state {after} needs result {expected}, not {result}.")
