"""O-11: the person's publication decision, recorded once; the same decision again returns the
stored record, a different one on a decided Review Packet holds the run (or, after its end, is refused)."""

from __future__ import annotations

from typing import Any

from ..actors import Actor
from ..errors import Conflict, IllegalTransition
from .contract import DECISION_CHOICES, OperationRecord, ReasonCode, Run, State, choice_code
from .ops.base import DecisionStep, Prepared
from .ops.o11_decide import check_form, same_decision
from .run_reads import RunReads
from .runbook import RunBook, require_person
from .safety import mask_sensitive
from .states import TERMINAL
from .steps import StepLoop


class Decisions:
    def __init__(self, book: RunBook, loop: StepLoop, reads: RunReads) -> None:
        self.book = book
        self.loop = loop
        self.reads = reads

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
        require_person(actor, "make a publication decision")
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
        with self.book.store.lock():
            run, records = self.book.load(run_id)
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
            ctx = self.book.ctx(run, records)
            prepared = op.prepare_decision(ctx, decision)
            digest = self.book.digest("O-11", prepared)
            stored = self.book.stored(records, "O-11", digest, None)
            if stored is not None:
                return self._decision_view(run_id, stored, self._stored_decision(run, stored))
            outcome, _message = op.decide(ctx, prepared, self.book.now())
            question = next(
                (q for q in reversed(run.questions) if q.kind == "publication_decision" and q.answer is None), None
            )
            if question is not None:
                question.answer = choice if choice in DECISION_CHOICES else f"unknown:{choice}"[:100]
                question.answered_at, question.answered_by = self.book.now(), decider
            record = self.book.apply(run, records, "O-11", prepared, outcome, digest)
            self.book.store.append_history(
                run_id, {"event": "decision", "at": record.created_at, "choice": choice, "by": decider, "via": via}
            )
            self.loop.run_steps(run, records)
            return self._decision_view(run_id, record, self._stored_decision(run, record))

    def _decision_step(self) -> DecisionStep:
        op = self.book.operations["O-11"]
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
        ctx = self.book.ctx(run, records)
        check_form(ctx, decision)
        now = self.book.now()
        event = {"event": "conflicting_decision", "at": now, "choice": decision["choice"], "by": decision["decider"]}
        if run.state is None or run.state in TERMINAL:
            self.book.store.append_history(run.run_id, {**event, "recorded": False})
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
        record = self.book.apply(run, records, "O-11", prepared, outcome, self.book.digest("O-11", prepared))
        self.book.store.append_history(run.run_id, {**event, "recorded": True})
        self.loop.run_steps(run, records)
        return self._decision_view(run.run_id, record, self._stored_decision(run, record))

    def _stored_decision(self, run: Run, record: OperationRecord) -> dict[str, Any] | None:
        sha = record.artifacts.get("publication_decision")
        if sha is None:
            return None
        data: dict[str, Any] = self.book.store.get_artifact(run.run_id, sha)
        return data

    def _decision_view(self, run_id: str, record: OperationRecord, decision: dict[str, Any] | None) -> dict[str, Any]:
        return {
            "message_ja": (decision or {}).get("message_ja", record.summary_ja),
            "decision": decision,
            "record": record.contract_view(),
            "status": self.reads.status(run_id).model_dump(mode="json"),
        }
