"""The pipeline's state machine (docs/design/pipeline.md): which operation may move a run from which state to which.

The table is data, derived from each operation's own `transitions` (pipeline/registry.py). A record whose
state_after equals state_before is a wait (HOLD with a question, RETRYABLE_ERROR) or a
program step that adds an artifact without a state change (O-01 re-capture, O-05 packet,
O-13 on a terminal state). See docs/design/pipeline.md, "The transition table".
"""

from __future__ import annotations

from ..errors import IllegalTransition
from .contract import TERMINAL, Result, State
from .registry import TRANSITIONS

__all__ = ["TERMINAL", "TRANSITIONS", "check_transition", "require_can_start"]

S = State


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
