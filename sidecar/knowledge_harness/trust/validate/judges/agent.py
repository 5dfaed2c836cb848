"""The `agent` judge: the MCP agent the person already runs (Claude Code, Codex) reads the claims.

`judge()` hands one task — the claims with their ids, the evidence by source id — to a
`TaskQueue` and waits for an answer. The queue (trust/validate/judge_queue.py) keeps the task where an
agent connected over `kh mcp VAULT` or `/mcp` takes it with `judge_next_task`, reads long pages
in bounded pages with `judge_evidence` and answers with `judge_submit`, in the shape of
`AgentAnswer` (its JSON Schema is part of the task). The validator's quote gate then decides each
finding, as for any model. Nobody answering in time raises JudgeFailed, which the validator turns
into `unverifiable`: a note is never passed for want of a judge. This module imports nothing
from `vault/`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from ..quotes import Quotes, join_quotes
from ..validation_models import MAX_CLAIMS, ClaimIn, EvidenceIn, Finding, ValidatorInfo
from .base import JudgeFailed, JudgeOutput

NAME = "agent"
VERSION = "1"
DEFAULT_WAIT_SECONDS = 300.0

INSTRUCTIONS_EN = (
    "You are the judge of a note's claims. For EVERY claim give one finding, judged only from the "
    "evidence of this task (read each source with judge_evidence; long pages come in pages), never from "
    "what you know. verdict: 'supported' when one source states the claim's content, every number, date, "
    "name and qualifier included (paraphrase is fine; a claim adding any detail the source does not state "
    "is not supported); 'contradicted' when a source states something incompatible (another number, date "
    "or name in the same role, the opposite polarity); otherwise 'unsupported' (when unsure, unsupported). "
    "A claim with source_ids may only be judged against those sources. source_id: the source you used. "
    "quotes: passages copied character for character from that one source (at most 300 characters each), "
    "which together state the claim's numbers, dates and names; several when the page says them in "
    "sentences apart. The program checks every quote: one not word for word in the source, or not stating "
    "the claim's specifics, makes the finding unsupported. reason: one sentence in the claim's language. "
    "Then call judge_submit with the task_id and the answer object (answer_schema). Judging writes nothing; "
    "the person approves every change."
)
INSTRUCTIONS_JA = (
    "あなたはノートの主張（claim）の判定者です。すべての claim に finding を一つずつ返してください。判断の根拠は"
    "このタスクの証拠だけです（各ソースは judge_evidence で読みます。長いページは分割されています）。自分の知識は"
    "使いません。verdict: ソースが主張の内容を、数値・日付・名前・限定条件まで含めて述べていれば 'supported'"
    "（言い換えは可。ソースにない詳細を一つでも加えた主張は supported ではありません）。ソースが両立しない内容"
    "（同じ役割の別の数値・日付・名前、逆の極性）を述べていれば 'contradicted'。それ以外は 'unsupported'"
    "（迷ったら unsupported）。source_ids のある claim はそのソースだけで判定します。source_id: 使ったソース。"
    "quotes: そのソースから一字一句そのまま写した箇所（各 300 文字以内）で、合わせて主張の数値・日付・名前を"
    "述べるもの。離れた文に書かれていれば複数にします。プログラムがすべての引用を照合し、ソースに一字一句ない"
    "引用や主張の具体的な内容を述べない引用の finding は unsupported になります。reason: claim の言語で一文。"
    "最後に task_id と回答オブジェクト（answer_schema）で judge_submit を呼んでください。判定は何も書き込みません。"
    "変更を承認するのは人です。"
)


class AgentFinding(BaseModel):
    model_config = ConfigDict(extra="forbid")

    claim_id: str = Field(min_length=1, max_length=256)
    verdict: Literal["supported", "unsupported", "contradicted"]
    source_id: str | None = Field(default=None, max_length=256)
    quotes: Quotes = Field(default_factory=list)
    reason: str = Field(default="", max_length=2000)


class AgentAnswer(BaseModel):
    """What an agent submits for one judge task."""

    model_config = ConfigDict(extra="forbid")

    findings: list[AgentFinding] = Field(max_length=MAX_CLAIMS)
    confidence: float = Field(default=0.5, ge=0, le=1)


def answer_schema() -> dict[str, Any]:
    return AgentAnswer.model_json_schema()


def check_answer(answer: AgentAnswer, claim_ids: list[str], source_ids: list[str]) -> list[str]:
    """What is wrong with an answer that its schema cannot tell (unknown or repeated ids)."""
    problems = []
    known = set(claim_ids)
    seen: set[str] = set()
    for finding in answer.findings:
        if finding.claim_id not in known:
            problems.append(f"claim_id {finding.claim_id!r} is not a claim of this task")
        elif finding.claim_id in seen:
            problems.append(f"claim_id {finding.claim_id!r} has more than one finding")
        seen.add(finding.claim_id)
        if finding.source_id is not None and finding.source_id not in source_ids:
            problems.append(f"source_id {finding.source_id!r} is not a source of this task")
    missing = [c for c in claim_ids if c not in seen]
    if missing:
        problems.append(f"no finding for claim(s) {', '.join(missing[:10])}")
    return problems


class AgentReply(BaseModel):
    """An answered task: the answer and the client that gave it (from its MCP handshake)."""

    answer: AgentAnswer
    client: str | None = None
    client_version: str | None = None


Progress = Callable[[str], None]


class TaskQueue(Protocol):
    def ask(self, claims: list[ClaimIn], evidence: list[EvidenceIn], *, wait_seconds: float) -> AgentReply:
        """Post one task and wait for its answer; JudgeFailed when none comes in time."""
        ...


class AgentJudge:
    def __init__(self, queue: TaskQueue, *, wait_seconds: float = DEFAULT_WAIT_SECONDS) -> None:
        self.queue = queue
        self.wait_seconds = wait_seconds
        self._info = ValidatorInfo(name=NAME, version=VERSION)

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> AgentJudge:
        queue = config.get("queue")
        if queue is None:
            raise JudgeFailed("The agent judge works on a vault: validate a note, or call the sidecar of a vault.")
        return cls(queue, wait_seconds=float(config.get("wait_seconds") or DEFAULT_WAIT_SECONDS))

    @property
    def info(self) -> ValidatorInfo:
        return self._info

    def judge(self, claims: list[ClaimIn], evidence: list[EvidenceIn]) -> JudgeOutput:
        reply = self.queue.ask(claims, evidence, wait_seconds=self.wait_seconds)
        findings = [
            Finding(
                claim_id=f.claim_id,
                verdict=f.verdict,
                source_id=f.source_id,
                quote=join_quotes(f.quotes),
                reason=f.reason,
            )
            for f in reply.answer.findings
        ]
        info = self._info.model_copy(update={"client": reply.client, "client_version": reply.client_version})
        return JudgeOutput(findings=findings, confidence=reply.answer.confidence, info=info)
