"""Response models of the pipeline's REST door (/v1/pipeline/...).

They describe the engine's answers key for key and in their order, so the JSON is unchanged and
the plugin gets generated types. One addition over the engine's dicts: every operation record
sent over REST carries `reasons`, its reason codes explained in Japanese and English
(`contract.REASONS`), after the contract's eleven keys. `kh pipeline status --json` keeps exactly
the contract's keys (it prints `RunStatus`, not these views).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from .contract import (
    Question,
    ReasonCode,
    RecordContract,
    RequestRef,
    Result,
    RunLabel,
    RunStatus,
    State,
    TaskEntry,
    explain,
)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ReasonExplanation(_Model):
    code: str
    ja: str
    en: str


class RecordView(RecordContract):
    """An operation record: the contract's eleven keys plus the reason codes explained."""

    model_config = ConfigDict(extra="forbid", json_schema_serialization_defaults_required=True)

    reasons: list[ReasonExplanation] = Field(description="reason_codes with their Japanese and English explanations.")


class RunStatusView(_Model):
    run_id: str
    state: State
    waiting_for: str | None
    records: list[RecordView]


class BudgetAsk(_Model):
    question_id: str
    kind: str
    operation: str
    why_ja: str
    asked_at: str
    answered: bool
    answered_by: str | None


class FinalDecisionBudget(_Model):
    asked: int
    limit: int


class HumanBudget(_Model):
    """How often the person was asked in this run, and why (the human-decision budget, docs/pipeline.md)."""

    total_asked: int
    by_kind: dict[str, int]
    final_decision: FinalDecisionBudget
    exceptions: dict[str, int]
    within_budget: bool
    asked: list[BudgetAsk]
    rule_ja: str


class ActedBy(_Model):
    """Who really acted for one agent or AI-judge record."""

    seq: int
    operation: str
    acted_by: dict[str, Any] = Field(
        description="scope, name, via, client (declared: MCP clientInfo name, User-Agent), client_version, token"
    )


class RunDetail(RunStatusView):
    """The status plus the request, the run label, questions, the human-decision budget, tasks, artifacts, metrics."""

    request: RequestRef
    label: RunLabel | None
    questions: list[Question]
    human_questions_asked: int
    human_budget: HumanBudget
    tasks: list[TaskEntry]
    artifacts: dict[str, str] = Field(description="artifact name → SHA-256 of its latest version")
    metrics: dict[str, dict[str, Any]] = Field(description="operation → its metrics (open: each operation's own)")
    acted_by: list[ActedBy] = Field(default_factory=list, description="who really acted for each agent record")


class ReviewChoice(_Model):
    code: Literal["approve", "revise", "reject", "policy"]
    effect_ja: str
    label_ja: str


class ReviewPacket(_Model):
    """The Review Packet (公開候補の確認待ち): the markdown the person reads and the candidate it names.

    A stored artifact: its keys come in sorted order, as stored."""

    article_html_file: str | None = Field(
        default=None, description="The article's HTML file in the run folder (GET …/review/article.html)."
    )
    article_html_sha256: str | None = None
    article_text: str | None = Field(default=None, description="The article as a reader reads it (plain text).")
    base_branch: str
    branch: str
    candidate_path: str
    candidate_sha256: str
    choices: list[ReviewChoice]
    commit: str = Field(description="The candidate commit; an approval names it after it was merged.")
    diff: str | None = Field(
        default=None, description="Unified diff of the article text from the previous review round (null: first)."
    )
    duplicates: list[dict[str, Any]] = Field(default_factory=list, description="Past posts ≥ 0.85, with scores.")
    independence_warnings: list[str] = Field(default_factory=list)

    markdown: str
    pr_number: int | None = None
    pr_url: str | None
    previous_commit: str | None = None
    run_id: str
    sha256: str = Field(description="SHA-256 of `markdown`; every decision names it (review_packet_sha256).")


class ReviewView(_Model):
    run_id: str
    state: State
    waiting_for: str | None
    review_packet_sha256: str
    review_packet: ReviewPacket


class PullRequestFacts(_Model):
    """The pull request as `gh pr view` reported it (with `[blog] pull_request = "gh"`)."""

    base: str
    head: str
    head_commit: str
    merged_at: str | None
    number: int
    state: str
    url: str


class DecisionFacts(_Model):
    """What the sidecar verified (merge facts only once a blog repository was read). Sorted keys, as stored."""

    base_head: str | None = None
    base_ref: str | None = Field(default=None, description="The base branch as checked, e.g. refs/remotes/origin/main.")
    branch_head: str | None = None
    candidate_commit: str
    merged: bool | None = None
    merged_how: Literal["ancestor", "content"] | None = Field(
        default=None, description="ancestor: a merge commit or fast-forward; content: a squash or rebase merge."
    )
    pr_url: str | None = None
    published_sha256: str | None = None
    pull_request: PullRequestFacts | None = None
    pull_request_mismatch: dict[str, dict[str, Any]] | None = None
    review_packet_sha256: str


class PublicationDecision(_Model):
    """The stored decision (artifact `publication_decision`; sorted keys, as stored)."""

    blocks: list[str]
    choice: str
    choice_label_ja: str | None
    comment_ref: str | None
    commit: str | None
    decided_at: str
    decider: str
    instructions: str | None
    message_ja: str
    policy_options: list[str] | None
    pr_url: str | None = Field(default=None, description="The pull request URL the person named (optional).")
    reason_code: ReasonCode
    result: Result
    resume_condition_ja: str | None = Field(default=None, description="For a HOLD: what has to change to resume.")
    review_packet_sha256: str | None
    verified: DecisionFacts | None = Field(default=None, description="Absent on a conflicting second decision.")
    via: str


class DecisionView(_Model):
    """After O-11: the fixed Japanese message (docs/design/pipeline.md), the stored decision, its record and the run status."""

    message_ja: str
    decision: PublicationDecision | None
    record: RecordView
    status: RunStatusView


class SubmitView(_Model):
    accepted: bool
    record: RecordView
    status: RunStatusView


class DecisionChoice(_Model):
    code: Literal["approve", "revise", "reject", "policy"]
    label_ja: str
    effect_ja: str
    message_ja: str


class DecisionChoices(_Model):
    choices: list[DecisionChoice]


class DraftCheckFinding(_Model):
    code: str
    line: int
    message: str


class DraftCheckReport(_Model):
    errors: list[DraftCheckFinding]
    warnings: list[DraftCheckFinding]


# -- adding the explanations ------------------------------------------------------------------------
def record_with_reasons(record: Mapping[str, Any]) -> dict[str, Any]:
    """A contract record (dict) with `reasons` appended."""
    codes: Sequence[Any] = record.get("reason_codes") or []
    return {**record, "reasons": [explain(str(code)) for code in codes]}


def status_with_reasons(status: Mapping[str, Any]) -> dict[str, Any]:
    """A status or detail dict whose records carry `reasons`."""
    return {**status, "records": [record_with_reasons(r) for r in status.get("records") or []]}


def status_view(status: RunStatus) -> RunStatusView:
    return RunStatusView.model_validate(status_with_reasons(status.model_dump(mode="json")))


def detail_view(detail: Mapping[str, Any]) -> RunDetail:
    return RunDetail.model_validate(status_with_reasons(detail))


def outcome_view(answer: Mapping[str, Any]) -> dict[str, Any]:
    """A decision or submission answer ({..., record, status}) with reasons on every record."""
    return {
        **answer,
        "record": record_with_reasons(answer["record"]),
        "status": status_with_reasons(answer["status"]),
    }
