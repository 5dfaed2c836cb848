"""The CLI asks a person: `kh batch approve` and the pipeline's person commands read from the
controlling terminal, and refuse (exit 1, nothing changed) from a script, a pipe or an agent's shell."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from knowledge_harness.actors import os_account_name

from ..conftest import KH
from ..support.batch_support import CLOCK_ENV, CLOCKED_KH, git_vault, plan_json, run_record, tree_bytes
from ..support.terminal import run_at_terminal

pytestmark = pytest.mark.usefixtures("evidence_site")


def _no_terminal(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """`kh` as a script or an agent runs it: stdin is a pipe, no controlling terminal."""
    return subprocess.run(
        [str(KH), *args], input=stdin, capture_output=True, text=True, timeout=120, start_new_session=True
    )


def test_batch_approve_without_a_terminal_is_refused_and_writes_nothing(tmp_path: Path) -> None:
    vault = git_vault(tmp_path)
    plan = plan_json(vault)
    challenge = f"APPROVE_PRODUCTION {plan['digest'][:12]}"
    before = tree_bytes(vault)

    with_flag = _no_terminal("batch", "approve", str(vault), plan["plan_id"], "--challenge", challenge)
    piped = _no_terminal("batch", "approve", str(vault), plan["plan_id"], stdin=challenge + "\n")

    for result in (with_flag, piped):
        assert result.returncode == 1, result.stderr
        assert result.stderr.count("\n") == 1 and "nothing was changed" in result.stderr
        assert "Traceback" not in result.stderr
    assert "terminal" in piped.stderr
    assert tree_bytes(vault) == before
    assert not (vault / ".harness" / "runs").exists() or not any((vault / ".harness" / "runs").glob("run-*.json"))


def test_batch_approve_at_a_terminal_with_the_exact_challenge_applies_and_names_the_person(tmp_path: Path) -> None:
    vault = git_vault(tmp_path)
    plan = plan_json(vault)
    before = tree_bytes(vault)
    typed = f"APPROVE_PRODUCTION {plan['digest'][:12]}"

    shown = run_at_terminal(
        [*CLOCKED_KH, "batch", "approve", str(vault), plan["plan_id"]], [typed], env={**os.environ, **CLOCK_ENV}
    )

    assert shown.exit_code == 0, shown.screen
    assert plan["plan_id"] in shown.screen and "APPROVE_PRODUCTION <digest>" in shown.screen
    # the proof before the approval: who judged, and each claim's quotes with their source and offsets
    assert "judged by lexical-" in shown.screen
    quotes = [(q, f) for t in plan["targets"] for f in t["findings"] for q in f["quotes"]]
    urls = {s["source_id"]: s["url"] for t in plan["targets"] for s in t["sources"]}
    assert quotes
    for quote, _ in quotes:
        assert f"\u2014 {urls[quote['source_id']]} [{quote['start']}:{quote['end']}]" in shown.screen
        assert " ".join(quote["text"].split())[:60] in shown.screen
    run_id = plan["plan_id"].replace("plan-", "run-", 1)
    record = run_record(vault, run_id)
    assert (record["run_status"], record["result"]) == ("SUCCEEDED", "APPLIED")
    assert record["approved_by"] == os_account_name() and record["approved_via"] == "terminal"
    changed = {path for path, data in tree_bytes(vault).items() if before.get(path) != data}
    assert changed == {t["path"] for t in plan["targets"]}


def test_a_near_miss_typed_at_the_terminal_is_refused(tmp_path: Path) -> None:
    vault = git_vault(tmp_path)
    plan = plan_json(vault)
    before = tree_bytes(vault)

    shown = run_at_terminal(
        [*CLOCKED_KH, "batch", "approve", str(vault), plan["plan_id"]],
        [f"approve_production {plan['digest'][:12]}"],
        env={**os.environ, **CLOCK_ENV},
    )

    assert shown.exit_code == 1, shown.screen
    assert tree_bytes(vault) == before


def test_pipeline_person_commands_refuse_without_a_terminal(tmp_path: Path) -> None:
    vault = git_vault(tmp_path)
    (vault / "Requests").mkdir(exist_ok=True)
    (vault / "Requests" / "タイムアウト質問.md").write_text(
        "---\nharness: request\npublishable: true\n---\nPythonのasyncioでタイムアウトを設定する方法\n", encoding="utf-8"
    )
    captured = _no_terminal("pipeline", "capture", str(vault), "Requests/タイムアウト質問.md", "--json")
    assert captured.returncode == 0, captured.stderr
    run_id = json.loads(captured.stdout)["run_id"]

    for args in (
        ("pipeline", "authorize", str(vault), run_id),
        ("pipeline", "decide", str(vault), run_id, "--choice", "reject"),
        ("pipeline", "answer", str(vault), run_id, "Q-01"),
    ):
        refused = _no_terminal(*args, stdin="yes\n")
        assert refused.returncode == 1, (args, refused.stderr)
        assert "terminal" in refused.stderr and "Traceback" not in refused.stderr

    status = json.loads(_no_terminal("pipeline", "status", str(vault), run_id, "--json").stdout)
    assert status["state"] == "CAPTURED"

    at_terminal = run_at_terminal([str(KH), "pipeline", "authorize", str(vault), run_id], ["yes"], env=dict(os.environ))
    assert at_terminal.exit_code == 0, at_terminal.screen
    status = json.loads(_no_terminal("pipeline", "status", str(vault), run_id, "--json").stdout)
    assert status["state"] != "CAPTURED"
