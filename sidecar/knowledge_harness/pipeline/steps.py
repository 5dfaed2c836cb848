"""The step loop: which operation comes next, running it once (a program step, or an agent step
through its backend), and stepping a run until it waits or ends."""

from __future__ import annotations

import hashlib
import logging
import shlex
import time

from ..actors import Actor
from ..errors import Conflict, IllegalTransition
from .agents import AgentTask, Failed, Pending, Produced, Unavailable, backend_for, validate_output
from .config import PipelineConfig
from .contract import OperationRecord, ReasonCode, Result, Run, RunStatus, TaskEntry, Uncertainty
from .independence import judge_independence
from .ops.base import AgentStep, OpContext, Operation, Outcome, Prepared, ProgramStep, Wait
from .registry import IN_PLACE, NEXT_BY_STATE, OPERATIONS
from .run_reads import RunReads
from .runbook import RunBook
from .states import TERMINAL, require_can_start

# how many operations one call may run before it returns: far more than the thirteen operations
# and their revision loops need, so it only stops a run that would otherwise cycle
MAX_STEPS = 40
# the run log keeps the logger name it had before the engine was split, so log filters still match
log = logging.getLogger("knowledge_harness.pipeline.engine")


class StepLoop:
    def __init__(self, book: RunBook, reads: RunReads) -> None:
        self.book = book
        self.reads = reads

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

    def step(self, run: Run, records: list[OperationRecord]) -> bool:
        """Run the next operation once; True when the run moved and may move again."""
        operation = self.next_operation(run, records)
        if operation is None:
            self.book.set_waiting(run, None)
            return False
        op = self.book.operations.get(operation)
        if op is None:
            self.book.set_waiting(run, f"unavailable:{operation} {OPERATIONS.get(operation, '')}".rstrip())
            return False
        ctx = self.book.ctx(run, records)
        prepared = op.prepare(ctx)
        if isinstance(prepared, Wait):
            self.book.set_waiting(run, prepared.waiting_for)
            return False
        digest = self.book.digest(operation, prepared)
        stored = self.book.stored(records, operation, digest, run.state)
        if stored is not None:
            self.book.set_waiting(run, stored.waiting_for)
            return False
        log.info("%s %s: %s started", run.run_id, operation, OPERATIONS.get(operation, ""))
        started = time.monotonic()
        if isinstance(op, AgentStep):
            outcome = op.program_outcome(ctx, prepared)
            if outcome is None:  # the step needs its agent or AI judge
                log.info("%s %s: waits for its %s", run.run_id, operation, op.kind.replace("_", " "))
                return self.agent_step(run, records, op, ctx, prepared, digest)
        else:
            outcome = program_step(op).run(ctx, prepared)
        record = self.book.apply(run, records, operation, prepared, outcome, digest)
        log.info(
            "%s %s: %s → %s in %.1f s",
            run.run_id,
            operation,
            record.result.value,
            record.state_after.value,
            time.monotonic() - started,
        )
        return record.waiting_for is None and record.result != Result.RETRYABLE_ERROR

    def run_steps(self, run: Run, records: list[OperationRecord], max_steps: int = MAX_STEPS) -> None:
        """Step the run until it waits, ends, or `max_steps` operations ran."""
        for _ in range(max_steps):
            if not self.step(run, records):
                break

    def task(self, run: Run, op: AgentStep, prepared: Prepared, digest: str, published_at: str) -> AgentTask:
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
                "cli": f"kh pipeline task submit {shlex.quote(str(self.book.vault.root))} {task_id} --file OUT.json",
            },
        )

    def agent_step(
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
        task = self.task(run, op, prepared, digest, existing.published_at if existing else self.book.now())
        answer = backend.perform(task)
        if isinstance(answer, Pending):
            if existing is None:
                sha, _ = self.book.store.put_artifact(run.run_id, task.model_dump(mode="json"))
                run.tasks[task.task_id] = TaskEntry(
                    task_id=task.task_id,
                    operation=op.operation,
                    kind=op.kind,
                    input_digest=digest,
                    document_sha256=sha,
                    status="open",
                    published_at=task.published_at,
                )
                self.book.store.append_history(
                    run.run_id,
                    {
                        "event": "task_published",
                        "at": task.published_at,
                        "task_id": task.task_id,
                        "operation": op.operation,
                    },
                )
                run.waiting_for = None  # force a head write below
            self.book.set_waiting(run, f"agent:{op.operation} task={task.task_id}")
            return False
        if isinstance(answer, Unavailable):
            self.book.set_waiting(run, f"agent_backend:{op.operation} ({answer.reason})")
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
            self.book.apply(run, records, op.operation, prepared, outcome, digest)
            return False
        assert isinstance(answer, Produced)
        refusals = validate_output(op, prepared.inputs, answer.output, **screening_words(ctx.config))
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
            self.book.apply(run, records, op.operation, prepared, outcome, digest)
            return False
        outcome = op.finish(ctx, prepared, answer.output)
        outcome.input_refs.append(f"backend:openai_compat:{answer.model}")
        acted_by = Actor(
            scope="agent",
            name=f"agent:openai_compat:{answer.model}",
            via="program",
            client=f"openai_compat:{answer.model}",
        ).model_dump(mode="json")
        outcome = judge_independence(records, op.operation, acted_by, outcome)
        record = self.book.apply(run, records, op.operation, prepared, outcome, digest, acted_by=acted_by)
        return record.waiting_for is None

    def advance(self, run_id: str, *, max_steps: int = MAX_STEPS) -> RunStatus:
        """Run operations until the run waits (authorization, an agent, a person, a retry) or ends."""
        with self.book.store.lock():
            run, records = self.book.load(run_id)
            self.run_steps(run, records, max_steps)
            return self.reads.status(run_id)

    def run_operation(self, run_id: str, operation: str) -> OperationRecord:
        """Re-run one operation: unchanged inputs return the stored record; else the state machine decides."""
        with self.book.store.lock():
            run, records = self.book.load(run_id)
            op = self.book.operations.get(operation)
            if op is None:
                raise IllegalTransition(f"Operation {operation} is not available.")
            ctx = self.book.ctx(run, records)
            try:
                prepared = op.prepare(ctx)
            except Conflict:
                require_can_start(operation, run.state)
                raise
            if not isinstance(prepared, Wait):
                stored = self.book.stored(records, operation, self.book.digest(operation, prepared), None)
                if stored is not None:
                    return stored
            require_can_start(operation, run.state)
            if self.next_operation(run, records) != operation:
                raise IllegalTransition(f"{operation} is not the next operation of run {run_id} (state {run.state}).")
            if isinstance(prepared, Wait):
                raise Conflict(f"{operation} cannot start: the run waits for {prepared.waiting_for}.")
            self.step(run, records)
            return records[-1]


def program_step(op: Operation) -> ProgramStep:
    if not isinstance(op, ProgramStep):
        raise TypeError(f"{op.operation} is a {type(op).__name__}, not a program step.")
    return op


def screening_words(config: PipelineConfig) -> dict[str, list[str]]:
    return {
        "private_words": config.screening.private_markers,
        "technical_words": config.screening.technical_sense_markers,
    }
