"""Judges behind one small protocol, found by name in a registry (like `llm`'s model plugins).

`get_judge(name, config)` returns a Judge; `register_judge(name, factory)` adds one. Built in:
`lexical` (the embedded offline default), `lexical_embeddings` (the same judge reading English words
through their neighbours in WordLlama's embeddings; the `embeddings` extra), `openai_compat` (any
OpenAI-compatible chat-completions endpoint) and `agent` (a connected MCP agent answers judge tasks). This package imports nothing from `vault/` and writes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .base import Judge, JudgeFailed, JudgeOutput, UnknownJudge

JudgeFactory = Callable[[dict[str, Any]], Judge]

_REGISTRY: dict[str, JudgeFactory] = {}


def register_judge(name: str, factory: JudgeFactory) -> None:
    _REGISTRY[name] = factory


def judge_names() -> list[str]:
    return sorted(_REGISTRY)


def get_judge(name: str = "lexical", config: dict[str, Any] | None = None) -> Judge:
    """A judge by name; `config` carries backend settings (base_url, model, api_key_env, timeout_seconds)."""
    try:
        factory = _REGISTRY[name]
    except KeyError:
        raise UnknownJudge(f"Unknown judge {name!r}; known: {', '.join(judge_names())}.") from None
    return factory(dict(config or {}))


def _lexical(_: dict[str, Any]) -> Judge:
    from .lexical import LexicalJudge

    return LexicalJudge()


def _lexical_embeddings(_: dict[str, Any]) -> Judge:
    from .embedded import profile_judge

    return profile_judge()


def _agent(config: dict[str, Any]) -> Judge:
    from .agent import AgentJudge

    return AgentJudge.from_config(config)


def _openai_compat(config: dict[str, Any]) -> Judge:
    from .openai_compat import OpenAICompatJudge

    return OpenAICompatJudge.from_config(config)


register_judge("lexical", _lexical)
register_judge("lexical_embeddings", _lexical_embeddings)  # optional: the `embeddings` extra
register_judge("openai_compat", _openai_compat)
register_judge("agent", _agent)  # a connected MCP agent answers judge tasks (agent.py)

__all__ = ["Judge", "JudgeFailed", "JudgeOutput", "UnknownJudge", "get_judge", "judge_names", "register_judge"]
