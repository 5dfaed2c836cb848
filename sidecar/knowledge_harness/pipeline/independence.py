"""Whether an AI judge is independent of the client that wrote what it judges (JUDGED_AUTHORS)."""

from __future__ import annotations

from typing import Any

from .agents import Refusal
from .config import PipelineConfig
from .contract import OperationRecord, ReasonCode, Result, Uncertainty
from .ops.base import Outcome
from .registry import JUDGED_AUTHORS


def same_client_author(
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


def judge_independence(
    records: list[OperationRecord], operation: str, acted_by: dict[str, Any], outcome: Outcome
) -> Outcome:
    """An AI judge that is the client which authored what it judges is not an independent judge:
    the record says so (reason code and uncertainty, which reach the review packet and the person);
    with `[agents] independent_judge = "required"` it never gets here (`independence_refusals`)."""
    author = same_client_author(records, operation, acted_by)
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


def independence_refusals(
    config: PipelineConfig, records: list[OperationRecord], operation: str, acted_by: dict[str, Any]
) -> list[Refusal]:
    """With `[agents] independent_judge = "required"`, a judgment by the client that authored what
    it judges is refused at submit: nothing is recorded and the task stays open for another client
    (a HOLD would end a run that only waits for a different judge)."""
    if config.agents.independent_judge != "required":
        return []
    author = same_client_author(records, operation, acted_by)
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
