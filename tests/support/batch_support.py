"""Helpers of the approval-gate tests: git vaults, kh at a terminal, plans and run records.

The example evidence site these tests need is the session fixture `evidence_site` of tests/conftest.py.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from ..conftest import KH, copy_example_vault
from .terminal import TerminalProcess, run_at_terminal, spawn_at_terminal

TODAY = "2026-12-02"  # the fixture's "today" (examples/README.md)
FIXTURE_NOW = f"{TODAY}T09:00:00Z"
# kh with this machine's clock at the fixture's date: plans that are approved are dated by the clock
CLOCKED_KH = [sys.executable, str(Path(__file__).with_name("clocked_kh.py"))]
CLOCK_ENV = {"KH_TEST_NOW": FIXTURE_NOW}


def fixture_now() -> dt.datetime:
    """A moment on the fixture's date, shortly after FIXTURE_NOW: for in-process plans and approvals."""
    return dt.datetime.fromisoformat(FIXTURE_NOW.replace("Z", "+00:00")) + dt.timedelta(minutes=1)


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout


def git_vault(tmp_path: Path, name: str = "vault") -> Path:
    """A copy of examples/vault committed in a fresh git repository (core.quotePath left default)."""
    dest = tmp_path / name
    copy_example_vault(dest)
    git(dest, "init", "-q")
    git(dest, "config", "user.email", "test@example.invalid")
    git(dest, "config", "user.name", "test")
    git(dest, "add", "-A")
    git(dest, "commit", "-qm", "vault")
    return dest


def tree_bytes(vault: Path) -> dict[str, bytes]:
    """Every file outside .git/ and .harness/ → its bytes."""
    out: dict[str, bytes] = {}
    for path in sorted(vault.rglob("*")):
        rel = path.relative_to(vault)
        if rel.parts and rel.parts[0] in (".git", ".harness"):
            continue
        if path.is_file():
            out[rel.as_posix()] = path.read_bytes()
    return out


def kh(*args: str, env: dict[str, str] | None = None, check: bool = False) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [str(KH), *args], capture_output=True, text=True, env={**os.environ, **(env or {})}, timeout=120
    )
    if check and result.returncode != 0:
        raise AssertionError(f"kh {' '.join(args)} exited {result.returncode}: {result.stderr}")
    return result


def clocked_kh(*args: str, check: bool = False) -> subprocess.CompletedProcess[str]:
    """kh with the clock at the fixture's date (FIXTURE_NOW), as plans to be approved need."""
    result = subprocess.run(
        [*CLOCKED_KH, *args], capture_output=True, text=True, env={**os.environ, **CLOCK_ENV}, timeout=120
    )
    if check and result.returncode != 0:
        raise AssertionError(f"kh {' '.join(args)} exited {result.returncode}: {result.stderr}")
    return result


def plan_json(vault: Path, *extra: str) -> dict[str, Any]:
    """A plan made on the fixture's date by the (set) clock: one that can be approved."""
    result = clocked_kh("batch", "plan", str(vault), "--json", *extra, check=True)
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def challenge_of(view: dict[str, Any]) -> str:
    """The challenge a person types for a plan as `kh batch plan --json` printed it."""
    return f"APPROVE_PRODUCTION {view['digest']}"


def wait_for(predicate: Any, timeout: float = 60.0, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError, ValueError, KeyError):
            if predicate():
                return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def run_record(vault: Path, run_id: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((vault / ".harness" / "runs" / f"{run_id}.json").read_bytes())
    return data


def approve_at_terminal(
    vault: Path, plan_id: str, typed: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`kh batch approve` as the person runs it: at a terminal, typing the challenge when asked.
    stdout is the run record (JSON) when one was printed; stderr is everything the terminal showed."""
    shown = run_at_terminal(
        [*CLOCKED_KH, "batch", "approve", str(vault), plan_id], [typed], env={**os.environ, **CLOCK_ENV, **(env or {})}
    )
    try:
        stdout = json.dumps(shown.record)
    except StopIteration:
        stdout = ""
    return subprocess.CompletedProcess(["kh", "batch", "approve"], shown.exit_code, stdout, shown.screen)


def spawn_approval(vault: Path, plan_id: str, typed: str, env: dict[str, str] | None = None) -> TerminalProcess:
    """`kh batch approve` at a terminal, in the background (races, crashes)."""
    return spawn_at_terminal(
        [*CLOCKED_KH, "batch", "approve", str(vault), plan_id], [typed], env={**os.environ, **CLOCK_ENV, **(env or {})}
    )
