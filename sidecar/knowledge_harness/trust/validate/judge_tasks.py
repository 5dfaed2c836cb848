"""Judge tasks: claims waiting for an agent's judgment, kept in `.harness/judge-tasks/`.

Validating or planning with the `agent` judge (`kh validate`, `kh batch plan`, `kh serve`) posts
a task here and waits; an MCP agent takes it through `kh mcp VAULT` or `/mcp` — usually another
process — reads the evidence and answers. Files are the meeting point because the waiting
process and the MCP server are rarely the same one. A task is two files: `<id>.json` (its
state, small, replaced atomically at each step) and `<id>.evidence.json` (the texts, written
once). Every change of state holds an exclusive flock on `judge-tasks/lock`, so two agents never
take the same task. The vault's writer lock is not used: a batch plan holds it while it waits.

States: `open` → `taken` (by one agent: its client name and version, and the pid of the process
serving it) → `answered`; `open` or `taken` → `expired` when the waiting side gives up or is gone
(an answer after that is refused: nobody reads it; the task keeps who answered late, and when). A `taken` task whose serving process is gone
(a `kh mcp` agent that disconnected) is `open` again for another agent, and so is one taken over
an HTTP MCP session (`/mcp`) that ended: closed, evicted, or its client's connection dropped
(api/mcp_sessions.py tells `release_session`). Over HTTP the holder is that session, not only the
client's name: another session of the same client cannot answer for it.

Agents that ask for judge tasks are remembered in `agents.json` (name, version, how, last seen),
so that a waiting validation can say whether any agent has been around at all.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import time
from collections.abc import Iterator, Mapping
from typing import Any

from ...core.clock import now_utc_z
from ...errors import NotFound, SubmissionRefused
from ...vault.atomic import pretty_json
from ...vault.harness_store import HarnessFolder
from ...vault.lock import flocked, pid_alive
from ...vault.paths import Vault

FOLDER = "judge-tasks"
KEEP_SECONDS = 24 * 3600  # finished tasks are deleted a day after their deadline
KEEP_EVENTS = 20  # releases and late answers kept per task: an agent taking and dropping it grows nothing
_AGENTS = "agents.json"


class JudgeTaskStore:
    def __init__(self, vault: Vault) -> None:
        self.vault = vault
        self.folder = HarnessFolder(vault, FOLDER)

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        self.folder.ensure()
        with flocked(self.folder.path("lock"), fcntl.LOCK_EX):
            yield

    def _name(self, task_id: str, suffix: str = ".json") -> str:
        if not task_id.startswith("jt-") or not task_id[3:].replace("-", "").isalnum():
            raise NotFound(f"No judge task {task_id!r}.", detail={"task_id": task_id})
        return f"{task_id}{suffix}"

    def _write(self, task: Mapping[str, Any]) -> None:
        self.folder.write(self._name(str(task["task_id"])), pretty_json(dict(task)), durable=False)

    def read(self, task_id: str) -> dict[str, Any]:
        try:
            data: dict[str, Any] = json.loads(self.folder.read_bytes(self._name(task_id)))
        except FileNotFoundError:
            raise NotFound(f"No judge task {task_id!r}.", detail={"task_id": task_id}) from None
        return data

    def evidence(self, task_id: str) -> dict[str, str]:
        """The task's evidence texts by source id (the caller has read the task: `held_by`)."""
        try:
            texts: dict[str, str] = json.loads(self.folder.read_bytes(self._name(task_id, ".evidence.json")))
        except FileNotFoundError:
            raise NotFound(f"The judge task {task_id!r} has no evidence.", detail={"task_id": task_id}) from None
        return texts

    def post(self, task: dict[str, Any], texts: Mapping[str, str]) -> str:
        """Store a new open task (its `task_id` chosen here) and its evidence texts."""
        now = time.time()
        task_id = f"jt-{int(now * 1000):x}-{os.urandom(4).hex()}"
        task = {**task, "task_id": task_id, "state": "open", "created": now, "created_at": now_utc_z()}
        task.setdefault("waiter_pid", os.getpid())
        with self._locked():
            self._prune(now)
            self.folder.write(f"{task_id}.evidence.json", pretty_json(dict(texts)), durable=False)
            self._write(task)
        return task_id

    def _tasks(self) -> list[dict[str, Any]]:
        tasks = []
        for name in self.folder.names("jt-*.json"):
            if name.endswith(".evidence.json"):
                continue
            with contextlib.suppress(OSError, ValueError):
                tasks.append(json.loads(self.folder.read_bytes(name)))
        return sorted(tasks, key=lambda t: (float(t.get("created", 0)), str(t.get("task_id"))))

    def _refresh(self, task: dict[str, Any], now: float) -> dict[str, Any]:
        """A task as it really stands: expired past its deadline or when its waiter is gone, open
        again when the agent that took it is gone. Written back when that changed it."""
        state = task.get("state")
        if state in ("open", "taken"):
            if now > float(task.get("deadline", 0)) or not pid_alive(task.get("waiter_pid")):
                task = {**task, "state": "expired", "expired_at": now_utc_z(), "expired_why": "nobody waits for it"}
                self._write(task)
            elif state == "taken" and not pid_alive((task.get("taken_by") or {}).get("pid")):
                lost = task.get("taken_by")
                task = {
                    **task,
                    "state": "open",
                    "taken_by": None,
                    "released": [*task.get("released", []), lost][-KEEP_EVENTS:],
                }
                self._write(task)
        return task

    def take(self, agent: Mapping[str, Any], task_id: str | None = None) -> dict[str, Any] | None:
        """The oldest open task (or `task_id`), now taken by `agent`; None when there is none."""
        now = time.time()
        with self._locked():
            self._seen(agent, now)
            candidates = [self.read(task_id)] if task_id else self._tasks()
            for task in candidates:
                task = self._refresh(task, now)
                if task.get("state") != "open":
                    continue
                taken = {**task, "state": "taken", "taken_by": {**agent, "pid": os.getpid(), "at": now_utc_z()}}
                self._write(taken)
                return taken
        return None

    def held_by(self, task_id: str, agent: Mapping[str, Any]) -> dict[str, Any]:
        """The task, when `agent` (this process's client) has taken it and may still answer."""
        with self._locked():
            task = self._refresh(self.read(task_id), time.time())
        self._check_holder(task, agent)
        return task

    def _check_holder(self, task: Mapping[str, Any], agent: Mapping[str, Any]) -> None:
        state = task.get("state")
        taker = task.get("taken_by") or {}
        if state == "expired":
            raise SubmissionRefused(
                f"The judge task {task['task_id']} has expired: the validation stopped waiting for it; the answer is not "
                "used (the task records that it came late).",
                detail={"task_id": task["task_id"], "reasons": ["expired"]},
            )
        if state == "answered":
            raise SubmissionRefused(
                f"The judge task {task['task_id']} is already answered.",
                detail={"task_id": task["task_id"], "reasons": ["already_answered"]},
            )
        mine = taker.get("pid") == os.getpid() and taker.get("name") == agent.get("name")
        if state != "taken" or not mine or taker.get("session") != agent.get("session"):
            raise SubmissionRefused(
                f"The judge task {task['task_id']} is not taken by this agent; take it with judge_next_task first.",
                detail={"task_id": task["task_id"], "reasons": ["not_taken_by_you"]},
            )

    def answer(self, task_id: str, agent: Mapping[str, Any], answer: Mapping[str, Any]) -> dict[str, Any]:
        now = time.time()
        with self._locked():
            self._seen(agent, now)
            task = self._refresh(self.read(task_id), now)
            self._check_holder(task, agent)
            task = {**task, "state": "answered", "answer": dict(answer), "answered_at": now_utc_z()}
            self._write(task)
        return task

    def record_late(self, task_id: str, agent: Mapping[str, Any]) -> None:
        """An answer came after the task expired: refused, and who sent it, and when, stays on record."""
        with self._locked():
            task = self.read(task_id)
            if task.get("state") == "expired":
                late = {**agent, "pid": os.getpid(), "at": now_utc_z()}
                self._write({**task, "late_answers": [*task.get("late_answers", []), late][-KEEP_EVENTS:]})

    def expire(self, task_id: str, why: str) -> dict[str, Any]:
        """The waiting side gives up; an answered task stays answered."""
        with self._locked():
            task = self.read(task_id)
            if task.get("state") in ("open", "taken"):
                task = {**task, "state": "expired", "expired_at": now_utc_z(), "expired_why": why}
                self._write(task)
        return task

    def release_session(self, session: str, why: str) -> list[str]:
        """Tasks taken over the HTTP MCP session `session` of this process go back to `open` (the
        session ended: closed, evicted or its connection dropped); the ids of those released."""
        released: list[str] = []
        with self._locked():
            for task in self._tasks():
                taker = task.get("taken_by") or {}
                if task.get("state") != "taken" or taker.get("pid") != os.getpid() or taker.get("session") != session:
                    continue
                lost = {**taker, "released_at": now_utc_z(), "why": why}
                self._write(
                    {
                        **task,
                        "state": "open",
                        "taken_by": None,
                        "released": [*task.get("released", []), lost][-KEEP_EVENTS:],
                    }
                )
                released.append(str(task["task_id"]))
        return released

    def poll(self, task_id: str) -> dict[str, Any]:
        """The task as it stands, with a taker that is gone released (for the waiting side)."""
        with self._locked():
            return self._refresh(self.read(task_id), time.time())

    def _seen(self, agent: Mapping[str, Any], now: float) -> None:
        try:
            seen: dict[str, Any] = json.loads(self.folder.read_bytes(_AGENTS))
        except (OSError, ValueError):
            seen = {}
        key = f"{agent.get('name')} {agent.get('client_version') or ''}".strip()
        seen[key] = {**agent, "pid": os.getpid(), "last_seen": now, "last_seen_at": now_utc_z()}
        seen = dict(sorted(seen.items(), key=lambda kv: -float(kv[1].get("last_seen", 0)))[:20])
        self.folder.write(_AGENTS, pretty_json(seen), durable=False)

    def agents_seen(self, within_seconds: float) -> list[dict[str, Any]]:
        """Agents that asked for judge tasks lately, the most recent first."""
        try:
            seen: dict[str, Any] = json.loads(self.folder.read_bytes(_AGENTS))
        except (OSError, ValueError):
            return []
        now = time.time()
        recent = [a for a in seen.values() if now - float(a.get("last_seen", 0)) <= within_seconds]
        return sorted(recent, key=lambda a: -float(a.get("last_seen", 0)))

    def _prune(self, now: float) -> None:
        for task in self._tasks():
            if now - float(task.get("deadline", now)) > KEEP_SECONDS:
                for name in (f"{task['task_id']}.json", f"{task['task_id']}.evidence.json"):
                    with contextlib.suppress(OSError):
                        self.folder.remove(name)
