"""Files of the approval gate under `VAULT/.harness/` (the only writer of them).

- `.harness/plans/<plan_id>.json`      a batch plan; written once, never rewritten
- `.harness/plans/<plan_id>.consumed`  created exclusively (O_CREAT|O_EXCL) when the plan is
                                       approved: the atomic "approved once" marker
- `.harness/runs/<run_id>.json`        a run record; replaced atomically after every step
- `.harness/discovery.json`            the latest read-only discovery (`kh discover`)

Ids are checked against one pattern so a caller's id can never name another file. JSON is
written with sorted keys (pretty for people, diff-friendly in git).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from pathlib import Path
from typing import Any

from ..errors import NotFound, PathRejected
from .atomic import atomic_write, pretty_json
from .paths import Vault

PLANS_DIR = "plans"
RUNS_DIR = "runs"
DISCOVERY_FILE = "discovery.json"
_ID = re.compile(r"^(plan|run)-[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}$")


def check_id(kind: str, value: str) -> str:
    match = _ID.match(value or "")
    if match is None or match.group(1) != kind:
        raise PathRejected(f"Not a valid {kind} id: {value!r} (expected {kind}-YYYYMMDDTHHMMSSZ-xxxxxxxx).")
    return value


def plans_dir(vault: Vault) -> Path:
    return vault.harness_dir / PLANS_DIR


def runs_dir(vault: Vault) -> Path:
    return vault.harness_dir / RUNS_DIR


def _read_json(path: Path, what: str) -> dict[str, Any]:
    try:
        data = json.loads(path.read_bytes())
    except FileNotFoundError as exc:
        raise NotFound(f"No {what}.") from exc
    if not isinstance(data, dict):
        raise NotFound(f"The {what} file is not a JSON object: {path.name}.")
    return data


# -- plans ------------------------------------------------------------------------------------
def write_plan(vault: Vault, plan_id: str, plan: dict[str, Any]) -> Path:
    path = plans_dir(vault) / f"{check_id('plan', plan_id)}.json"
    atomic_write(path, pretty_json(plan))
    return path


def read_plan(vault: Vault, plan_id: str) -> dict[str, Any]:
    return _read_json(plans_dir(vault) / f"{check_id('plan', plan_id)}.json", f"plan {plan_id}")


def list_plan_ids(vault: Vault) -> list[str]:
    folder = plans_dir(vault)
    if not folder.is_dir():
        return []
    return sorted(p.stem for p in folder.glob("plan-*.json") if _ID.match(p.stem))


def claim_plan(vault: Vault, plan_id: str, run_id: str) -> bool:
    """Atomically mark a plan consumed by `run_id`; False when it already was (by anyone)."""
    path = plans_dir(vault) / f"{check_id('plan', plan_id)}.consumed"
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        return False
    try:
        os.write(fd, (json.dumps({"run_id": run_id}) + "\n").encode("utf-8"))
        os.fsync(fd)
    finally:
        os.close(fd)
    with contextlib.suppress(OSError):
        dir_fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    return True


def plan_claimed_by(vault: Vault, plan_id: str) -> str | None:
    """The run id that consumed the plan, or None when it was never approved."""
    path = plans_dir(vault) / f"{check_id('plan', plan_id)}.consumed"
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    try:
        value = json.loads(raw).get("run_id")
    except (ValueError, AttributeError):
        return "unknown"
    return str(value) if value else "unknown"


# -- run records ------------------------------------------------------------------------------
def write_run(vault: Vault, run_id: str, record: dict[str, Any]) -> Path:
    path = runs_dir(vault) / f"{check_id('run', run_id)}.json"
    atomic_write(path, pretty_json(record))
    return path


def read_run(vault: Vault, run_id: str) -> dict[str, Any]:
    return _read_json(runs_dir(vault) / f"{check_id('run', run_id)}.json", f"run {run_id}")


def list_run_ids(vault: Vault) -> list[str]:
    folder = runs_dir(vault)
    if not folder.is_dir():
        return []
    return sorted(p.stem for p in folder.glob("run-*.json") if _ID.match(p.stem))


def read_journal(vault: Vault, run_id: str) -> list[dict[str, Any]]:
    """Lines of `.harness/runs/journal.jsonl` (vault/writer.py) that belong to `run_id`."""
    path = runs_dir(vault) / "journal.jsonl"
    entries: list[dict[str, Any]] = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return entries
    for line in lines:
        try:
            entry = json.loads(line)
        except ValueError:
            continue  # a torn last line after a crash
        if isinstance(entry, dict) and entry.get("run_id") == run_id:
            entries.append(entry)
    return entries


# -- discovery --------------------------------------------------------------------------------
POLICY_FILE = "policy.toml"


def read_policy_text(vault: Vault) -> str | None:
    """The vault policy's text, or None when there is none."""
    try:
        return (vault.harness_dir / POLICY_FILE).read_text(encoding="utf-8")
    except FileNotFoundError:
        return None


def write_policy_text(vault: Vault, text: str) -> Path:
    """Replace .harness/policy.toml atomically (only `kh init --write` does, when the person asks)."""
    path = vault.harness_dir / POLICY_FILE
    atomic_write(path, text.encode("utf-8"))
    return path


def write_discovery(vault: Vault, report: dict[str, Any]) -> Path:
    path = vault.harness_dir / DISCOVERY_FILE
    atomic_write(path, pretty_json(report))
    return path


