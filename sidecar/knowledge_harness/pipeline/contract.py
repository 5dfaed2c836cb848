"""The common operation contract of the pipeline (docs/pipeline.md): states, results, producers, reason codes, records.

Every operation hands over at least: run_id, input_refs, state_before, state_after, result,
reason_codes, summary_ja, uncertainties, created_at, producer. The names below are spelled
exactly as docs/design/pipeline.md spells them. Reason codes are one enum, explained in Japanese
and English, in reasons.py (re-exported here) and in docs/pipeline.md. See docs/design/pipeline.md.
"""

from __future__ import annotations

import unicodedata
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .reasons import REASONS as REASONS
from .reasons import ReasonCode as ReasonCode
from .reasons import explain as explain


class State(StrEnum):
    CAPTURED = "CAPTURED"
    AUTHORIZED = "AUTHORIZED"
    SCREENED = "SCREENED"
    EVIDENCE_READY = "EVIDENCE_READY"
    CANDIDATE_ACCEPTED = "CANDIDATE_ACCEPTED"
    PLAN_READY = "PLAN_READY"
    DRAFT_READY = "DRAFT_READY"
    VALIDATED = "VALIDATED"
    REVIEW_READY = "REVIEW_READY"
    APPROVED = "APPROVED"
    REVISION = "REVISION"
    REVISED = "REVISED"
    REJECTED = "REJECTED"
    NO_CANDIDATE = "NO_CANDIDATE"
    HOLD = "HOLD"


# the states a run ends in (O-13 records the outcome once)
TERMINAL: frozenset[State] = frozenset({State.REJECTED, State.NO_CANDIDATE, State.HOLD, State.APPROVED})

# The decision node of the design's diagram (docs/design/pipeline.md) ({HUMAN_DECISION}) is not a stored state: a run in
# REVIEW_READY waits for it, and `waiting_for` names it.
HUMAN_DECISION = "HUMAN_DECISION"


class Result(StrEnum):
    ADVANCE = "ADVANCE"
    NO_CANDIDATE = "NO_CANDIDATE"
    REJECTED = "REJECTED"
    HOLD = "HOLD"
    RETRYABLE_ERROR = "RETRYABLE_ERROR"


class Producer(StrEnum):
    """Program, Skill / Agent, AI Judge, human (人間)."""

    PROGRAM = "program"
    AGENT = "agent"
    AI_JUDGE = "ai_judge"
    HUMAN = "human"


class Uncertainty(BaseModel):
    """未確認事項と記事への影響 — an unconfirmed item and its effect on the article."""

    model_config = ConfigDict(extra="forbid")

    item: str
    impact: str
    code: str | None = None
    source_ids: list[str] = Field(default_factory=list)


class RecordContract(BaseModel):
    """The eleven keys every operation record carries, in their order (docs/design/pipeline.md)."""

    model_config = ConfigDict(extra="forbid")

    operation: str
    run_id: str
    input_refs: list[str]
    state_before: State | None
    state_after: State
    result: Result
    reason_codes: list[ReasonCode]
    summary_ja: str
    uncertainties: list[Uncertainty] = Field(default_factory=list)
    created_at: str
    producer: Producer


RECORD_KEYS: tuple[str, ...] = tuple(RecordContract.model_fields)


class OperationRecord(RecordContract):
    """One operation's outcome: the common contract, then the engine's bookkeeping."""

    # bookkeeping, kept in the record file
    seq: int = 0
    attempt: int = 1
    input_digest: str = ""
    artifacts: dict[str, str] = Field(default_factory=dict)  # name -> sha256
    metrics: dict[str, Any] = Field(default_factory=dict)
    task_id: str | None = None
    waiting_for: str | None = None
    # who really acted for an agent / AI-judge record: {scope, name, via, client, client_version, token}
    acted_by: dict[str, Any] | None = None

    def contract_view(self) -> dict[str, Any]:
        data = self.model_dump(mode="json")
        return {key: data[key] for key in RECORD_KEYS}


