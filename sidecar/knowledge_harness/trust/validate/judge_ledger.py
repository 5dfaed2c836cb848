"""`.harness/agent-judge-calls.json`: the paid-judge calls the agent token reserved, per UTC day.

Checking an agent's budget and reserving its calls happen under one exclusive flock
(`.harness/agent-judge-calls.lock`), so two requests at once cannot both pass a check that only
one of them fits. The file is small: a day's spent calls (dry runs, validations) and the
reservations of plans still being built (a plan's own file counts its calls once stored).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
from collections.abc import Iterator
from typing import Any

from ...vault.atomic import pretty_json
from ...vault.harness_store import HarnessFolder
from ...vault.lock import flocked, not_writable
from ...vault.paths import Vault

LEDGER = "agent-judge-calls.json"
_LOCK = "agent-judge-calls.lock"


def read_ledger(vault: Vault) -> dict[str, Any]:
    """The ledger as stored (`{"spent": {day: calls}, "pending": {id: {...}}}`); empty when missing or unreadable."""
    try:
        data = json.loads(HarnessFolder(vault).read_bytes(LEDGER))
    except (OSError, ValueError):
        return {"spent": {}, "pending": {}}
    if not isinstance(data, dict):
        return {"spent": {}, "pending": {}}
    spent = data.get("spent") if isinstance(data.get("spent"), dict) else {}
    pending = data.get("pending") if isinstance(data.get("pending"), dict) else {}
    return {"spent": spent, "pending": pending}


@contextlib.contextmanager
def ledger_locked(vault: Vault) -> Iterator[dict[str, Any]]:
    """The ledger under the exclusive lock; what the caller leaves in the dict is written back."""
    folder = HarnessFolder(vault)
    lock = folder.path(_LOCK)
    with contextlib.ExitStack() as stack:
        try:  # a read-only vault: one clear sentence (507), nothing judged
            folder.ensure()
            stack.enter_context(flocked(lock, fcntl.LOCK_EX))
        except OSError as exc:
            raise not_writable(vault, lock, exc, "agent judge budget") from None
        ledger = read_ledger(vault)
        before = json.dumps(ledger, sort_keys=True)
        yield ledger
        if json.dumps(ledger, sort_keys=True) != before:
            try:
                folder.write(LEDGER, pretty_json(ledger))
            except OSError as exc:
                raise not_writable(vault, vault.harness_dir / LEDGER, exc, "agent judge budget") from None
