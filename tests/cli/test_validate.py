"""`kh validate`: a note whose cited pages hold more text than one validation may judge is one line on
stderr (exit 2), never a traceback; `--judge agent` waits for an agent connected over `kh mcp`."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from ..conftest import KH
from ..support.evidence_site import EvidenceSite
from ..support.hostile_evidence import BIG, machine_config_env, write_hostile_vault
from ..support.standin_agent import answer_one, stdio_agent


@pytest.fixture
def hostile_vault(tmp_path: Path) -> Iterator[Path]:
    site = EvidenceSite().start()
    try:
        yield write_hostile_vault(tmp_path / "vault", site)
    finally:
        site.stop()


def test_kh_validate_prints_one_line_and_no_traceback(hostile_vault: Path) -> None:
    result = subprocess.run(
        [str(KH), "validate", str(hostile_vault), BIG, "--dry-run"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, **machine_config_env(hostile_vault)},
    )
    assert result.returncode == 2, result.stdout
    assert "Traceback" not in result.stderr and "ValidationError" not in result.stderr
    [line] = result.stderr.strip().splitlines()
    assert line.startswith("kh: The note's 6 cited pages hold ") and "(evidence_too_large)" in line


def test_kh_validate_with_the_agent_judge_waits_for_an_agent_over_kh_mcp(
    example_vault: Path, evidence_site: str
) -> None:
    """`kh validate --judge agent` waits with progress on stderr; a stand-in agent (the official MCP
    client, named claude-code) takes the task through `kh mcp VAULT` and quotes the page; every quote
    on the record is the snapshot's own text at its offsets, and the judge is the note's generator."""
    note = "Keywords/冪等性.md"
    command = [str(KH), "validate", str(example_vault), note, "--dry-run", "--judge", "agent", "--wait", "60", "--json"]
    validating = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    async def agent() -> dict[str, Any]:
        async with stdio_agent(example_vault, name="claude-code", version="2.1") as session:
            return await answer_one(session, "closest", wait_seconds=30)

    answered = anyio.run(agent)
    out, err = validating.communicate(timeout=60)
    assert validating.returncode == 0, err
    assert answered["submitted"]["accepted"] is True and answered["task"]["note"]["path"] == note
    assert "waits for an agent" in err and "kh mcp VAULT" in err
    report = json.loads(out)
    assert report["judge"] == "agent:claude-code 2.1"
    assert report["self_judged"] is True and report["proposed"]["verification"]["self_judged"] is True
    assert report["proposed"]["verification"]["validator"] == "agent:claude-code 2.1"
    [source] = report["sources"]
    snapshot = (example_vault / ".harness" / "evidence" / f"{source['snapshot_sha256']}.txt").read_text(
        encoding="utf-8"
    )
    quotes = [q for f in report["findings"] for q in f["quotes"]]
    assert quotes and all(snapshot[q["start"] : q["end"]] == q["text"] for q in quotes)
    assert all(f["self_judged"] for f in report["findings"])
