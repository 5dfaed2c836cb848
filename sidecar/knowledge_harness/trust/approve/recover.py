"""Closing runs a crash left IN_PROGRESS: reported FAILED (interrupted), with the files written
reconciled from the journal and the disk (docs/approval.md, "Run records")."""

from __future__ import annotations

import logging
from typing import Any

from ...core.clock import now_utc, utc_z
from ...errors import Busy, HarnessError, NotFound
from ...vault.lock import vault_lock
from ...vault.paths import Vault
from ...vault.writer import see_note
from ..records import check_id, list_run_ids, read_journal, read_run
from .models import BatchRun
from .record import finish, load_run, save

# the name `kh` prints the approval gate's messages under (as plan.py's)
log = logging.getLogger("knowledge_harness.trust.batch")


def _reconcile_interrupted(vault: Vault, record: BatchRun) -> BatchRun:
    journal = {str(e.get("path")): e for e in read_journal(vault, record.run_id)}
    for entry in record.files:
        if entry.result not in ("PENDING", "WRITING", "APPLIED"):
            continue
        try:
            current: str | None = see_note(vault, entry.path).sha256
        except HarnessError:
            current = None
        planned = entry.sha256_planned_after
        logged = journal.get(entry.path, {})
        written = entry.result == "APPLIED" or entry.path in journal or current == planned
        if current == planned:
            entry.disk = "new"
        elif current == entry.sha256_before:
            entry.disk = "old"
        else:
            entry.disk = "missing" if current is None else "changed_since"
        if written:
            entry.result = "APPLIED"  # turned into PROVISIONAL_RETAIN by finish()
            entry.sha256_after = entry.sha256_after or logged.get("sha256_after") or planned
            entry.written_at = entry.written_at or logged.get("written_at")
    moment = utc_z(now_utc())
    finish(
        record,
        failed="interrupted",
        message=(
            "The run was interrupted before it finished (the process ended during the batch); "
            f"found IN_PROGRESS and closed as FAILED at {moment}. Files written before the interruption "
            "are kept provisionally; the scope was not verified."
        ),
    )
    record.recovered_at = moment
    record.finished_at = None
    return record


def recover_interrupted_runs(vault: Vault) -> list[str]:
    """Close every IN_PROGRESS run whose writer is gone as FAILED; returns the run ids closed.

    Needs the vault lock (an approval holds it for its whole run, so holding it proves no run
    is active); when another process holds it, nothing is recovered now. A record that cannot be
    read as a run is reported (a warning) and left as it is; the other runs are still closed.
    """
    ids = list_run_ids(vault)
    if not ids:
        return []
    pending = []
    for run_id in ids:
        try:
            if read_run(vault, run_id).get("run_status") == "IN_PROGRESS":
                pending.append(run_id)
        except (NotFound, ValueError):
            continue
    if not pending:
        return []
    closed: list[str] = []
    try:
        with vault_lock(vault, "recover interrupted runs", wait_seconds=0):
            for run_id in pending:
                try:
                    record = load_run(vault, run_id)
                except (HarnessError, ValueError) as exc:  # one broken record never keeps the others open
                    log.warning("run %s is IN_PROGRESS but its record cannot be read (%s); left as it is", run_id, exc)
                    continue
                if record.run_status != "IN_PROGRESS":
                    continue
                save(vault, _reconcile_interrupted(vault, record))
                closed.append(run_id)
    except Busy:
        return closed
    return closed


def recover_quietly(vault: Vault) -> list[str]:
    """Recovery for start-up paths: never raises (a broken record must not stop `kh serve`)."""
    try:
        return recover_interrupted_runs(vault)
    except (HarnessError, OSError, ValueError):
        return []


def show_run(vault: Vault, run_id: str) -> dict[str, Any]:
    """A run record as stored (its keys sorted, as the file holds them)."""
    check_id("run", run_id)
    recover_interrupted_runs(vault)
    return read_run(vault, run_id)
