"""Files of the approval gate under `VAULT/.harness/` (the only writer of them).

- `.harness/plans/<plan_id>.json`      a batch plan; written once, never rewritten
- `.harness/plans/<plan_id>.consumed`  created exclusively (O_CREAT|O_EXCL) when the plan is
                                       approved: the atomic "approved once" marker
- `.harness/runs/<run_id>.json`        a run record; replaced atomically after every step
- `.harness/discovery.json`            the latest read-only discovery (`kh discover`)
- `.harness/adoptions/<adopt_id>.json`  a person's adoption (`kh trust adopt`): per note, the digest of
                                       the trust blocks the person vouched for; written once

Ids are checked against one pattern so a caller's id can never name another file. JSON is
written with sorted keys (pretty for people, diff-friendly in git). Every file is read and written
through vault/harness_store.py (atomic writes, the exclusive create of the "approved once" marker).
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, Literal, TypeVar

from ..core.hashing import sha256_hex
from ..core.jsonutil import canonical_json, jsonable
from ..errors import NotFound, PathRejected
from ..vault.atomic import pretty_json
from ..vault.harness_store import HarnessFolder
from ..vault.paths import Vault

PLANS_DIR = "plans"
RUNS_DIR = "runs"
ADOPTIONS_DIR = "adoptions"
DISCOVERY_FILE = "discovery.json"
ADOPTION_FORMAT = "kh-adoption/1"
_ID = re.compile(r"^(plan|run|adopt)-[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}$")


def check_id(kind: str, value: str) -> str:
    match = _ID.match(value or "")
    if match is None or match.group(1) != kind:
        raise PathRejected(f"Not a valid {kind} id: {value!r} (expected {kind}-YYYYMMDDTHHMMSSZ-xxxxxxxx).")
    return value


def runs_dir(vault: Vault) -> Path:
    return vault.harness_dir / RUNS_DIR


def _plans(vault: Vault) -> HarnessFolder:
    return HarnessFolder(vault, PLANS_DIR)


def _runs(vault: Vault) -> HarnessFolder:
    return HarnessFolder(vault, RUNS_DIR)


def _read_json(folder: HarnessFolder, name: str, what: str) -> dict[str, Any]:
    try:
        data = json.loads(folder.read_bytes(name))
    except FileNotFoundError as exc:
        raise NotFound(f"No {what}.") from exc
    except ValueError as exc:  # cut short by a crash or a full disk, or edited by hand
        raise NotFound(f"The {what} file is not valid JSON: {name}.") from exc
    if not isinstance(data, dict):
        raise NotFound(f"The {what} file is not a JSON object: {name}.")
    return data


# -- plans ------------------------------------------------------------------------------------
def write_plan(vault: Vault, plan_id: str, plan: dict[str, Any]) -> Path:
    return _plans(vault).write(f"{check_id('plan', plan_id)}.json", pretty_json(plan))


def read_plan(vault: Vault, plan_id: str) -> dict[str, Any]:
    return _read_json(_plans(vault), f"{check_id('plan', plan_id)}.json", f"plan {plan_id}")


def list_plan_ids(vault: Vault) -> list[str]:
    return [name[:-5] for name in _plans(vault).names("plan-*.json") if _ID.match(name[:-5])]


def claim_plan(vault: Vault, plan_id: str, run_id: str) -> bool:
    """Atomically mark a plan consumed by `run_id`; False when it already was (by anyone)."""
    marker = f"{check_id('plan', plan_id)}.consumed"
    return _plans(vault).create_new(marker, (json.dumps({"run_id": run_id}) + "\n").encode("utf-8"))


def plan_claimed_by(vault: Vault, plan_id: str) -> str | None:
    """The run id that consumed the plan, or None when it was never approved."""
    try:
        raw = _plans(vault).read_text(f"{check_id('plan', plan_id)}.consumed")
    except FileNotFoundError:
        return None
    try:
        value = json.loads(raw).get("run_id")
    except (ValueError, AttributeError):
        return "unknown"
    return str(value) if value else "unknown"


# -- run records ------------------------------------------------------------------------------
def write_run(vault: Vault, run_id: str, record: dict[str, Any]) -> Path:
    return _runs(vault).write(f"{check_id('run', run_id)}.json", pretty_json(record))


def read_run(vault: Vault, run_id: str) -> dict[str, Any]:
    return _read_json(_runs(vault), f"{check_id('run', run_id)}.json", f"run {run_id}")


def list_run_ids(vault: Vault) -> list[str]:
    return [name[:-5] for name in _runs(vault).names("run-*.json") if _ID.match(name[:-5])]


def read_journal(vault: Vault, run_id: str) -> list[dict[str, Any]]:
    """Lines of `.harness/runs/journal.jsonl` (vault/writer.py) that belong to `run_id`."""
    entries: list[dict[str, Any]] = []
    try:
        lines = _runs(vault).read_text("journal.jsonl").splitlines()
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
        return HarnessFolder(vault).read_text(POLICY_FILE)
    except FileNotFoundError:
        return None


def write_policy_text(vault: Vault, text: str) -> Path:
    """Replace .harness/policy.toml atomically (only `kh init --write` does, when the person asks)."""
    return HarnessFolder(vault).write(POLICY_FILE, text.encode("utf-8"))


def write_discovery(vault: Vault, report: dict[str, Any]) -> Path:
    return HarnessFolder(vault).write(DISCOVERY_FILE, pretty_json(report))


# -- adoptions ---------------------------------------------------------------------------------
def adoptions_dir(vault: Vault) -> Path:
    return vault.harness_dir / ADOPTIONS_DIR


def write_adoption(vault: Vault, adoption_id: str, record: dict[str, Any]) -> Path:
    folder, name = HarnessFolder(vault, ADOPTIONS_DIR), f"{check_id('adopt', adoption_id)}.json"
    if folder.exists(name):
        raise PathRejected(f"The adoption {adoption_id} exists already; an adoption is written once.")
    return folder.write(name, pretty_json(record))


# -- the record behind a note's trust blocks ----------------------------------------------------
def blocks_digest(properties: Mapping[str, Any]) -> str | None:
    """SHA-256 of the note's `verification` and `evidence` blocks as written (canonical JSON of their
    values: key order, quoting and YAML layout do not matter, any value does); None without a
    `verification` mapping. Runs record it per file they write; the audit compares it."""
    verification = properties.get("verification")
    if not isinstance(verification, Mapping):
        return None
    return _digest(dict(verification), properties.get("evidence"))


def proposed_digest(proposed: Mapping[str, Any]) -> str:
    """`blocks_digest` of a plan's proposed blocks (runs recorded before runs kept the digest)."""
    return _digest(proposed.get("verification"), proposed.get("evidence"))


