"""Trust figures that never flatter: broken notes are counted, a machine review that confirmed
nothing is L1, and Obsidian's own files do not fail a run."""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from knowledge_harness.trust.audit.audit import run_audit
from knowledge_harness.trust.policy import Policy
from knowledge_harness.vault.catalog import NoteCatalog
from knowledge_harness.vault.paths import Vault
from tests.support.examples import examples

from ..conftest import EXAMPLE_VAULT, copy_example_vault

TODAY = dt.date(2026, 12, 2)
KEYWORD_NOTES = sorted(p.name for p in (EXAMPLE_VAULT / "Keywords").glob("*.md"))
BREAKAGES = [
    "title: [unclosed\n",  # a flow sequence never closed
    "  bad indent: x\n: y\n",
    "key: value: another\n",
    "\t- tab\n",
]


def _coverage(vault: Path) -> tuple[int, int, int, float]:
    report = run_audit(NoteCatalog(Vault.open(vault)), Policy(), today=TODAY)
    return report.raw, report.evidence_capable, report.fresh_l2, report.coverage


def test_the_demo_counts_its_broken_note_and_reports_its_true_coverage(tmp_path: Path) -> None:
    vault = copy_example_vault(tmp_path / "vault")
    report = run_audit(NoteCatalog(Vault.open(vault)), Policy(), today=TODAY)
    assert (report.raw, report.evidence_capable, report.fresh_l2) == (23, 22, 11)
    assert report.coverage == 0.5
    assert "Keywords/Stage F.md" in {e.path for e in report.errors}


@settings(max_examples=examples(0.25), deadline=None)
@given(name=st.sampled_from(KEYWORD_NOTES), breakage=st.sampled_from(BREAKAGES))
def test_breaking_a_notes_yaml_never_raises_coverage(
    tmp_path_factory: pytest.TempPathFactory, name: str, breakage: str
) -> None:
    root = tmp_path_factory.mktemp("vault")
    vault = copy_example_vault(root / "v")
    raw_before, capable_before, fresh_before, coverage_before = _coverage(vault)
    note = vault / "Keywords" / name
    text = note.read_text(encoding="utf-8-sig")
    if not text.startswith("---\n"):
        shutil.rmtree(root)
        return
    note.write_text("---\n" + breakage + text[4:], encoding="utf-8")
    raw_after, capable_after, fresh_after, coverage_after = _coverage(vault)
    assert coverage_after <= coverage_before
    assert fresh_after <= fresh_before
    assert raw_after >= raw_before and capable_after >= capable_before
    shutil.rmtree(root)


def test_a_failed_run_that_wrote_nothing_still_consumed_its_plan() -> None:
    from knowledge_harness.trust.approve.batch import finish
    from knowledge_harness.trust.approve.models import BatchRun, RunFile

    files = [
        RunFile.model_construct(path="a.md", result="PENDING"),
        RunFile.model_construct(path="b.md", result="REFUSED"),
    ]
    record = BatchRun.model_construct(files=files)
    finish(record, failed="write_error", message="The disk is full.")
    assert (record.run_status, record.consumption, record.result) == ("FAILED", "CONSUMED", "NOT_APPLIED")
    assert (record.failure_reason, record.failure, record.files_written) == ("write_error", "The disk is full.", [])
    assert [f.result for f in record.files] == ["NOT_APPLIED", "REFUSED"]
