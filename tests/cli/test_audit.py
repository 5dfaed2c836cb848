"""`kh audit`: the six-line text report, `--json`, `--record`, `--fail-under`, `--threshold` and the
exit codes, on a vault built to reproduce the trust design's Stage E figures."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from ..conftest import KH
from ..support.audit_vault import DISPUTED, MALFORMED, STALE_NOTES, TODAY, WINDOW_NOTES, build_stage_e_vault, snapshot

SEED_LINES = [
    "Raw Keywords: 80",
    "Evidence-capable: 73",
    "Fresh L2: 59",
    "Coverage: 80.82%",
    "80% threshold: 59",
    "Threshold surplus: 0",
]


@pytest.fixture(scope="module")
def stage_e_vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_stage_e_vault(tmp_path_factory.mktemp("stage-e") / "vault")


def kh(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(KH), *args], capture_output=True, text=True, timeout=120, check=False)


def test_text_report_begins_with_the_six_figure_lines(stage_e_vault: Path) -> None:
    result = kh("audit", str(stage_e_vault), "--today", TODAY.isoformat())
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[:6] == SEED_LINES


def test_json_report_has_the_contract_keys_and_figures(stage_e_vault: Path) -> None:
    result = kh("audit", str(stage_e_vault), "--json", "--today", TODAY.isoformat())
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    contract_keys = {"raw", "evidence_capable", "fresh_l2", "coverage", "threshold", "threshold_count", "surplus"}
    contract_keys |= {"windows", "stale", "disputed", "errors"}
    assert contract_keys <= set(data)
    assert (data["raw"], data["evidence_capable"], data["fresh_l2"]) == (80, 73, 59)
    assert data["coverage"] == 0.8082
    assert (data["threshold"], data["threshold_count"], data["surplus"]) == (0.8, 59, 0)
    assert data["windows"] == WINDOW_NOTES
    assert {s["path"]: s["triggers"] for s in data["stale"]} == STALE_NOTES
    assert data["disputed"] == DISPUTED
    errors = {e["path"]: e for e in data["errors"]}
    assert set(errors) == {MALFORMED, "kw/bad-level.md"}
    assert errors[MALFORMED]["line"] == 3
    assert "level" in errors["kw/bad-level.md"]["message"]
    assert errors["kw/bad-level.md"]["line"] == 8


def test_audit_changes_no_file_in_the_vault(tmp_path: Path) -> None:
    vault = build_stage_e_vault(tmp_path / "v")
    before = snapshot(vault)
    harness_before = sorted(p.name for p in (vault / ".harness").iterdir())
    for args in (["--json"], [], ["--fail-under", "0.9"], ["--threshold", "0.5"]):
        kh("audit", str(vault), "--today", TODAY.isoformat(), *args)
    assert snapshot(vault) == before
    assert sorted(p.name for p in (vault / ".harness").iterdir()) == harness_before


def test_record_appends_one_summary_line_and_nothing_else(tmp_path: Path) -> None:
    vault = build_stage_e_vault(tmp_path / "v")
    before = snapshot(vault)
    for _ in range(2):
        assert kh("audit", str(vault), "--today", TODAY.isoformat(), "--record").returncode == 0
    after = snapshot(vault)
    assert set(after) - set(before) == {".harness/audits.jsonl"}
    assert {k: v for k, v in after.items() if k in before} == before
    lines = (vault / ".harness/audits.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2
    summary = json.loads(lines[0])
    assert (summary["fresh_l2"], summary["evidence_capable"], summary["surplus"]) == (59, 73, 0)


def test_fail_under_exits_1_below_and_0_at_or_above(stage_e_vault: Path) -> None:
    below = kh("audit", str(stage_e_vault), "--today", TODAY.isoformat(), "--fail-under", "0.81")
    assert below.returncode == 1
    assert "below" in below.stderr
    at = kh("audit", str(stage_e_vault), "--today", TODAY.isoformat(), "--fail-under", "0.80")
    assert at.returncode == 0


def test_threshold_label_and_count_follow_the_configured_threshold(tmp_path: Path) -> None:
    vault = build_stage_e_vault(tmp_path / "v", policy="threshold = 0.85\n")
    lines = kh("audit", str(vault), "--today", TODAY.isoformat()).stdout.splitlines()
    assert lines[4] == "85% threshold: 63"
    assert lines[5] == "Threshold surplus: -4"
    override = kh("audit", str(vault), "--today", TODAY.isoformat(), "--threshold", "0.5").stdout.splitlines()
    assert override[4:6] == ["50% threshold: 37", "Threshold surplus: 22"]


def test_bad_arguments_exit_2_with_one_sentence(stage_e_vault: Path) -> None:
    for args in (["--today", "20-09-2026"], ["--threshold", "80"], ["--fail-under", "-1"]):
        result = kh("audit", str(stage_e_vault), *args)
        assert result.returncode == 2
        assert result.stderr.startswith("kh: ")
    missing = kh("audit", str(stage_e_vault / "nope"))
    assert missing.returncode == 2


def test_invalid_policy_is_an_input_error_naming_the_key(tmp_path: Path) -> None:
    vault = build_stage_e_vault(tmp_path / "v", policy="ttl_days = 0\n")
    result = kh("audit", str(vault))
    assert result.returncode == 2
    assert "ttl_days" in result.stderr