def _digest(verification: Any, evidence: Any) -> str:
    return sha256_hex(canonical_json({"verification": jsonable(verification), "evidence": jsonable(evidence)}))


RecordKind = Literal["recorded", "adopted", "unrecorded", "provisional", "none"]


@dataclass(frozen=True, slots=True)
class RecordState:
    """What stands behind a note's trust blocks (docs/audit.md, "Records")."""

    kind: RecordKind
    reason: str | None = None  # why unrecorded or provisional, one English sentence
    run_id: str | None = None  # the run that wrote the blocks (recorded, provisional)
    adopted_by: str | None = None


@dataclass(frozen=True, slots=True)
class _RunFacts:
    status: str | None
    failure_reason: str | None
    files: dict[str, tuple[str | None, str | None, str | None]]  # NFC path -> (result, blocks_sha256, sha256_after)


def _is_run_id(value: str | None) -> bool:
    """`value` names a run record (`run-…`), so it can never name another file."""
    return bool(value) and _ID.match(str(value)) is not None and str(value).startswith("run-")


def _nfc(path: str) -> str:
    return unicodedata.normalize("NFC", path)


_NO_RUN = _RunFacts(None, None, {})
RE_ESTABLISH = (
    "To count a note again: check it (kh validate VAULT NOTE), plan it (kh batch plan VAULT --notes NOTE) and "
    "approve the plan at a terminal; or, if you vouch for the blocks as they are, adopt them (kh trust adopt VAULT)."
)


_T = TypeVar("_T")


class _JsonFileCache(Generic[_T]):
    """What `derive` makes of a JSON file of one folder, kept while the file's (mtime, size) stays the
    same. A file that is missing or not JSON gives None and is not remembered."""

    def __init__(self, folder: HarnessFolder, derive: Callable[[Any], _T]) -> None:
        self._folder = folder
        self._derive = derive
        self._values: dict[str, tuple[tuple[int, int], _T]] = {}

    def get(self, name: str) -> _T | None:
        try:
            st = self._folder.path(name).stat()
        except OSError:
            return None
        key = (st.st_mtime_ns, st.st_size)
        cached = self._values.get(name)
        if cached is not None and cached[0] == key:
            return cached[1]
        try:
            data = json.loads(self._folder.read_bytes(name))
        except (OSError, ValueError):
            return None
        value = self._derive(data)
        self._values[name] = (key, value)
        return value


