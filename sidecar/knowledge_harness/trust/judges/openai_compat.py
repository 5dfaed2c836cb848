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
import os
import re
from importlib import resources
from typing import Any, Literal

import httpx
from pydantic import BaseModel, Field, ValidationError

from ..validation_models import ClaimIn, EvidenceIn, Finding, ValidatorInfo
from .base import JudgeFailed, JudgeOutput

NAME = "openai_compat"
VERSION = "1"
MAX_EVIDENCE_CHARS_PER_SOURCE = 12_000
_FENCE = re.compile(r"^\s*```(?:json)?\s*|\s*```\s*$")


def load_prompt() -> str:
    return resources.files(__package__).joinpath("prompt.md").read_text(encoding="utf-8")


class _LLMFinding(BaseModel):
    claim_id: str = Field(max_length=256)
    verdict: Literal["supported", "unsupported", "contradicted"]
    source_id: str | None = Field(default=None, max_length=256)
    quote: str = Field(default="", max_length=2000)
    reason: str = Field(default="", max_length=2000)


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
                "required": ["claim_id", "verdict", "source_id", "quote", "reason"],
                "properties": {
                    "claim_id": {"type": "string"},
                    "verdict": {"type": "string", "enum": ["supported", "unsupported", "contradicted"]},
                    "source_id": {"type": ["string", "null"]},
                    "quote": {"type": "string"},
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
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.api_key_env = api_key_env
        self.timeout_seconds = timeout_seconds
        self._transport = transport
        self._info = ValidatorInfo(name=NAME, version=VERSION, model=model)
        self.prompt = load_prompt()

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> OpenAICompatJudge:
        base_url = config.get("base_url")
        model = config.get("model")
        if not base_url or not model:
            raise JudgeFailed("The openai_compat judge needs judge.base_url and judge.model in the policy.")
        return cls(
            base_url=str(base_url),
            model=str(model),
            api_key_env=config.get("api_key_env"),
            timeout_seconds=float(config.get("timeout_seconds") or 60.0),
        )

    @property
    def info(self) -> ValidatorInfo:
        return self._info

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        if self.api_key_env:
            key = os.environ.get(self.api_key_env, "").strip()
            if not key:
                raise JudgeFailed(f"The environment variable {self.api_key_env} (judge.api_key_env) is empty.")
            headers["Authorization"] = f"Bearer {key}"
        return headers

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

    def _post(self, client: httpx.Client, messages: list[dict[str, str]], structured: bool) -> httpx.Response:
        body: dict[str, Any] = {"model": self.model, "messages": messages, "temperature": 0}
        if structured:
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "validation_result", "schema": RESPONSE_SCHEMA, "strict": True},
            }
        try:
            return client.post(f"{self.base_url}/chat/completions", json=body, headers=self._headers())
        except httpx.TimeoutException as exc:
            raise JudgeFailed(
                f"The model at {self.base_url} did not answer within {self.timeout_seconds:g} s."
            ) from exc
        except httpx.HTTPError as exc:
            raise JudgeFailed(f"The model at {self.base_url} could not be reached ({type(exc).__name__}).") from exc

    def _complete(self, client: httpx.Client, messages: list[dict[str, str]]) -> str:
        response = self._post(client, messages, structured=True)
        if response.status_code in (400, 422):  # no json_schema support: instructions only
            response = self._post(client, messages, structured=False)
        if response.status_code != 200:
            raise JudgeFailed(f"The model answered HTTP {response.status_code}.")
        try:
            data = response.json()
            content = data["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise JudgeFailed("The model's response is not a chat completion.") from exc
        if not isinstance(content, str):
            raise JudgeFailed("The model's message has no text content.")
        return content

    def judge(self, claims: list[ClaimIn], evidence: list[EvidenceIn]) -> JudgeOutput:
        messages = [
            {"role": "system", "content": self.prompt},
            {"role": "user", "content": self._payload(claims, evidence)},
        ]
        problem = ""
        with httpx.Client(timeout=self.timeout_seconds, transport=self._transport) as client:
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
                        quote=f.quote,
                        reason=f.reason,
                    )
                    for f in answer.findings
                ]
                return JudgeOutput(findings=findings, confidence=answer.confidence)
        raise JudgeFailed(f"The model gave invalid output twice: {problem}")
