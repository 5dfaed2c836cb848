"""The approval gate end to end with real `kh` processes on a git copy of examples/vault.

Stages C–E of the trust design (docs/approval.md): a canary plan, the typed digest, metadata-only writes under
precondition hashes, approve-once, scope verification (git included, Japanese names), honest run
records, crash recovery.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
import re
import signal
import subprocess
import unicodedata
from pathlib import Path
from typing import Any

import anyio
import pytest

from knowledge_harness.errors import ChallengeRefused, PlanExpired
from knowledge_harness.trust.approve import batch
from knowledge_harness.trust.records import read_run, write_run
from knowledge_harness.vault.note import parse_note
from knowledge_harness.vault.paths import Vault

from ..support.batch_support import (
    TODAY,
    approve_at_terminal,
    clocked_kh,
    fixture_now,
    git,
    git_vault,
    kh,
    plan_json,
    run_record,
    spawn_approval,
    tree_bytes,
    wait_for,
)
from ..support.people import PERSON
from ..support.terminal import TerminalProcess

pytestmark = pytest.mark.usefixtures("evidence_site")
_BLOCK_KEY = re.compile(rb"^(verification|evidence):")


def without_trust_blocks(raw: bytes) -> bytes:
    """The file's bytes minus the top-level `verification:` / `evidence:` blocks of the frontmatter."""
    out: list[bytes] = []
    fences = 0
    skipping = False
    for i, line in enumerate(raw.splitlines(keepends=True)):
        bare = line.removeprefix(b"\xef\xbb\xbf") if i == 0 else line
        if bare.rstrip(b"\r\n") == b"---" and fences < 2:
            fences += 1
            skipping = False
            out.append(line)
            continue
        if fences == 1:
            if _BLOCK_KEY.match(bare):
                skipping = True
                continue
            if skipping and bare[:1] in (b" ", b"\t"):
                continue
            skipping = False
        out.append(line)
    return b"".join(out)


def challenge(plan: dict[str, Any]) -> str:
    return f"APPROVE_PRODUCTION {plan['digest']}"


def approve(
    vault: Path, plan: dict[str, Any], typed: str | None = None, **env: str
) -> subprocess.CompletedProcess[str]:
    """The person approves at a terminal (stdout: the run record; stderr: what the terminal showed)."""
    return approve_at_terminal(vault, plan["plan_id"], typed or challenge(plan), env=env)


def test_canary_plan_and_typed_digest_change_exactly_one_notes_two_blocks(tmp_path: Path) -> None:
    vault = git_vault(tmp_path)
    before = tree_bytes(vault)
    plan = plan_json(vault, "--stage", "canary")
    assert tree_bytes(vault) == before, "planning must not change any note"
    assert re.fullmatch(r"[0-9a-f]{12}", plan["digest"])
    assert [t["path"] for t in plan["targets"]] == ["Keywords/鮮度管理.md"]  # the next_batch window comes first
    target = plan["targets"][0]
    assert target["sha256_before"] and set(target["proposed"]) == {"verification", "evidence"}
    assert target["proposed"]["verification"]["status"] == "verified"
    assert target["proposed"]["verification"]["run_id"] == plan["run_id"]

    result = approve(vault, plan)
    assert result.returncode == 0, result.stderr
    record = json.loads(result.stdout)
    assert (record["run_status"], record["consumption"], record["result"]) == ("SUCCEEDED", "CONSUMED", "APPLIED")
    assert record["challenge"] == challenge(plan)
    assert record["plan_digest"].startswith(plan["digest"])
    assert record["scope"]["ok"] and record["scope"]["git_checked"]
    assert record["files"][0]["validator"]["name"] == "lexical" and record["files"][0]["findings"]

    after = tree_bytes(vault)
    changed = {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)}
    assert changed == {"Keywords/鮮度管理.md"}
    old, new = before["Keywords/鮮度管理.md"], after["Keywords/鮮度管理.md"]
    assert without_trust_blocks(new) == without_trust_blocks(old)  # every byte outside the two blocks
    assert new != old
    properties = parse_note("Keywords/鮮度管理.md", new).properties
    assert properties["verification"]["run_id"] == plan["run_id"]
    assert str(properties["verification"]["last_validated"]) == TODAY
    assert properties["evidence"]["status"] == "grounded"
    assert record["files"][0]["sha256_before"] == target["sha256_before"]
    assert record["files"][0]["sha256_after"] == target["sha256_after"]
    # git agrees: one note modified (core.quotePath is at its default, true)
    status = git(vault, "-c", "core.quotePath=false", "status", "--porcelain", "--", ".", ":!.harness")
    assert [line[3:] for line in status.splitlines()] == ["Keywords/鮮度管理.md"]
    shown = json.loads(kh("runs", "show", str(vault), record["run_id"], check=True).stdout)
    assert shown == record


