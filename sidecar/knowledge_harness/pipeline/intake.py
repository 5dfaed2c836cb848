"""How runs begin and what the person gives them: capture (a request note or an API request), the
publishability answer, the run label (O-02) and the answers to the run's questions."""

from __future__ import annotations

import datetime as dt
import secrets
from typing import Any

from ..actors import Actor
from ..core.clock import utc_z
from ..errors import Conflict, InputError, NotFound, PersonRequired
from ..vault.note import read_note
from ..vault.paths import require_note_path
from .contract import OperationRecord, Publishability, Question, ReasonCode, RequestRef, Run, RunLabel, RunStatus, State
from .ops.base import Wait, truthy
from .ops.o01_capture import api_request_artifact
from .run_reads import RunReads
from .runbook import RunBook, require_person
from .safety import mask_sensitive, read_private
from .search import is_request_note
from .states import TERMINAL, require_can_start
from .steps import StepLoop, program_step


class Intake:
    def __init__(self, book: RunBook, loop: StepLoop, reads: RunReads) -> None:
        self.book = book
        self.loop = loop
        self.reads = reads

    def capture_note(self, path: str, *, actor: Actor | None = None) -> RunStatus:
        """O-01 from a request note. The same note while its run is CAPTURED: same run (idempotent).

        Publishability is the person's: the note's `publishable` is taken at the note's first capture
        (whoever captures it — the record and the authorize prompt name them); a value written or
        changed after that answers nothing unless the person captures the note again. An agent (or a
        script) capturing a note whose `publishable` changed while the run waits is refused."""
        rel = require_note_path(path)
        note = read_note(self.book.vault, rel)
        if not is_request_note(note):
            raise InputError(f"{note.path} is not a request note (frontmatter `harness: request`).")
        stated = truthy(note.properties.get("publishable"))
        with self.book.store.lock():
            latest: Run | None = None
            for run in self.book.all_runs():
                if run.request.source == "note" and run.request.path == note.path:
                    latest = run
            if latest is not None:
                run, records = self.book.load(latest.run_id)
                captured_sha = next((r for r in reversed(records) if r.operation == "O-01"), None)
                note_changed = captured_sha is not None and not any(
                    note.sha256 in ref for ref in captured_sha.input_refs
                )
                if run.state == State.CAPTURED:
                    self._recaptured_publishability(run, stated, actor)
                    self._capture(run, records)
                    self._step_waiting(run, records)
                    return self.reads.status(run.run_id)
                if not (run.state in TERMINAL and note_changed):
                    return self.reads.status(run.run_id)
            run = self._new_run(RequestRef(source="note", path=note.path, title=mask_sensitive(note.title)[0]))
            before = latest.publishability if latest is not None else None
            if stated is not None and (
                (actor is not None and actor.is_person) or before is None or before.publishable == stated
            ):
                run.publishability = self._publishability(stated, "note_at_capture", actor)
            self.book.store.run_dir(run.run_id).mkdir(parents=True, exist_ok=False)
            records = []
            self._capture(run, records)
            self._step_waiting(run, records)
            return self.reads.status(run.run_id)

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
        with self.book.store.lock():
            run = self._new_run(RequestRef(source="api", title=artifact["title"]))
            if publishable is not None:
                run.publishability = Publishability(
                    publishable=publishable,
                    how="api_at_capture",
                    by=actor.name if actor is not None else "program",
                    via=actor.via if actor is not None else "program",
                    at=self.book.now(),
                )
            self.book.store.run_dir(run.run_id).mkdir(parents=True, exist_ok=False)
            sha, _ = self.book.store.put_artifact(run.run_id, artifact)
            run.artifacts["api_request"] = sha
            records: list[OperationRecord] = []
            self._capture(run, records)
            self._step_waiting(run, records)
            return self.reads.status(run.run_id)

    def _new_run(self, request: RequestRef) -> Run:
        now = self.book.clock()
        run_id = f"{now.astimezone(dt.UTC):%Y%m%d-%H%M%S}-{secrets.token_hex(3)}"
        return Run(run_id=run_id, state=None, created_at=utc_z(now), updated_at=utc_z(now), request=request)

    def _capture(self, run: Run, records: list[OperationRecord]) -> OperationRecord:
        op = program_step(self.book.operations["O-01"])
        ctx = self.book.ctx(run, records)
        prepared = op.prepare(ctx)
        assert not isinstance(prepared, Wait)
        digest = self.book.digest("O-01", prepared)
        stored = self.book.stored(records, "O-01", digest, None)
        if stored is not None:
            return stored
        outcome = op.run(ctx, prepared)
        return self.book.apply(run, records, "O-01", prepared, outcome, digest)

    def _publishability(self, publishable: bool, how: str, actor: Actor | None) -> Publishability:
        if how == "note_at_capture":
            return Publishability(
                publishable=publishable,
                how=how,
                by=actor.name if actor is not None and actor.is_person else "request note",
                via=actor.via if actor is not None else "program",
                captured_by=actor.name if actor is not None else "program",
                at=self.book.now(),
            )
        assert actor is not None and actor.is_person
        return Publishability(publishable=publishable, how=how, by=actor.name, via=actor.via, at=self.book.now())

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
        self.book.save(run)

    def _record_answer(self, run: Run, question: Question, answer: str, actor: Actor, *, at: str, **event: Any) -> None:
        """The question answered by the person, and the history's answer event (with `event`'s extras)."""
        question.answer, question.answered_at, question.answered_by = answer, at, actor.name
        question.answered_via = actor.via
        self.book.store.append_history(
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

    def _step_waiting(self, run: Run, records: list[OperationRecord]) -> None:
        """After capture: name what the run waits for (authorization) without running O-02."""
        if run.state == State.CAPTURED and self.loop.next_operation(run, records) == "O-02":
            op = self.book.operations["O-02"]
            prepared = op.prepare(self.book.ctx(run, records))
            self.book.set_waiting(run, prepared.waiting_for if isinstance(prepared, Wait) else "advance")
        elif run.state in TERMINAL:
            self.book.set_waiting(run, "advance")

    def authorize(self, run_id: str, *, actor: Actor) -> RunStatus:
        """O-02: the person's run label. Re-authorizing returns the stored record."""
        require_person(actor, "authorize a run")
        by, via = actor.name, actor.via
        with self.book.store.lock():
            run, records = self.book.load(run_id)
            if any(r.operation == "O-02" for r in records):
                return self.reads.status(run_id)
            require_can_start("O-02", run.state)
            if run.label is None:
                run.label = RunLabel(by=by, via=via, at=self.book.now())
                self.book.store.append_history(run_id, {"event": "label", "at": run.label.at, "by": by, "via": via})
                self.book.save(run)
            if self.loop.next_operation(run, records) == "O-02":
                self.loop.step(run, records)
            return self.reads.status(run_id)

    def answer(self, run_id: str, question_id: str, answer: str, *, actor: Actor) -> RunStatus:
        """The person's answer to a question; the run then advances."""
        require_person(actor, "answer a run's question")
        by = actor.name
        with self.book.store.lock():
            run, _ = self.book.load(run_id)
            question = next((q for q in run.questions if q.question_id == question_id), None)
            if question is None:
                raise NotFound(f"Run {run_id} has no question {question_id}.")
            if question.answer is not None:
                if question.answer == answer:
                    return self.reads.status(run_id)
                raise Conflict(f"Question {question_id} was already answered ({question.answer}).")
            if question.kind == "publication_decision":
                raise InputError("Publication decisions go through `kh pipeline decide` or POST …/decision.")
            if question.choices and answer not in question.choices:
                raise InputError(f"Answer one of: {', '.join(question.choices)}.")
            findings: list[dict[str, Any]] = []
            if not question.choices:
                # screened like a request: a private marker is refused (nothing stored, the question stays
                # open); secrets, personal and company information are masked before anything is stored
                screening = self.book.config.screening
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
            at = self.book.now()
            if question.kind == "publishability":
                run.publishability = Publishability(
                    publishable=answer == "publishable", how="answer", by=by, via=actor.via, at=at
                )
            self._record_answer(run, question, answer, actor, at=at, **({"masked": findings} if findings else {}))
            self.book.save(run)
        return self.loop.advance(run_id)
