"""The other agent backends: `none` waits, `openai_compat` against a local chat-completions stand-in."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from knowledge_harness.pipeline.contract import State
from knowledge_harness.pipeline.engine import Pipeline
from knowledge_harness.vault.paths import Vault

from ..support.people import PERSON
from ..support.pipeline_helpers import local_server, packet_for, request_note, write_configs, write_note

QUESTION = "Obsidian のプロパティは YAML 1.2 の真偽値として読まれるのか知りたい。"


def _vault(tmp_path: Path, agents: str, agent_endpoint: tuple[str, str] | None = None) -> Path:
    vault = tmp_path / "v"
    write_note(
        vault,
        "Notes/yaml.md",
        "# YAML 1.2\n\nYAML 1.2 の core schema では真偽値は true/false だけ。Obsidian のプロパティ。\n",
    )
    write_note(vault, "Requests/q.md", request_note(QUESTION))
    write_configs(vault, pipeline_toml=f'{agents}\n[evidence]\nproviders = ["vault"]\n', agent_endpoint=agent_endpoint)
    return vault


def test_no_backend_waits(tmp_path: Path) -> None:
    vault = _vault(tmp_path, '[agents]\nbackend = "none"\n')
    p = Pipeline(Vault.open(vault))
    run_id = p.capture_note("Requests/q.md").run_id
    p.authorize(run_id, actor=PERSON)
    status = p.advance(run_id)
    assert status.state == State.EVIDENCE_READY
    assert status.waiting_for is not None and status.waiting_for.startswith("agent_backend:O-05")
    assert p.next_task() is None


def test_openai_compat_backend(tmp_path: Path) -> None:
    """A STAND-IN speaking the chat-completions wire format (not a model): it answers with a packet
    built from the task's sources; the first answer cites an unknown source and is not used."""
    calls: list[dict[str, Any]] = []

    def chat(path: str, q: dict[str, list[str]], body: bytes) -> tuple[int, str, bytes]:
        request = json.loads(body)
        calls.append(request)
        task = json.loads(request["messages"][1]["content"])
        packet = packet_for(task["inputs"]["sources"])
        if len(calls) == 1:
            packet["issues"][0]["facts"][0]["source_ids"] = ["S-invented00"]
        answer = {"choices": [{"index": 0, "message": {"role": "assistant", "content": json.dumps(packet)}}]}
        return 200, "application/json", json.dumps(answer).encode()

    with local_server(chat) as llm:
        agents = '[agents]\nbackend = "openai_compat"\n'
        agents += '[agents.operations]\n"O-06" = "none"\n'  # part 2: the stand-in only speaks O-05
        vault = _vault(tmp_path, agents, agent_endpoint=(llm.url("/v1"), "stand-in"))
        p = Pipeline(Vault.open(vault))
        run_id = p.capture_note("Requests/q.md").run_id
        p.authorize(run_id, actor=PERSON)
        first = p.advance(run_id)
        assert first.records[-1]["operation"] == "O-05"
        assert first.records[-1]["result"] == "RETRYABLE_ERROR"
        assert first.records[-1]["reason_codes"] == ["AGENT_OUTPUT_INVALID"]
        second = p.advance(run_id)
    assert second.records[-1]["operation"] == "O-05" and second.records[-1]["result"] == "ADVANCE"
    assert second.records[-1]["producer"] == "agent"
    assert "backend:openai_compat:stand-in" in second.records[-1]["input_refs"]
    assert second.waiting_for is not None and second.waiting_for.startswith("agent_backend:O-06")
    assert calls[0]["model"] == "stand-in"
