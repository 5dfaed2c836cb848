"""The rollout reads the stages that succeeded from the run records on disk, whatever they hold: a
record of this version, one written before later keys existed, one another version wrote with keys
this one does not know, half a record, a file that is not a JSON object, a file that is not JSON."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from knowledge_harness.trust.approve import batch
from knowledge_harness.trust.approve.models import BatchRun
from knowledge_harness.trust.records import runs_dir, write_run
from knowledge_harness.vault.paths import Vault

FINDING = {
    "claim_id": "c-1",
    "end_line": 3,
    "judged": "supported",
    "line": 3,
    "quote": "q",
    "quotes": [{"end": 1, "source_id": "s1", "start": 0, "text": "q"}],
    "reason": "The evidence states the claim's content.",
    "reason_code": None,
    "self_judged": False,
    "source_id": "s1",
    "text": "t",
    "verdict": "supported",
}


def _file(result: str, verdict: str) -> dict[str, Any]:
    return {
        "path": "Keywords/a.md",
        "result": result,
        "reason": None,
        "sha256_before": "0" * 64,
        "sha256_planned_after": "1" * 64,
        "sha256_found": "0" * 64,
        "sha256_after": "1" * 64 if result == "APPLIED" else None,
        "written_at": "2026-12-02T09:01:00Z" if result == "APPLIED" else None,
        "verdict": verdict,
        "validator": {"client": None, "client_version": None, "model": None, "name": "lexical", "version": "8"},
        "findings": [FINDING],
        "blocks_sha256": "2" * 64 if result == "APPLIED" else None,
    }


def _record(run_id: str, stage: str, status: str, *files: dict[str, Any]) -> dict[str, Any]:
    return {
        "format": "kh-run/1",
        "run_id": run_id,
        "plan_id": run_id.replace("run-", "plan-"),
        "plan_digest": "3" * 64,
        "digest": "3" * 12,
        "stage": stage,
        "out_of_order": False,
        "challenge": f"APPROVE_PRODUCTION {'3' * 12}",
        "approved_by": "person",
        "approved_via": "terminal",
        "approved_at": "2026-12-02T09:01:00Z",
        "started_at": "2026-12-02T09:01:00Z",
        "updated_at": "2026-12-02T09:01:01Z",
        "finished_at": "2026-12-02T09:01:01Z",
        "run_status": status,
        "consumption": "CONSUMED",
        "result": "APPLIED" if status == "SUCCEEDED" else "NOT_APPLIED",
        "files": list(files),
        "files_written": [f["path"] for f in files if f["result"] == "APPLIED"],
        "scope": None,
        "failure": None if status == "SUCCEEDED" else "interrupted",
        "failure_reason": None if status == "SUCCEEDED" else "interrupted",
        "validators": ["lexical-8"],
        "writer": {"pid": 1, "program": "kh"},
    }


def _old(record: dict[str, Any]) -> dict[str, Any]:
    """As a run was recorded before the door, the override, the blocks' digest and the quote gate."""
    gone = ("approved_via", "out_of_order")
    files = []
    for entry in record["files"]:
        entry = {k: v for k, v in entry.items() if k != "blocks_sha256"}
        entry["validator"] = {k: v for k, v in entry["validator"].items() if not k.startswith("client")}
        entry["findings"] = [
            {k: v for k, v in f.items() if k not in ("judged", "quotes", "reason_code", "self_judged")}
            for f in entry["findings"]
        ]
        files.append(entry)
    return {**{k: v for k, v in record.items() if k not in gone}, "files": files}


def _ids(n: int) -> list[str]:
    return [f"run-20261202T0901{i:02d}Z-0000000{i}" for i in range(n)]


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    (tmp_path / "a.md").write_text("# a\n", encoding="utf-8")
    return Vault.open(tmp_path)


def test_a_canary_counts_when_it_applied_a_note_at_l2_or_higher(vault: Vault) -> None:
    proved, l1, refused = _ids(3)
    write_run(vault, l1, _record(l1, "canary", "SUCCEEDED", _file("APPLIED", "unverifiable")))
    write_run(vault, refused, _record(refused, "canary", "SUCCEEDED", _file("REFUSED", "pass")))
    assert batch.succeeded_stages(vault) == set()
    write_run(vault, proved, _record(proved, "canary", "SUCCEEDED", _file("APPLIED", "warn")))
    assert batch.succeeded_stages(vault) == {"canary"}
    assert batch.proves_something(
        BatchRun.model_validate(_record(proved, "canary", "SUCCEEDED", _file("APPLIED", "pass")))
    )
    assert not batch.proves_something(
        BatchRun.model_validate(_record(l1, "canary", "FAILED", _file("APPLIED", "pass")))
    )


