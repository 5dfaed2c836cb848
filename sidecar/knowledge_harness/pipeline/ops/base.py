"""What an operation is: a program step or an agent step, seen by the engine through OpContext."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

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


class ProgramOperation(Protocol):
    operation: str

    def prepare(self, ctx: OpContext) -> Prepared | Wait: ...

    def run(self, ctx: OpContext, prepared: Prepared) -> Outcome: ...


class AgentOperation(Protocol):
    operation: str
    kind: str
    instructions_ja: str
    instructions_en: str

    def prepare(self, ctx: OpContext) -> Prepared | Wait: ...

    def output_schema(self) -> dict[str, Any]: ...

    def check(self, inputs: dict[str, Any], output: dict[str, Any]) -> list[Refusal]: ...

    def finish(self, ctx: OpContext, prepared: Prepared, output: dict[str, Any]) -> Outcome: ...


class AgentStep:
    """The fixed part of an agent or AI-judge step: its identity, instructions and output schema.

    Subclasses set the class attributes and implement prepare / check / finish.
    """

    operation: str
    kind: str = "agent"
    instructions_ja: str
    instructions_en: str
    schema: dict[str, Any]

    def output_schema(self) -> dict[str, Any]:
        return self.schema


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
