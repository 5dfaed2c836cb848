"""Concurrent writers of one vault's `.harness/`, with real processes.

Two `kh index build` runs, and the CLI against a running `kh serve` (REST index build), are
serialized by the advisory lock (`.harness/lock`) or answered with a clear "busy"; they never
interleave (the index stays valid). A batch approval racing an index build is serialized the
same way. Outcomes are checked, never timings.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from bench.make_vault import make_vault

from ..conftest import KH, Sidecar, start_sidecar, stop_sidecar

HOLDER = textwrap.dedent(
    """
    import sys
    from knowledge_harness.vault.lock import vault_lock
    from knowledge_harness.vault.paths import Vault
    with vault_lock(Vault.open(sys.argv[1]), "a long batch approve"):
        print("held", flush=True)
        sys.stdin.readline()
    """
)


@contextlib.contextmanager
def _held_with_a_sidecar(vault: Path) -> Iterator[tuple[subprocess.Popen[str], Sidecar]]:
    """Another process holding the vault's writer lock (until the block ends), and a sidecar on the vault."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(vault)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    sidecar = start_sidecar(vault)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        yield holder, sidecar
    finally:
        assert holder.stdin is not None
        holder.stdin.write("\n")
        holder.stdin.flush()
        holder.wait(timeout=30)
        stop_sidecar(sidecar)


@pytest.fixture(scope="module")
def big_vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    vault = tmp_path_factory.mktemp("writers") / "vault"
    vault.mkdir()
    make_vault(vault, 1500, seed=7)
    return vault


def _index_valid(vault: Path) -> None:
    manifest = json.loads((vault / ".harness" / "index" / "manifest.json").read_text(encoding="utf-8"))
    paths = [n["path"] for n in manifest["notes"]]
    assert paths == sorted(paths) and len(paths) == len(set(paths))
    for entry in manifest["notes"]:
        layer = json.loads((vault / ".harness" / "index" / "notes" / f"{entry['id']}.json").read_text("utf-8"))
        assert layer["path"] == entry["path"] and layer["sha256"] == entry["sha256"]
    check = subprocess.run([str(KH), "index", "check", str(vault)], capture_output=True, text=True, timeout=120)
    assert check.returncode == 0, check.stdout + check.stderr


def _busy_or_ok(proc: subprocess.CompletedProcess[str]) -> str:
    if proc.returncode == 0:
        return "ok"
    assert proc.returncode == 1, proc.stderr
    assert "busy" in proc.stderr.lower(), proc.stderr
    assert "Traceback" not in proc.stderr
    return "busy"


def test_two_cli_index_builds_are_serialized_or_busy(big_vault: Path) -> None:
    cmd = [str(KH), "index", "build", str(big_vault), "--full"]
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outcomes = []
    for proc in procs:
        out, err = proc.communicate(timeout=600)
        outcomes.append(_busy_or_ok(subprocess.CompletedProcess(cmd, proc.returncode, out, err)))
    assert "ok" in outcomes
    _index_valid(big_vault)


def test_a_held_lock_makes_the_cli_and_the_sidecar_answer_busy(big_vault: Path) -> None:
    with _held_with_a_sidecar(big_vault) as (holder, sidecar):
        cli = subprocess.run([str(KH), "index", "build", str(big_vault)], capture_output=True, text=True, timeout=120)
        assert cli.returncode == 1
        assert "busy" in cli.stderr.lower() and "a long batch approve" in cli.stderr
        assert f"pid {holder.pid}" in cli.stderr
        with sidecar.client() as client:
            answer = client.post("/v1/index/build")
            assert answer.status_code == 423
            assert answer.json()["error"]["code"] == "busy"
            assert "a long batch approve" in answer.json()["error"]["message"]
            # readers are never blocked by the writer lock
            assert client.get("/v1/trust/audit").status_code == 200
            assert client.get("/v1/index/check").status_code == 200