def test_only_runs_that_succeeded_count(vault: Vault) -> None:
    failed, pilot = _ids(2)
    write_run(vault, failed, _record(failed, "progressive", "FAILED", _file("PROVISIONAL_RETAIN", "pass")))
    write_run(vault, pilot, _record(pilot, "pilot", "SUCCEEDED", _file("REFUSED", "fail")))
    assert batch.succeeded_stages(vault) == {"pilot"}  # a pilot or progressive run need not prove anything


def test_records_written_before_later_keys_count_as_they_say(vault: Vault) -> None:
    canary, pilot = _ids(2)
    write_run(vault, canary, _old(_record(canary, "canary", "SUCCEEDED", _file("APPLIED", "pass"))))
    write_run(vault, pilot, _old(_record(pilot, "pilot", "SUCCEEDED", _file("APPLIED", "fail"))))
    BatchRun.model_validate(_old(_record(canary, "canary", "SUCCEEDED", _file("APPLIED", "pass"))))  # still a run
    assert batch.succeeded_stages(vault) == {"canary", "pilot"}


def test_records_this_version_cannot_type_count_as_they_say(vault: Vault) -> None:
    newer, half, half_canary, in_progress = _ids(4)
    # another version's record, with a key this one does not know
    newer_record = {**_record(newer, "canary", "SUCCEEDED", _file("APPLIED", "pass")), "later_key": 1}
    with pytest.raises(ValidationError):
        BatchRun.model_validate(newer_record)
    write_run(vault, newer, newer_record)
    write_run(vault, half, {"run_id": half, "run_status": "SUCCEEDED", "stage": "pilot"})
    write_run(
        vault,
        half_canary,
        {"run_status": "SUCCEEDED", "stage": "progressive", "files": [{"result": "APPLIED", "verdict": "fail"}]},
    )
    write_run(vault, in_progress, {"run_id": in_progress, "run_status": "IN_PROGRESS"})  # as recovery leaves it
    assert batch.succeeded_stages(vault) == {"canary", "pilot", "progressive"}
    write_run(vault, half, {"run_status": "SUCCEEDED", "stage": "canary", "files": None})  # proves nothing
    assert batch.succeeded_stages(vault) == {"canary", "progressive"}


def test_a_run_file_that_is_not_a_json_object_or_not_json_is_passed_over(vault: Vault) -> None:
    canary, listed, torn = _ids(3)
    write_run(vault, canary, _record(canary, "canary", "SUCCEEDED", _file("APPLIED", "pass")))
    (runs_dir(vault) / f"{listed}.json").write_text(json.dumps([1, 2]), encoding="utf-8")
    assert batch.succeeded_stages(vault) == {"canary"}
    # a record cut short: passed over, as recovery passes it over (a stage it held is planned again)
    (runs_dir(vault) / f"{torn}.json").write_text('{"run_status": "SUCC', encoding="utf-8")
    assert batch.succeeded_stages(vault) == {"canary"}


def test_kh_runs_list_names_a_damaged_record_and_lists_the_others(vault: Vault) -> None:
    from typer.testing import CliRunner

    from knowledge_harness.cli.root import app

    good, torn = _ids(2)
    write_run(vault, good, _record(good, "canary", "SUCCEEDED", _file("APPLIED", "pass")))
    (runs_dir(vault) / f"{torn}.json").write_text('{"run_status": "SUCC', encoding="utf-8")
    out = CliRunner().invoke(app, ["runs", "list", str(vault.root), "--json"])
    assert out.exit_code == 0, out.output
    assert [row["run_id"] for row in json.loads(out.stdout)["runs"]] == [good]
    assert f"The run {torn} file is not valid JSON" in out.stderr
    shown = CliRunner().invoke(app, ["runs", "show", str(vault.root), torn])
    assert shown.exit_code != 0 and "not valid JSON" in str(shown.exception)  # `kh` prints it as "kh: …"


def test_a_canary_record_whose_files_are_not_records_proves_nothing_and_breaks_nothing(vault: Vault) -> None:
    for files in (["APPLIED"], "APPLIED pass", [1, None]):
        run_id = _ids(1)[0]
        write_run(vault, run_id, {"run_status": "SUCCEEDED", "stage": "canary", "files": files})
        assert batch.succeeded_stages(vault) == set(), files
        runs_dir(vault).joinpath(f"{run_id}.json").unlink()
