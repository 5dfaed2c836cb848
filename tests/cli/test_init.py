"""`kh init` on a vault of ordinary notes that nobody prepared for this tool."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from ..conftest import KH
from ..support.plain_vault import write_ordinary_notes
from ..support.terminal import TerminalRun, run_at_terminal


def _kh(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(KH), *args], capture_output=True, text=True, timeout=60)


def _at_terminal(*args: str) -> TerminalRun:
    """`kh init … --write` as the person types it (it changes the policy: a person's action)."""
    return run_at_terminal([str(KH), *args], [], env=dict(os.environ), timeout=60)


def test_init_write_needs_a_person_at_a_terminal(tmp_path: Path) -> None:
    vault = write_ordinary_notes(tmp_path / "vault")
    refused = _kh("init", str(vault), "--write")  # a script, a pipe, an agent's shell
    assert refused.returncode == 1 and "interactive terminal" in refused.stderr and "Traceback" not in refused.stderr
    assert not (vault / ".harness").exists()


def test_init_explains_why_nothing_counts_and_what_would(tmp_path: Path) -> None:
    vault = write_ordinary_notes(tmp_path / "vault")
    report = json.loads(_kh("init", str(vault), "--json").stdout)
    assert report["counted_now"]["raw"] == 0 and report["counted_now"]["evidence_capable"] == 0
    assert (report["with_recognized_sources"], report["with_unrecognized_urls"]) == (1, 1)
    assert report["unrecognized_examples"][0]["path"] == "Research/git.md"
    assert "outside a References / Sources section" in report["unrecognized_examples"][0]["reason"]
    assert report["proposed_rule"]["folders"] == ["Research"]
    assert report["counted_with_proposal"]["evidence_capable"] == 1
    assert not (vault / ".harness").exists()  # read-only without --write

    written = _at_terminal("init", str(vault), "--write")
    assert written.exit_code == 0, written.screen
    audit = json.loads(_kh("audit", str(vault), "--json").stdout)
    assert (audit["raw"], audit["evidence_capable"]) == (2, 1)


def test_init_never_overwrites_a_policy_without_force_and_then_changes_only_keywords(tmp_path: Path) -> None:
    vault = write_ordinary_notes(tmp_path / "vault")
    (vault / ".harness").mkdir()
    policy = vault / ".harness" / "policy.toml"
    policy.write_text("ttl_days = 30\n\n[keywords]\nprovenance = true\n\n[stages]\npilot = 4\n", encoding="utf-8")
    before = policy.read_bytes()
    refused = _at_terminal("init", str(vault), "--write")
    assert refused.exit_code == 1 and "--force" in refused.screen
    assert policy.read_bytes() == before
    forced = _at_terminal("init", str(vault), "--write", "--force")
    assert forced.exit_code == 0 and '+folders = ["Research"]' in forced.screen
    text = policy.read_text(encoding="utf-8")
    assert text.startswith("ttl_days = 30\n") and "[stages]\npilot = 4\n" in text
    assert text.count("[keywords]") == 1 and 'folders = ["Research"]' in text
