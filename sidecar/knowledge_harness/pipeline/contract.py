"""The common operation contract of seed 004: states, results, producers, reason codes, records.

Every operation hands over at least: run_id, input_refs, state_before, state_after, result,
reason_codes, summary_ja, uncertainties, created_at, producer. The names below are spelled
exactly as in the seed; reason codes are one enum, explained in Japanese and English here and
in docs/pipeline.md.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


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


# The decision node of the seed's diagram ({HUMAN_DECISION}) is not a stored state: a run in
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


OPERATIONS: dict[str, str] = {
    "O-01": "Capture Request",
    "O-02": "Authorize Run",
    "O-03": "Screen Safety",
    "O-04": "Collect Evidence",
    "O-05": "Build Evidence Packet",
    "O-06": "Judge Candidate",
    "O-07": "Plan Article",
    "O-08": "Draft Article",
    "O-09": "Validate Draft",
    "O-10": "Prepare Review",
    "O-11": "Decide Publication",
    "O-12": "Apply Feedback",
    "O-13": "Record Outcome",
}


class ReasonCode(StrEnum):
    # O-01
    REQUEST_CAPTURED = "REQUEST_CAPTURED"
    PUBLISHABILITY_UNKNOWN = "PUBLISHABILITY_UNKNOWN"
    PUBLISHABILITY_CONFIRMED = "PUBLISHABILITY_CONFIRMED"
    NOT_PUBLISHABLE = "NOT_PUBLISHABLE"
    # O-02
    RUN_LABEL_PRESENT = "RUN_LABEL_PRESENT"
    # O-03
    SCREEN_CLEAN = "SCREEN_CLEAN"
    SECRET_MASKED = "SECRET_MASKED"  # noqa: S105
    PERSONAL_INFO_MASKED = "PERSONAL_INFO_MASKED"
    PRIVATE_MARKER = "PRIVATE_MARKER"
    SCREEN_UNDECIDABLE = "SCREEN_UNDECIDABLE"
    SCREEN_ANSWERED_PUBLISHABLE = "SCREEN_ANSWERED_PUBLISHABLE"
    SCREEN_ANSWERED_PRIVATE = "SCREEN_ANSWERED_PRIVATE"
    # O-04
    EVIDENCE_COLLECTED = "EVIDENCE_COLLECTED"
    EVIDENCE_NONE = "EVIDENCE_NONE"
    EVIDENCE_TRANSIENT_FAILURE = "EVIDENCE_TRANSIENT_FAILURE"
    FETCH_FAILED = "FETCH_FAILED"
    SEARCH_PROVIDER_FAILED = "SEARCH_PROVIDER_FAILED"
    PRIMARY_TARGET_UNMET = "PRIMARY_TARGET_UNMET"
    DUPLICATES_REMOVED = "DUPLICATES_REMOVED"
    DOMAIN_CAP_APPLIED = "DOMAIN_CAP_APPLIED"
    LIMIT_REACHED = "LIMIT_REACHED"
    TIME_LIMIT_REACHED = "TIME_LIMIT_REACHED"
    SEARCH_EXHAUSTED = "SEARCH_EXHAUSTED"
    DISCOVERY_ONLY_UNFETCHED = "DISCOVERY_ONLY_UNFETCHED"
    # O-05
    PACKET_BUILT = "PACKET_BUILT"
    PACKET_NO_FACTS = "PACKET_NO_FACTS"
    # agent door
    AGENT_OUTPUT_INVALID = "AGENT_OUTPUT_INVALID"
    AGENT_BACKEND_ERROR = "AGENT_BACKEND_ERROR"
    # refusals of an agent's submission (detail of a refused submission)
    SUBMISSION_SCHEMA_INVALID = "SUBMISSION_SCHEMA_INVALID"
    UNKNOWN_SOURCE_ID = "UNKNOWN_SOURCE_ID"
    MISSING_SOURCE_ID = "MISSING_SOURCE_ID"
    FACT_WITHOUT_PRIMARY_OR_SECONDARY = "FACT_WITHOUT_PRIMARY_OR_SECONDARY"
    DISCOVERY_ONLY_CITED = "DISCOVERY_ONLY_CITED"
    DUPLICATE_ITEM_ID = "DUPLICATE_ITEM_ID"
    STATEMENT_IN_TWO_CATEGORIES = "STATEMENT_IN_TWO_CATEGORIES"
    CONTRADICTION_NEEDS_TWO_SOURCES = "CONTRADICTION_NEEDS_TWO_SOURCES"
    PAST_ARTICLE_DIFF_WITHOUT_REFERENCE = "PAST_ARTICLE_DIFF_WITHOUT_REFERENCE"
    SECRET_IN_OUTPUT = "SECRET_IN_OUTPUT"  # noqa: S105
    # O-13
    OUTCOME_RECORDED = "OUTCOME_RECORDED"
    HUMAN_QUESTION_REPEATED = "HUMAN_QUESTION_REPEATED"
    POLICY_PROPOSAL_RECORDED = "POLICY_PROPOSAL_RECORDED"


REASONS: dict[ReasonCode, tuple[str, str]] = {
    ReasonCode.REQUEST_CAPTURED: (
        "依頼を受け付けた（処理はまだ開始しない）",
        "The request was captured (processing does not start yet).",
    ),
    ReasonCode.PUBLISHABILITY_UNKNOWN: (
        "公開可能性が明示されていないため人間へ確認する",
        "Publishability is not stated; the person is asked.",
    ),
    ReasonCode.PUBLISHABILITY_CONFIRMED: ("公開可能性が確認された", "Publishability is confirmed."),
    ReasonCode.NOT_PUBLISHABLE: ("公開不可と明示された依頼", "The request is marked as not publishable."),
    ReasonCode.RUN_LABEL_PRESENT: ("人間が実行ラベルを付けた", "The person set the run label."),
    ReasonCode.SCREEN_CLEAN: (
        "秘密情報・個人情報・非公開マーカーは見つからない",
        "No secret, personal information or private marker was found.",
    ),
    ReasonCode.SECRET_MASKED: (
        "秘密情報をマスクし、マスク後の参照だけを渡す",
        "Secrets were masked; only masked references go on.",
    ),
    ReasonCode.PERSONAL_INFO_MASKED: (
        "個人情報をマスクし、マスク後の参照だけを渡す",
        "Personal information was masked; only masked references go on.",
    ),
    ReasonCode.PRIVATE_MARKER: ("非公開マーカーがあり対象外", "A private marker makes the request out of scope."),
    ReasonCode.SCREEN_UNDECIDABLE: (
        "公開可否を機械的に確定できないため人間へ確認する",
        "Publishability cannot be decided mechanically; the person is asked.",
    ),
    ReasonCode.SCREEN_ANSWERED_PUBLISHABLE: ("人間が公開可能と回答した", "The person answered that it is publishable."),
    ReasonCode.SCREEN_ANSWERED_PRIVATE: ("人間が非公開と回答した", "The person answered that it is private."),
    ReasonCode.EVIDENCE_COLLECTED: ("証拠を収集した", "Evidence was collected."),
    ReasonCode.EVIDENCE_NONE: ("証拠が一件も得られない（全面的な取得不能）", "No evidence at all could be obtained."),
    ReasonCode.EVIDENCE_TRANSIENT_FAILURE: (
        "一時的な取得失敗。再実行で再開できる",
        "A transient failure; running again resumes.",
    ),
    ReasonCode.FETCH_FAILED: ("一部の出典を取得できない", "Some sources could not be fetched."),
    ReasonCode.SEARCH_PROVIDER_FAILED: ("検索プロバイダが応答しない", "A search provider failed."),
    ReasonCode.PRIMARY_TARGET_UNMET: ("一次・公式情報が目標件数に届かない", "Fewer primary sources than the target."),
    ReasonCode.DUPLICATES_REMOVED: ("重複した出典を除いた", "Duplicate sources were removed."),
    ReasonCode.DOMAIN_CAP_APPLIED: (
        "同一ドメインの上限で候補を除いた",
        "Candidates were dropped by the per-domain cap.",
    ),
    ReasonCode.LIMIT_REACHED: ("検索・取得・採用の上限に達した", "A search, fetch or adoption limit was reached."),
    ReasonCode.TIME_LIMIT_REACHED: ("処理時間の上限に達した", "The time limit was reached."),
    ReasonCode.SEARCH_EXHAUSTED: ("検索結果が重複だけになった", "Searches returned only duplicates."),
    ReasonCode.DISCOVERY_ONLY_UNFETCHED: (
        "本文を取得できず発見専用のまま残る候補がある",
        "Some candidates stay discovery-only (body not fetched).",
    ),
    ReasonCode.PACKET_BUILT: ("Evidence Packetを作成した", "The evidence packet was built."),
    ReasonCode.PACKET_NO_FACTS: (
        "根拠で支えられる事実が一つもない（根拠不足）",
        "No fact is supported by the evidence (insufficient evidence).",
    ),
    ReasonCode.AGENT_OUTPUT_INVALID: (
        "エージェントの出力が契約を満たさない",
        "The agent's output does not meet the contract.",
    ),
    ReasonCode.AGENT_BACKEND_ERROR: ("エージェントのバックエンドが失敗した", "The agent backend failed."),
    ReasonCode.SUBMISSION_SCHEMA_INVALID: (
        "提出物がJSON Schemaに合わない",
        "The submission does not match the JSON Schema.",
    ),
    ReasonCode.UNKNOWN_SOURCE_ID: (
        "Evidence Setに存在しないsource_idを参照している",
        "A source_id that is not in the evidence set is cited.",
    ),
    ReasonCode.MISSING_SOURCE_ID: ("source_idのない記述がある", "A statement cites no source_id."),
    ReasonCode.FACT_WITHOUT_PRIMARY_OR_SECONDARY: (
        "事実が一次・二次情報に基づいていない（説明や評価と混同）",
        "A fact cites no primary or secondary source (mixed up with opinions).",
    ),
    ReasonCode.DISCOVERY_ONLY_CITED: (
        "発見専用の情報源を根拠にしている",
        "A discovery-only source is cited as evidence.",
    ),
    ReasonCode.DUPLICATE_ITEM_ID: ("項目IDが重複している", "An item id is used twice."),
    ReasonCode.STATEMENT_IN_TWO_CATEGORIES: (
        "同じ記述が事実・推測などの複数区分に入っている",
        "The same statement is in two categories (fact, inference, ...).",
    ),
    ReasonCode.CONTRADICTION_NEEDS_TWO_SOURCES: (
        "矛盾には二件以上の出典が必要",
        "A contradiction needs at least two sources.",
    ),
    ReasonCode.PAST_ARTICLE_DIFF_WITHOUT_REFERENCE: (
        "過去記事参照がないのに差分を推測している",
        "Differences from past articles are claimed without past-article references.",
    ),
    ReasonCode.SECRET_IN_OUTPUT: ("出力に秘密情報らしき文字列がある", "The output contains what looks like a secret."),
    ReasonCode.OUTCOME_RECORDED: ("終了状態と成果物を記録した", "The final state and artifacts were recorded."),
    ReasonCode.HUMAN_QUESTION_REPEATED: (
        "同じ理由の人間への質問が繰り返されている",
        "The person was asked for the same reason repeatedly.",
    ),
    ReasonCode.POLICY_PROPOSAL_RECORDED: (
        "方針変更候補をDECISIONS.mdへ提案した（自動採用しない）",
        "A policy proposal was added to DECISIONS.md (never adopted automatically).",
    ),
}


def explain(code: str) -> dict[str, str]:
    try:
        ja, en = REASONS[ReasonCode(code)]
    except (ValueError, KeyError):
        ja, en = "", ""
    return {"code": code, "ja": ja, "en": en}


class Uncertainty(BaseModel):
    """未確認事項と記事への影響 — an unconfirmed item and its effect on the article."""

    model_config = ConfigDict(extra="forbid")

    item: str
    impact: str
    code: str | None = None
    source_ids: list[str] = Field(default_factory=list)


RECORD_KEYS: tuple[str, ...] = (
    "operation",
    "run_id",
    "input_refs",
    "state_before",
    "state_after",
    "result",
    "reason_codes",
    "summary_ja",
    "uncertainties",
    "created_at",
    "producer",
)


class OperationRecord(BaseModel):
    """One operation's outcome. The first eleven fields are the seed's common contract."""

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
    # bookkeeping, kept in the record file
    seq: int = 0
    attempt: int = 1
    input_digest: str = ""
    artifacts: dict[str, str] = Field(default_factory=dict)  # name -> sha256
    metrics: dict[str, Any] = Field(default_factory=dict)
    task_id: str | None = None
    waiting_for: str | None = None

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
    questions: list[Question] = Field(default_factory=list)
    tasks: dict[str, TaskEntry] = Field(default_factory=dict)
    artifacts: dict[str, str] = Field(default_factory=dict)  # latest artifact name -> sha256


class RunStatus(BaseModel):
    """CONTRACT: `kh pipeline status --json` has exactly these keys."""

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
