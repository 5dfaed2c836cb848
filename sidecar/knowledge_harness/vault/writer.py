"""Atomic, journaled writes of notes under a precondition hash; append-only JSONL records.

`write_if_unchanged` replaces a note only when its current SHA-256 equals the expected one:
temp file in the same folder → write → fsync → re-check the hash → rename over the note →
fsync the folder (vault/atomic.py's steps, with the re-check between the fsync and the rename).
The file mode is kept. Each write appends one line (path, SHA-256 before and after) to
`VAULT/.harness/runs/journal.jsonl`.

A caller that has already read the note (`SeenNote`, from `see_note`) hands its bytes over, so the
note is read and hashed once on the way to the writer; the re-check right before the rename is the
one further read, and it is what keeps an edit made meanwhile from being overwritten.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..core.clock import now_utc_z
from ..core.hashing import sha256_hex
from ..errors import InputError, PreconditionFailed, WriteFailed
from .atomic import atomic_write
from .paths import Vault
from .trust_splice import replace_trust_blocks

JOURNAL_FILE = "journal.jsonl"


@dataclass(frozen=True, slots=True)
class SeenNote:
    """A note's bytes as read once, with their SHA-256 (the precondition of a guarded write)."""

    rel: str  # vault-relative
    disk: Path  # the real file a write replaces (an in-vault symlink resolved)
    raw: bytes
    sha256: str


def see_note(vault: Vault, rel_path: str) -> SeenNote:
    """Read a note once for a guarded write: its confined real path, bytes and SHA-256."""
    disk = vault.resolve_note(rel_path)
    rel = vault.rel(disk)
    target = vault.check_real(disk, rel)  # write through an in-vault symlink to the real file, never into .git & co
    raw = target.read_bytes()
    return SeenNote(rel, target, raw, sha256_hex(raw))


def _changed(rel: str, expected: str, actual: str, stage: str | None = None) -> PreconditionFailed:
    when = f" ({stage})" if stage else ""
    return PreconditionFailed(
        f"{rel} changed since its hash was taken{when}; nothing was written.",
        detail={"path": rel, "expected_sha256": expected, "actual_sha256": actual},
    )


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
    seen = see_note(vault, rel_path)
    expected = expected_sha256.strip().lower()
    if seen.sha256 != expected:
        raise _changed(seen.rel, expected, seen.sha256, "before writing")
    return write_over(vault, seen, new_bytes, journal_dir, run_id=run_id)


def write_over(
    vault: Vault, seen: SeenNote, new_bytes: bytes, journal_dir: Path | None = None, *, run_id: str | None = None
) -> WriteReceipt:
    """Replace the note `seen` was read from with `new_bytes`, unless it changed since; journal the write."""
    rel, target = seen.rel, seen.disk

    def unchanged() -> None:
        actual = sha256_hex(target.read_bytes())
        if actual != seen.sha256:
            raise _changed(rel, seen.sha256, actual, "while writing")

    try:
        atomic_write(target, new_bytes, mode=stat.S_IMODE(target.stat().st_mode), before_replace=unchanged)
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise WriteFailed(
            f"Could not write {rel}: {reason}; the note is unchanged.",
            detail={"path": rel, "errno": exc.errno, "reason": reason},
        ) from exc
    journal_folder = journal_dir if journal_dir is not None else vault.harness_dir / "runs"
    receipt = WriteReceipt(
        path=rel,
        sha256_before=seen.sha256,
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
    seen = see_note(vault, rel_path)
    expected = expected_sha256.strip().lower()
    if seen.sha256 != expected:
        raise _changed(seen.rel, expected_sha256, seen.sha256)
    return splice_trust_blocks(vault, seen, verification, evidence, journal_dir, run_id=run_id)[0]


def splice_trust_blocks(
    vault: Vault,
    seen: SeenNote,
    verification: Mapping[str, Any] | None,
    evidence: Mapping[str, Any] | None,
    journal_dir: Path | None = None,
    *,
    run_id: str | None = None,
) -> tuple[WriteReceipt, bytes]:
    """The metadata-only write of a note already read (`see_note`): the receipt and the bytes written."""
    new_bytes = replace_trust_blocks(seen.raw, verification, evidence, path=seen.rel)
    return write_over(vault, seen, new_bytes, journal_dir, run_id=run_id), new_bytes