def test_note_edited_between_plan_and_approval_is_refused_and_keeps_the_edit(tmp_path: Path) -> None:
    vault = git_vault(tmp_path)
    plan = plan_json(vault, "--stage", "pilot", "--out-of-order", "--notes", "Keywords/Embedding.md,Keywords/RAG.md")
    assert [t["path"] for t in plan["targets"]] == ["Keywords/Embedding.md", "Keywords/RAG.md"]
    edited = vault / "Keywords" / "RAG.md"
    mine = edited.read_bytes() + "\n人間が承認の前に書き足した一文。\n".encode()
    edited.write_bytes(mine)

    result = approve(vault, plan)
    assert result.returncode == 1  # not every target applied
    record = json.loads(result.stdout)
    files = {f["path"]: f for f in record["files"]}
    assert files["Keywords/RAG.md"]["result"] == "REFUSED"
    assert "changed since the plan" in files["Keywords/RAG.md"]["reason"]
    assert edited.read_bytes() == mine
    assert files["Keywords/Embedding.md"]["result"] == "APPLIED"
    assert (record["run_status"], record["consumption"], record["result"]) == (
        "SUCCEEDED",
        "CONSUMED",
        "PARTIALLY_APPLIED",
    )
    assert record["scope"]["ok"], record["scope"]


# typed through the real CLI
BAD_CHALLENGES_CLI = ["OK", "yes", "{digest}", "approve_production {digest}"]
# the same service, called in-process (faster; same code path below the CLI)
BAD_CHALLENGES_SERVICE = [
    "進めて",
    "APPROVE_PRODUCTION  {digest}",
    "APPROVE_PRODUCTION {other}",
    "Approve_Production {digest}",
    " APPROVE_PRODUCTION {digest}",
    "APPROVE_PRODUCTION {digest} ",
    "APPROVE_PRODUCTION\t{digest}",
    "APPROVE_PRODUCTION {upper}",
    "APPROVE_PRODUCTION {full}",
    "APPROVE_PRODUCTION {short}",
    "APPROVE_PRODUCTION",
    "",
]


def test_anything_but_the_exact_challenge_writes_nothing(tmp_path: Path) -> None:
    vault = git_vault(tmp_path)
    plan = plan_json(vault)
    other = plan_json(vault)  # another plan's digest
    before = tree_bytes(vault)
    runs_before = sorted((vault / ".harness" / "runs").glob("run-*.json"))
    values = {
        "digest": plan["digest"],
        "upper": plan["digest"].upper(),
        "full": plan["digest_sha256"],
        "other": other["digest"],
        "short": plan["digest"][:8],
    }
    for template in BAD_CHALLENGES_CLI:
        typed = template.format(**values)
        result = approve_at_terminal(vault, plan["plan_id"], typed)
        assert result.returncode == 1, (typed, result.stdout, result.stderr)
        refusal = result.stderr.strip().splitlines()[-1]
        assert "nothing was written" in refusal
        if plan["digest"].lower() not in typed.lower():
            assert plan["digest"] not in refusal  # a refusal never reveals the digest
    handle = Vault.open(vault)
    for template in BAD_CHALLENGES_SERVICE:
        with pytest.raises(ChallengeRefused, match="nothing was written"):
            batch.approve(handle, plan["plan_id"], template.format(**values), actor=PERSON, now=fixture_now())
    with pytest.raises(PlanExpired, match="expired"):  # an expired plan, even with the exact challenge
        batch.approve(
            handle, plan["plan_id"], challenge(plan), actor=PERSON, now=fixture_now() + dt.timedelta(hours=25)
        )
    assert tree_bytes(vault) == before
    assert sorted((vault / ".harness" / "runs").glob("run-*.json")) == runs_before
    shown = json.loads(clocked_kh("batch", "show", str(vault), plan["plan_id"], "--json", check=True).stdout)
    assert shown["status"] == "open"
    # the exact string still works afterwards
    assert approve(vault, plan).returncode == 0


