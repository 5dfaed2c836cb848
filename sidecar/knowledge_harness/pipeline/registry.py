"""The pipeline's operations, one row each: adding an operation is one module in `ops/` and one
line in `OPERATION_LIST`.

Every table the engine and the state machine read is derived here from the operations' own
declarations (`Operation.name`, `.transitions`, `.next_in`, `.in_place`, `.judges`), so an
operation's facts live in its own class and nowhere else.
"""

from __future__ import annotations

from .contract import State
from .ops.base import Operation
from .ops.o01_capture import CaptureRequest
from .ops.o02_authorize import AuthorizeRun
from .ops.o03_screen import ScreenSafety
from .ops.o04_evidence import CollectEvidence
from .ops.o05_packet import BuildEvidencePacket
from .ops.o06_judge import JudgeCandidate
from .ops.o07_plan import PlanArticle
from .ops.o08_draft import DraftArticle
from .ops.o09_validate import ValidateDraft
from .ops.o10_review import PrepareReview
from .ops.o11_decide import DecidePublication
from .ops.o12_feedback import ApplyFeedback
from .ops.o13_record import RecordOutcome

OPERATION_LIST: tuple[Operation, ...] = (
    CaptureRequest(),
    AuthorizeRun(),
    ScreenSafety(),
    CollectEvidence(),
    BuildEvidencePacket(),
    JudgeCandidate(),
    PlanArticle(),
    DraftArticle(),
    ValidateDraft(),
    PrepareReview(),
    DecidePublication(),
    ApplyFeedback(),
    RecordOutcome(),
)


def by_number(operations: tuple[Operation, ...]) -> dict[str, Operation]:
    found: dict[str, Operation] = {}
    for op in operations:
        if op.operation in found:
            raise ValueError(
                f"{op.operation} is registered twice ({type(found[op.operation]).__name__}, {type(op).__name__})."
            )
        found[op.operation] = op
    return found


def next_by_state(operations: tuple[Operation, ...]) -> dict[State, str]:
    found: dict[State, str] = {}
    for op in operations:
        for state in op.next_in:
            if state in found:
                raise ValueError(f"Both {found[state]} and {op.operation} claim to move a run out of {state}.")
            if state not in op.transitions:
                raise ValueError(f"{op.operation} is the next operation in {state} but has no transition from it.")
            found[state] = op.operation
    return found


def in_place_steps(operations: tuple[Operation, ...]) -> dict[State, list[str]]:
    found: dict[State, list[str]] = {}
    for op in operations:
        for state in op.in_place:
            if state not in op.transitions.get(state, frozenset()):
                raise ValueError(f"{op.operation} must advance in place in {state} but may not stay there.")
            found.setdefault(state, []).append(op.operation)
    return found


OPERATION_REGISTRY: dict[str, Operation] = by_number(OPERATION_LIST)
# operation -> its name ("O-01" -> "Capture Request")
OPERATIONS: dict[str, str] = {op.operation: op.name for op in OPERATION_LIST}
# operation -> {state_before (None: the run does not exist yet) -> allowed states_after}
TRANSITIONS: dict[str, dict[State | None, frozenset[State]]] = {
    op.operation: dict(op.transitions) for op in OPERATION_LIST
}
# the operation that moves a run out of each state
NEXT_BY_STATE: dict[State, str] = next_by_state(OPERATION_LIST)
# operations that must have ADVANCEd in a state (without changing it) before the state's next one
IN_PLACE: dict[State, list[str]] = in_place_steps(OPERATION_LIST)
# an AI judge's operation → the operations that authored what it judges
JUDGED_AUTHORS: dict[str, tuple[str, ...]] = {op.operation: op.judges for op in OPERATION_LIST if op.judges}
