"""The agent door: one interface for Skill/Agent and AI-judge steps, with pluggable backends.

An operation that needs an agent describes a *task*: the operation, its inputs, the JSON Schema
of the expected output and instructions in Japanese and English. A backend performs it:

- `external`: the task is published; Claude Code, Codex or any client reads it over REST,
  `kh pipeline task next` or MCP `harness_next_task`, and submits the output with
  `harness_submit_result` (or REST / CLI). The run waits meanwhile.
- `openai_compat`: the task is sent to an OpenAI-compatible chat API and the JSON answer used.
- `none`: nothing performs it; the run waits at that operation (`waiting_for` says so).

Whatever the backend, the output is validated against the schema and the operation's program
rules; an invalid output is refused with reasons. Nothing is ever fabricated.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from jsonschema import Draft202012Validator  # type: ignore[import-untyped]  # a runtime dependency of mcp
from pydantic import BaseModel

from ..trust.validate.llm_client import ChatClient, ChatError
from .config import PipelineConfig
from .contract import ReasonCode
from .safety import (
    DEFAULT_PRIVATE_MARKERS,
    DEFAULT_TECHNICAL_SENSE_MARKERS,
    SECRET,
    find_sensitive,
    read_private,
)


@dataclass(frozen=True, slots=True)
class Refusal:
    code: str
    path: str
    message: str

    def as_dict(self) -> dict[str, str]:
        return {"code": self.code, "path": self.path, "message": self.message}


class AgentTask(BaseModel):
    task_id: str
    run_id: str
    operation: str
    operation_name: str
    kind: str  # agent | ai_judge
    inputs: dict[str, Any]
    output_schema: dict[str, Any]
    instructions_ja: str
    instructions_en: str
    published_at: str
    submit: dict[str, str]


class OutputRules(Protocol):
    """What an output is checked against: the agent step's schema and its program rules (ops/base.py)."""

    def output_schema(self) -> dict[str, Any]: ...

    def check(self, inputs: dict[str, Any], output: dict[str, Any]) -> list[Refusal]: ...


def validate_output(
    step: OutputRules,
    inputs: dict[str, Any],
    output: Any,
    *,
    private_words: Iterable[str] = DEFAULT_PRIVATE_MARKERS,
    technical_words: Iterable[str] = DEFAULT_TECHNICAL_SENSE_MARKERS,
) -> list[Refusal]:
    """Schema first, then (on a valid shape) the operation's program rules; always the secret scan."""
    if not isinstance(output, dict):
        return [Refusal(ReasonCode.SUBMISSION_SCHEMA_INVALID, "$", "The output must be a JSON object.")]
    validator = Draft202012Validator(step.output_schema())
    errors = sorted(validator.iter_errors(output), key=lambda e: list(e.absolute_path))
    # every refusal of one submission is reported together: the program rules need a valid shape,
    # the secret scan does not
    refusals = (
        [
            Refusal(
                ReasonCode.SUBMISSION_SCHEMA_INVALID,
                "$" + "".join(f"[{p!r}]" if isinstance(p, int) else f".{p}" for p in e.absolute_path),
                e.message[:300],
            )
            for e in errors[:20]
        ]
        if errors
        else step.check(inputs, output)
    )
    text = json.dumps(output, ensure_ascii=False)
    found = find_sensitive(text)
    secrets = [f for f in found if f.category == SECRET]
    if secrets:
        kinds = sorted({f.kind for f in secrets})
        refusals.append(
            Refusal(
                ReasonCode.SECRET_IN_OUTPUT, "$", f"The output contains what looks like a secret: {', '.join(kinds)}."
            )
        )
    # personal data is caught here, before anything is stored, not only in the draft at O-09
    personal = sorted({f.kind for f in found if f.category != SECRET})
    if personal:
        refusals.append(
            Refusal(
                ReasonCode.PERSONAL_INFO_IN_OUTPUT,
                "$",
                f"The output contains unmasked personal or company information: {', '.join(personal)}. "
                "Leave it out (the inputs only carry masked text).",
            )
        )
    private = [
        m
        for m in read_private(text, None, private_words, technical_words).private
        if not m.startswith(("property:", "tag:"))
    ]
    if private:
        refusals.append(
            Refusal(
                ReasonCode.PRIVATE_CONTENT_IN_OUTPUT,
                "$",
                f"The output contains clearly private content: {', '.join(private)}.",
            )
        )
    return refusals


# -- backends ---------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Pending:
    """The task is published and waits for an external agent."""


@dataclass(frozen=True, slots=True)
class Unavailable:
    reason: str


@dataclass(frozen=True, slots=True)
class Produced:
    output: Any
    model: str


@dataclass(frozen=True, slots=True)
class Failed:
    message: str
    transient: bool


Answer = Pending | Unavailable | Produced | Failed


class AgentBackend(Protocol):
    name: str

    def perform(self, task: AgentTask) -> Answer: ...


class ExternalBackend:
    name = "external"

    def perform(self, task: AgentTask) -> Answer:
        return Pending()


class NoBackend:
    name = "none"

    def perform(self, task: AgentTask) -> Answer:
        return Unavailable("no agent backend is configured for this operation")


def task_prompt(task: AgentTask) -> list[dict[str, str]]:
    system = (
        "You perform one step of the Knowledge Harness pipeline. Answer with ONE JSON object that "
        "matches the given JSON Schema, nothing else. Use only the inputs; never invent sources.\n\n"
        f"{task.instructions_en}\n\n{task.instructions_ja}"
    )
    user = json.dumps(
        {"operation": task.operation, "inputs": task.inputs, "output_schema": task.output_schema},
        ensure_ascii=False,
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


class OpenAICompatBackend:
    """An agent step answered by an OpenAI-compatible chat model, through the validator's client
    (trust/validate/llm_client.py): JSON mode, the message content parsed as the step's output."""

    name = "openai_compat"

    def __init__(self, base_url: str | None, model: str | None, api_key_env: str | None, timeout: float) -> None:
        self.chat = ChatClient(base_url or "", model or "", api_key_env, timeout) if base_url and model else None
        self.model = model or ""

    def perform(self, task: AgentTask) -> Answer:
        if self.chat is None:
            return Unavailable("openai_compat needs base_url and model in [agents.openai_compat]")
        try:
            with self.chat.connect() as client:
                content = self.chat.complete(
                    client, task_prompt(task), response_format={"type": "json_object"}, retry_without_format=False
                )
        except ChatError as exc:
            return Failed(exc.message, transient=exc.transient)
        try:
            return Produced(json.loads(content), self.model)
        except ValueError:
            return Failed("the model's answer is not a JSON object", transient=True)


BackendFactory = Callable[[PipelineConfig], AgentBackend]


def _openai(config: PipelineConfig) -> AgentBackend:
    s = config.agents.openai_compat
    return OpenAICompatBackend(s.base_url, s.model, s.api_key_env, s.timeout_seconds)


BACKENDS: dict[str, BackendFactory] = {
    "external": lambda _config: ExternalBackend(),
    "openai_compat": _openai,
    "none": lambda _config: NoBackend(),
}


def backend_for(config: PipelineConfig, operation: str) -> AgentBackend:
    return BACKENDS[config.agents.backend_for(operation)](config)