class TrustRecords:
    """Which record stands behind each note's trust blocks, read from `.harness/runs/` and
    `.harness/adoptions/`. Run files are cached per file (stat only), adoptions per listing of their files' stats,
    so the audit and every badge can ask cheaply.

    - `recorded`: the run named by `verification.run_id` SUCCEEDED and recorded, for this path, the
      digest of exactly these blocks (`blocks_sha256`). Runs recorded before runs kept the digest
      are read from their plan's proposed blocks (the values the run wrote), or, with the plan gone,
      from the file's bytes (`sha256_after`).
    - `provisional`: that run did not succeed (FAILED, or still IN_PROGRESS after a crash).
    - `adopted`: a person's adoption (`kh trust adopt`) holds the digest of these blocks for this path.
    - `unrecorded`: anything else (hand-written, copied from another note, edited after the run,
      or the records deleted). `none`: the note has no `verification` block.
    """

    def __init__(self, vault: Vault) -> None:
        self.vault = vault
        self._runs: _JsonFileCache[_RunFacts] = _JsonFileCache(
            _runs(vault), lambda record: _run_facts(vault, record) if isinstance(record, dict) else _NO_RUN
        )
        self._adoptions: tuple[tuple[tuple[str, int, int], ...], dict[str, dict[str, str]]] | None = None

    # runs
    def _run(self, run_id: str) -> _RunFacts | None:
        return self._runs.get(f"{run_id}.json")

    # adoptions
    def _adopted(self) -> dict[str, dict[str, str]]:
        """NFC path -> {blocks digest: who adopted it}, the latest adoption winning."""
        folder = HarnessFolder(self.vault, ADOPTIONS_DIR)
        try:
            entries = sorted(
                (e for e in folder.entries() if e.name.endswith(".json") and _ID.match(e.name[:-5])),
                key=lambda e: e.name,
            )
            # each file's own stat, not the folder's: a file edited in place leaves the folder's mtime as it was
            stamp = tuple((e.name, e.stat().st_mtime_ns, e.stat().st_size) for e in entries)
        except OSError:
            return {}
        if self._adoptions is not None and self._adoptions[0] == stamp:
            return self._adoptions[1]
        table: dict[str, dict[str, str]] = {}
        for entry in entries:
            try:
                record = json.loads(folder.read_bytes(entry.name))
            except (OSError, ValueError):
                continue
            if not isinstance(record, dict) or record.get("format") != ADOPTION_FORMAT:
                continue
            who = str(record.get("adopted_by") or "unknown")
            for item in record.get("notes") or []:
                if (
                    isinstance(item, dict)
                    and isinstance(item.get("path"), str)
                    and isinstance(item.get("blocks_sha256"), str)
                ):
                    table.setdefault(_nfc(item["path"]), {})[item["blocks_sha256"]] = who
        self._adoptions = (stamp, table)
        return table

    def state(
        self, path: str, run_id: str | None, digest: str | None, file_sha256: Callable[[], str] | None = None
    ) -> RecordState:
        """The record behind the note at `path` whose blocks have `digest` (`blocks_digest`).
        `file_sha256` gives the note's SHA-256, asked only for a run recorded before runs kept the
        digest and whose plan is gone (hashing every note on every badge would be wasted)."""
        if digest is None:
            return RecordState("none")
        key = _nfc(path)
        valid = _is_run_id(run_id)
        run = self._run(str(run_id)) if valid else None
        if run is not None and run.status in ("FAILED", "IN_PROGRESS"):
            why = "did not finish" if run.status == "IN_PROGRESS" else f"failed ({run.failure_reason or 'FAILED'})"
            return RecordState(
                "provisional",
                f"Written by run {run_id}, which {why}: kept on disk but not counted until a later run re-verifies it.",
                run_id=run_id,
            )
        reason: str
        if run is not None and run.status == "SUCCEEDED":
            entry = run.files.get(key)
            if entry is not None and entry[0] == "APPLIED":
                recorded = entry[1]
                if recorded == digest or (
                    recorded is None and entry[2] is not None and file_sha256 is not None and entry[2] == file_sha256()
                ):
                    return RecordState("recorded", run_id=run_id)
                reason = f"The verification or evidence block differs from what run {run_id} wrote (edited afterwards)."
            else:
                reason = f"Run {run_id} did not write this note (the block was copied from another note)."
        elif not run_id:
            reason = "The verification block names no run: no record says who wrote it (hand-written)."
        elif not valid:
            reason = f"The verification block names {run_id!r}, which is not a run id: no record says who wrote it."
        else:
            reason = f"No record of run {run_id} in .harness/runs/ (hand-written, copied, or the records were deleted)."
        who = self._adopted().get(key, {}).get(digest)
        if who is not None:
            return RecordState("adopted", run_id=run_id if run is not None else None, adopted_by=who)
        return RecordState("unrecorded", reason, run_id=run_id)


