"""O-02 Authorize Run: the person's run label. Without it the run waits; nobody is reminded.

The label comes only from a door that proved the person (the person token, a terminal). A
`harness_run: authorized` property in the request note is not a label: notes are written by
agents and synced, so a file can never authorize a run."""

from __future__ import annotations

from ..contract import ReasonCode, Result, State
from .base import OpContext, Outcome, Prepared, ProgramStep, Wait, moves

OPERATION = "O-02"


class AuthorizeRun(ProgramStep):
    operation = OPERATION
    name = "Authorize Run"
    transitions = moves({State.CAPTURED: {State.AUTHORIZED}})
    next_in = (State.CAPTURED,)

    def prepare(self, ctx: OpContext) -> Prepared | Wait:
        label = ctx.run.label
        if label is not None:
            return Prepared(
                inputs={"label": {"via": label.via, "by": label.by}}, input_refs=[f"label:{label.via}:{label.by}"]
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