def test_approval_reports_each_target_before_it_is_written(tmp_path: Path) -> None:
    vault = git_vault(tmp_path)
    plan = plan_json(vault, "--stage", "pilot", "--out-of-order")
    seen: list[tuple[int, int, str]] = []
    record = batch.approve(
        Vault.open(vault),
        plan["plan_id"],
        challenge(plan),
        actor=PERSON,
        now=fixture_now(),
        progress=lambda *step: seen.append(step),
    )
    paths = [t["path"] for t in plan["targets"]]
    assert len(paths) > 1 and seen == [(i, len(paths), p) for i, p in enumerate(paths)]
    assert [f["path"] for f in record["files"]] == paths and record["run_status"] == "SUCCEEDED"


def test_a_plan_is_approved_once_also_when_two_approvals_race(tmp_path: Path) -> None:
    vault = git_vault(tmp_path)
    plan = plan_json(vault)
    first = approve(vault, plan)
    assert first.returncode == 0, first.stderr
    after_first = tree_bytes(vault)
    second = approve(vault, plan)
    assert second.returncode == 1
    assert "already approved" in second.stderr
    assert tree_bytes(vault) == after_first

    other = plan_json(vault, "--notes", "Keywords/RAG.md")
    procs = [spawn_approval(vault, other["plan_id"], challenge(other)) for _ in range(2)]
    outcomes = [(run.exit_code, run.screen) for run in (p.wait(timeout=120) for p in procs)]
    assert sorted(code for code, _ in outcomes) == [0, 1], outcomes
    loser = next(err for code, err in outcomes if code == 1)
    assert "approved once" in loser
    journal = (vault / ".harness" / "runs" / "journal.jsonl").read_text(encoding="utf-8").splitlines()
    assert sum(1 for line in journal if json.loads(line)["run_id"] == other["run_id"]) == 1


def _start_paused_approval(vault: Path, plan: dict[str, Any], seconds: int) -> TerminalProcess:
    return spawn_approval(vault, plan["plan_id"], challenge(plan), env={"KH_TEST_PAUSE_AFTER_WRITE": str(seconds)})


def _applied(vault: Path, run_id: str) -> list[str]:
    return [f["path"] for f in run_record(vault, run_id)["files"] if f["result"] == "APPLIED"]


def test_kill_9_between_writes_is_recovered_as_failed_consumed_with_the_files_written(tmp_path: Path) -> None:
    vault = git_vault(tmp_path)
    plan = plan_json(vault, "--stage", "pilot", "--out-of-order")
    assert len(plan["targets"]) >= 3
    originals = {t["path"]: (vault / t["path"]).read_bytes() for t in plan["targets"]}
    proc = _start_paused_approval(vault, plan, 60)
    try:
        wait_for(lambda: len(_applied(vault, plan["run_id"])) == 1, what="the first write")
        assert run_record(vault, plan["run_id"])["run_status"] == "IN_PROGRESS"
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    first = plan["targets"][0]
    for target in plan["targets"]:  # every target wholly old or wholly new
        data = (vault / target["path"]).read_bytes()
        expected = target["sha256_after"] if target is first else target["sha256_before"]
        assert hashlib.sha256(data).hexdigest() == expected, target["path"]
        if target is not first:
            assert data == originals[target["path"]]
    assert run_record(vault, plan["run_id"])["run_status"] == "IN_PROGRESS"  # nobody has looked yet

    shown = json.loads(kh("runs", "show", str(vault), plan["run_id"], check=True).stdout)
    assert (shown["run_status"], shown["consumption"], shown["result"]) == ("FAILED", "CONSUMED", "PROVISIONAL_RETAIN")
    assert shown["failure_reason"] == "interrupted"
    assert shown["files_written"] == [first["path"]]
    results = {f["path"]: f["result"] for f in shown["files"]}
    assert results[first["path"]] == "PROVISIONAL_RETAIN"
    assert {r for p, r in results.items() if p != first["path"]} == {"NOT_APPLIED"}
    assert run_record(vault, plan["run_id"]) == shown  # the recovery is stored
    again = approve(vault, plan)
    assert again.returncode == 1 and "already approved" in again.stderr