class Question(BaseModel):
    """A question to the person (counted against the human-decision budget)."""

    model_config = ConfigDict(extra="forbid")

    question_id: str
    operation: str
    kind: str  # publishability | screening | ...
    question_ja: str
    question_en: str
    choices: list[str]
    asked_at: str
    answer: str | None = None
    answered_at: str | None = None
    answered_by: str | None = None
    answered_via: str | None = None  # the door the person answered through (terminal, http, plugin)


class RunLabel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    by: str
    via: str  # cli | api | plugin | note
    at: str


class TaskEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    task_id: str
    operation: str
    kind: str  # agent | ai_judge
    input_digest: str
    document_sha256: str
    status: str  # open | done
    published_at: str
    submission_sha256: str | None = None
    record_seq: int | None = None
    refused_submissions: int = 0


class Publishability(BaseModel):
    """The answer to "may this request be public?" and who gave it. Only the person answers it:
    the request note at the run's first capture, the person's answer (`how = "answer"`), the note
    captured again by the person, or `publishable` in an API capture by the person."""

    model_config = ConfigDict(extra="forbid")

    publishable: bool
    how: str  # note_at_capture | note_recaptured | api_at_capture | answer
    by: str  # who answered: the person's name, or "request note" for the note's own property
    via: str  # the door: terminal | http | plugin | mcp-http | mcp-stdio | program
    captured_by: str | None = None  # who captured the note whose property was taken
    at: str

    def describe_ja(self) -> str:
        answer = "公開してよい" if self.publishable else "公開しない"
        how = {
            "note_at_capture": f"依頼ノートの publishable（初回取り込み時、取り込み: {self.captured_by or '不明'}）",
            "note_recaptured": f"{self.by} が依頼ノートを再取り込み（{self.via}）",
            "api_at_capture": f"{self.by} が取り込み時に指定（{self.via}）",
            "answer": f"{self.by} が回答（{self.via}）",
        }.get(self.how, self.how)
        return f"{answer} — {how}"

    def describe_en(self) -> str:
        answer = "publishable" if self.publishable else "not publishable"
        how = {
            "note_at_capture": f"the request note's publishable at its first capture (captured by {self.captured_by or 'unknown'})",
            "note_recaptured": f"{self.by} captured the request note again ({self.via})",
            "api_at_capture": f"{self.by} set it at capture ({self.via})",
            "answer": f"answered by {self.by} ({self.via})",
        }.get(self.how, self.how)
        return f"{answer} — {how}"


class RequestRef(BaseModel):
    model_config = ConfigDict(extra="forbid")

    source: str  # note | api
    path: str | None = None
    title: str = ""


class Run(BaseModel):
    """The head of a run (run.json)."""

    model_config = ConfigDict(extra="forbid")

    run_id: str
    state: State | None  # None only before O-01 has produced its first record
    waiting_for: str | None = None
    created_at: str
    updated_at: str
    request: RequestRef
    records: list[str] = Field(default_factory=list)  # record file names in order
    label: RunLabel | None = None
    publishability: Publishability | None = None  # the person's answer and how it was given
    questions: list[Question] = Field(default_factory=list)
    tasks: dict[str, TaskEntry] = Field(default_factory=dict)
    artifacts: dict[str, str] = Field(default_factory=dict)  # latest artifact name -> sha256


class RunStatus(BaseModel):
    """Public (docs/pipeline.md): `kh pipeline status --json` has exactly these keys."""

    run_id: str
    state: State
    waiting_for: str | None
    records: list[dict[str, Any]]


class RunSummary(BaseModel):
    run_id: str
    state: State
    waiting_for: str | None
    title: str
    source: str
    path: str | None
    created_at: str
    updated_at: str


