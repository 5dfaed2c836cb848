"""After #44: the agent token called a paid judge without the machine's budget through the doors that
are not a batch plan (`POST /v1/trust/notes/{path}/validate?dry_run=true`, `POST /v1/validate`, the
MCP `validate` tools), and two agent plans at once both passed a budget check that only one fitted.

A real `kh serve`, the example vault's evidence site, and a STAND-IN for an OpenAI-compatible server
(tests/support/llm_standin.py, not a model) that counts the chat-completions calls it gets."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from ..conftest import copy_example_vault, start_sidecar, stop_sidecar, use_machine_config
from ..support.llm_standin import LLMStandIn
from ..support.standin_agent import call, http_agent

pytestmark = pytest.mark.usefixtures("evidence_site")

NOTE = "Keywords/冪等性.md"


def _paid_vault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, standin: LLMStandIn, model: str, budget: int) -> Path:
    vault = copy_example_vault(tmp_path / "vault")
    _paid_vault_config(tmp_path, monkeypatch, standin, model, budget)
    (vault / ".harness" / "policy.toml").write_text('[judge]\nprofile = "local"\n', encoding="utf-8")
    return vault


def _paid_vault_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, standin: LLMStandIn, model: str, budget: int
) -> None:
    use_machine_config(
        monkeypatch,
        tmp_path,
        '[evidence]\nallow_private_hosts = ["127.0.0.1:8731"]\n'
        f'[judges.local]\nbase_url = "{standin.base_url}"\nmodel = "{model}"\n'
        f"[agents]\njudge_calls_per_day = {budget}\n",
    )


def test_every_agent_door_to_a_paid_judge_spends_the_machines_budget_once_even_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two plans sent together (the stand-in answers after 0.2 s, so both are in flight at once) on a
    budget of one: before, each passed the check before the other stored its plan. Then the owner
    grants one more call: a dry run spends it, and every agent door to the paid judge is refused."""
    standin = LLMStandIn(slow_seconds=0.2).start()
    vault = _paid_vault(tmp_path, monkeypatch, standin, "slow", budget=1)
    sidecar = start_sidecar(vault)
    try:
        answers: list[httpx.Response] = []
        start = threading.Barrier(2)

        def plan() -> None:
            with sidecar.agent_client() as agent:
                start.wait()
                answers.append(agent.post("/v1/batches", json={"stage": "canary", "judge": "openai_compat"}))

        threads = [threading.Thread(target=plan) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        assert sorted(a.status_code for a in answers) == [200, 409], [a.text for a in answers]
        assert len(standin.requests) == 1
        raced = next(a for a in answers if a.status_code == 409).json()["error"]
        assert raced["detail"]["used_today"] == 1 and "judge_calls_per_day" in raced["message"]

        _paid_vault_config(tmp_path, monkeypatch, standin, "slow", budget=2)
        dry_run = f"/v1/trust/notes/{NOTE}/validate"
        with sidecar.agent_client() as agent:
            first = agent.post(dry_run, params={"dry_run": "true", "judge": "openai_compat"})
            assert first.status_code == 200, first.text
            assert len(standin.requests) == 2

        with sidecar.agent_client() as agent:
            second = agent.post(dry_run, params={"dry_run": "true"})  # the policy's (paid) judge
            assert second.status_code == 409, second.text
            error = second.json()["error"]
            assert "may not spend money" in error["message"] and "judge_calls_per_day" in error["message"]
            assert error["detail"] == {"judge": "openai_compat", "judge_calls": 1, "budget": 2, "used_today": 2}
            texts = {
                "claims": [{"id": "c1", "text": "冪等性とは何度実行しても結果が同じになる性質である。"}],
                "evidence": [{"source_id": "s1", "text": "冪等性とは何度実行しても結果が同じになる性質である。"}],
            }
            validated = agent.post("/v1/validate", json={**texts, "options": {"judge": "openai_compat"}})
            assert validated.status_code == 409, validated.text
            free = agent.post(dry_run, params={"dry_run": "true", "judge": "lexical"})
            assert free.status_code == 200, free.text

            async def over_mcp() -> list[dict[str, Any]]:
                async with http_agent(sidecar) as session:
                    return [
                        await call(session, "validate_note_dry_run", path=NOTE, judge="openai_compat"),
                        await call(session, "validate", **texts, options={"judge": "openai_compat"}),
                    ]

            for answer in anyio.run(over_mcp):
                assert answer["error"]["code"] == "refused", answer
                assert "judge_calls_per_day" in answer["error"]["message"]
        assert len(standin.requests) == 2  # nothing above reached the paid judge
        with sidecar.client() as person:  # the person's own door is not the agent's budget
            assert person.post(dry_run, params={"dry_run": "true"}).status_code == 200
        assert len(standin.requests) == 3
    finally:
        stop_sidecar(sidecar)
        standin.stop()
