"""Storage of harness pipeline runs under `VAULT/.harness/` (the only writer of those files).

Layout of one run (`.harness/runs/pipeline/<run_id>/`):

- `run.json`              the run's head (state, waiting point, record index); replaced atomically
- `records/NNNN-<op>-<sha12>.json`  one file per OperationRecord, never rewritten
- `artifacts/<sha256>.json|.md`     content-addressed artifacts: same bytes, same name, one file
- `history.jsonl`         append-only event log
- `HANDOFF.md`            the hand-off note of the run (O-13)

Plus `.harness/DECISIONS.md` (append-only proposals). Every path is confined to `.harness/`, and
every file is read and written through vault/harness_store.py; JSON is written with sorted keys so
it diffs cleanly in git.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..core.hashing import sha256_hex
from ..core.jsonutil import canonical_json
from ..errors import NotFound, PathRejected
from ..vault.atomic import pretty_json
from ..vault.harness_store import HarnessFolder
from ..vault.lock import vault_lock
from ..vault.paths import Vault

RUNS_SUBDIR = ("runs", "pipeline")
_RUN_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{2,80}$")
_DECISIONS = "DECISIONS.md"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,160}$")


class RunStore:
    """Files of pipeline runs in one vault; every method stays inside `.harness/`."""

    def __init__(self, vault: Vault) -> None:
        self.vault = vault
        self.harness = vault.harness_dir
        self.runs = HarnessFolder(vault, *RUNS_SUBDIR)
        self.root = self.runs.root

    # -- paths -------------------------------------------------------------------------------
    def run_dir(self, run_id: str) -> Path:
        if not _RUN_ID.match(run_id):
            raise PathRejected(f"Not a valid run id: {run_id!r}.")
        return self.root / run_id

    def _folder(self, run_id: str, *folders: str) -> HarnessFolder:
        self.run_dir(run_id)  # checks the id
        folder = self.runs.sub(run_id)
        for name in folders:
            folder = folder.sub(name)
        return folder

    @staticmethod
    def _name(name: str) -> str:
        if not _NAME.match(name):
            raise PathRejected(f"Not a valid file name in a run: {name!r}.")
        return name

    def exists(self, run_id: str) -> bool:
        return (self.run_dir(run_id) / "run.json").is_file()

    def run_ids(self) -> list[str]:
        return sorted(e.name for e in self.runs.entries() if _RUN_ID.match(e.name) and self.exists(e.name))

    # -- locking -----------------------------------------------------------------------------
    @contextlib.contextmanager
    def lock(self, timeout: float = 30.0) -> Iterator[None]:
        """The vault's one writer lock (vault/lock.py), shared with index builds and approvals, so a
        pipeline step never interleaves with another writer of the same vault; re-entrant per thread."""
        with vault_lock(self.vault, "pipeline step", wait_seconds=timeout):
            yield

    # -- the head ------------------------------------------------------------------------------
    def read_head(self, run_id: str) -> dict[str, Any]:
        try:
            data: dict[str, Any] = json.loads(self._folder(run_id).read_bytes("run.json"))
        except FileNotFoundError as exc:
            raise NotFound(f"No pipeline run {run_id}.") from exc
        return data

    def write_head(self, run_id: str, head: dict[str, Any]) -> bool:
        """Replace run.json; returns False (and writes nothing) when the bytes are unchanged."""
        folder, data = self._folder(run_id), pretty_json(head)
        with contextlib.suppress(FileNotFoundError):
            if folder.read_bytes("run.json") == data:
                return False
        folder.write("run.json", data)
        return True

    # -- records -------------------------------------------------------------------------------
    def write_record(self, run_id: str, seq: int, operation: str, record: dict[str, Any]) -> str:
        """Store one record in its own file (never rewritten); returns the file name."""
        data = pretty_json(record)
        name = f"{seq:04d}-{operation}-{sha256_hex(data)[:12]}.json"
        records = self._folder(run_id, "records")
        if not records.exists(self._name(name)):
            records.write(name, data)
        return name

    def read_records(self, run_id: str) -> list[dict[str, Any]]:
        records = self._folder(run_id, "records")
        return [json.loads(records.read_bytes(name)) for name in records.names("*.json")]

    # -- artifacts -----------------------------------------------------------------------------
    def put_artifact(self, run_id: str, value: Any) -> tuple[str, bool]:
        """Store a JSON artifact by content; returns (sha256, written). Same content → no write."""
        data = pretty_json(value)
        digest = sha256_hex(data)
        artifacts = self._folder(run_id, "artifacts")
        if artifacts.exists(f"{digest}.json"):
            return digest, False
        artifacts.write(f"{digest}.json", data)
        return digest, True

    def get_artifact(self, run_id: str, digest: str) -> Any:
        if not re.fullmatch(r"[0-9a-f]{64}", digest):
            raise PathRejected(f"Not an artifact digest: {digest!r}.")
        try:
            return json.loads(self._folder(run_id, "artifacts").read_bytes(f"{digest}.json"))
        except FileNotFoundError as exc:
            raise NotFound(f"No artifact {digest} in run {run_id}.") from exc

    def list_files(self, run_id: str) -> dict[str, str]:
        """Every file of a run with its SHA-256 (for audits and tests)."""
        folder = self._folder(run_id)
        return {rel: sha256_hex(data) for rel, data in folder.all_files()}

    # -- history -------------------------------------------------------------------------------
    def append_history(self, run_id: str, event: dict[str, Any]) -> None:
        self._folder(run_id).append("history.jsonl", canonical_json(event) + b"\n")

    def read_history(self, run_id: str) -> list[dict[str, Any]]:
        folder = self._folder(run_id)
        if not folder.exists("history.jsonl"):
            return []
        return [json.loads(line) for line in folder.read_bytes("history.jsonl").splitlines() if line.strip()]

    # -- text files ------------------------------------------------------------------------------
    def write_text(self, run_id: str, name: str, text: str) -> bool:
        """Write a text file of the run (e.g. HANDOFF.md); unchanged bytes → no write."""
        folder, data = self._folder(run_id), text.encode("utf-8")
        with contextlib.suppress(FileNotFoundError):
            if folder.read_bytes(self._name(name)) == data:
                return False
        folder.write(name, data)
        return True

    def read_text(self, run_id: str, name: str) -> str:
        return self._folder(run_id).read_text(self._name(name))

    def read_bytes(self, run_id: str, name: str) -> bytes:
        return self._folder(run_id).read_bytes(self._name(name))

    # -- DECISIONS.md --------------------------------------------------------------------------
    @property
    def decisions_path(self) -> Path:
        return self.harness / _DECISIONS

    def append_decision(self, proposal_id: str, text: str) -> bool:
        """Append a proposal block once (keyed by proposal_id); never edits earlier content."""
        if not _NAME.match(proposal_id):
            raise PathRejected(f"Not a valid proposal id: {proposal_id!r}.")
        harness = HarnessFolder(self.vault)
        marker = f"<!-- proposal:{proposal_id} -->"
        existing = harness.read_text(_DECISIONS) if harness.exists(_DECISIONS) else ""
        if marker in existing:
            return False
        header = (
            "" if existing else "# DECISIONS\n\nProposals from the harness pipeline. Never adopted automatically.\n"
        )
        block = f"{header}\n{marker}\n{text.rstrip()}\n"
        harness.append(_DECISIONS, block.encode("utf-8"))
        return True

    def read_decisions(self) -> str:
        harness = HarnessFolder(self.vault)
        return harness.read_text(_DECISIONS) if harness.exists(_DECISIONS) else ""