def test_cli_build_and_sidecar_build_never_interleave(big_vault: Path) -> None:
    sidecar = start_sidecar(big_vault)
    try:
        rest: dict[str, int] = {}

        def rest_build() -> None:
            with sidecar.client() as client:
                client.timeout = 600  # type: ignore[assignment]
                rest["status"] = client.post("/v1/index/build", params={"full": "true"}).status_code

        worker = threading.Thread(target=rest_build)
        cmd = [str(KH), "index", "build", str(big_vault), "--full"]
        worker.start()
        cli = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        worker.join(timeout=600)
        outcomes = {_busy_or_ok(cli), "ok" if rest["status"] == 200 else "busy"}
        assert rest["status"] in (200, 423)
        assert "ok" in outcomes
    finally:
        stop_sidecar(sidecar)
    _index_valid(big_vault)


def test_a_batch_approval_racing_an_index_build_is_serialized(example_vault: Path) -> None:
    subprocess.run([str(KH), "index", "build", str(example_vault)], check=True, capture_output=True, timeout=120)
    sidecar = start_sidecar(example_vault)
    try:
        with sidecar.client() as client:
            plan = client.post("/v1/batches", json={"stage": "pilot", "out_of_order": True})
            assert plan.status_code == 200, plan.text
            body = plan.json()
            assert body["targets"], body
            approval: dict[str, object] = {}

            def approve() -> None:
                with sidecar.client() as other:
                    other.timeout = 300  # type: ignore[assignment]
                    answer = other.post(
                        f"/v1/batches/{body['plan_id']}/approve",
                        json={"challenge": f"APPROVE_PRODUCTION {body['digest']}"},
                    )
                    approval["status"] = answer.status_code
                    approval["body"] = answer.json()

            worker = threading.Thread(target=approve)
            worker.start()
            builds = [
                subprocess.run(
                    [str(KH), "index", "build", str(example_vault), "--full"],
                    capture_output=True,
                    text=True,
                    timeout=300,
                )
                for _ in range(3)
            ]
            worker.join(timeout=300)
            for build in builds:
                _busy_or_ok(build)
            assert approval["status"] in (200, 423), approval
            if approval["status"] == 200:
                record = approval["body"]
                assert isinstance(record, dict)
                assert record.get("run_status", record.get("status")) != "RUNNING"
    finally:
        stop_sidecar(sidecar)
    # whatever the order, one more build makes the index valid and fresh
    subprocess.run([str(KH), "index", "build", str(example_vault)], check=True, capture_output=True, timeout=120)
    _index_valid(example_vault)


def test_a_cancel_acts_while_the_build_waits_for_anothers_lock(example_vault: Path) -> None:
    """The plugin's Cancel on "Rebuild reasoning index" while a CLI writer holds the vault: the job ends
    cancelled during the wait (the holder still holds the lock), not busy once the wait runs out."""
    with _held_with_a_sidecar(example_vault) as (holder, sidecar):
        answer: dict[str, httpx.Response] = {}

        def build() -> None:
            with sidecar.client() as client:
                answer["build"] = client.post("/v1/index/build", headers={"X-KH-Job": "plugin-index-0001"})

        worker = threading.Thread(target=build)
        worker.start()
        with sidecar.client() as client:
            step = ""
            while step != "wait" and worker.is_alive():
                job = client.get("/v1/jobs/plugin-index-0001")
                step = job.json().get("step", "") if job.status_code == 200 else ""
            assert step == "wait"
            assert client.post("/v1/jobs/plugin-index-0001/cancel").json()["cancel_requested"] is True
            worker.join(timeout=60)
            assert holder.poll() is None  # the lock is still held: the cancel acted during the wait
            refused = answer["build"]
            assert refused.status_code == 409 and refused.json()["error"]["code"] == "cancelled", refused.text
            assert client.get("/v1/jobs/plugin-index-0001").json()["state"] == "cancelled"
