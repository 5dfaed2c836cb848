"""Judge tasks between a waiting validation and an MCP agent (the `agent` judge's two sides).

- `VaultTaskQueue.ask` (the waiting side: `kh validate`, `kh batch plan`, the sidecar's dry run)
  posts a task in the vault's `.harness/judge-tasks/` (vault/judge_tasks.py) and polls it until
  an agent has answered or the wait is over, telling `progress` what happens.
- `next_task`, `evidence_page` and `submit` are the agent's side, behind the MCP tools
  `judge_next_task`, `judge_evidence` and `judge_submit` (agent scope: judging writes nothing
  but the task's own file; the person still approves every write).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import ValidationError

from ...actors import Actor
from ...errors import Cancelled, InputError, SubmissionRefused
from ...vault.paths import Vault
from .judge_tasks import JudgeTaskStore
from .judges.agent import (
    INSTRUCTIONS_EN,
    INSTRUCTIONS_JA,
    AgentAnswer,
    AgentReply,
    answer_schema,
    check_answer,
)
from .judges.base import JudgeFailed
from .validation_models import ClaimIn, EvidenceIn

PAGE_CHARS = 20_000
POLL_SECONDS = 0.2
PROGRESS_EVERY_SECONDS = 10.0
MAX_NEXT_TASK_WAIT = 60.0
SEEN_WITHIN_SECONDS = 15 * 60

Progress = Callable[[str], None]


def _pages(text: str) -> int:
    return max(1, math.ceil(len(text) / PAGE_CHARS))


def _agent(actor: Actor, session: str | None = None) -> dict[str, Any]:
    """The taker as a task records it; `session` is the HTTP MCP session (None over stdio)."""
    agent = {"name": actor.name, "client": actor.client, "client_version": actor.client_version, "via": actor.via}
    return {**agent, "session": session} if session else agent


def _who(taker: Mapping[str, Any] | None) -> str:
    if not taker:
        return "an agent"
    return " ".join(str(p) for p in (taker.get("client") or taker.get("name"), taker.get("client_version")) if p)


class VaultTaskQueue:
    """The waiting side, for one vault (and the note being validated, when there is one)."""

    def __init__(
        self,
        vault: Vault,
        *,
        note: Mapping[str, Any] | None = None,
        progress: Progress | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> None:
        self.store = JudgeTaskStore(vault)
        self.note = dict(note) if note else None
        self.progress = progress or (lambda _message: None)
        # the person's Cancel (core/jobs.py): the wait ends at the next poll, the task expires
        self.cancelled = cancelled or (lambda: False)

    def ask(self, claims: list[ClaimIn], evidence: list[EvidenceIn], *, wait_seconds: float) -> AgentReply:
        deadline = time.time() + wait_seconds
        task = {
            "note": self.note,
            "claims": [c.model_dump(exclude_none=True) for c in claims],
            "sources": [
                {
                    "source_id": e.source_id,
                    "url": e.url,
                    "characters": len(e.text or ""),
                    "pages": _pages(e.text or ""),
                }
                for e in evidence
            ],
            "deadline": deadline,
            "wait_seconds": wait_seconds,
        }
        task_id = self.store.post(task, {e.source_id: e.text or "" for e in evidence})
        seen = self.store.agents_seen(SEEN_WITHIN_SECONDS)
        around = (
            "agents seen lately: " + ", ".join(_who(a) for a in seen[:3])
            if seen
            else "no agent has asked for judge tasks lately"
        )
        self.progress(
            f"Judge task {task_id} waits for an agent ({len(claims)} claim(s), up to {wait_seconds:.0f} s; {around}). "
            "Ask your agent, connected with `kh mcp VAULT` or to /mcp, to take it: judge_next_task, then judge_submit."
        )
        state, last_report = "open", time.time()
        taker: dict[str, Any] = {}
        try:
            while True:
                current = self.store.poll(task_id)
                now = time.time()
                if current.get("state") == "answered":
                    return self._reply(current)
                if current.get("state") == "expired" or now >= deadline:
                    break
                if self.cancelled():
                    raise Cancelled(
                        f"Cancelled while judge task {task_id} waited for an agent: nothing was stored.",
                        detail={"task_id": task_id},
                    )
                new_taker: dict[str, Any] = current.get("taken_by") or {}
                if current.get("state") != state or new_taker.get("name") != taker.get("name"):
                    if current.get("state") == "taken":
                        self.progress(f"{_who(new_taker)} took judge task {task_id}; waiting for its answer.")
                    elif state == "taken":
                        self.progress(
                            f"{_who(taker)} disconnected before answering; judge task {task_id} is open again."
                        )
                    state, taker, last_report = str(current.get("state")), new_taker, now
                elif now - last_report >= PROGRESS_EVERY_SECONDS:
                    doing = f"{_who(taker)} is judging" if state == "taken" else "no agent has taken it yet"
                    self.progress(
                        f"Judge task {task_id}: {doing} ({now - deadline + wait_seconds:.0f} s of {wait_seconds:.0f} s)."
                    )
                    last_report = now
                time.sleep(POLL_SECONDS)
        finally:
            final = self.store.expire(task_id, "the validation stopped waiting")
        if final.get("state") == "answered":  # answered in the last instant
            return self._reply(final)
        if state == "taken":
            why = f"{_who(taker)} took judge task {task_id} but did not answer within {wait_seconds:.0f} s"
        elif final.get("released"):
            why = f"the agent that took judge task {task_id} disconnected and no other agent took it within {wait_seconds:.0f} s"
        else:
            why = (
                f"no agent took judge task {task_id} within {wait_seconds:.0f} s: no agent is connected to judge "
                f"({around}); connect one with `kh mcp VAULT` or to /mcp"
            )
        self.progress(f"Gave up: {why}.")
        raise JudgeFailed(why)

    def _reply(self, task: Mapping[str, Any]) -> AgentReply:
        taker = task.get("taken_by") or {}
        try:
            answer = AgentAnswer.model_validate(task.get("answer"))
        except ValidationError as exc:  # the file was changed behind our back: no judgment
            raise JudgeFailed(f"The answer to judge task {task.get('task_id')} is unreadable.") from exc
        return AgentReply(answer=answer, client=taker.get("client"), client_version=taker.get("client_version"))


def _task_view(task: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "task_id": task["task_id"],
        "note": task.get("note"),
        "claims": task["claims"],
        "sources": task["sources"],
        "deadline_seconds": max(0, round(float(task["deadline"]) - time.time())),
        "page_chars": PAGE_CHARS,
        "instructions": {"en": INSTRUCTIONS_EN, "ja": INSTRUCTIONS_JA},
        "answer_schema": answer_schema(),
    }


def next_task(vault: Vault, actor: Actor, *, wait_seconds: float = 0.0, session: str | None = None) -> dict[str, Any]:
    """The oldest open judge task, now taken by this agent; `wait_seconds` (≤ 60) waits for one."""
    store = JudgeTaskStore(vault)
    until = time.time() + max(0.0, min(wait_seconds, MAX_NEXT_TASK_WAIT))
    while True:
        task = store.take(_agent(actor, session))
        if task is not None:
            return {"task": _task_view(task)}
        if time.time() >= until:
            return {"task": None, "message": "No judge task is waiting; a validation with --judge agent posts one."}
        time.sleep(POLL_SECONDS * 2)


def evidence_page(
    vault: Vault, actor: Actor, task_id: str, source_id: str, page: int = 1, *, session: str | None = None
) -> dict[str, Any]:
    """One page (PAGE_CHARS characters) of a source's text, with its offsets in the whole text."""
    store = JudgeTaskStore(vault)
    store.held_by(task_id, _agent(actor, session))
    texts = store.evidence(task_id)
    if source_id not in texts:
        raise InputError(
            f"The judge task {task_id} has no source {source_id!r} (its sources: {', '.join(sorted(texts))}).",
            detail={"task_id": task_id, "source_id": source_id},
        )
    text = texts[source_id]
    pages = _pages(text)
    if not 1 <= page <= pages:
        raise InputError(f"Source {source_id} has {pages} page(s); page {page} does not exist.")
    start = (page - 1) * PAGE_CHARS
    end = min(len(text), start + PAGE_CHARS)
    return {
        "task_id": task_id,
        "source_id": source_id,
        "page": page,
        "pages": pages,
        "start": start,
        "end": end,
        "text": text[start:end],
    }


