"""The pipeline engine: runs operations, enforces the state machine, stores records and artifacts.

One service for every door (CLI, REST, MCP). Idempotency: an operation's inputs are hashed
(`input_digest`); when a stored record has the same digest and left the run where it is, the
stored record stands and nothing is written. Changed inputs make a new attempt in the history.
RETRYABLE_ERROR records are retried by the next `advance`.

An operation plugs in by declaring its row (pipeline/ops/base.py `Operation`) and one line in
pipeline/registry.py; NEXT_BY_STATE, IN_PLACE, JUDGED_AUTHORS and the transition table are derived there.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import secrets
import shlex
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..actors import Actor
from ..core.clock import utc_z
from ..core.jsonutil import canonical_json
from ..errors import Conflict, IllegalTransition, InputError, NotFound, PersonRequired, SubmissionRefused
from ..vault.catalog import NoteCatalog
from ..vault.note import read_note
from ..vault.paths import Vault, require_note_path
from ..vault.run_store import RunStore
from .agents import AgentTask, Failed, Pending, Produced, Refusal, Unavailable, backend_for, validate_output
from .config import PipelineConfig, load_config
from .contract import (
    DECISION_CHOICES,
    HUMAN_BUDGET,
    OperationRecord,
    Publishability,
    Question,
    ReasonCode,
    RequestRef,
    Result,
    Run,
    RunLabel,
    RunStatus,
    RunSummary,
    State,
    TaskEntry,
    Uncertainty,
    choice_code,
    human_budget,
)
from .fetching import EvidenceFetcher, default_fetcher
from .ops.base import (
    AgentStep,
    DecisionStep,
    OpContext,
    Operation,
    Outcome,
    Prepared,
    ProgramStep,
    QuestionSpec,
    Wait,
    truthy,
)
from .ops.o01_capture import api_request_artifact
from .ops.o11_decide import check_form, same_decision
from .proposals import ProposalBook
from .registry import IN_PLACE, JUDGED_AUTHORS, NEXT_BY_STATE, OPERATION_REGISTRY, OPERATIONS
from .safety import mask_sensitive, read_private
from .search import is_request_note
from .states import TERMINAL, check_transition, require_can_start

# how many operations one call may run before it returns: far more than the thirteen operations
# and their revision loops need, so it only stops a run that would otherwise cycle
MAX_STEPS = 40
log = logging.getLogger(__name__)


class Pipeline:
    def __init__(
        self,
        vault: Vault,
        catalog: NoteCatalog | None = None,
        *,
        fetcher_factory: Callable[[], EvidenceFetcher] | None = None,
        clock: Callable[[], dt.datetime] | None = None,
        operations: dict[str, Operation] | None = None,
    ) -> None:
        self.vault = vault
        self.catalog = catalog or NoteCatalog(vault)
        self.store = RunStore(vault)
        self.fetcher_factory = fetcher_factory or (lambda: default_fetcher(vault.root))
        self.clock = clock or (lambda: dt.datetime.now(dt.UTC))
        self.operations = operations if operations is not None else OPERATION_REGISTRY

    # -- loading -------------------------------------------------------------------------------
    @property
    def config(self) -> PipelineConfig:
        return load_config(self.vault.harness_dir)

    def _now(self) -> str:
        return utc_z(self.clock())

    def _load(self, run_id: str) -> tuple[Run, list[OperationRecord]]:
        run = Run.model_validate(self.store.read_head(run_id))
        records = [OperationRecord.model_validate(r) for r in self.store.read_records(run_id)]
        return run, records

    def _all_runs(self) -> list[Run]:
        return [Run.model_validate(self.store.read_head(rid)) for rid in self.store.run_ids()]

    def _save(self, run: Run) -> None:
        self.store.write_head(run.run_id, run.model_dump(mode="json"))

    def _ctx(self, run: Run, records: list[OperationRecord]) -> OpContext:
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
            all_runs=self._all_runs,
            clock=self.clock,
            operation_names=OPERATIONS,
        )

    # -- the state machine -----------------------------------------------------------------------
    def next_operation(self, run: Run, records: list[OperationRecord]) -> str | None:
        state = run.state
        if state is None:
            return "O-01"
        if state in TERMINAL:
            done = any(r.operation == "O-13" and r.state_before == state for r in records)
            return None if done else "O-13"
        entering = 0
        for i, record in enumerate(records):
            if record.state_after == state and record.state_before != state:
                entering = i
        for op in IN_PLACE.get(state, []):
            attempts = [r for r in records[entering:] if r.operation == op]
            if not attempts or attempts[-1].result != Result.ADVANCE:
                return op
        return NEXT_BY_STATE.get(state)

    @staticmethod
    def _digest(operation: str, prepared: Prepared) -> str:
        return hashlib.sha256(canonical_json({"operation": operation, "inputs": prepared.inputs})).hexdigest()

    @staticmethod
    def _stored(
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

    def _apply(
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
        now = self._now()
        record_artifacts: dict[str, str] = {}
        for name, value in outcome.artifacts.items():
            sha, _ = self.store.put_artifact(run.run_id, value)
            record_artifacts[name] = sha
            run.artifacts[name] = sha
        waiting = outcome.waiting_for
        if outcome.question is not None:
            waiting = _ask(run, operation, outcome.question, now)
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
        self._save(run)
        return record

    def _set_waiting(self, run: Run, waiting: str | None) -> None:
        if run.waiting_for != waiting:
            run.waiting_for = waiting
            self._save(run)

    def _step(self, run: Run, records: list[OperationRecord]) -> bool:
        """Run the next operation once; True when the run moved and may move again."""
        operation = self.next_operation(run, records)
        if operation is None:
            self._set_waiting(run, None)
            return False
        op = self.operations.get(operation)
        if op is None:
            self._set_waiting(run, f"unavailable:{operation} {OPERATIONS.get(operation, '')}".rstrip())
            return False
        ctx = self._ctx(run, records)
        prepared = op.prepare(ctx)
        if isinstance(prepared, Wait):
            self._set_waiting(run, prepared.waiting_for)
            return False
        digest = self._digest(operation, prepared)
        stored = self._stored(records, operation, digest, run.state)
        if stored is not None:
            self._set_waiting(run, stored.waiting_for)
            return False
        log.info("%s %s: %s started", run.run_id, operation, OPERATIONS.get(operation, ""))
        started = time.monotonic()
        if isinstance(op, AgentStep):
            outcome = op.program_outcome(ctx, prepared)
            if outcome is None:  # the step needs its agent or AI judge
                log.info("%s %s: waits for its %s", run.run_id, operation, op.kind.replace("_", " "))
                return self._agent_step(run, records, op, ctx, prepared, digest)
        else:
            outcome = _program_step(op).run(ctx, prepared)
        record = self._apply(run, records, operation, prepared, outcome, digest)
        log.info(
            "%s %s: %s → %s in %.1f s",
            run.run_id,
            operation,
            record.result.value,
            record.state_after.value,
            time.monotonic() - started,
        )
        return record.waiting_for is None and record.result != Result.RETRYABLE_ERROR

    def _run_steps(self, run: Run, records: list[OperationRecord], max_steps: int = MAX_STEPS) -> None:
        """Step the run until it waits, ends, or `max_steps` operations ran."""
        for _ in range(max_steps):
            if not self._step(run, records):
                break

    # -- agent steps -------------------------------------------------------------------------------
    def _task(self, run: Run, op: AgentStep, prepared: Prepared, digest: str, published_at: str) -> AgentTask:
        task_id = "T-" + hashlib.sha256(f"{run.run_id}|{op.operation}|{digest}".encode()).hexdigest()[:16]
        return AgentTask(
            task_id=task_id,
            run_id=run.run_id,
            operation=op.operation,
            operation_name=OPERATIONS.get(op.operation, ""),
            kind=op.kind,
            inputs=prepared.inputs,
            output_schema=op.output_schema(),
            instructions_ja=op.instructions_ja,
            instructions_en=op.instructions_en,
            published_at=published_at,
            submit={
                "mcp": "harness_submit_result",
                "rest": f"POST /v1/pipeline/tasks/{task_id}/submit",
                "cli": f"kh pipeline task submit {shlex.quote(str(self.vault.root))} {task_id} --file OUT.json",
            },
        )

    def _agent_step(
        self,
        run: Run,
        records: list[OperationRecord],
        op: AgentStep,
        ctx: OpContext,
        prepared: Prepared,
        digest: str,
    ) -> bool:
        backend = backend_for(ctx.config, op.operation)
        existing = next(
            (t for t in run.tasks.values() if t.input_digest == digest and t.operation == op.operation), None
        )
        task = self._task(run, op, prepared, digest, existing.published_at if existing else self._now())
        answer = backend.perform(task)
        if isinstance(answer, Pending):
            if existing is None:
                sha, _ = self.store.put_artifact(run.run_id, task.model_dump(mode="json"))
                run.tasks[task.task_id] = TaskEntry(
                    task_id=task.task_id,
                    operation=op.operation,
                    kind=op.kind,
                    input_digest=digest,
                    document_sha256=sha,
                    status="open",
                    published_at=task.published_at,
                )
                self.store.append_history(
                    run.run_id,
                    {
                        "event": "task_published",
                        "at": task.published_at,
                        "task_id": task.task_id,
                        "operation": op.operation,
                    },
                )
                run.waiting_for = None  # force a head write below
            self._set_waiting(run, f"agent:{op.operation} task={task.task_id}")
            return False
        if isinstance(answer, Unavailable):
            self._set_waiting(run, f"agent_backend:{op.operation} ({answer.reason})")
            return False
        state = run.state
        assert state is not None
        if isinstance(answer, Failed):
            outcome = Outcome(
                Result.RETRYABLE_ERROR,
                state,
                [ReasonCode.AGENT_BACKEND_ERROR],
                f"エージェントのバックエンドが失敗しました（{answer.message}）。再実行で再試行します。",
                producer=op.producer,
            )
            self._apply(run, records, op.operation, prepared, outcome, digest)
            return False
        assert isinstance(answer, Produced)
        refusals = validate_output(op, prepared.inputs, answer.output, **_screening_words(ctx.config))
        if refusals:
            outcome = Outcome(
                Result.RETRYABLE_ERROR,
                state,
                [ReasonCode.AGENT_OUTPUT_INVALID],
                f"エージェントの出力が契約を満たさないため採用しません（{len(refusals)}件）。再実行で再試行します。",
                uncertainties=[
                    Uncertainty(item=f"{r.code} {r.path}: {r.message}", impact="出力を採用しない")
                    for r in refusals[:10]
                ],
                producer=op.producer,
            )
            self._apply(run, records, op.operation, prepared, outcome, digest)
            return False
        outcome = op.finish(ctx, prepared, answer.output)
        outcome.input_refs.append(f"backend:openai_compat:{answer.model}")
        acted_by = Actor(
            scope="agent",
            name=f"agent:openai_compat:{answer.model}",
            via="program",
            client=f"openai_compat:{answer.model}",
        ).model_dump(mode="json")
        outcome = self._check_judge_independence(records, op.operation, acted_by, outcome)
        record = self._apply(run, records, op.operation, prepared, outcome, digest, acted_by=acted_by)
        return record.waiting_for is None

    # -- public service ---------------------------------------------------------------------------
    def status(self, run_id: str) -> RunStatus:
        run, records = self._load(run_id)
        assert run.state is not None
        return RunStatus(
            run_id=run.run_id,
            state=run.state,
            waiting_for=run.waiting_for,
            records=[r.contract_view() for r in records],
        )

    def detail(self, run_id: str) -> dict[str, Any]:
        """The status plus questions, tasks, artifacts and the label (REST/MCP detail view)."""
        run, records = self._load(run_id)
        return {
            **self.status(run_id).model_dump(mode="json"),
            "request": run.request.model_dump(mode="json"),
            "label": run.label.model_dump(mode="json") if run.label else None,
            "questions": [q.model_dump(mode="json") for q in run.questions],
            "human_questions_asked": len(run.questions),
            "human_budget": human_budget(run),
            "tasks": [t.model_dump(mode="json") for t in run.tasks.values()],
            "artifacts": dict(sorted(run.artifacts.items())),
            "metrics": {r.operation: r.metrics for r in records if r.metrics},
            # who really acted for each agent / AI-judge record (client name and version, token kind)
            "acted_by": [
                {"seq": r.seq, "operation": r.operation, "acted_by": r.acted_by} for r in records if r.acted_by
            ],
        }

    def list_runs(self) -> list[RunSummary]:
        out = []
        for run in self._all_runs():
            assert run.state is not None
            out.append(
                RunSummary(
                    run_id=run.run_id,
                    state=run.state,
                    waiting_for=run.waiting_for,
                    title=run.request.title,
                    source=run.request.source,
                    path=run.request.path,
                    created_at=run.created_at,
                    updated_at=run.updated_at,
                )
            )
        return sorted(out, key=lambda s: (s.created_at, s.run_id))

    def artifact(self, run_id: str, name: str) -> Any:
        run, _ = self._load(run_id)
        sha = run.artifacts.get(name)
        if sha is None:
            raise NotFound(f"Run {run_id} has no artifact {name}.")
        return self.store.get_artifact(run_id, sha)

    def _new_run(self, request: RequestRef) -> Run:
        now = self.clock()
        run_id = f"{now.astimezone(dt.UTC):%Y%m%d-%H%M%S}-{secrets.token_hex(3)}"
        return Run(run_id=run_id, state=None, created_at=utc_z(now), updated_at=utc_z(now), request=request)

    def _capture(self, run: Run, records: list[OperationRecord]) -> OperationRecord:
        op = _program_step(self.operations["O-01"])
        ctx = self._ctx(run, records)
        prepared = op.prepare(ctx)
        assert not isinstance(prepared, Wait)
        digest = self._digest("O-01", prepared)
        stored = self._stored(records, "O-01", digest, None)
        if stored is not None:
            return stored
        outcome = op.run(ctx, prepared)
        return self._apply(run, records, "O-01", prepared, outcome, digest)

    def capture_note(self, path: str, *, actor: Actor | None = None) -> RunStatus:
        """O-01 from a request note. The same note while its run is CAPTURED: same run (idempotent).

        Publishability is the person's: the note's `publishable` is taken at the note's first capture
        (whoever captures it — the record and the authorize prompt name them); a value written or
        changed after that answers nothing unless the person captures the note again. An agent (or a
        script) capturing a note whose `publishable` changed while the run waits is refused."""
        rel = require_note_path(path)
        note = read_note(self.vault, rel)
        if not is_request_note(note):
            raise InputError(f"{note.path} is not a request note (frontmatter `harness: request`).")
        stated = truthy(note.properties.get("publishable"))
        with self.store.lock():
            latest: Run | None = None
            for run in self._all_runs():
                if run.request.source == "note" and run.request.path == note.path:
                    latest = run
            if latest is not None:
                run, records = self._load(latest.run_id)
                captured_sha = next((r for r in reversed(records) if r.operation == "O-01"), None)
                note_changed = captured_sha is not None and not any(
                    note.sha256 in ref for ref in captured_sha.input_refs
                )
                if run.state == State.CAPTURED:
                    self._recaptured_publishability(run, stated, actor)
                    self._capture(run, records)
                    self._step_waiting(run, records)
                    return self.status(run.run_id)
                if not (run.state in TERMINAL and note_changed):
                    return self.status(run.run_id)
            run = self._new_run(RequestRef(source="note", path=note.path, title=mask_sensitive(note.title)[0]))
            before = latest.publishability if latest is not None else None
            if stated is not None and (
                (actor is not None and actor.is_person) or before is None or before.publishable == stated
            ):
                run.publishability = self._publishability(stated, "note_at_capture", actor)
            self.store.run_dir(run.run_id).mkdir(parents=True, exist_ok=False)
            records = []
            self._capture(run, records)
            self._step_waiting(run, records)
            return self.status(run.run_id)

    def _publishability(self, publishable: bool, how: str, actor: Actor | None) -> Publishability:
        if how == "note_at_capture":
            return Publishability(
                publishable=publishable,
                how=how,
                by=actor.name if actor is not None and actor.is_person else "request note",
                via=actor.via if actor is not None else "program",
                captured_by=actor.name if actor is not None else "program",
                at=self._now(),
            )
        assert actor is not None and actor.is_person
        return Publishability(publishable=publishable, how=how, by=actor.name, via=actor.via, at=self._now())

    def _recaptured_publishability(self, run: Run, stated: bool | None, actor: Actor | None) -> None:
        """A CAPTURED run's note captured again: a changed `publishable` is the person's answer only
        when the person captures it; anyone else is refused and the run keeps waiting for the person."""
        current = run.publishability.publishable if run.publishability else None
        if stated is None or stated == current:
            return
        if actor is None or not actor.is_person:
            open_q = next((q for q in run.questions if q.kind == "publishability" and q.answer is None), None)
            where = (
                f"answer {open_q.question_id} (`kh pipeline answer VAULT {run.run_id} {open_q.question_id}` at a "
                "terminal, or the plugin)"
                if open_q
                else "capture the note again yourself (the plugin, or `kh pipeline capture` at a terminal)"
            )
            raise PersonRequired(
                f"The request note's `publishable` changed after capture; publishability is the person's "
                f"answer, not {actor.name if actor else 'a script'}'s. Nothing was changed; the run still waits "
                f"for the person: {where}.",
                detail={"reason": ReasonCode.PUBLISHABILITY_PERSON_ONLY.value},
            )
        run.publishability = self._publishability(stated, "note_recaptured", actor)
        for q in run.questions:
            if q.kind == "publishability" and q.answer is None:
                answer = "publishable" if stated else "not_publishable"
                self._record_answer(run, q, answer, actor, at=run.publishability.at, how="note_recaptured")
        self._save(run)

    def _record_answer(self, run: Run, question: Question, answer: str, actor: Actor, *, at: str, **event: Any) -> None:
        """The question answered by the person, and the history's answer event (with `event`'s extras)."""
        question.answer, question.answered_at, question.answered_by = answer, at, actor.name
        question.answered_via = actor.via
        self.store.append_history(
            run.run_id,
            {
                "event": "answer",
                "at": at,
                "question_id": question.question_id,
                "answer": answer,
                "by": actor.name,
                "via": actor.via,
                **event,
            },
        )

    def capture_text(
        self, question: str, *, title: str = "", publishable: bool | None = None, actor: Actor | None = None
    ) -> RunStatus:
        """O-01 from an API request (`POST /v1/pipeline/runs`); only masked text is stored.
        `publishable` is the person's answer: an agent's call that sets it is refused."""
        if publishable is not None and actor is not None and not actor.is_person:
            raise PersonRequired(
                f"Only the person answers publishability; {actor.name} may capture the question without "
                "`publishable` and the run asks the person.",
                detail={"reason": ReasonCode.PUBLISHABILITY_PERSON_ONLY.value},
            )
        artifact = api_request_artifact(title or question.strip().splitlines()[0][:80], question)
        with self.store.lock():
            run = self._new_run(RequestRef(source="api", title=artifact["title"]))
            if publishable is not None:
                run.publishability = Publishability(
                    publishable=publishable,
                    how="api_at_capture",
                    by=actor.name if actor is not None else "program",
                    via=actor.via if actor is not None else "program",
                    at=self._now(),
                )
            self.store.run_dir(run.run_id).mkdir(parents=True, exist_ok=False)
            sha, _ = self.store.put_artifact(run.run_id, artifact)
            run.artifacts["api_request"] = sha
            records: list[OperationRecord] = []
            self._capture(run, records)
            self._step_waiting(run, records)
            return self.status(run.run_id)

    def _step_waiting(self, run: Run, records: list[OperationRecord]) -> None:
        """After capture: name what the run waits for (authorization) without running O-02."""
        if run.state == State.CAPTURED and self.next_operation(run, records) == "O-02":
            op = self.operations["O-02"]
            prepared = op.prepare(self._ctx(run, records))
            self._set_waiting(run, prepared.waiting_for if isinstance(prepared, Wait) else "advance")
        elif run.state in TERMINAL:
            self._set_waiting(run, "advance")

    def authorization_request(self, run_id: str) -> dict[str, Any]:
        """What the person sees before authorizing: the request's title, an excerpt of its (masked)
        question, the publishability answer and who gave it."""
        run, _ = self._load(run_id)
        request = self.store.get_artifact(run_id, run.artifacts["request"]) if "request" in run.artifacts else {}
        question = str(request.get("question_masked") or "")
        excerpt = " ".join(question.split())
        given = run.publishability
        open_q = next((q.question_id for q in run.questions if q.kind == "publishability" and q.answer is None), None)
        return {
            "run_id": run_id,
            "state": run.state,
            "title": str(request.get("title") or run.request.title),
            "excerpt": excerpt[:280] + ("…" if len(excerpt) > 280 else ""),
            "source": run.request.path if run.request.source == "note" else "api",
            "publishable": given.publishable if given else None,
            "publishability": given.model_dump(mode="json") if given else None,
            "publishability_ja": given.describe_ja() if given else f"未回答（{open_q or 'Q-01'}）",
            "publishability_en": given.describe_en() if given else f"not answered ({open_q or 'Q-01'})",
        }

    def authorize(self, run_id: str, *, actor: Actor) -> RunStatus:
        """O-02: the person's run label. Re-authorizing returns the stored record."""
        _require_person(actor, "authorize a run")
        by, via = actor.name, actor.via
        with self.store.lock():
            run, records = self._load(run_id)
            if any(r.operation == "O-02" for r in records):
                return self.status(run_id)
            require_can_start("O-02", run.state)
            if run.label is None:
                run.label = RunLabel(by=by, via=via, at=self._now())
                self.store.append_history(run_id, {"event": "label", "at": run.label.at, "by": by, "via": via})
                self._save(run)
            if self.next_operation(run, records) == "O-02":
                self._step(run, records)
            return self.status(run_id)

    def advance(self, run_id: str, *, max_steps: int = MAX_STEPS) -> RunStatus:
        """Run operations until the run waits (authorization, an agent, a person, a retry) or ends."""
        with self.store.lock():
            run, records = self._load(run_id)
            self._run_steps(run, records, max_steps)
            return self.status(run_id)

    def run_operation(self, run_id: str, operation: str) -> OperationRecord:
        """Re-run one operation: unchanged inputs return the stored record; else the state machine decides."""
        with self.store.lock():
            run, records = self._load(run_id)
            op = self.operations.get(operation)
            if op is None:
                raise IllegalTransition(f"Operation {operation} is not available.")
            ctx = self._ctx(run, records)
            try:
                prepared = op.prepare(ctx)
            except Conflict:
                require_can_start(operation, run.state)
                raise
            if not isinstance(prepared, Wait):
                stored = self._stored(records, operation, self._digest(operation, prepared), None)
                if stored is not None:
                    return stored
            require_can_start(operation, run.state)
            if self.next_operation(run, records) != operation:
                raise IllegalTransition(f"{operation} is not the next operation of run {run_id} (state {run.state}).")
            if isinstance(prepared, Wait):
                raise Conflict(f"{operation} cannot start: the run waits for {prepared.waiting_for}.")
            self._step(run, records)
            return records[-1]

    def answer(self, run_id: str, question_id: str, answer: str, *, actor: Actor) -> RunStatus:
        """The person's answer to a question; the run then advances."""
        _require_person(actor, "answer a run's question")
        by = actor.name
        with self.store.lock():
            run, _ = self._load(run_id)
            question = next((q for q in run.questions if q.question_id == question_id), None)
            if question is None:
                raise NotFound(f"Run {run_id} has no question {question_id}.")
            if question.answer is not None:
                if question.answer == answer:
                    return self.status(run_id)
                raise Conflict(f"Question {question_id} was already answered ({question.answer}).")
            if question.kind == "publication_decision":
                raise InputError("Publication decisions go through `kh pipeline decide` or POST …/decision.")
            if question.choices and answer not in question.choices:
                raise InputError(f"Answer one of: {', '.join(question.choices)}.")
            findings: list[dict[str, Any]] = []
            if not question.choices:
                # screened like a request: a private marker is refused (nothing stored, the question stays
                # open); secrets, personal and company information are masked before anything is stored
                screening = self.config.screening
                # an answer cannot be asked about again: a marker word that would ask is refused too
                reading = read_private(answer, None, screening.private_markers, screening.technical_sense_markers)
                markers = reading.private + reading.ask
                if markers:
                    raise InputError(
                        f"The answer contains a private marker or clearly private content ({', '.join(markers)}): "
                        "nothing was stored and "
                        f"{question_id} is still open. Answer without private content."
                    )
                answer, found = mask_sensitive(answer.strip())
                findings = [f.public() for f in found]
                if not answer or len(answer) > 4000:
                    raise InputError("Answer with a non-empty text of at most 4000 characters.")
            at = self._now()
            if question.kind == "publishability":
                run.publishability = Publishability(
                    publishable=answer == "publishable", how="answer", by=by, via=actor.via, at=at
                )
            self._record_answer(run, question, answer, actor, at=at, **({"masked": findings} if findings else {}))
            self._save(run)
        return self.advance(run_id)

    # -- O-11: the person's publication decision --------------------------------------------------
    def review(self, run_id: str) -> dict[str, Any]:
        """The Review Packet of a run (markdown, SHA-256, candidate, choices) for the person."""
        run, _ = self._load(run_id)
        if "review_packet" not in run.artifacts:
            raise NotFound(f"Run {run_id} has no review packet yet (state {run.state}).")
        review = self.store.get_artifact(run_id, run.artifacts["review_packet"])
        return {
            "run_id": run_id,
            "state": run.state,
            "waiting_for": run.waiting_for,
            "review_packet_sha256": review["sha256"],
            "review_packet": review,
        }

    def article_html_path(self, run_id: str) -> Path:
        """The Review Packet's HTML file of the article (in the run folder), once its bytes are checked
        against the SHA-256 the packet recorded (`kh pipeline review --html` hands the path to a browser)."""
        return self._checked_article_html(run_id)[0]

    def article_html(self, run_id: str) -> str:
        """The Review Packet's HTML file of the article, read from the run folder: only the bytes whose
        SHA-256 the packet recorded (a file changed since, by hand or by another program, is refused)."""
        return self._checked_article_html(run_id)[1]

    def _checked_article_html(self, run_id: str) -> tuple[Path, str]:
        review = self.review(run_id)["review_packet"]
        name = review.get("article_html_file")
        if not name:
            raise NotFound(f"Run {run_id}'s Review Packet has no article HTML (made before this version).")
        sha = review.get("article_html_sha256")
        path, expected = self.store.run_dir(run_id) / str(name), str(sha) if sha else None
        try:
            data = self.store.read_bytes(run_id, path.name)
        except OSError as exc:
            raise NotFound(f"Run {run_id}'s article HTML cannot be read.") from exc
        actual = hashlib.sha256(data).hexdigest()
        if expected is None or actual != expected:
            raise Conflict(
                f"Run {run_id}'s article HTML ({path.name}) is not the one its Review Packet recorded "
                f"(SHA-256 {actual[:12]}…, recorded {expected[:12] + '…' if expected else 'none'}): it changed after "
                "the packet was made, so it is not shown. Read the Review Packet itself, or prepare the review again.",
                detail={"run_id": run_id, "file": path.name, "sha256": actual, "recorded_sha256": expected},
            )
        return path, data.decode("utf-8")

    def decide(
        self,
        run_id: str,
        choice: str,
        *,
        instructions: str | None = None,
        blocks: list[str] | None = None,
        commit: str | None = None,
        review_packet_sha256: str | None = None,
        actor: Actor,
        comment_ref: str | None = None,
        policy_options: list[str] | None = None,
        pr_url: str | None = None,
    ) -> dict[str, Any]:
        """O-11: record the person's structured decision (idempotent), then let the run move on.

        `choice` is a code (`revise`) or its Japanese label (今回だけ修正を求める). A decision that cannot
        be accepted as given is refused (`DecisionRefused`, with the reason): nothing is written and the
        run stays where it was. A second, different decision on a Review Packet that was already
        decided holds the run (both kept) while it has not ended; after the end it is refused (409)."""
        _require_person(actor, "make a publication decision")
        decider, via = actor.name, actor.via
        choice = choice_code(choice) or (choice or "").strip()[:100]
        decision: dict[str, Any] = {
            "choice": choice,
            "instructions": mask_sensitive(instructions.strip())[0] if instructions else None,
            "blocks": [b.strip() for b in blocks or [] if b.strip()],
            "commit": commit.strip().lower() if commit else None,
            "review_packet_sha256": review_packet_sha256.strip().lower() if review_packet_sha256 else None,
            "decider": decider,
            "via": via,
            "comment_ref": comment_ref,
            "policy_options": policy_options or None,
            "pr_url": pr_url.strip() if pr_url and pr_url.strip() else None,
        }
        with self.store.lock():
            run, records = self._load(run_id)
            op = self._decision_step()
            earlier = self._decisions_on(run, records, decision["review_packet_sha256"])
            for record, stored_decision in earlier:
                if same_decision(stored_decision, decision):
                    return self._decision_view(run_id, record, stored_decision)
            if earlier:
                return self._conflicting_decision(run, records, op, earlier[-1][1], decision)
            if run.state != State.REVIEW_READY:
                raise IllegalTransition(
                    f"Run {run_id} is in state {run.state}, not waiting for a publication decision; a decision "
                    "names the Review Packet it was made on (review_packet_sha256).",
                    detail={"operation": "O-11", "state": str(run.state)},
                )
            ctx = self._ctx(run, records)
            prepared = op.prepare_decision(ctx, decision)
            digest = self._digest("O-11", prepared)
            stored = self._stored(records, "O-11", digest, None)
            if stored is not None:
                return self._decision_view(run_id, stored, self._stored_decision(run, stored))
            outcome, _message = op.decide(ctx, prepared, self._now())
            question = next(
                (q for q in reversed(run.questions) if q.kind == "publication_decision" and q.answer is None), None
            )
            if question is not None:
                question.answer = choice if choice in DECISION_CHOICES else f"unknown:{choice}"[:100]
                question.answered_at, question.answered_by = self._now(), decider
            record = self._apply(run, records, "O-11", prepared, outcome, digest)
            self.store.append_history(
                run_id, {"event": "decision", "at": record.created_at, "choice": choice, "by": decider, "via": via}
            )
            self._run_steps(run, records)
            return self._decision_view(run_id, record, self._stored_decision(run, record))

    def _decision_step(self) -> DecisionStep:
        op = self.operations["O-11"]
        if not isinstance(op, DecisionStep):
            raise TypeError(f"O-11 is a {type(op).__name__}, not a decision step.")
        return op

    def _decisions_on(
        self, run: Run, records: list[OperationRecord], review_sha: str | None
    ) -> list[tuple[OperationRecord, dict[str, Any]]]:
        """The recorded decisions made on the Review Packet with this SHA-256, oldest first."""
        found: list[tuple[OperationRecord, dict[str, Any]]] = []
        if not review_sha:
            return found
        for record in records:
            if record.operation != "O-11":
                continue
            stored = self._stored_decision(run, record)
            if stored is not None and stored.get("review_packet_sha256") == review_sha:
                found.append((record, stored))
        return found

    def _conflicting_decision(
        self,
        run: Run,
        records: list[OperationRecord],
        op: DecisionStep,
        first: dict[str, Any],
        decision: dict[str, Any],
    ) -> dict[str, Any]:
        """A second, different decision on an already decided Review Packet: HOLD with both recorded."""
        ctx = self._ctx(run, records)
        check_form(ctx, decision)
        now = self._now()
        event = {"event": "conflicting_decision", "at": now, "choice": decision["choice"], "by": decision["decider"]}
        if run.state is None or run.state in TERMINAL:
            self.store.append_history(run.run_id, {**event, "recorded": False})
            raise Conflict(
                f"Run {run.run_id} already ended in {run.state} after the decision "
                f"{first.get('choice')!r} by {first.get('decider')}; the different decision "
                f"{decision['choice']!r} was logged in history.jsonl but changes nothing.",
                detail={"reason": ReasonCode.DECISION_CONFLICT.value, "state": str(run.state)},
            )
        prepared = Prepared(
            inputs={"conflict": {"first": first, "second": decision}},
            input_refs=[f"human:{decision['decider']} via {decision['via']}"],
        )
        outcome = op.conflict(ctx, first, decision, now)
        for task in run.tasks.values():
            if task.status == "open":
                task.status = "stale"  # the held run's pending agent work is void
        record = self._apply(run, records, "O-11", prepared, outcome, self._digest("O-11", prepared))
        self.store.append_history(run.run_id, {**event, "recorded": True})
        self._run_steps(run, records)
        return self._decision_view(run.run_id, record, self._stored_decision(run, record))

    def _stored_decision(self, run: Run, record: OperationRecord) -> dict[str, Any] | None:
        sha = record.artifacts.get("publication_decision")
        if sha is None:
            return None
        data: dict[str, Any] = self.store.get_artifact(run.run_id, sha)
        return data

    def _decision_view(self, run_id: str, record: OperationRecord, decision: dict[str, Any] | None) -> dict[str, Any]:
        return {
            "message_ja": (decision or {}).get("message_ja", record.summary_ja),
            "decision": decision,
            "record": record.contract_view(),
            "status": self.status(run_id).model_dump(mode="json"),
        }

    # -- the external agent door ------------------------------------------------------------------
    def next_task(self, *, operation: str | None = None, run_id: str | None = None) -> AgentTask | None:
        """The oldest open task of any run, or of one run (optionally of one operation)."""
        open_tasks: list[tuple[str, str, TaskEntry]] = []
        runs = [self._load(run_id)[0]] if run_id is not None else self._all_runs()
        for run in runs:
            for entry in run.tasks.values():
                if entry.status == "open" and (operation is None or entry.operation == operation):
                    open_tasks.append((entry.published_at, run.run_id, entry))
        if not open_tasks:
            return None
        _, run_id, entry = sorted(open_tasks, key=lambda t: (t[0], t[1]))[0]
        return AgentTask.model_validate(self.store.get_artifact(run_id, entry.document_sha256))

    def get_task(self, task_id: str) -> AgentTask:
        run, entry = self._find_task(task_id)
        return AgentTask.model_validate(self.store.get_artifact(run.run_id, entry.document_sha256))

    def _find_task(self, task_id: str) -> tuple[Run, TaskEntry]:
        for run in self._all_runs():
            if task_id in run.tasks:
                return run, run.tasks[task_id]
        raise NotFound(f"No task {task_id}.")

    def submit(self, task_id: str, output: Any, *, actor: Actor | None = None) -> dict[str, Any]:
        """Validate an external agent's output and complete its operation; refused with reasons otherwise.

        `actor` is who really submitted (the door's agent actor: the MCP client's declared name and
        version, the token kind); every record the submission makes names it."""
        acted_by = (actor or Actor(scope="agent", name="agent", via="program")).model_dump(mode="json")
        with self.store.lock():
            found, _ = self._find_task(task_id)
            run, records = self._load(found.run_id)
            entry = run.tasks[task_id]
            submission_sha = hashlib.sha256(canonical_json(output)).hexdigest()
            if entry.status == "done":
                if entry.submission_sha256 == submission_sha and entry.record_seq is not None:
                    record = records[entry.record_seq - 1]
                    return {
                        "accepted": True,
                        "record": record.contract_view(),
                        "status": self.status(run.run_id).model_dump(mode="json"),
                    }
                raise Conflict(f"Task {task_id} is already completed with another output.")
            if entry.status != "open":
                raise Conflict(f"Task {task_id} is {entry.status}.")
            op = self.operations[entry.operation]
            if not isinstance(op, AgentStep):
                raise Conflict(f"Task {task_id} names {entry.operation}, which is not an agent operation.")
            ctx = self._ctx(run, records)
            prepared = op.prepare(ctx) if self.next_operation(run, records) == entry.operation else Wait("stale")
            if isinstance(prepared, Wait) or self._digest(entry.operation, prepared) != entry.input_digest:
                entry.status = "stale"
                self._save(run)
                raise Conflict(f"Task {task_id} is stale: the run moved on or its inputs changed.")
            refusals = validate_output(op, prepared.inputs, output, **_screening_words(ctx.config))
            refusals += self._independence_refusals(records, entry.operation, acted_by)
            if refusals:
                entry.refused_submissions += 1
                self.store.append_history(
                    run.run_id,
                    {
                        "event": "submission_refused",
                        "at": self._now(),
                        "task_id": task_id,
                        "reasons": sorted({r.code for r in refusals}),
                    },
                )
                self._save(run)
                raise SubmissionRefused(
                    f"The output for task {task_id} was refused for {len(refusals)} reason(s), all listed in the detail: "
                    + "; ".join(f"{r.code} at {r.path}" for r in refusals[:8])
                    + ("; …" if len(refusals) > 8 else "")
                    + ".",
                    detail={"reasons": [r.as_dict() for r in refusals]},
                )
            sub_name = f"{entry.operation}_submission"
            outcome = op.finish(ctx, prepared, output)
            outcome.artifacts[sub_name] = output
            outcome.input_refs.append(f"task:{task_id}")
            outcome = self._check_judge_independence(records, entry.operation, acted_by, outcome)
            record = self._apply(
                run, records, entry.operation, prepared, outcome, entry.input_digest, task_id=task_id, acted_by=acted_by
            )
            entry = run.tasks[task_id]
            entry.status = "done"
            entry.submission_sha256 = submission_sha
            entry.record_seq = record.seq
            self._save(run)
            self._run_steps(run, records)
            return {
                "accepted": True,
                "record": record.contract_view(),
                "status": self.status(run.run_id).model_dump(mode="json"),
            }

    def _check_judge_independence(
        self, records: list[OperationRecord], operation: str, acted_by: dict[str, Any], outcome: Outcome
    ) -> Outcome:
        """An AI judge that is the client which authored what it judges is not an independent judge:
        the record says so (reason code and uncertainty, which reach the review packet and the person);
        with `[agents] independent_judge = "required"` it never gets here (`_independence_refusals`)."""
        author = _same_client_author(records, operation, acted_by)
        if author is None:
            return outcome
        client = acted_by["client"]
        outcome.reason_codes.append(ReasonCode.JUDGE_SAME_CLIENT_AS_AUTHOR)
        outcome.uncertainties.append(
            Uncertainty(
                item=f"{operation}の判定者と{author.operation}の作成者が同じクライアント（{client}）です。独立した判定ではありません。",
                impact="判定の独立性が確認できない。最終公開判断で人間が考慮する",
                code=ReasonCode.JUDGE_SAME_CLIENT_AS_AUTHOR.value,
            )
        )
        return outcome

    def _independence_refusals(
        self, records: list[OperationRecord], operation: str, acted_by: dict[str, Any]
    ) -> list[Refusal]:
        """With `[agents] independent_judge = "required"`, a judgment by the client that authored what
        it judges is refused at submit: nothing is recorded and the task stays open for another client
        (a HOLD would end a run that only waits for a different judge)."""
        if self.config.agents.independent_judge != "required":
            return []
        author = _same_client_author(records, operation, acted_by)
        if author is None:
            return []
        client = acted_by["client"]
        return [
            Refusal(
                ReasonCode.JUDGE_SAME_CLIENT_AS_AUTHOR,
                "$",
                f'[agents] independent_judge = "required": {client} wrote {author.operation}, so it cannot judge it '
                f"in {operation}. The task stays open: connect a different client (another agent or model) and let it "
                "take this task (harness_next_task with this run_id).",
            )
        ]


