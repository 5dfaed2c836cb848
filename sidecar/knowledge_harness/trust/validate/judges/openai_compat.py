"""A judge backed by any OpenAI-compatible chat-completions endpoint.

Works with Workers AI, Ollama, llama.cpp server, vLLM and OpenAI: set `base_url` (ending before
`/chat/completions`, e.g. http://127.0.0.1:11434/v1), `model`, and `api_key_env`, the NAME of the
environment variable that holds the key (never the key itself). The prompt is `prompt.md` beside
this module. The answer is requested as JSON through `response_format` json_schema; a server that
refuses that parameter (HTTP 400/422) is asked again with the instructions alone. The output is
validated with pydantic; invalid output is retried once; any other failure (HTTP error, timeout,
invalid output twice) raises JudgeFailed, which the validator turns into `unverifiable`.
"""

from __future__ import annotations

import json
import re
from importlib import resources
from typing import Any, Literal

import httpx
from pydantic import BaseModel, Field, ValidationError

from ..llm_client import ChatClient, ChatError
from ..quotes import MAX_QUOTES, Quotes, join_quotes
from ..validation_models import ClaimIn, EvidenceIn, Finding, ValidatorInfo
from .base import JudgeFailed, JudgeOutput

NAME = "openai_compat"
VERSION = "2"  # 2: several quotes per finding
MAX_EVIDENCE_CHARS_PER_SOURCE = 12_000
_FENCE = re.compile(r"^\s*```(?:json)?\s*|\s*```\s*$")


def load_prompt() -> str:
    return resources.files(__package__).joinpath("prompt.md").read_text(encoding="utf-8")


class _LLMFinding(BaseModel):
    claim_id: str = Field(max_length=256)
    verdict: Literal["supported", "unsupported", "contradicted"]
    source_id: str | None = Field(default=None, max_length=256)
    quotes: Quotes = Field(default_factory=list)
    quote: str = Field(default="", max_length=2000)  # an older answer's single quote
    reason: str = Field(default="", max_length=2000)

    def joined_quote(self) -> str:
        """The quotes as the validator reads them: passages of one page joined by an ellipsis."""
        return join_quotes(self.quotes or [self.quote])


class _LLMAnswer(BaseModel):
    verdict: Literal["pass", "warn", "fail", "unverifiable"] | None = None
    score: float | None = Field(default=None, ge=0, le=1)
    confidence: float = Field(default=0.5, ge=0, le=1)
    findings: list[_LLMFinding]


RESPONSE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["verdict", "score", "confidence", "findings"],
    "properties": {
        "verdict": {"type": "string", "enum": ["pass", "warn", "fail"]},
        "score": {"type": "number"},
        "confidence": {"type": "number"},
        "findings": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["claim_id", "verdict", "source_id", "quotes", "reason"],
                "properties": {
                    "claim_id": {"type": "string"},
                    "verdict": {"type": "string", "enum": ["supported", "unsupported", "contradicted"]},
                    "source_id": {"type": ["string", "null"]},
                    "quotes": {"type": "array", "items": {"type": "string"}, "maxItems": MAX_QUOTES},
                    "reason": {"type": "string"},
                },
            },
        },
    },
}


class OpenAICompatJudge:
    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key_env: str | None = None,
        timeout_seconds: float = 60.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.chat = ChatClient(base_url, model, api_key_env, timeout_seconds, transport)
        self.base_url = self.chat.base_url
        self.model = model
        self.timeout_seconds = timeout_seconds
        self._info = ValidatorInfo(name=NAME, version=VERSION, model=model)
        self.prompt = load_prompt()

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> OpenAICompatJudge:
        base_url = config.get("base_url")
        model = config.get("model")
        if not base_url or not model:
            raise JudgeFailed(
                "The openai_compat judge needs base_url and model in the machine configuration ([judge] or a [judges.NAME] profile)."
            )
        return cls(
            base_url=str(base_url),
            model=str(model),
            api_key_env=config.get("api_key_env"),
            timeout_seconds=float(config.get("timeout_seconds") or 60.0),
        )

    @property
    def info(self) -> ValidatorInfo:
        return self._info

    def _payload(self, claims: list[ClaimIn], evidence: list[EvidenceIn]) -> str:
        return json.dumps(
            {
                "claims": [{"id": c.id, "text": c.text, "source_ids": c.source_ids} for c in claims],
                "evidence": [
                    {"source_id": e.source_id, "url": e.url, "text": (e.text or "")[:MAX_EVIDENCE_CHARS_PER_SOURCE]}
                    for e in evidence
                ],
            },
            ensure_ascii=False,
        )

    def _complete(self, client: httpx.Client, messages: list[dict[str, str]]) -> str:
        schema = {"name": "validation_result", "schema": RESPONSE_SCHEMA, "strict": True}
        try:
            return self.chat.complete(client, messages, response_format={"type": "json_schema", "json_schema": schema})
        except ChatError as exc:
            raise JudgeFailed(exc.message) from exc

    def judge(self, claims: list[ClaimIn], evidence: list[EvidenceIn]) -> JudgeOutput:
        messages = [
            {"role": "system", "content": self.prompt},
            {"role": "user", "content": self._payload(claims, evidence)},
        ]
        problem = ""
        with self.chat.connect() as client:
            for attempt in range(2):
                content = self._complete(client, messages)
                try:
                    answer = _LLMAnswer.model_validate(json.loads(_FENCE.sub("", content)))
                except (ValueError, ValidationError) as exc:
                    problem = str(exc).splitlines()[0][:300]
                    if attempt == 0:
                        messages = [
                            *messages,
                            {"role": "assistant", "content": content[:4000]},
                            {
                                "role": "user",
                                "content": f"That answer was not valid ({problem}). Answer with the JSON object only.",
                            },
                        ]
                    continue
                findings = [
                    Finding(
                        claim_id=f.claim_id,
                        verdict=f.verdict,
                        source_id=f.source_id,
                        quote=f.joined_quote(),
                        reason=f.reason,
                    )
                    for f in answer.findings
                ]
                return JudgeOutput(findings=findings, confidence=answer.confidence)
        raise JudgeFailed(f"The model gave invalid output twice: {problem}")