def test_a_file_changed_by_someone_else_during_the_run_fails_it_with_provisional_retain(tmp_path: Path) -> None:
    vault = git_vault(tmp_path)
    plan = plan_json(vault)
    proc = _start_paused_approval(vault, plan, 3)
    wait_for(lambda: len(_applied(vault, plan["run_id"])) == 1, what="the write")
    home = vault / "ホーム.md"
    home.write_bytes(home.read_bytes() + "\n別のプロセスによる編集\n".encode())
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 1, err
    record = json.loads(out)
    assert (record["run_status"], record["consumption"], record["result"]) == (
        "FAILED",
        "CONSUMED",
        "PROVISIONAL_RETAIN",
    )
    assert record["files"][0]["result"] == "PROVISIONAL_RETAIN"
    assert record["failure_reason"] == "scope_verification_failed"
    assert "ホーム.md" in record["scope"]["unexpected"]
    assert "ホーム.md" in record["scope"]["git_unexpected"]
    last = err.strip().splitlines()[-1]
    assert "Scope verification failed: " in last and last.endswith(".md.") and not last.endswith(".."), last
    # the data is kept (provisionally): the note has the planned bytes
    data = (vault / plan["targets"][0]["path"]).read_bytes()
    assert hashlib.sha256(data).hexdigest() == plan["targets"][0]["sha256_after"]


def test_scope_check_handles_japanese_nfd_and_nfc_names_in_git(tmp_path: Path) -> None:
    vault = git_vault(tmp_path)
    source = (vault / "Keywords" / "鮮度管理.md").read_bytes()
    nfd_name = unicodedata.normalize("NFD", "データ鮮度.md")
    assert nfd_name != "データ鮮度.md"
    (vault / "Keywords" / nfd_name).write_bytes(source)
    git(vault, "add", "-A")
    git(vault, "commit", "-qm", "an NFD-named note")
    plan = plan_json(vault, "--notes", "Keywords/データ鮮度.md")  # asked for in NFC
    assert plan["targets"][0]["path"] == "Keywords/データ鮮度.md"
    result = approve(vault, plan)
    assert result.returncode == 0, result.stdout + result.stderr
    record = json.loads(result.stdout)
    assert record["scope"]["ok"] and record["scope"]["git_checked"]
    assert record["scope"]["git_unexpected"] == []
    assert (vault / "Keywords" / nfd_name).read_bytes() != source  # written in place, same (NFD) name

    # a Japanese file created during the run is reported by name, not as an octal escape
    plan2 = plan_json(vault, "--notes", "Keywords/RAG.md")
    proc = _start_paused_approval(vault, plan2, 3)
    wait_for(lambda: len(_applied(vault, plan2["run_id"])) == 1, what="the write")
    (vault / "日記" / "新しいメモ.md").write_text("# 新しいメモ\n", encoding="utf-8")
    out, _ = proc.communicate(timeout=120)
    record2 = json.loads(out)
    assert record2["run_status"] == "FAILED"
    assert record2["scope"]["git_unexpected"] == ["日記/新しいメモ.md"]


@pytest.mark.usefixtures("evidence_site")
def test_a_broken_run_record_is_reported_and_the_other_interrupted_runs_are_still_closed(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    vault = Vault.open(git_vault(tmp_path))
    made = anyio.run(lambda: batch.build_plan(vault, stage="canary", now=fixture_now()))
    record = batch.approve(vault, made.plan_id, batch.expected_challenge(made), actor=PERSON, now=fixture_now())
    write_run(vault, made.run_id, {**record, "run_status": "IN_PROGRESS", "finished_at": None})  # a crash, say
    _, broken = batch.new_ids(fixture_now() - dt.timedelta(days=1))
    write_run(vault, broken, {"run_id": broken, "run_status": "IN_PROGRESS"})  # half a record: not a BatchRun

    with caplog.at_level(logging.WARNING, logger="knowledge_harness.trust.batch"):
        assert batch.recover_interrupted_runs(vault) == [made.run_id]
    assert batch.show_run(vault, made.run_id)["failure_reason"] == "interrupted"
    assert any(broken in message for message in caplog.messages)
    assert read_run(vault, broken) == {"run_id": broken, "run_status": "IN_PROGRESS"}  # left as it is