def submit(
    vault: Vault, actor: Actor, task_id: str, answer: Mapping[str, Any], *, session: str | None = None
) -> dict[str, Any]:
    """Record the agent's answer; a refusal says what to fix (the task stays the agent's)."""
    store = JudgeTaskStore(vault)
    try:
        task = store.held_by(task_id, _agent(actor, session))
    except SubmissionRefused as exc:
        if "expired" in (exc.detail or {}).get("reasons", []):
            store.record_late(task_id, _agent(actor, session))
        raise
    try:
        parsed = AgentAnswer.model_validate(dict(answer))
    except ValidationError as exc:
        reasons = [f"{'.'.join(str(p) for p in e['loc']) or 'answer'}: {e['msg']}" for e in exc.errors()[:20]]
        raise SubmissionRefused(
            "The answer does not match answer_schema.", detail={"task_id": task_id, "reasons": reasons}
        ) from exc
    problems = check_answer(
        parsed, [str(c["id"]) for c in task["claims"]], [str(s["source_id"]) for s in task["sources"]]
    )
    if problems:
        raise SubmissionRefused(
            "The answer does not fit the task: " + "; ".join(problems[:5]) + ".",
            detail={"task_id": task_id, "reasons": problems},
        )
    store.answer(task_id, _agent(actor, session), parsed.model_dump())
    return {
        "accepted": True,
        "task_id": task_id,
        "findings": len(parsed.findings),
        "message": "Recorded. The program checks every quote against its source; the person approves any change.",
    }


def release_session(vault: Vault, session: str, why: str) -> list[str]:
    """An HTTP MCP session ended: the judge tasks it held are open again for another agent."""
    return JudgeTaskStore(vault).release_session(session, why)
