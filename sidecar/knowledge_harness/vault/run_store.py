"""Storage of harness pipeline runs under `VAULT/.harness/` (the only writer of those files).

Layout of one run (`.harness/runs/pipeline/<run_id>/`):

- `run.json`              the run's head (state, waiting point, record index); replaced atomically
- `records/NNNN-<op>-<sha12>.json`  one file per OperationRecord, never rewritten
- `artifacts/<sha256>.json|.md`     content-addressed artifacts: same bytes, same name, one file
- `history.jsonl`         append-only event log
- `HANDOFF.md`            the hand-off note of the run (O-13)

Plus `.harness/DECISIONS.md` (append-only proposals). Every path is confined to `.harness/`;
JSON is written with sorted keys so it diffs cleanly in git.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..core.hashing import sha256_hex
from ..core.jsonutil import canonical_json
from ..errors import NotFound, PathRejected
from .atomic import atomic_write, pretty_json
from .lock import vault_lock
from .paths import Vault

RUNS_SUBDIR = ("runs", "pipeline")
_RUN_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{2,80}$")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,160}$")


class RunStore:
    """Files of pipeline runs in one vault; every method stays inside `.harness/`."""

    def __init__(self, vault: Vault) -> None:
        self.vault = vault
        self.harness = vault.harness_dir
        self.root = self.harness.joinpath(*RUNS_SUBDIR)

    # -- paths -------------------------------------------------------------------------------
    def run_dir(self, run_id: str) -> Path:
        if not _RUN_ID.match(run_id):
            raise PathRejected(f"Not a valid run id: {run_id!r}.")
        return self.root / run_id

    def _inside(self, run_id: str, *parts: str) -> Path:
        for part in parts:
            if not _NAME.match(part):
                raise PathRejected(f"Not a valid file name in a run: {part!r}.")
        return self.run_dir(run_id).joinpath(*parts)

    def exists(self, run_id: str) -> bool:
        return (self.run_dir(run_id) / "run.json").is_file()

    def run_ids(self) -> list[str]:
        if not self.root.is_dir():
            return []
        return sorted(p.name for p in self.root.iterdir() if _RUN_ID.match(p.name) and (p / "run.json").is_file())

    # -- locking -----------------------------------------------------------------------------
    @contextlib.contextmanager
    def lock(self, timeout: float = 30.0) -> Iterator[None]:
        """The vault's one writer lock (vault/lock.py), shared with index builds and approvals, so a
        pipeline step never interleaves with another writer of the same vault; re-entrant per thread."""
        with vault_lock(self.vault, "pipeline step", wait_seconds=timeout):
            yield

    # -- the head ------------------------------------------------------------------------------
    def read_head(self, run_id: str) -> dict[str, Any]:
        path = self.run_dir(run_id) / "run.json"
        try:
            data: dict[str, Any] = json.loads(path.read_bytes())
        except FileNotFoundError as exc:
            raise NotFound(f"No pipeline run {run_id}.") from exc
        return data

    def write_head(self, run_id: str, head: dict[str, Any]) -> bool:
        """Replace run.json; returns False (and writes nothing) when the bytes are unchanged."""
        path = self.run_dir(run_id) / "run.json"
        data = pretty_json(head)
        with contextlib.suppress(FileNotFoundError):
            if path.read_bytes() == data:
                return False
        atomic_write(path, data)
        return True

    # -- records -------------------------------------------------------------------------------
    def write_record(self, run_id: str, seq: int, operation: str, record: dict[str, Any]) -> str:
        """Store one record in its own file (never rewritten); returns the file name."""
        data = pretty_json(record)
        name = f"{seq:04d}-{operation}-{sha256_hex(data)[:12]}.json"
        path = self._inside(run_id, "records", name)
        if not path.exists():
            atomic_write(path, data)
        return name

    def read_records(self, run_id: str) -> list[dict[str, Any]]:
        folder = self.run_dir(run_id) / "records"
        if not folder.is_dir():
            return []
        return [json.loads(p.read_bytes()) for p in sorted(folder.glob("*.json"))]

    # -- artifacts -----------------------------------------------------------------------------
    def put_artifact(self, run_id: str, value: Any) -> tuple[str, bool]:
        """Store a JSON artifact by content; returns (sha256, written). Same content → no write."""
        data = pretty_json(value)
        digest = sha256_hex(data)
        path = self._inside(run_id, "artifacts", f"{digest}.json")
        if path.exists():
            return digest, False
        atomic_write(path, data)
        return digest, True

    def get_artifact(self, run_id: str, digest: str) -> Any:
        if not re.fullmatch(r"[0-9a-f]{64}", digest):
            raise PathRejected(f"Not an artifact digest: {digest!r}.")
        path = self._inside(run_id, "artifacts", f"{digest}.json")
        try:
            return json.loads(path.read_bytes())
        except FileNotFoundError as exc:
            raise NotFound(f"No artifact {digest} in run {run_id}.") from exc

    def list_files(self, run_id: str) -> dict[str, str]:
        """Every file of a run with its SHA-256 (for audits and tests)."""
        base = self.run_dir(run_id)
        out: dict[str, str] = {}
        for path in sorted(base.rglob("*")):
            if path.is_file() and not path.name.startswith(".tmp-"):
                out[path.relative_to(base).as_posix()] = sha256_hex(path.read_bytes())
        return out

    # -- history -------------------------------------------------------------------------------
    def append_history(self, run_id: str, event: dict[str, Any]) -> None:
        path = self.run_dir(run_id) / "history.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        line = canonical_json(event) + b"\n"
        with path.open("ab") as handle:
            handle.write(line)
            handle.flush()
            os.fsync(handle.fileno())

    def read_history(self, run_id: str) -> list[dict[str, Any]]:
        path = self.run_dir(run_id) / "history.jsonl"
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_bytes().splitlines() if line.strip()]

    # -- text files ------------------------------------------------------------------------------
    def write_text(self, run_id: str, name: str, text: str) -> bool:
        """Write a text file of the run (e.g. HANDOFF.md); unchanged bytes → no write."""
        path = self._inside(run_id, name)
        data = text.encode("utf-8")
        with contextlib.suppress(FileNotFoundError):
            if path.read_bytes() == data:
                return False
        atomic_write(path, data)
        return True

    def read_text(self, run_id: str, name: str) -> str:
        return self._inside(run_id, name).read_text(encoding="utf-8")

    def read_bytes(self, run_id: str, name: str) -> bytes:
        return self._inside(run_id, name).read_bytes()

    # -- DECISIONS.md --------------------------------------------------------------------------
    @property
    def decisions_path(self) -> Path:
        return self.harness / "DECISIONS.md"

    def append_decision(self, proposal_id: str, text: str) -> bool:
        """Append a proposal block once (keyed by proposal_id); never edits earlier content."""
        if not _NAME.match(proposal_id):
            raise PathRejected(f"Not a valid proposal id: {proposal_id!r}.")
        path = self.decisions_path
        marker = f"<!-- proposal:{proposal_id} -->"
        existing = path.read_text(encoding="utf-8") if path.exists() else ""
        if marker in existing:
            return False
        path.parent.mkdir(parents=True, exist_ok=True)
        header = (
            "" if existing else "# DECISIONS\n\nProposals from the harness pipeline. Never adopted automatically.\n"
        )
        block = f"{header}\n{marker}\n{text.rstrip()}\n"
        with path.open("a", encoding="utf-8") as handle:
            handle.write(block)
            handle.flush()
            os.fsync(handle.fileno())
        return True

    def read_decisions(self) -> str:
        path = self.decisions_path
        return path.read_text(encoding="utf-8") if path.exists() else ""
