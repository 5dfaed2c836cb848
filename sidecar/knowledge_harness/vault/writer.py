"""Atomic, journaled writes of notes under a precondition hash; append-only JSONL records.

`write_if_unchanged` replaces a note only when its current SHA-256 equals the expected one:
temp file in the same folder → write → fsync → re-check the hash → rename over the note →
fsync the folder. The file mode is kept. Each write appends one line (path, SHA-256 before
and after) to `VAULT/.harness/runs/journal.jsonl`.
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..core.clock import now_utc_z
from ..core.hashing import sha256_hex
from ..errors import InputError, PreconditionFailed, WriteFailed
from .atomic import fsync_dir
from .paths import Vault
from .trust_splice import replace_trust_blocks

JOURNAL_FILE = "journal.jsonl"


@dataclass(frozen=True, slots=True)
class WriteReceipt:
    path: str  # vault-relative
    sha256_before: str
    sha256_after: str
    bytes_written: int
    written_at: str  # ISO 8601, UTC
    journal: str  # the journal file, vault-relative
    run_id: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _harness_path(vault: Vault, target: Path) -> Path:
    resolved = target if target.is_absolute() else vault.harness_dir / target
    resolved = resolved.resolve()
    if not resolved.is_relative_to(vault.harness_dir.resolve()):
        raise InputError(f"{target} is outside the vault's .harness folder.")
    return resolved


def append_jsonl(vault: Vault, target: Path | str, record: Mapping[str, Any]) -> Path:
    """Append one JSON line (sorted keys) to a file under VAULT/.harness/, creating folders."""
    path = _harness_path(vault, Path(target))
    path.parent.mkdir(parents=True, exist_ok=True)
    line = json.dumps(record, sort_keys=True, ensure_ascii=False, default=str) + "\n"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        os.write(fd, line.encode("utf-8"))
        os.fsync(fd)
    finally:
        os.close(fd)
    return path


def write_if_unchanged(
    vault: Vault,
    rel_path: str,
    new_bytes: bytes,
    expected_sha256: str,
    journal_dir: Path | None = None,
    *,
    run_id: str | None = None,
) -> WriteReceipt:
    """Atomically replace a note if its current SHA-256 is `expected_sha256`; journal the write.

    Raises PreconditionFailed naming the file when the note changed (nothing is written).
    """
    disk = vault.resolve_note(rel_path)
    rel = vault.rel(disk)
    target = vault.check_real(disk, rel)  # write through an in-vault symlink to the real file, never into .git & co
    expected = expected_sha256.strip().lower()

    def check(stage: str) -> bytes:
        current = target.read_bytes()
        actual = sha256_hex(current)
        if actual != expected:
            raise PreconditionFailed(
                f"{rel} changed since its hash was taken ({stage}); nothing was written.",
                detail={"path": rel, "expected_sha256": expected, "actual_sha256": actual},
            )
        return current

    before = check("before writing")
    mode = stat.S_IMODE(target.stat().st_mode)
    folder = target.parent
    temp: Path | None = None
    try:
        fd, temp_name = tempfile.mkstemp(dir=folder, prefix=f".{target.name}.", suffix=".kh-tmp")
        temp = Path(temp_name)
        with os.fdopen(fd, "wb") as handle:
            handle.write(new_bytes)
            handle.flush()
            os.fsync(handle.fileno())
        temp.chmod(mode)
        check("while writing")
        temp.replace(target)
    except OSError as exc:
        if temp is not None:
            temp.unlink(missing_ok=True)
        reason = exc.strerror or type(exc).__name__
        raise WriteFailed(
            f"Could not write {rel}: {reason}; the note is unchanged.",
            detail={"path": rel, "errno": exc.errno, "reason": reason},
        ) from exc
    except BaseException:
        if temp is not None:
            temp.unlink(missing_ok=True)
        raise
    fsync_dir(folder)
    journal_folder = journal_dir if journal_dir is not None else vault.harness_dir / "runs"
    receipt = WriteReceipt(
        path=rel,
        sha256_before=sha256_hex(before),
        sha256_after=sha256_hex(new_bytes),
        bytes_written=len(new_bytes),
        written_at=now_utc_z(),
        journal="",
        run_id=run_id,
    )
    entry = {k: v for k, v in receipt.as_dict().items() if k != "journal"}
    journal = append_jsonl(vault, Path(journal_folder) / JOURNAL_FILE, entry)
    return WriteReceipt(**{**receipt.as_dict(), "journal": journal.relative_to(vault.root.resolve()).as_posix()})


def write_trust_blocks(
    vault: Vault,
    rel_path: str,
    verification: Mapping[str, Any] | None,
    evidence: Mapping[str, Any] | None,
    expected_sha256: str,
    journal_dir: Path | None = None,
    *,
    run_id: str | None = None,
) -> WriteReceipt:
    """Metadata-only write: splice new `verification` / `evidence` blocks into a note.

    Refuses (SpliceRefused, PreconditionFailed) before touching the file when the splice is
    not certain or the note changed since `expected_sha256` was taken.
    """
    disk = vault.resolve_note(rel_path)
    rel = vault.rel(disk)
    current = disk.read_bytes()
    if sha256_hex(current) != expected_sha256.strip().lower():
        raise PreconditionFailed(
            f"{rel} changed since its hash was taken; nothing was written.",
            detail={"path": rel, "expected_sha256": expected_sha256, "actual_sha256": sha256_hex(current)},
        )
    new_bytes = replace_trust_blocks(current, verification, evidence, path=rel)
    return write_if_unchanged(vault, rel, new_bytes, expected_sha256, journal_dir, run_id=run_id)
