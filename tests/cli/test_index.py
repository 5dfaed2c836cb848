"""`kh index`: check's exit codes and report, build → search → headings → read, headings pages like REST."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from ..conftest import KH
from ..support.index_vaults import write_note, write_small_vault
from ..support.paged_headings import BIG, SECTIONS, write_paged_vault


@pytest.fixture
def small_vault(tmp_path: Path) -> Path:
    return write_small_vault(tmp_path / "small")


@pytest.fixture
def paged_vault(tmp_path: Path) -> Path:
    return write_paged_vault(tmp_path / "vault")


def test_cli_pages_like_rest(paged_vault: Path) -> None:
    result = subprocess.run(
        [str(KH), "index", "headings", str(paged_vault), BIG, "--offset", "11999", "--limit", "10", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert [h["title"] for h in data["headings"]] == [f"Sub {SECTIONS - 1}.b"] and data["next_offset"] is None


def test_check_reports_fresh_stale_and_missing_with_exit_codes(small_vault: Path) -> None:
    def kh(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(KH), "index", *args], capture_output=True, text=True, timeout=60)

    assert kh("check", str(small_vault)).returncode == 2
    built = kh("build", str(small_vault), "--json")
    assert built.returncode == 0
    report = json.loads(built.stdout)
    assert set(report) == {"notes", "headings", "links", "fallback", "errors", "seconds"} and report["notes"] == 7
    assert kh("check", str(small_vault)).returncode == 0
    write_note(small_vault, "Note A.md", "# changed\n")
    write_note(small_vault, "Added.md", "# new\n")
    (small_vault / "x/Dup.md").unlink()
    stale = kh("check", str(small_vault))
    assert stale.returncode == 1
    assert "changed: Note A.md" in stale.stdout and "added: Added.md" in stale.stdout
    assert "removed: x/Dup.md" in stale.stdout


def _kh(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(KH), "index", *args], capture_output=True, text=True, timeout=60)


def test_cli_reads_a_heading_range_and_searches(example_vault: Path) -> None:
    assert _kh("build", str(example_vault)).returncode == 0
    found = json.loads(_kh("search", str(example_vault), "Reasoning Index", "--json").stdout)
    assert found["hits"]
    path = found["hits"][0]["path"]
    heads = json.loads(_kh("headings", str(example_vault), path, "--json").stdout)
    title = heads["headings"][0]["title"]
    read = _kh("read", str(example_vault), path, "--heading", title)
    assert read.returncode == 0 and title in read.stdout
    missing = _kh("read", str(example_vault), path, "--heading", "no such heading at all")
    assert missing.returncode == 2 and missing.stderr.startswith("kh: ")
