"""The advisory writer lock serializes real processes and answers 'busy' clearly."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from knowledge_harness.errors import Busy, Cancelled
from knowledge_harness.vault.lock import vault_lock
from knowledge_harness.vault.paths import Vault

HOLDER = textwrap.dedent(
    """
    import sys, time
    from knowledge_harness.vault.lock import vault_lock
    from knowledge_harness.vault.paths import Vault
    with vault_lock(Vault.open(sys.argv[1]), "index build"):
        print("held", flush=True)
        sys.stdin.readline()
    """
)


def test_a_second_process_gets_busy_naming_the_holder(tmp_path: Path) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(tmp_path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(Busy) as caught, vault_lock(Vault.open(tmp_path), "batch approve", wait_seconds=0.2):
            pass
        assert "index build" in caught.value.message
        assert f"pid {holder.pid}" in caught.value.message
    finally:
        assert holder.stdin is not None
        holder.stdin.write("\n")
        holder.stdin.flush()
        holder.wait(timeout=10)
    with vault_lock(Vault.open(tmp_path), "after release", wait_seconds=0.2):
        pass


def test_the_lock_is_reentrant_in_one_thread_and_exclusive_across_threads(tmp_path: Path) -> None:
    vault = Vault.open(tmp_path)
    outcome: list[str] = []

    def other_thread() -> None:
        try:
            with vault_lock(vault, "other", wait_seconds=0.1):
                outcome.append("acquired")
        except Busy:
            outcome.append("busy")

    with vault_lock(vault, "outer"), vault_lock(vault, "inner"):
        worker = threading.Thread(target=other_thread)
        worker.start()
        worker.join()
    assert outcome == ["busy"]
    other_thread()
    assert outcome == ["busy", "acquired"]


def test_a_wait_for_the_lock_ends_as_soon_as_its_waiting_hook_raises(tmp_path: Path) -> None:
    """A job's Cancel (its report raises Cancelled) acts while another writer holds the lock, not after."""
    vault = Vault.open(tmp_path)
    calls: list[int] = []

    def cancel_on_the_third_try() -> None:
        calls.append(1)
        if len(calls) == 3:
            raise Cancelled("Cancelled while waiting for the vault lock: nothing was stored.")

    held, release = threading.Event(), threading.Event()

    def holder() -> None:
        with vault_lock(vault, "a long batch approve"):
            held.set()
            release.wait(timeout=60)

    worker = threading.Thread(target=holder)
    worker.start()
    try:
        assert held.wait(timeout=10)
        # the wait could go on for a minute; the hook ends it (without the hook this would end Busy)
        with (
            pytest.raises(Cancelled),
            vault_lock(vault, "index build", wait_seconds=60, waiting=cancel_on_the_third_try),
        ):
            pass
        assert len(calls) == 3
    finally:
        release.set()
        worker.join(timeout=10)
    with vault_lock(vault, "after", wait_seconds=0.2):  # nothing was left taken
        pass
