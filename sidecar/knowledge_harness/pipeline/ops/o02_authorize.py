"""O-02 Authorize Run: the person's run label. Without it the run waits; nobody is reminded."""

from __future__ import annotations

from ..contract import ReasonCode, Result, State
from .base import OpContext, Outcome, Prepared, Wait

OPERATION = "O-02"
NOTE_LABEL_KEY = "harness_run"
NOTE_LABEL_VALUE = "authorized"


class AuthorizeRun:
    operation = OPERATION

    def prepare(self, ctx: OpContext) -> Prepared | Wait:
        label = ctx.run.label
        if label is not None:
            return Prepared(
                inputs={"label": {"via": label.via, "by": label.by}}, input_refs=[f"label:{label.via}:{label.by}"]
            )
        note = ctx.request_note()
        if note is not None and str(note.properties.get(NOTE_LABEL_KEY, "")).strip().lower() == NOTE_LABEL_VALUE:
            return Prepared(
                inputs={"label": {"via": "note", "by": "note-owner"}},
                input_refs=[f"label:note:{note.path}#{NOTE_LABEL_KEY}"],
            )
        return Wait("authorization")

    def run(self, ctx: OpContext, prepared: Prepared) -> Outcome:
        label = prepared.inputs["label"]
        return Outcome(
            Result.ADVANCE,
            State.AUTHORIZED,
            [ReasonCode.RUN_LABEL_PRESENT],
            f"実行ラベル（{label['via']}）を確認しました。処理を開始できます。",
        )
