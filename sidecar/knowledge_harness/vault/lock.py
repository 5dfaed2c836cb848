"""The vault's advisory writer lock: one writer of `.harness/` (and of notes) at a time.

The CLI and a running sidecar may both build the index, plan, approve or advance a pipeline on
the same vault. Every such writer holds this lock (an exclusive `flock` on `.harness/lock`);
a second writer waits briefly, then gets a clear `Busy` naming the holder instead of
interleaving. Re-entrant within a thread, so a service may call another that also locks.

Below it, the two pieces other locks are made of: `flocked` (an flock held on a file) and
`pid_alive` (is a lock's or a task's owner still running).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from ..errors import Busy, NotWritable
from .paths import Vault

DEFAULT_WAIT_SECONDS = 5.0
_held = threading.local()


@contextlib.contextmanager
def flocked(path: Path, mode: int) -> Iterator[None]:
    """Hold an flock (`fcntl.LOCK_SH` or `LOCK_EX`) on the file at `path` (created; its folder must exist)."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, mode)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def pid_alive(pid: object) -> bool:
    """Is `pid` a running process (another user's counts too)?"""
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _depths() -> dict[str, int]:
    if not hasattr(_held, "depths"):
        _held.depths = {}
    depths: dict[str, int] = _held.depths
    return depths


def describe_holder(lock_path: Path) -> str:
    try:
        info = json.loads(lock_path.read_text(encoding="utf-8") or "{}")
    except (OSError, ValueError):
        return "another process"
    if not info:
        return "another process"
    return f"{info.get('purpose', 'a writer')} (pid {info.get('pid', '?')}, since {info.get('since', '?')})"


def not_writable(vault: Vault, path: Path, exc: OSError, purpose: str) -> NotWritable:
    """One sentence for a file the sidecar cannot create or write (read-only vault and the like)."""
    reason = exc.strerror or type(exc).__name__
    try:
        shown = path.relative_to(vault.root).as_posix()
    except ValueError:
        shown = str(path)
    return NotWritable(
        f"Cannot write to the vault ({shown}: {reason}); nothing was changed ({purpose}).",
        detail={"path": shown, "errno": exc.errno, "reason": reason},
    )


def ensure_writable(vault: Vault, purpose: str) -> None:
    """Fail early, before any work, when `.harness/` cannot be written (no lock is taken)."""
    lock_path = vault.harness_dir / "lock"
    try:
        vault.harness_dir.mkdir(parents=True, exist_ok=True)
        os.close(os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644))
    except OSError as exc:
        raise not_writable(vault, lock_path, exc, purpose) from None


@contextlib.contextmanager
def vault_lock(
    vault: Vault,
    purpose: str,
    *,
    wait_seconds: float = DEFAULT_WAIT_SECONDS,
    waiting: Callable[[], None] | None = None,
) -> Iterator[None]:
    """`waiting()` is called while another writer holds the lock, between tries; it may raise (a job's
    Cancel), which ends the wait at once with nothing taken."""
    lock_path = vault.harness_dir / "lock"
    key = str(lock_path)
    depths = _depths()
    if depths.get(key, 0) > 0:
        depths[key] += 1
        try:
            yield
        finally:
            depths[key] -= 1
        return
    try:
        vault.harness_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise not_writable(vault, lock_path, exc, purpose) from None
    try:
        deadline = time.monotonic() + wait_seconds
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    holder = describe_holder(lock_path)
                    raise Busy(
                        f"The vault is busy: {holder} holds its lock; try again when it has finished.",
                        detail={"holder": holder, "purpose": purpose},
                    ) from None
                if waiting is not None:
                    waiting()
                time.sleep(0.05)
        since = time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime())  # as datetime's isoformat, without its import
        info = {"pid": os.getpid(), "purpose": purpose, "since": since}
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(info).encode(), 0)
        depths[key] = 1
        try:
            yield
        finally:
            depths[key] = 0
            os.ftruncate(fd, 0)
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