def _run_facts(vault: Vault, record: dict[str, Any]) -> _RunFacts:
    files: dict[str, tuple[str | None, str | None, str | None]] = {}
    legacy: dict[str, str] | None = None
    for entry in record.get("files") or []:
        if not isinstance(entry, dict) or not isinstance(entry.get("path"), str):
            continue
        digest = entry.get("blocks_sha256")
        if digest is None and entry.get("result") == "APPLIED":
            if legacy is None:
                legacy = _legacy_digests(vault, record)
            digest = legacy.get(_nfc(entry["path"]))
        after = entry.get("sha256_after")
        files[_nfc(entry["path"])] = (
            entry.get("result"),
            digest if isinstance(digest, str) else None,
            after if isinstance(after, str) else None,
        )
    status = record.get("run_status")
    failure = record.get("failure_reason")
    return _RunFacts(status if isinstance(status, str) else None, failure if isinstance(failure, str) else None, files)


def _legacy_digests(vault: Vault, record: dict[str, Any]) -> dict[str, str]:
    """A run recorded before runs kept `blocks_sha256`: the digests of the blocks its plan proposed."""
    plan_id = record.get("plan_id")
    try:
        plan = read_plan(vault, str(plan_id))
    except (NotFound, PathRejected, ValueError, OSError):
        return {}
    if plan.get("run_id") != record.get("run_id"):
        return {}
    out: dict[str, str] = {}
    for target in plan.get("targets") or []:
        if (
            isinstance(target, dict)
            and isinstance(target.get("proposed"), dict)
            and isinstance(target.get("path"), str)
        ):
            out[_nfc(target["path"])] = proposed_digest(target["proposed"])
    return out


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
    (mtime, size), like TrustRecords, and per plan file (written once). Anything unreadable gives no
    proof rather than an error: the badge still draws."""

    def __init__(self, vault: Vault) -> None:
        self.vault = vault
        self._runs: _JsonFileCache[dict[str, list[dict[str, Any]]]] = _JsonFileCache(_runs(vault), self._by_path)
        self._plans: _JsonFileCache[dict[str, dict[str, str]]] = _JsonFileCache(_plans(vault), _plan_urls)

    def of(self, run_id: str | None, path: str) -> list[dict[str, Any]]:
        if not _is_run_id(run_id):
            return []
        by_path = self._run(str(run_id))
        return [dict(p) for p in by_path.get(_nfc(path), [])]

    def _run(self, run_id: str) -> dict[str, list[dict[str, Any]]]:
        return self._runs.get(f"{run_id}.json") or {}

    def _by_path(self, record: Any) -> dict[str, list[dict[str, Any]]]:
        by_path: dict[str, list[dict[str, Any]]] = {}
        if isinstance(record, dict):
            urls = self._urls(str(record.get("plan_id") or ""))
            for entry in record.get("files") or []:
                if isinstance(entry, dict) and isinstance(entry.get("path"), str):
                    by_path[_nfc(entry["path"])] = self._proofs(entry, urls.get(_nfc(entry["path"]), {}))
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
        return self._plans.get(f"{plan_id}.json") or {}


def _plan_urls(plan: Any) -> dict[str, dict[str, str]]:
    urls: dict[str, dict[str, str]] = {}
    for target in plan.get("targets") or [] if isinstance(plan, dict) else []:
        if not isinstance(target, dict) or not isinstance(target.get("path"), str):
            continue
        urls[_nfc(target["path"])] = {
            str(s["source_id"]): str(s["url"])
            for s in target.get("sources") or []
            if isinstance(s, dict) and s.get("source_id") and isinstance(s.get("url"), str)
        }
    return urls
