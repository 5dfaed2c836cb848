"""A batch run record as the approval works on it: `BatchRun` (approve/models.py), typed from
the moment a run starts or a stored record is read; a dict only on its way to the disk or a door.

A stored record keeps exactly the keys it had: dumping leaves out what was never set (a file's
`disk`, the run's `recovered_at`, the keys a record written before them lacks).
"""

from __future__ import annotations

import os
from typing import Any, Literal

from pydantic import BaseModel

from ...core.clock import now_utc, utc_z
from ...vault.paths import Vault
from ..records import read_run, write_run
from ..validate.validation_service import validator_label
from .models import BatchRun, RunFile, StoredPlan, StoredTarget

RUN_FORMAT = "kh-run/1"
FailureReason = Literal["scope_verification_failed", "interrupted", "write_error"]


def new_run(
    plan: StoredPlan, challenge: str, *, approved_by: str, approved_via: str | None, approved_at: str
) -> BatchRun:
    """The IN_PROGRESS record of the run that applies `plan` (its one approval already claimed)."""
    started = utc_z(now_utc())
    return BatchRun.model_validate(
        {
            "format": RUN_FORMAT,
            "run_id": plan.run_id,
            "plan_id": plan.plan_id,
            "plan_digest": plan.digest,
            "digest": plan.digest[:12],
            "stage": plan.stage,
            "out_of_order": plan.out_of_order,
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
            "files": [_file_entry(t) for t in plan.targets],
            "files_written": [],
            "scope": None,
            "failure": None,
            "failure_reason": None,
            "validators": sorted({validator_label(t.validator) for t in plan.targets}),
            "writer": {"pid": os.getpid(), "program": "kh"},
        }
    )


def _dumped(model: BaseModel) -> dict[str, Any]:
    """A plan's piece as its file holds it: the record copies it (the keys it has, nothing added)."""
    return model.model_dump(mode="json", exclude_unset=True)


def _file_entry(target: StoredTarget) -> dict[str, Any]:
    return {
        "path": target.path,
        "result": "PENDING",
        "reason": None,
        "sha256_before": target.sha256_before,
        "sha256_planned_after": target.sha256_after,
        "sha256_found": None,
        "sha256_after": None,
        "written_at": None,
        "verdict": target.verdict,
        "validator": _dumped(target.validator),
        "findings": [_dumped(finding) for finding in target.findings],
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