def _same_client_author(
    records: list[OperationRecord], operation: str, acted_by: dict[str, Any]
) -> OperationRecord | None:
    """The record of what `operation` judges (its latest accepted author step) when the client
    judging now is the client that wrote it; None when the judge is another client or unnamed."""
    authors = JUDGED_AUTHORS.get(operation)
    client = acted_by.get("client")
    if not authors or not client:
        return None
    author = next((r for r in reversed(records) if r.operation in authors and r.result == Result.ADVANCE), None)
    if author is None or not author.acted_by or author.acted_by.get("client") != client:
        return None
    return author


def _ask(run: Run, operation: str, spec: QuestionSpec, now: str) -> str:
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


def _program_step(op: Operation) -> ProgramStep:
    if not isinstance(op, ProgramStep):
        raise TypeError(f"{op.operation} is a {type(op).__name__}, not a program step.")
    return op


def _screening_words(config: PipelineConfig) -> dict[str, list[str]]:
    return {
        "private_words": config.screening.private_markers,
        "technical_words": config.screening.technical_sense_markers,
    }


def _require_person(actor: Actor, action: str) -> None:
    """The person's actions are refused to agents at the service, whatever door they came through."""
    if not actor.is_person:
        raise PersonRequired(f"Only a person may {action}; {actor.name} acts up to that point.")
