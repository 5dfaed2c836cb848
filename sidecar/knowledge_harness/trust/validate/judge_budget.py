"""The agent token's paid-judge budget: `[agents] judge_calls_per_day` of the machine configuration.

A model judge (`openai_compat`, any judge but the embedded `lexical` ones and the `agent` judge,
which spends the agent's own quota) may cost money, so only a person decides to call it. With the
agent token every door that would call one — a batch plan, a note's dry-run validation, the
read-only validator, over REST and MCP — must fit the day's budget, or it is refused (409) before
anything is fetched or judged. Checking and reserving are one step under the ledger's lock
(trust/validate/judge_ledger.py): two plans at once cannot both pass a check only one of them fits.

One validation of one note is one call (as a plan's preview counts it); a plan's calls are
reserved while it is built and counted from its stored plan afterwards; a plan that fails after
it began keeps its calls counted (some may have been made).
"""

from __future__ import annotations

import datetime as dt
import os
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ...core.clock import now_utc, utc_z
from ...errors import HarnessError, Refused
from ...machine_config import load_machine_config
from ...vault.lock import pid_alive
from ...vault.paths import Vault
from ..policy import load_policy
from ..records import list_plan_ids, read_plan
from .judge_ledger import ledger_locked, read_ledger
from .validation_service import note_workload

FREE_JUDGES = frozenset({"lexical", "lexical_embeddings", "agent"})


def is_paid_judge(name: str) -> bool:
    return name not in FREE_JUDGES


def agent_judge_calls_on(vault: Vault, day: dt.date) -> int:
    """The paid-judge calls that plans made with the agent token on this (UTC) day were allowed."""
    used = 0
    stamp = f"plan-{day:%Y%m%d}T"  # a plan's id carries its creation moment (new_ids): older plans stay unread
    for plan_id in list_plan_ids(vault):
        if not plan_id.startswith(stamp):
            continue
        try:
            plan = read_plan(vault, plan_id)
        except HarnessError:
            continue
        if str(plan.get("created_at", "")).startswith(day.isoformat()):
            used += int(plan.get("agent_judge_calls") or 0)
    return used


def ledger_calls_on(vault: Vault, day: dt.date) -> int:
    """Calls of this day the ledger holds: spent by dry runs and validations, and reserved by plans
    still being built (by a process that is alive)."""
    return _ledger_calls(read_ledger(vault), day)


def _ledger_calls(ledger: dict[str, Any], day: dt.date) -> int:
    used = _int(ledger["spent"].get(day.isoformat()))
    for entry in ledger["pending"].values():
        if isinstance(entry, dict) and entry.get("day") == day.isoformat() and pid_alive(entry.get("pid")):
            used += _int(entry.get("calls"))
    return used


def _int(value: object) -> int:
    return value if isinstance(value, int) and value > 0 else 0


@dataclass(frozen=True, slots=True)
class Reservation:
    id: str
    day: str
    calls: int


def reserve_plan_calls(vault: Vault, check: Callable[[], int]) -> Reservation:
    """Run the plan's budget `check` (which raises Refused, else returns the calls it may make) and
    reserve those calls, both under the ledger's lock."""
    with ledger_locked(vault) as ledger:
        calls = check()
        reservation = Reservation(secrets.token_hex(8), now_utc().date().isoformat(), calls)
        if calls:
            ledger["pending"][reservation.id] = {
                "day": reservation.day,
                "calls": calls,
                "pid": os.getpid(),
                "since": utc_z(now_utc()),
            }
    return reservation


def settle_plan_calls(vault: Vault, reservation: Reservation, *, stored: bool) -> None:
    """A plan's reservation ends: its stored plan counts the calls from now on (`stored`), or, when
    building it failed, the calls stay counted as spent."""
    if not reservation.calls:
        return
    with ledger_locked(vault) as ledger:
        if ledger["pending"].pop(reservation.id, None) is not None and not stored:
            ledger["spent"][reservation.day] = _int(ledger["spent"].get(reservation.day)) + reservation.calls


def spend_agent_validation(vault: Vault, judge: str, *, calls: int, what: str) -> None:
    """An agent's validation (`what`: "dry-run validation of NOTE", "validation") that would call the
    paid `judge` `calls` time(s): counted against today's budget, or refused with what to do."""
    if not calls or not is_paid_judge(judge):
        return
    budget = load_machine_config().agents.judge_calls_per_day
    day = now_utc().date()
    with ledger_locked(vault) as ledger:
        used = agent_judge_calls_on(vault, day) + _ledger_calls(ledger, day)  # the ledger as read under the lock
        if calls > budget - used:
            raise Refused(
                f"The agent token may not spend money: this {what} would make {calls} call(s) to the paid {judge} "
                f"judge and the machine configuration grants agents {budget} a day ({used} used today). "
                "A person can run it (the plugin, or kh validate at a terminal), or the machine's owner can set "
                "[agents] judge_calls_per_day.",
                detail={"judge": judge, "judge_calls": calls, "budget": budget, "used_today": used},
            )
        ledger["spent"][day.isoformat()] = _int(ledger["spent"].get(day.isoformat())) + calls


def spend_for_note_dry_run(vault: Vault, path: str, judge_name: str | None) -> None:
    """An agent's dry-run validation of one note: one call when the judge is paid and the note has claims."""
    judge = judge_name or load_policy(vault.root).judge.backend
    if not is_paid_judge(judge):
        return
    claims, _ = note_workload(vault, path)
    spend_agent_validation(vault, judge, calls=1 if claims else 0, what=f"dry-run validation of {path}")


def spend_for_validation(vault: Vault, judge_name: str | None) -> None:
    """An agent's read-only validation (claims and evidence texts it sends): one call of a paid judge."""
    judge = judge_name or load_policy(vault.root).judge.backend
    spend_agent_validation(vault, judge, calls=1, what="validation")
