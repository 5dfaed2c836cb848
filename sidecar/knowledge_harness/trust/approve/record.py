"""A batch run record as the approval works on it: `BatchRun` (trust/batch_models.py), typed from
the moment a run starts or a stored record is read; a dict only on its way to the disk or a door.

A stored record keeps exactly the keys it had: dumping leaves out what was never set (a file's
`disk`, the run's `recovered_at`, the keys a record written before them lacks).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, Literal

from ...core.clock import now_utc, utc_z
from ...vault.paths import Vault
from ..batch_models import BatchRun, RunFile
from ..records import read_run, write_run
from ..validation_service import stored_validator_label

RUN_FORMAT = "kh-run/1"
FailureReason = Literal["scope_verification_failed", "interrupted", "write_error"]


def new_run(
    plan: Mapping[str, Any], challenge: str, *, approved_by: str, approved_via: str | None, approved_at: str
) -> BatchRun:
    """The IN_PROGRESS record of the run that applies `plan` (its one approval already claimed)."""
    started = utc_z(now_utc())
    return BatchRun.model_validate(
        {
            "format": RUN_FORMAT,
            "run_id": str(plan["run_id"]),
            "plan_id": plan["plan_id"],
            "plan_digest": plan["digest"],
            "digest": str(plan["digest"])[:12],
            "stage": plan["stage"],
            "out_of_order": bool(plan.get("out_of_order", False)),
            "challenge": challenge,
            "approved_by": approved_by,
            "approved_via": approved_via,
            "approved_at": approved_at,
            "started_at": started,
            "updated_at": started,
            "finished_at": None,
            "run_status": "IN_PROGRESS",
            "consumption": "CONSUMED",  # the plan's one approval is spent the moment the run starts
            "result": None,
            "files": [_file_entry(t) for t in plan["targets"]],
            "files_written": [],
            "scope": None,
            "failure": None,
            "failure_reason": None,
            "validators": sorted({stored_validator_label(t["validator"]) for t in plan["targets"]}),
            "writer": {"pid": os.getpid(), "program": "kh"},
        }
    )


def _file_entry(target: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "path": target["path"],
        "result": "PENDING",
        "reason": None,
        "sha256_before": target["sha256_before"],
        "sha256_planned_after": target["sha256_after"],
        "sha256_found": None,
        "sha256_after": None,
        "written_at": None,
        "verdict": target["verdict"],
        "validator": target["validator"],
        "findings": target["findings"],
        "blocks_sha256": None,
    }


def stored(record: BatchRun) -> dict[str, Any]:
    """The record as its file and the doors hold it: the keys it has, in the model's order."""
    return record.model_dump(exclude_unset=True)


def load_run(vault: Vault, run_id: str) -> BatchRun:
    return BatchRun.model_validate(read_run(vault, run_id))


def save(vault: Vault, record: BatchRun) -> None:
    record.updated_at = utc_z(now_utc())
    write_run(vault, record.run_id, stored(record))


def written(record: BatchRun) -> list[RunFile]:
    return [f for f in record.files if f.result in ("APPLIED", "PROVISIONAL_RETAIN")]


def finish(record: BatchRun, *, failed: FailureReason | None, message: str | None = None) -> None:
    """Settle the run's status and results from its files (docs/approval.md, "Run records")."""
    files = record.files
    done = written(record)
    record.consumption = "CONSUMED"  # the plan was claimed before the run began, written or not
    if failed:
        record.run_status = "FAILED"
        record.failure_reason = failed
        record.failure = message or failed
        for f in files:
            if f.result == "APPLIED":
                f.result = "PROVISIONAL_RETAIN"
            elif f.result in ("PENDING", "WRITING"):
                f.result = "NOT_APPLIED"
        record.result = "PROVISIONAL_RETAIN" if done else "NOT_APPLIED"
    else:
        record.run_status = "SUCCEEDED"
        refused = [f for f in files if f.result != "APPLIED"]
        if not refused:
            record.result = "APPLIED"
        elif done:
            record.result = "PARTIALLY_APPLIED"
        else:
            record.result = "REFUSED"
    record.files_written = [f.path for f in done]
