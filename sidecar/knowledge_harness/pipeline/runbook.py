"""The run book: a pipeline run's stored head, records and artifacts, and the one way a record is
written (`apply`: the state machine checked, artifacts stored, the question asked, the history
appended). Every part of the engine (the step loop, the agent task door, the decisions, the
run reads) works on runs through it.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..actors import Actor
from ..core.clock import utc_z
from ..core.jsonutil import canonical_json
from ..errors import Conflict, PersonRequired
from ..vault.catalog import NoteCatalog
from ..vault.paths import Vault
from .config import PipelineConfig, load_config
from .contract import HUMAN_BUDGET, OperationRecord, Question, ReasonCode, Result, Run, State
from .fetching import EvidenceFetcher
from .ops.base import OpContext, Operation, Outcome, Prepared, QuestionSpec
from .proposals import ProposalBook
from .registry import OPERATIONS
from .run_store import RunStore
from .states import check_transition


@dataclass
class RunBook:
    """The runs of one vault and what every operation is given (the facade fills in the defaults)."""

    vault: Vault
    catalog: NoteCatalog
    fetcher_factory: Callable[[], EvidenceFetcher]
    clock: Callable[[], dt.datetime]
    operations: Mapping[str, Operation]
    store: RunStore = field(init=False)

    def __post_init__(self) -> None:
        self.store = RunStore(self.vault)

    @property
    def config(self) -> PipelineConfig:
        return load_config(self.vault.harness_dir)

    def now(self) -> str:
        return utc_z(self.clock())

    def load(self, run_id: str) -> tuple[Run, list[OperationRecord]]:
        run = Run.model_validate(self.store.read_head(run_id))
        records = [OperationRecord.model_validate(r) for r in self.store.read_records(run_id)]
        return run, records

    def all_runs(self) -> list[Run]:
        return [Run.model_validate(self.store.read_head(rid)) for rid in self.store.run_ids()]

    def save(self, run: Run) -> None:
        self.store.write_head(run.run_id, run.model_dump(mode="json"))

    def ctx(self, run: Run, records: list[OperationRecord]) -> OpContext:
        config = self.config

        def artifact(name: str) -> Any:
            sha = run.artifacts.get(name)
            if sha is None:
                raise Conflict(f"Run {run.run_id} has no {name} artifact yet.")
            return self.store.get_artifact(run.run_id, sha)

        return OpContext(
            run=run,
            records=records,
            config=config,
            vault=self.vault,
            catalog=self.catalog,
            fetcher_factory=self.fetcher_factory,
            artifact=artifact,
            artifact_sha=lambda name: run.artifacts.get(name),
            all_runs=self.all_runs,
            clock=self.clock,
            operation_names=OPERATIONS,
        )

    @staticmethod
    def digest(operation: str, prepared: Prepared) -> str:
        return hashlib.sha256(canonical_json({"operation": operation, "inputs": prepared.inputs})).hexdigest()

    @staticmethod
    def stored(
        records: list[OperationRecord], operation: str, digest: str, state: State | None
    ) -> OperationRecord | None:
        for record in reversed(records):
            if (
                record.operation == operation
                and record.input_digest == digest
                and record.result != Result.RETRYABLE_ERROR
                and (state is None or record.state_after == state)
            ):
                return record
        return None

    def apply(
        self,
        run: Run,
        records: list[OperationRecord],
        operation: str,
        prepared: Prepared,
        outcome: Outcome,
        digest: str,
        *,
        task_id: str | None = None,
        acted_by: dict[str, Any] | None = None,
    ) -> OperationRecord:
        before = run.state
        check_transition(operation, before, outcome.state_after, outcome.result)
        now = self.now()
        record_artifacts: dict[str, str] = {}
        for name, value in outcome.artifacts.items():
            sha, _ = self.store.put_artifact(run.run_id, value)
            record_artifacts[name] = sha
            run.artifacts[name] = sha
        waiting = outcome.waiting_for
        if outcome.question is not None:
            waiting = ask(run, operation, outcome.question, now)
        elif outcome.result == Result.RETRYABLE_ERROR:
            waiting = f"retry:{operation}"
        record = OperationRecord(
            operation=operation,
            run_id=run.run_id,
            input_refs=[*prepared.input_refs, *outcome.input_refs],
            state_before=before,
            state_after=outcome.state_after,
            result=outcome.result,
            reason_codes=outcome.reason_codes,
            summary_ja=outcome.summary_ja,
            uncertainties=outcome.uncertainties,
            created_at=now,
            producer=outcome.producer,
            seq=len(records) + 1,
            attempt=1 + sum(1 for r in records if r.operation == operation),
            input_digest=digest,
            artifacts=record_artifacts,
            metrics=outcome.metrics,
            task_id=task_id,
            waiting_for=waiting,
            acted_by=acted_by,
        )
        name = self.store.write_record(run.run_id, record.seq, operation, record.model_dump(mode="json"))
        records.append(record)
        run.records.append(name)
        run.state = outcome.state_after
        run.waiting_for = waiting
        run.updated_at = now
        for file_name, text in outcome.text_files.items():
            self.store.write_text(run.run_id, file_name, text)
        for proposal in outcome.proposals:
            ProposalBook(self.vault, self.store).record(run.run_id, proposal, now)
        self.store.append_history(
            run.run_id,
            {
                "event": "record",
                "at": now,
                "seq": record.seq,
                "operation": operation,
                "result": record.result,
                "state_before": before,
                "state_after": record.state_after,
            },
        )
        self.save(run)
        return record

    def set_waiting(self, run: Run, waiting: str | None) -> None:
        if run.waiting_for != waiting:
            run.waiting_for = waiting
            self.save(run)


def ask(run: Run, operation: str, spec: QuestionSpec, now: str) -> str:
    """Put the question to the person once (an open question of the same kind is asked again as it
    is), within the human-decision budget; returns what the run waits for."""
    open_same = next((q for q in run.questions if q.kind == spec.kind and q.answer is None), None)
    asked = sum(1 for q in run.questions if q.kind == spec.kind)
    if open_same is None and asked >= HUMAN_BUDGET.get(spec.kind, 1):
        raise Conflict(
            f"The human-decision budget allows {HUMAN_BUDGET.get(spec.kind, 1)} question(s) of kind "
            f"{spec.kind!r} per run; it was already asked {asked} time(s).",
            detail={"reason": ReasonCode.HUMAN_BUDGET_EXCEEDED.value},
        )
    if open_same is None:
        open_same = Question(
            question_id=f"Q-{len(run.questions) + 1:02d}",
            operation=operation,
            kind=spec.kind,
            question_ja=spec.question_ja,
            question_en=spec.question_en,
            choices=spec.choices,
            asked_at=now,
        )
        run.questions.append(open_same)
    return f"human:{open_same.question_id} {spec.kind}"


def require_person(actor: Actor, action: str) -> None:
    """The person's actions are refused to agents at the service, whatever door they came through."""
    if not actor.is_person:
        raise PersonRequired(f"Only a person may {action}; {actor.name} acts up to that point.")
