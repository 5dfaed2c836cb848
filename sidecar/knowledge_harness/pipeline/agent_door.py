"""The external agent door: open tasks for agents and AI judges, and their submissions, checked
against the output schema, the operation's rules and the judge's independence before they count."""

from __future__ import annotations

import hashlib
from typing import Any

from ..actors import Actor
from ..core.jsonutil import canonical_json
from ..errors import Conflict, NotFound, SubmissionRefused
from .agents import AgentTask, validate_output
from .contract import Run, TaskEntry
from .independence import independence_refusals, judge_independence
from .ops.base import AgentStep, Wait
from .run_reads import RunReads
from .runbook import RunBook
from .steps import StepLoop, screening_words


class AgentDoor:
    def __init__(self, book: RunBook, loop: StepLoop, reads: RunReads) -> None:
        self.book = book
        self.loop = loop
        self.reads = reads

    def next_task(self, *, operation: str | None = None, run_id: str | None = None) -> AgentTask | None:
        """The oldest open task of any run, or of one run (optionally of one operation)."""
        open_tasks: list[tuple[str, str, TaskEntry]] = []
        runs = [self.book.load(run_id)[0]] if run_id is not None else self.book.all_runs()
        for run in runs:
            for entry in run.tasks.values():
                if entry.status == "open" and (operation is None or entry.operation == operation):
                    open_tasks.append((entry.published_at, run.run_id, entry))
        if not open_tasks:
            return None
        _, run_id, entry = sorted(open_tasks, key=lambda t: (t[0], t[1]))[0]
        return AgentTask.model_validate(self.book.store.get_artifact(run_id, entry.document_sha256))

    def get_task(self, task_id: str) -> AgentTask:
        run, entry = self._find_task(task_id)
        return AgentTask.model_validate(self.book.store.get_artifact(run.run_id, entry.document_sha256))

    def _find_task(self, task_id: str) -> tuple[Run, TaskEntry]:
        for run in self.book.all_runs():
            if task_id in run.tasks:
                return run, run.tasks[task_id]
        raise NotFound(f"No task {task_id}.")

    def submit(self, task_id: str, output: Any, *, actor: Actor | None = None) -> dict[str, Any]:
        """Validate an external agent's output and complete its operation; refused with reasons otherwise.

        `actor` is who really submitted (the door's agent actor: the MCP client's declared name and
        version, the token kind); every record the submission makes names it."""
        acted_by = (actor or Actor(scope="agent", name="agent", via="program")).model_dump(mode="json")
        with self.book.store.lock():
            found, _ = self._find_task(task_id)
            run, records = self.book.load(found.run_id)
            entry = run.tasks[task_id]
            submission_sha = hashlib.sha256(canonical_json(output)).hexdigest()
            if entry.status == "done":
                if entry.submission_sha256 == submission_sha and entry.record_seq is not None:
                    record = records[entry.record_seq - 1]
                    return {
                        "accepted": True,
                        "record": record.contract_view(),
                        "status": self.reads.status(run.run_id).model_dump(mode="json"),
                    }
                raise Conflict(f"Task {task_id} is already completed with another output.")
            if entry.status != "open":
                raise Conflict(f"Task {task_id} is {entry.status}.")
            op = self.book.operations[entry.operation]
            if not isinstance(op, AgentStep):
                raise Conflict(f"Task {task_id} names {entry.operation}, which is not an agent operation.")
            ctx = self.book.ctx(run, records)
            prepared = op.prepare(ctx) if self.loop.next_operation(run, records) == entry.operation else Wait("stale")
            if isinstance(prepared, Wait) or self.book.digest(entry.operation, prepared) != entry.input_digest:
                entry.status = "stale"
                self.book.save(run)
                raise Conflict(f"Task {task_id} is stale: the run moved on or its inputs changed.")
            refusals = validate_output(op, prepared.inputs, output, **screening_words(ctx.config))
            refusals += independence_refusals(ctx.config, records, entry.operation, acted_by)
            if refusals:
                entry.refused_submissions += 1
                self.book.store.append_history(
                    run.run_id,
                    {
                        "event": "submission_refused",
                        "at": self.book.now(),
                        "task_id": task_id,
                        "reasons": sorted({r.code for r in refusals}),
                    },
                )
                self.book.save(run)
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
            outcome = judge_independence(records, entry.operation, acted_by, outcome)
            record = self.book.apply(
                run, records, entry.operation, prepared, outcome, entry.input_digest, task_id=task_id, acted_by=acted_by
            )
            entry = run.tasks[task_id]
            entry.status = "done"
            entry.submission_sha256 = submission_sha
            entry.record_seq = record.seq
            self.book.save(run)
            self.loop.run_steps(run, records)
            return {
                "accepted": True,
                "record": record.contract_view(),
                "status": self.reads.status(run.run_id).model_dump(mode="json"),
            }
