"""What an operation is: one typed base (`Operation`) with a program step and an agent step, seen
by the engine, and the OpContext they read the run through."""

from __future__ import annotations

import datetime as dt
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar, Literal

from ...core.clock import utc_z
from ...vault.catalog import NoteCatalog
from ...vault.note import Note, read_note
from ...vault.paths import Vault
from ..agents import Refusal
from ..config import PipelineConfig
from ..contract import OperationRecord, Producer, Question, ReasonCode, Result, Run, State, Uncertainty
from ..fetching import EvidenceFetcher
from ..proposals import ProposalSpec


@dataclass
class QuestionSpec:
    kind: str
    question_ja: str
    question_en: str
    choices: list[str]


@dataclass
class Outcome:
    result: Result
    state_after: State
    reason_codes: list[ReasonCode]
    summary_ja: str
    input_refs: list[str] = field(default_factory=list)
    uncertainties: list[Uncertainty] = field(default_factory=list)
    artifacts: dict[str, Any] = field(default_factory=dict)  # name -> JSON value
    metrics: dict[str, Any] = field(default_factory=dict)
    producer: Producer = Producer.PROGRAM
    question: QuestionSpec | None = None
    waiting_for: str | None = None
    text_files: dict[str, str] = field(default_factory=dict)  # run-folder files, e.g. HANDOFF.md
    # (id, markdown) or a ProposalSpec: DECISIONS.md and a record a person accepts or declines
    proposals: list[tuple[str, str] | ProposalSpec] = field(default_factory=list)


@dataclass
class Wait:
    """The operation cannot start: the run waits (no record is written)."""

    waiting_for: str


@dataclass
class Prepared:
    inputs: dict[str, Any]  # what the input digest covers (and, for agent steps, the task inputs)
    payload: Any = None  # working data never stored as such (e.g. the raw note text)
    input_refs: list[str] = field(default_factory=list)


@dataclass
class OpContext:
    run: Run
    records: list[OperationRecord]
    config: PipelineConfig
    vault: Vault
    catalog: NoteCatalog
    fetcher_factory: Callable[[], EvidenceFetcher]
    artifact: Callable[[str], Any]  # latest artifact of the run by name
    artifact_sha: Callable[[str], str | None]
    all_runs: Callable[[], list[Run]]
    clock: Callable[[], dt.datetime]
    operation_names: Mapping[str, str]  # "O-01" -> "Capture Request", for what the run's records show

    def now_iso(self) -> str:
        return utc_z(self.clock())

    def request_note(self) -> Note | None:
        if self.run.request.source != "note" or not self.run.request.path:
            return None
        return read_note(self.vault, self.run.request.path)

    def answered(self, kind: str) -> Question | None:
        for question in reversed(self.run.questions):
            if question.kind == kind and question.answer is not None:
                return question
        return None


AgentKind = Literal["agent", "ai_judge"]


class Operation(ABC):
    """One pipeline operation (O-01 … O-13). The engine sees every operation through this base.

    `prepare` reads what the operation needs; a `Wait` means it cannot start yet (nothing is
    recorded). Its `Prepared.inputs` are hashed into the record's input digest. What happens next
    depends on the kind of step: a `ProgramStep` computes its outcome itself, an `AgentStep`
    publishes a task and finishes from the agent's (or AI judge's) output.

    Each operation also declares its row of the state machine; the pipeline's tables (names,
    transitions, the next operation of each state, in-place steps, judged authors) are derived
    from these declarations in `pipeline/registry.py`, and nowhere else.
    """

    operation: ClassVar[str]  # "O-01" … "O-13"
    name: ClassVar[str]  # "Capture Request"
    # state_before (None: the run does not exist yet) -> the states it may leave the run in
    transitions: ClassVar[Mapping[State | None, frozenset[State]]]
    # the states in which this is the operation that moves the run on
    next_in: ClassVar[tuple[State, ...]] = ()
    # the states in which it must have ADVANCEd (without a state change) before the state's next one
    in_place: ClassVar[tuple[State, ...]] = ()
    # an AI judge: the operations that authored what it judges
    judges: ClassVar[tuple[str, ...]] = ()

    @abstractmethod
    def prepare(self, ctx: OpContext) -> Prepared | Wait: ...


class ProgramStep(Operation):
    """An operation the program performs on its own."""

    @abstractmethod
    def run(self, ctx: OpContext, prepared: Prepared) -> Outcome: ...


class DecisionStep(ProgramStep):
    """O-11: a program step that also records the person's publication decision (engine.decide)."""

    @abstractmethod
    def prepare_decision(self, ctx: OpContext, decision: dict[str, Any]) -> Prepared:
        """The inputs of a decision as given: the decision itself, the reviewed packet and candidate."""

    @abstractmethod
    def decide(self, ctx: OpContext, prepared: Prepared, decided_at: str) -> tuple[Outcome, str]:
        """The decision checked against the facts: its outcome and the message for the person."""

    @abstractmethod
    def conflict(self, ctx: OpContext, first: dict[str, Any], second: dict[str, Any], decided_at: str) -> Outcome:
        """A second, different decision on a Review Packet already decided."""


class AgentStep(Operation):
    """An agent or AI-judge step: its identity, instructions and output schema.

    Subclasses set the class attributes and implement prepare / check / finish; `program_outcome`
    lets the program settle the step without a task (e.g. a HOLD on program errors).
    """

    kind: ClassVar[AgentKind] = "agent"
    instructions_ja: ClassVar[str]
    instructions_en: ClassVar[str]
    schema: ClassVar[dict[str, Any]]

    @property
    def producer(self) -> Producer:
        return Producer.AGENT if self.kind == "agent" else Producer.AI_JUDGE

    def output_schema(self) -> dict[str, Any]:
        return self.schema

    def program_outcome(self, ctx: OpContext, prepared: Prepared) -> Outcome | None:
        """An outcome the program decides before any task is published; None: publish the task."""
        return None

    @abstractmethod
    def check(self, inputs: dict[str, Any], output: dict[str, Any]) -> list[Refusal]:
        """The operation's program rules on an output of valid shape (refusals, empty when accepted)."""

    @abstractmethod
    def finish(self, ctx: OpContext, prepared: Prepared, output: dict[str, Any]) -> Outcome: ...


def moves(table: Mapping[State | None, Iterable[State]]) -> Mapping[State | None, frozenset[State]]:
    """An operation's transitions as declared (state_before -> states_after), frozen."""
    return MappingProxyType({before: frozenset(after) for before, after in table.items()})


def truthy(value: Any) -> bool | None:
    """A frontmatter yes/no: True, False, or None when absent or unclear."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        low = value.strip().lower()
        if low in ("true", "yes", "はい"):
            return True
        if low in ("false", "no", "いいえ"):
            return False
    return None