class RunOutcomes:
    """Which batch run wrote a note, as far as the run records say: `provisional(run_id)` is True
    while the run that wrote a note did not SUCCEED (FAILED, or still IN_PROGRESS). Cached per run
    file (stat only) so the audit and every badge can ask cheaply. A run id with no record here
    (another machine's, or a note written by hand) is not provisional: nothing says it failed."""

    def __init__(self, vault: Vault) -> None:
        self.vault = vault
        self._cache: dict[str, tuple[tuple[int, int], bool]] = {}

    def provisional(self, run_id: str | None) -> bool:
        if not run_id or _ID.match(run_id) is None or not run_id.startswith("run-"):
            return False
        path = runs_dir(self.vault) / f"{run_id}.json"
        try:
            st = path.stat()
        except OSError:
            return False
        key = (st.st_mtime_ns, st.st_size)
        cached = self._cache.get(run_id)
        if cached is not None and cached[0] == key:
            return cached[1]
        try:
            record = json.loads(path.read_bytes())
        except (OSError, ValueError):
            return False
        status = record.get("run_status") if isinstance(record, dict) else None
        outcome = status in ("FAILED", "IN_PROGRESS")
        self._cache[run_id] = (key, outcome)
        return outcome


# -- the proof behind a note ------------------------------------------------------------------
# A badge carries at most this many claims, each text cut to this many characters: the batch
# badge route answers 100 notes at a time, and a hover is no place for a whole page.
MAX_PROOF_CLAIMS = 30
MAX_PROOF_CHARS = 400


def _cut(text: str) -> str:
    return text if len(text) <= MAX_PROOF_CHARS else text[: MAX_PROOF_CHARS - 1] + "…"


def _quote_text(finding: dict[str, Any]) -> str:
    """The quote as found in the snapshot (its located pieces), else the judge's own words."""
    pieces = [str(q.get("text") or "") for q in finding.get("quotes") or [] if isinstance(q, dict)]
    pieces = [p for p in pieces if p]
    return " … ".join(pieces) if pieces else str(finding.get("quote") or "")


class RunProofs:
    """Each claim of a note with the verdict, quote and source URL of the batch run that wrote it.

    The findings are the run record's file entry for the note (`.harness/runs/<run_id>.json`); the
    source URLs are the plan's (a run record names sources by id only). Cached per run file by
    (mtime, size), like RunOutcomes, and per plan file (written once). Anything unreadable gives no
    proof rather than an error: the badge still draws."""

    def __init__(self, vault: Vault) -> None:
        self.vault = vault
        self._runs: dict[str, tuple[tuple[int, int], dict[str, list[dict[str, Any]]]]] = {}
        self._plans: dict[str, tuple[tuple[int, int], dict[str, dict[str, str]]]] = {}

    def of(self, run_id: str | None, path: str) -> list[dict[str, Any]]:
        if not run_id or _ID.match(run_id) is None or not run_id.startswith("run-"):
            return []
        by_path = self._run(run_id)
        return [dict(p) for p in by_path.get(path, [])]

    @staticmethod
    def _stat(path: Path) -> tuple[int, int] | None:
        try:
            st = path.stat()
        except OSError:
            return None
        return (st.st_mtime_ns, st.st_size)

    def _run(self, run_id: str) -> dict[str, list[dict[str, Any]]]:
        path = runs_dir(self.vault) / f"{run_id}.json"
        key = self._stat(path)
        if key is None:
            return {}
        cached = self._runs.get(run_id)
        if cached is not None and cached[0] == key:
            return cached[1]
        try:
            record = json.loads(path.read_bytes())
        except (OSError, ValueError):
            return {}
        by_path: dict[str, list[dict[str, Any]]] = {}
        if isinstance(record, dict):
            urls = self._urls(str(record.get("plan_id") or ""))
            for entry in record.get("files") or []:
                if isinstance(entry, dict) and isinstance(entry.get("path"), str):
                    by_path[entry["path"]] = self._proofs(entry, urls.get(entry["path"], {}))
        self._runs[run_id] = (key, by_path)
        return by_path

    @staticmethod
    def _proofs(entry: dict[str, Any], urls: dict[str, str]) -> list[dict[str, Any]]:
        proofs: list[dict[str, Any]] = []
        for finding in entry.get("findings") or []:
            if not isinstance(finding, dict) or not isinstance(finding.get("claim_id"), str):
                continue
            source = finding.get("source_id")
            claim = finding.get("text")
            proofs.append(
                {
                    "claim_id": finding["claim_id"],
                    "claim": _cut(claim) if isinstance(claim, str) and claim else None,
                    "verdict": str(finding.get("verdict") or ""),
                    "quote": _cut(_quote_text(finding)),
                    "source_url": urls.get(source) if isinstance(source, str) else None,
                }
            )
            if len(proofs) == MAX_PROOF_CLAIMS:
                break
        return proofs

    def _urls(self, plan_id: str) -> dict[str, dict[str, str]]:
        """path → source id → URL, from the plan the run carried out."""
        if _ID.match(plan_id) is None or not plan_id.startswith("plan-"):
            return {}
        path = plans_dir(self.vault) / f"{plan_id}.json"
        key = self._stat(path)
        if key is None:
            return {}
        cached = self._plans.get(plan_id)
        if cached is not None and cached[0] == key:
            return cached[1]
        try:
            plan = json.loads(path.read_bytes())
        except (OSError, ValueError):
            return {}
        urls: dict[str, dict[str, str]] = {}
        for target in plan.get("targets") or [] if isinstance(plan, dict) else []:
            if not isinstance(target, dict) or not isinstance(target.get("path"), str):
                continue
            urls[target["path"]] = {
                str(s["source_id"]): str(s["url"])
                for s in target.get("sources") or []
                if isinstance(s, dict) and s.get("source_id") and isinstance(s.get("url"), str)
            }
        self._plans[plan_id] = (key, urls)
        return urls
