"""The agent judge's task lifecycle on real task files: a validation waits, agents take and answer.

The waiting validation runs in a thread of this process, the agents are the service calls behind
the MCP tools (the MCP doors themselves: tests/cli/test_validate.py over stdio and
tests/api/test_mcp_judge.py over /mcp). An agent that disconnects is a real process that exits.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from knowledge_harness import actors
from knowledge_harness.errors import SubmissionRefused
from knowledge_harness.trust.validate import judge_queue
from knowledge_harness.trust.validate.judge_queue import VaultTaskQueue
from knowledge_harness.trust.validate.judges.agent import AgentJudge
from knowledge_harness.trust.validate.validation_models import ClaimIn, EvidenceIn, ValidationRequest, ValidationResult
from knowledge_harness.trust.validate.validation_service import validator_label
from knowledge_harness.trust.validate.validator import validate
from knowledge_harness.vault.paths import Vault

PAGE = "Mount Fuji is 3,776 metres high. It is the highest mountain in Japan."
REQUEST = ValidationRequest(
    claims=[ClaimIn(id="c1", text="Mount Fuji is 3,776 metres high.")],
    evidence=[EvidenceIn(source_id="s1", url="https://example.org/fuji", text=PAGE)],
)
ANSWER = {
    "findings": [
        {
            "claim_id": "c1",
            "verdict": "supported",
            "source_id": "s1",
            "quotes": ["Mount Fuji is 3,776 metres high."],
            "reason": "the page says so",
        }
    ],
    "confidence": 0.9,
}
AGENT_A = actors.agent("mcp-stdio", "agent-a", client_version="1.0")
AGENT_B = actors.agent("mcp-stdio", "agent-b", client_version="2.0")


class Waiting:
    """A validation with the agent judge, waiting in a thread."""

    def __init__(self, vault: Vault, wait_seconds: float) -> None:
        self.messages: list[str] = []
        self.result: ValidationResult | None = None
        judge = AgentJudge(VaultTaskQueue(vault, progress=self.messages.append), wait_seconds=wait_seconds)
        self.thread = threading.Thread(target=self._run, args=(judge,), daemon=True)
        self.thread.start()

    def _run(self, judge: AgentJudge) -> None:
        self.result = validate(REQUEST, judge)

    def done(self) -> ValidationResult:
        self.thread.join(timeout=30)
        assert self.result is not None
        return self.result


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    (tmp_path / "vault").mkdir()
    return Vault.open(tmp_path / "vault")


def _tasks(vault: Vault) -> list[dict[str, Any]]:
    folder = vault.harness_dir / "judge-tasks"
    return [json.loads(p.read_text()) for p in folder.glob("jt-*.json") if not p.name.endswith(".evidence.json")]


def _take(vault: Vault, agent: actors.Actor) -> dict[str, Any]:
    task = judge_queue.next_task(vault, agent, wait_seconds=10)["task"]
    assert task is not None
    return dict(task)


def test_an_answering_agent_is_the_judge_on_the_record(vault: Vault) -> None:
    waiting = Waiting(vault, wait_seconds=20)
    task = _take(vault, AGENT_A)
    assert [c["id"] for c in task["claims"]] == ["c1"] and task["sources"][0]["pages"] == 1
    assert set(task["instructions"]) == {"en", "ja"} and "findings" in task["answer_schema"]["properties"]
    assert judge_queue.submit(vault, AGENT_A, task["task_id"], ANSWER)["accepted"] is True
    result = waiting.done()
    assert result.verdict == "pass" and result.findings[0].quotes[0].text == "Mount Fuji is 3,776 metres high."
    assert validator_label(result.validator) == "agent:agent-a 1.0"


def test_with_no_agent_the_validation_says_so_and_never_passes(vault: Vault) -> None:
    waiting = Waiting(vault, wait_seconds=0.6)
    result = waiting.done()
    assert result.verdict == "unverifiable"
    assert "no agent took judge task" in result.findings[0].reason
    assert "no agent has asked for judge tasks lately" in waiting.messages[0]
    assert [t["state"] for t in _tasks(vault)] == ["expired"]


def test_a_late_answer_is_refused_and_changes_nothing(vault: Vault) -> None:
    waiting = Waiting(vault, wait_seconds=1.0)
    task = _take(vault, AGENT_A)
    result = waiting.done()
    assert result.verdict == "unverifiable" and "agent-a 1.0 took judge task" in result.findings[0].reason
    assert any("agent-a 1.0 took judge task" in m and "waiting for its answer" in m for m in waiting.messages)
    with pytest.raises(SubmissionRefused) as refused:
        judge_queue.submit(vault, AGENT_A, task["task_id"], ANSWER)
    assert refused.value.detail["reasons"] == ["expired"]
    assert [t["state"] for t in _tasks(vault)] == ["expired"]


def test_two_agents_never_take_the_same_task(vault: Vault) -> None:
    waiting = Waiting(vault, wait_seconds=20)
    task = _take(vault, AGENT_A)
    assert judge_queue.next_task(vault, AGENT_B)["task"] is None
    with pytest.raises(SubmissionRefused) as refused:
        judge_queue.submit(vault, AGENT_B, task["task_id"], ANSWER)
    assert refused.value.detail["reasons"] == ["not_taken_by_you"]
    judge_queue.submit(vault, AGENT_A, task["task_id"], ANSWER)
    assert validator_label(waiting.done().validator) == "agent:agent-a 1.0"


def test_a_task_whose_agent_disconnected_is_open_for_another(vault: Vault) -> None:
    waiting = Waiting(vault, wait_seconds=30)
    deadline = time.time() + 10
    while not _tasks(vault) and time.time() < deadline:
        time.sleep(0.05)
    # another process takes the task and exits without answering (a `kh mcp` whose client went away)
    gone = (
        "import sys; from knowledge_harness.trust.validate.judge_tasks import JudgeTaskStore;"
        "from knowledge_harness.vault.paths import Vault;"
        "print(JudgeTaskStore(Vault.open(sys.argv[1])).take({'name': 'agent:gone', 'client': 'gone'})['task_id'])"
    )
    taken = subprocess.run([sys.executable, "-c", gone, str(vault.root)], capture_output=True, text=True, check=True)
    assert taken.stdout.strip() == _tasks(vault)[0]["task_id"]
    task = _take(vault, AGENT_B)
    assert task["task_id"] == taken.stdout.strip()
    judge_queue.submit(vault, AGENT_B, task["task_id"], ANSWER)
    result = waiting.done()
    assert validator_label(result.validator) == "agent:agent-b 2.0" and result.verdict == "pass"
    assert _tasks(vault)[0]["released"][0]["client"] == "gone"


def test_an_answer_off_the_task_is_refused_with_reasons_and_can_be_fixed(vault: Vault) -> None:
    waiting = Waiting(vault, wait_seconds=20)
    task = _take(vault, AGENT_A)
    wrong = {"findings": [{**ANSWER["findings"][0], "claim_id": "c9"}]}  # type: ignore[dict-item]
    with pytest.raises(SubmissionRefused) as refused:
        judge_queue.submit(vault, AGENT_A, task["task_id"], wrong)
    assert any("c9" in r for r in refused.value.detail["reasons"])
    with pytest.raises(SubmissionRefused):
        judge_queue.submit(vault, AGENT_A, task["task_id"], {"findings": "all fine"})
    judge_queue.submit(vault, AGENT_A, task["task_id"], ANSWER)
    assert waiting.done().verdict == "pass"


def test_long_pages_come_in_bounded_pages_with_their_offsets(vault: Vault) -> None:
    long_text = "".join(f"Sentence number {i} of a long page. " for i in range(2000))
    request = ValidationRequest(
        claims=[ClaimIn(id="c1", text="Sentence number 1999 of a long page.")],
        evidence=[EvidenceIn(source_id="s1", text=long_text)],
    )
    judge = AgentJudge(VaultTaskQueue(vault), wait_seconds=20)
    thread = threading.Thread(target=validate, args=(request, judge), daemon=True)
    thread.start()
    task = _take(vault, AGENT_A)
    pages = task["sources"][0]["pages"]
    assert pages == -(-len(long_text) // judge_queue.PAGE_CHARS) > 1
    got = [judge_queue.evidence_page(vault, AGENT_A, task["task_id"], "s1", p) for p in range(1, pages + 1)]
    assert "".join(g["text"] for g in got) == long_text
    assert all(long_text[g["start"] : g["end"]] == g["text"] for g in got)
    judge_queue.submit(
        vault,
        AGENT_A,
        task["task_id"],
        {"findings": [], "confidence": 0.1}
        | {"findings": [{"claim_id": "c1", "verdict": "unsupported", "source_id": None, "quotes": [], "reason": "-"}]},
    )
    thread.join(timeout=30)


def test_the_persons_cancel_ends_the_wait_for_an_agent_and_the_task_expires(vault: Vault) -> None:
    """The plugin's Cancel (core/jobs.py) reaches the agent judge's wait: no 10-minute wait runs on."""
    from knowledge_harness.core.jobs import JobRegistry
    from knowledge_harness.errors import Cancelled

    jobs = JobRegistry()
    job = jobs.start("plugin-job-0003", "POST validate", "person")
    judge = AgentJudge(VaultTaskQueue(vault, cancelled=job.is_cancelled), wait_seconds=600)
    outcome: list[BaseException] = []

    def run() -> None:
        try:
            validate(REQUEST, judge)
        except Cancelled as exc:
            outcome.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    wait_for_task = time.monotonic() + 10
    while not _tasks(vault) and time.monotonic() < wait_for_task:
        time.sleep(0.02)
    assert [t["state"] for t in _tasks(vault)] == ["open"]
    jobs.cancel("plugin-job-0003", "person")
    thread.join(timeout=10)
    assert not thread.is_alive() and outcome and outcome[0].code == "cancelled"
    assert [t["state"] for t in _tasks(vault)] == ["expired"]  # no agent takes a task nobody waits for