# -- the human-decision budget (人間判断の予算, docs/pipeline.md) ---------------------------------------
# The pipeline calls the person for the final publication decision once per review round; a
# revision round asks again (at most two AI revisions, so at most three asks). The exceptions
# outside the budget are asked at most once per run and never again for the same reason. The run
# label is a trigger given before the run, not a question, and is not counted.
MAX_AI_REVISIONS = 2
HUMAN_BUDGET: dict[str, int] = {
    "publishability": 1,
    "screening": 1,
    "author_motive": 1,
    "publication_decision": 1 + MAX_AI_REVISIONS,
}
BUDGET_EXCEPTIONS = ("publishability", "screening", "author_motive")


def human_budget(run: Run) -> dict[str, Any]:
    """How often the person was asked in this run, and why."""
    asked = [
        {
            "question_id": q.question_id,
            "kind": q.kind,
            "operation": q.operation,
            "why_ja": q.question_ja.splitlines()[0][:300] if q.question_ja else "",
            "asked_at": q.asked_at,
            "answered": q.answer is not None,
            "answered_by": q.answered_by,
        }
        for q in run.questions
    ]
    by_kind: dict[str, int] = {}
    for q in run.questions:
        by_kind[q.kind] = by_kind.get(q.kind, 0) + 1
    decisions = by_kind.get("publication_decision", 0)
    return {
        "total_asked": len(run.questions),
        "by_kind": by_kind,
        "final_decision": {"asked": decisions, "limit": HUMAN_BUDGET["publication_decision"]},
        "exceptions": {k: by_kind[k] for k in BUDGET_EXCEPTIONS if k in by_kind},
        "within_budget": all(n <= HUMAN_BUDGET.get(k, 1) for k, n in by_kind.items()),
        "asked": asked,
        "rule_ja": (
            "通常の一実行で人間を呼ぶのは最終公開判断の一回まで（修正要求のたびに再確認、AI修正は2回まで）。"
            "公開可能性・判断不能な安全性・著者の動機は例外として各一回まで。実行ラベルは予算に含めない。"
        ),
    }


DECISION_CHOICES: dict[str, tuple[str, str, str]] = {
    # code: (label shown to the person, effect, message after the decision)
    "approve": (
        "公開を承認する",
        "対象branch（PR）がbaseへmergeされた事実（merge・squash・rebase）をgitで確認し、APPROVEDとします。merge前は受け付けません。",
        "公開を承認しました",
    ),
    "revise": (
        "今回だけ修正を求める",
        "具体的な日本語の指示と対象ブロックを保存し、AIが指定ブロックだけを修正して再検証・再レビューします（AI修正は2回まで）。",
        "修正後に再確認します",
    ),
    "reject": ("公開しない", "理由を保存し、公開せずHOLDで終了します。", "公開しません"),
    "policy": (
        "今後の方針として検討する",
        "問題・選択肢・影響を方針候補としてDECISIONS.mdへ保存し、公開せずHOLDとします（自動採用しない）。",
        "方針判断のため保留します",
    ),
}


def choice_code(choice: str) -> str | None:
    """A decision choice given as its code (`revise`) or its Japanese label (今回だけ修正を求める,
    also in 「」 or full-width forms); None when it is neither."""
    text = unicodedata.normalize("NFKC", choice or "").strip().strip("「」『』\"'").strip()
    if text.lower() in DECISION_CHOICES:
        return text.lower()
    for code, (label, _, _) in DECISION_CHOICES.items():
        if text == unicodedata.normalize("NFKC", label):
            return code
    return None


def ai_revisions_done(records: list[OperationRecord]) -> int:
    """AI revisions already applied to the article (O-12 ADVANCE records)."""
    return sum(1 for r in records if r.operation == "O-12" and r.result == Result.ADVANCE)


def offered_choices(records: list[OperationRecord]) -> list[str]:
    """The choices the person may still make: 「今回だけ修正を求める」 only while an AI revision remains."""
    done = ai_revisions_done(records)
    return [code for code in DECISION_CHOICES if code != "revise" or done < MAX_AI_REVISIONS]
