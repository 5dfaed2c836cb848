"""The read-only trust audit: coverage of Fresh L2, stale notes, windows, disputes, errors.

Definitions (docs/audit.md):
- Raw Keywords: notes the policy's keyword rule selects (default: a `provenance` mapping).
  A note whose frontmatter cannot be read is classified from its text (a `provenance:` line, its
  folder, any http(s) URL), counted, never Fresh, and listed under errors: breaking a note can
  only lower coverage.
- Evidence-capable: a Keyword note with at least one http(s) URL among its references.
- Fresh L2: an evidence-capable Keyword note with level ≥ 2, status verified or reviewed, no
  metadata error in `verification`, no stale trigger, and whose blocks are recorded or adopted.
- Records (trust/records.py): a note counts at its written level only while a record
  holds the digest of its `verification` and `evidence` blocks: the successful run named by
  `verification.run_id` (`recorded`) or a person's adoption (`adopted`). A hand-written, copied or
  later-edited block is `unrecorded` and counts as L0, with its reason.
- Provisional: a note whose `verification.run_id` names a batch run that did not succeed (FAILED,
  e.g. its scope check found another file changed, or still IN_PROGRESS after a crash). What such
  a run wrote stays on disk but is never counted until a later successful run re-verifies it.
- Coverage = Fresh L2 / evidence-capable (0 when there are none);
  threshold_count = ceil(threshold × evidence-capable); surplus = Fresh L2 − threshold_count.
- Windows hold Fresh L2 notes by days left to their deadline (freshness.py).

Reading the vault never writes to it; `record_audit` (asked for explicitly) appends one line
to `.harness/audits.jsonl`.
"""

from __future__ import annotations

import datetime as dt
import math
import os
import re
import threading
import time
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from ...core.clock import now_utc_z
from ...core.memory import freeze_long_lived
from ...errors import InputError
from ...machine_config import MachineConfig, MachineConfigMemory, load_machine_config
from ...vault.catalog import NoteCatalog
from ...vault.exclusions import excluded_notes, is_excluded_note
from ...vault.lock import not_writable
from ...vault.note import Note
from ...vault.paths import NoteFile, ScanProblem
from ...vault.references import is_evidence_url
from ...vault.writer import append_jsonl
from ..policy import POLICY_FILE, Policy, load_policy, note_tags
from ..records import (
    RE_ESTABLISH,
    RecordKind,
    RecordState,
    RunProofs,
    TrustRecords,
    adoptions_dir,
    blocks_digest,
    runs_dir,
)
from ..schema import LEVEL_NAMES, TrustMetadata, Verification, finding_line, read_trust
from .freshness import Trigger, Window, deadline, is_validated, stale_triggers, window_for

AUDITS_FILE = "audits.jsonl"


FREEZE_AFTER_NEW_NOTES = 1000


# -- per-note facts, cached by the Note object the catalog hands out -------------------------
@dataclass(frozen=True, slots=True)
class NoteFacts:
    note: Note
    trust: TrustMetadata
    has_provenance: bool
    tags: tuple[str, ...]
    evidence_capable: bool
    content_sha256: str
    references_sha256: str
    blocks_sha256: str | None = None  # blocks_digest of the note's trust blocks (None: no verification)


_PROVENANCE_LINE = re.compile(r"^provenance[ \t]*:", re.MULTILINE)
_HTTP_URL = re.compile(r"https?://", re.IGNORECASE)


def note_facts(note: Note) -> NoteFacts:
    references = note.references
    if note.problem is not None:
        # A broken note is never flattering: classified from its text (a `provenance:` line, any
        # http(s) URL) so that breaking its YAML can only lower coverage, never raise it.
        text = note.raw.decode("utf-8", errors="replace")
        has_provenance = bool(_PROVENANCE_LINE.search(text))
        evidence_capable = bool(_HTTP_URL.search(text))
    else:
        has_provenance = isinstance(note.properties.get("provenance"), dict)
        evidence_capable = any(is_evidence_url(url) for url in references)
    return NoteFacts(
        note=note,
        trust=read_trust(note.properties),
        has_provenance=has_provenance,
        tags=tuple(note_tags(note.properties)),
        evidence_capable=evidence_capable,
        content_sha256=note.content_sha256,
        references_sha256=note.references_sha256,
        blocks_sha256=blocks_digest(note.properties) if note.problem is None else None,
    )


class _FactsCache:
    """Facts per path, valid while the catalog returns the very same Note object."""

    def __init__(self) -> None:
        self._facts: dict[str, NoteFacts] = {}
        self._lock = threading.Lock()
        self.misses = 0
        self._outcomes: TrustRecords | None = None
        self._proofs: RunProofs | None = None

    def outcomes_for(self, catalog: NoteCatalog) -> TrustRecords:
        if self._outcomes is None:
            self._outcomes = TrustRecords(catalog.vault)
        return self._outcomes

    def proofs_for(self, catalog: NoteCatalog) -> RunProofs:
        if self._proofs is None:
            self._proofs = RunProofs(catalog.vault)
        return self._proofs

    def get(self, note: Note) -> NoteFacts:
        with self._lock:
            cached = self._facts.get(note.path)
        if cached is not None and cached.note is note:
            return cached
        facts = note_facts(note)
        with self._lock:
            self._facts[note.path] = facts
            self.misses += 1
        return facts

    def __len__(self) -> int:
        return len(self._facts)

    def prune(self, live: set[str]) -> None:
        with self._lock:
            for gone in set(self._facts) - live:
                del self._facts[gone]


def _cache_for(catalog: NoteCatalog) -> _FactsCache:
    return catalog.derived("audit.facts", _FactsCache)


MAX_CACHED_POLICIES = 64


@dataclass(frozen=True, slots=True)
class _CachedPolicy:
    path: str  # VAULT/.harness/policy.toml
    raw: bytes | None  # its bytes when parsed (None: no file)
    machine: MachineConfig  # the machine configuration object it was combined with
    policy: Policy


def _policy_bytes(path: str) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return None
    try:
        chunks = []
        while chunk := os.read(fd, 1 << 16):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def current_policy(vault_root: Path, *, auditor: Auditor | None = None) -> Policy:
    """`load_policy`, parsed again only when policy.toml's bytes change (the per-request doors).

    The file is read on every call (a small read), so an edit is seen at once; a policy is cached
    (in `auditor`, the sidecar's) only when the file read the same before and after parsing it.
    """
    if auditor is None:
        return load_policy(vault_root)
    memory = auditor.memory
    with memory.lock:
        hit = memory.policies.get(vault_root)
    path = hit.path if hit is not None else str(Path(vault_root) / ".harness" / POLICY_FILE)
    try:
        raw = _policy_bytes(path)
    except OSError:
        return load_policy(vault_root)  # raises the usual InputError
    machine = load_machine_config(
        auditor.machine_configs
    )  # cached by the file's mtime: the same object while unchanged
    if hit is not None and hit.raw == raw and hit.machine is machine:
        return hit.policy
    policy = load_policy(vault_root)
    try:
        again = _policy_bytes(path)
    except OSError:
        return policy
    if again == raw:
        with memory.lock:
            if len(memory.policies) >= MAX_CACHED_POLICIES:
                memory.policies.clear()
            memory.policies[vault_root] = _CachedPolicy(path, raw, machine, policy)
    return policy


# -- boundary models -------------------------------------------------------------------------
class StaleNote(BaseModel):
    path: str
    triggers: list[Trigger]


class AuditError(BaseModel):
    path: str
    message: str
    line: int | None = None


class ProvisionalNote(BaseModel):
    path: str
    run_id: str


class BelowShareNote(BaseModel):
    """A reviewed L2 note that policy `min_supported_share` keeps out of Fresh L2."""

    path: str
    claims_supported: int | None
    claims_total: int | None
    reason: str


class UnrecordedNote(BaseModel):
    path: str
    run_id: str | None = Field(default=None, description="The run the note's verification block names, if any.")
    level: int = Field(description="The level written in the frontmatter (it counts as 0).")
    reason: str = Field(description="Why no record stands behind the note's blocks, and how to re-establish it.")


class AuditWindows(BaseModel):
    next_batch: list[str] = Field(default_factory=list)
    prepare: list[str] = Field(default_factory=list)
    watch: list[str] = Field(default_factory=list)


class AuditFigures(BaseModel):
    """The audit's figures (docs/audit.md), in a report and in each recorded audit."""

    raw: int
    evidence_capable: int
    fresh_l2: int
    coverage: float
    threshold: float
    threshold_count: int
    surplus: int


class AuditReport(AuditFigures):
    """The audit JSON of docs/audit.md, plus `today` and `ttl_days` (the inputs of the figures)."""

    windows: AuditWindows
    stale: list[StaleNote]
    provisional: list[ProvisionalNote] = Field(default_factory=list)
    disputed: list[str]
    errors: list[AuditError]
    today: dt.date
    ttl_days: int
    fresh_l2_verified: int = Field(default=0, description="Fresh L2 notes whose status is verified.")
    fresh_l2_reviewed: int = Field(default=0, description="Fresh L2 notes whose status is reviewed (partial support).")
    reviewed_claims: dict[str, str] = Field(
        default_factory=dict, description='Fresh L2 reviewed notes → "n of m claims supported" (when recorded).'
    )
    below_supported_share: list[BelowShareNote] = Field(default_factory=list)
    unrecorded: list[UnrecordedNote] = Field(
        default_factory=list, description="Keyword notes whose trust blocks no record holds: counted as L0."
    )


class WindowItem(BaseModel):
    path: str
    revalidate_after: dt.date
    days_left: int
    window: Window
    claims_supported: int | None = None
    claims_total: int | None = None


class StaleItem(BaseModel):
    path: str
    triggers: list[Trigger]
    level: int
    status: str
    revalidate_after: dt.date | None
    days_left: int | None
    claims_supported: int | None = None
    claims_total: int | None = None


class StaleReport(BaseModel):
    today: dt.date
    stale: list[StaleItem]
    windows: dict[Window, list[WindowItem]]
    provisional: list[ProvisionalNote] = Field(default_factory=list)
    unrecorded: list[UnrecordedNote] = Field(default_factory=list)


class BadgeQuote(BaseModel):
    """One claim of a note with its proof, as the batch run that wrote the note recorded it."""

    claim_id: str
    claim: str | None = Field(description="The claim's text (cut to 400 characters); null in older records.")
    verdict: str = Field(description="supported, contradicted, unsupported or no_evidence.")
    quote: str = Field(description="The quote found in the source (its pieces joined by ' … '); '' when none.")
    source_url: str | None = Field(description="The page the quote is from; null when the finding names no source.")


class Badge(BaseModel):
    path: str
    level: int
    level_name: str
    status: str
    fresh: bool  # validated and without stale triggers
    fresh_l2: bool  # counts toward coverage
    triggers: list[Trigger]
    revalidate_after: dt.date | None
    days_left: int | None
    window: Window | None
    validator: str | None
    last_validated: dt.date | None
    keyword: bool
    evidence_capable: bool
    evidence_status: str | None
    provisional_run_id: str | None = Field(
        default=None, description="Written by this batch run, which did not succeed: never Fresh L2 until re-verified."
    )
    error: AuditError | None = None
    findings: list[AuditError] = Field(default_factory=list)
    claims_supported: int | None = Field(default=None, description="Claims a plan's judge found supported.")
    claims_total: int | None = Field(default=None, description="Claims that plan judged (absent before counts).")
    record: RecordKind = Field(
        default="none",
        description="What stands behind the trust blocks: recorded (a successful run wrote exactly them), adopted "
        "(a person vouched for them), unrecorded (no record: counts as L0), provisional (written by a run "
        "that did not succeed: counts as L0), none (no verification block).",
    )
    record_reason: str | None = Field(default=None, description="Why the note is unrecorded or provisional.")
    counted_level: int = Field(default=0, description="The level the note counts at: 0 when unrecorded or provisional.")

    quotes: list[BadgeQuote] = Field(
        default_factory=list,
        description="Each claim with its quote and source, from the run record that wrote the note (empty when none).",
    )


NO_RECORD = RecordState("none")


# -- the evaluation of one note ---------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class NoteState:
    facts: NoteFacts
    keyword: bool
    triggers: list[Trigger]
    due: dt.date | None
    days_left: int | None
    window: Window | None
    fresh_l2: bool
    errors: list[AuditError]
    provisional_run: str | None = None
    below_share: str | None = None  # why min_supported_share keeps a reviewed note out of Fresh L2
    record: RecordState = NO_RECORD

    @property
    def counts(self) -> bool:
        """The note's blocks rest on a record (a successful run's or a person's adoption)."""
        return self.record.kind in ("recorded", "adopted")

    @property
    def counted_level(self) -> int:
        return self.facts.trust.level if self.counts else 0

    @property
    def fresh(self) -> bool:
        """Validated, no stale trigger, and resting on a record (a badge's `fresh`)."""
        return is_validated(self.facts.trust.verification) and not self.triggers and self.counts


def _is_keyword(facts: NoteFacts, policy: Policy) -> bool:
    rule = policy.keywords
    if not rule.provenance and not rule.folders and not rule.tags:
        return True
    if rule.provenance and facts.has_provenance:
        return True
    path = facts.note.path
    if any(path.startswith(folder + "/") for folder in rule.folders):
        return True
    return bool(rule.tags) and any(tag in rule.tags for tag in facts.tags)


def evaluate(facts: NoteFacts, policy: Policy, today: dt.date, records: TrustRecords) -> NoteState:
    note = facts.note
    errors: list[AuditError] = []
    if note.problem is not None:
        errors.append(AuditError(path=note.path, message=note.problem.message, line=note.problem.line))
    span = note.span
    for finding in facts.trust.findings:
        line = finding_line(note.raw, span.yaml_start, span.yaml_end, finding.key) if span else None
        errors.append(AuditError(path=note.path, message=finding.message, line=line))
    keyword = _is_keyword(facts, policy)  # a broken note counts too (note_facts), but is never Fresh
    verification = facts.trust.verification
    triggers = stale_triggers(
        note,
        verification,
        policy,
        today,
        content_sha256=facts.content_sha256,
        references_sha256=facts.references_sha256,
        evidence=facts.trust.evidence,
    )
    due = deadline(verification, policy)
    run_id = verification.run_id if verification is not None else None
    record = records.state(note.path, run_id, facts.blocks_sha256, lambda: note.sha256)
    provisional = run_id if record.kind == "provisional" else None
    days = None if due is None else (due - today).days
    verification_error = any(f.key.startswith("verification") for f in facts.trust.findings)
    fresh_l2 = (
        keyword
        and note.problem is None
        and facts.evidence_capable
        and verification is not None
        and verification.level >= 2
        and verification.status in ("verified", "reviewed")
        and not triggers
        and not verification_error
        and record.kind in ("recorded", "adopted")
    )
    below = below_share(verification, policy) if fresh_l2 else None
    return NoteState(
        facts,
        keyword,
        triggers,
        due,
        days,
        window_for(days),
        fresh_l2 and below is None,
        errors,
        provisional,
        below,
        record,
    )


def claims_phrase(verification: Verification | None) -> str | None:
    """ "3 of 5 claims supported" for a note whose plan recorded its claim counts, else None."""
    counts = verification.claim_counts if verification is not None else None
    return None if counts is None else f"{counts[0]} of {counts[1]} claims supported"


def below_share(verification: Verification | None, policy: Policy) -> str | None:
    """Why a reviewed note falls short of policy `min_supported_share`; None when it does not."""
    share = policy.min_supported_share
    if verification is None or verification.status != "reviewed" or share <= 0:
        return None
    counts = verification.claim_counts
    wanted = f"the policy's min_supported_share is {share:g}"
    if counts is None:
        return f"its claim counts were not recorded (validated before they were) and {wanted}; revalidate it"
    if counts[0] < share * counts[1]:
        return f"only {counts[0]} of {counts[1]} claims supported and {wanted}"
    return None


def iter_states(catalog: NoteCatalog, policy: Policy, today: dt.date) -> list[NoteState]:
    pairs, _ = _audited(catalog, catalog.notes(), [])
    return _states(catalog, pairs, policy, today)


def _audited(
    catalog: NoteCatalog, pairs: list[tuple[NoteFile, Note]], problems: list[ScanProblem]
) -> tuple[list[tuple[NoteFile, Note]], list[ScanProblem]]:
    """The notes and scan problems the audit counts: templates and index.toml's `exclude` are no
    notes (the index skips the same ones, `excluded_notes`), so their placeholders are no errors."""
    exclude = excluded_notes(catalog.vault)
    if not exclude:
        return pairs, problems
    return (
        [pair for pair in pairs if not is_excluded_note(pair[0].path, exclude)],
        [p for p in problems if not is_excluded_note(p.path, exclude)],
    )


def _states(
    catalog: NoteCatalog, pairs: list[tuple[NoteFile, Note]], policy: Policy, today: dt.date
) -> list[NoteState]:
    cache = _cache_for(catalog)
    cache.prune({f.path for f, _ in pairs})
    misses = cache.misses
    outcomes = cache.outcomes_for(catalog)
    states = [evaluate(cache.get(note), policy, today, outcomes) for _, note in pairs]
    if cache.misses - misses >= FREEZE_AFTER_NEW_NOTES:
        # Many notes were just parsed into the long-lived caches (core/memory.py says why).
        freeze_long_lived(collect_first=False)
    return states


# -- the audit --------------------------------------------------------------------------------
def threshold_count(threshold: float, evidence_capable: int) -> int:
    """ceil(threshold × evidence-capable), computed in decimal so 0.8 × 80 is 64, not 65."""
    return math.ceil(Decimal(str(threshold)) * evidence_capable)


@dataclass(frozen=True, slots=True)
class _LastAudit:
    key: tuple[Any, ...]
    started: int  # monotonic_ns when the computation (or the check that reused it) started
    notes: tuple[Note, ...]  # the catalog's Note objects it was computed from, in path order
    problems: list[ScanProblem]  # what the scan skipped
    report: AuditReport


class _AuditFlight:
    """One audit at a time per catalog, and requests that queued behind one share its answer.

    Under load (the dashboard of several clients) concurrent audits would each walk the whole
    vault and hold their own copies of every row (measured: 32 concurrent audits of a
    10,000-note vault drove the sidecar past 400 MB). A request may reuse a report whose
    computation *started after the request arrived*: that report reflects the disk as new as the
    request, so the answer is the same one a fresh audit would give.

    Otherwise the vault is scanned (one stat per note) and the last report is reused when the
    inputs are the same: the same policy, day and threshold, and exactly the same Note objects in
    the same order. The catalog hands out the same Note object only while a note's (size, mtime)
    is unchanged, so any edit, addition or removal of a note computes a fresh report.
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.last: _LastAudit | None = None


def _same_notes(a: tuple[Note, ...], b: tuple[Note, ...]) -> bool:
    return len(a) == len(b) and all(x is y for x, y in zip(a, b, strict=True))


def _flight_for(catalog: NoteCatalog) -> _AuditFlight:
    return catalog.derived("audit.flight", _AuditFlight)


class _LastBody:
    """The JSON of the last audit report; run_audit hands out the same report while nothing changed."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.report: AuditReport | None = None
        self.body = b""

    def body_of(self, report: AuditReport) -> bytes:
        with self.lock:
            if report is self.report:
                return self.body
        body = report.model_dump_json().encode("utf-8")
        with self.lock:
            self.report, self.body = report, body
        return body

    def clear(self) -> None:
        with self.lock:
            self.report, self.body = None, b""


def audit_body(report: AuditReport, auditor: Auditor) -> bytes:
    """The report as JSON bytes, serialized once per report object (the REST audit's answer)."""
    return auditor.memory.last_body.body_of(report)


@dataclass(eq=False)
class AuditMemory:
    """What the trust audit keeps between calls beside the catalog (see Auditor).

    - `policies`: per vault root, the parsed `.harness/policy.toml`. Valid while the file's bytes
      (read on every call) are the same and `load_machine_config()` returns the same object
      (its own cache: the machine file's mtime and size). Bound: 64 vaults, cleared whole when full.
    - `last_body`: the JSON bytes of the last report served. Valid while `run_audit` hands out the
      same report object. Bound: one report.
    """

    policies: dict[Path, _CachedPolicy] = field(default_factory=dict)
    last_body: _LastBody = field(default_factory=_LastBody)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)


class Auditor:
    """What the trust audit of one catalog keeps in memory (the badge and the audit are per request).

    - per Note object of the catalog, its facts (`_FactsCache`, kept by the catalog itself:
      `NoteCatalog.derived`). An entry is valid while the catalog hands out the very same Note
      object for the path, i.e. while the file's (size, mtime_ns) is unchanged; each audit prunes
      it to the notes on disk. Bound: the notes of the vault.
    - the last audit report of the catalog (`_AuditFlight`, also kept by the catalog). Reused while
      the policy, the day, the threshold, the mtime of `.harness/runs/` and the very same Note
      objects (same order) are unchanged, or for a request that arrived before that report's
      computation started. Bound: one report.
    - `memory`: the parsed policies and the last report's JSON (AuditMemory).
    - `machine_configs`: the parsed machine configuration (machine_config.MachineConfigMemory).
    The sidecar's AppContext makes one; `clear()` forgets everything.
    """

    def __init__(self, catalog: NoteCatalog) -> None:
        self.catalog = catalog
        self.memory = AuditMemory()
        self.machine_configs = MachineConfigMemory()

    def sizes(self) -> dict[str, int]:
        facts = _cache_for(self.catalog)
        flight = _flight_for(self.catalog)
        with self.memory.lock:
            policies = len(self.memory.policies)
        return {
            "note_facts": len(facts),
            "audit_reports": int(flight.last is not None),
            "policies": policies,
            "audit_bodies": int(bool(self.memory.last_body.body)),
        }

    def clear(self) -> None:
        self.catalog.forget_derived()
        with self.memory.lock:
            self.memory.policies.clear()
        self.memory.last_body.clear()
        self.machine_configs.clear()


def run_audit(
    catalog: NoteCatalog,
    policy: Policy,
    *,
    today: dt.date | None = None,
    threshold: float | None = None,
    arrived: int | None = None,
) -> AuditReport:
    """Audit the vault. Reads only; `threshold` overrides the policy's.

    `arrived` (time.monotonic_ns()) is when the request arrived, if it waited before this call.
    """
    arrived = time.monotonic_ns() if arrived is None else arrived
    day = today or dt.date.today()
    limit = policy.threshold if threshold is None else threshold
    if not 0.0 <= limit <= 1.0:
        raise InputError(f"The threshold must be between 0 and 1, got {limit}.")
    key = (policy, day, limit, _runs_stamp(catalog))
    flight = _flight_for(catalog)
    with flight.lock:
        last = flight.last
        if last is not None and last.started >= arrived and last.key == key:
            return last.report  # shared, read-only: callers only read and serialize reports
        started = time.monotonic_ns()
        pairs, problems = _audited(catalog, *catalog.notes_and_problems())
        notes = tuple(note for _, note in pairs)
        if last is not None and last.key == key and _same_notes(last.notes, notes) and last.problems == problems:
            flight.last = _LastAudit(key, started, last.notes, problems, last.report)
            return last.report
        flight.last = None  # drop the old report before building the new one (peak memory)
        del last
        report = _run_audit(catalog, pairs, problems, policy, day, limit)
        flight.last = _LastAudit(key, started, notes, problems, report)
        return report


def _runs_stamp(catalog: NoteCatalog) -> tuple[int, int]:
    """Changes when a run record or an adoption is written (atomic renames touch the folders)."""
    stamps = []
    for folder in (runs_dir(catalog.vault), adoptions_dir(catalog.vault)):
        try:
            stamps.append(folder.stat().st_mtime_ns)
        except OSError:
            stamps.append(0)
    return stamps[0], stamps[1]


def _run_audit(
    catalog: NoteCatalog,
    pairs: list[tuple[NoteFile, Note]],
    problems: list[ScanProblem],
    policy: Policy,
    day: dt.date,
    limit: float,
) -> AuditReport:
    states = _states(catalog, pairs, policy, day)
    raw = evidence_capable = fresh = 0
    windows = AuditWindows()
    window_rows: list[tuple[int, str, Window]] = []
    stale: list[StaleNote] = []
    provisional: list[ProvisionalNote] = []
    unrecorded: list[UnrecordedNote] = []
    disputed: list[str] = []
    errors: list[AuditError] = []
    split = _FreshSplit()
    for state in states:
        errors.extend(state.errors)
        if not state.keyword:
            continue
        _list_flags(state, provisional, unrecorded)
        raw += 1
        evidence_capable += state.facts.evidence_capable
        verification = state.facts.trust.verification
        if state.triggers:
            stale.append(StaleNote(path=state.facts.note.path, triggers=state.triggers))
        if verification is not None and verification.status == "disputed":
            disputed.append(state.facts.note.path)
        split.add(state)
        if state.fresh_l2:
            fresh += 1
            if state.window is not None and state.days_left is not None:
                window_rows.append((state.days_left, state.facts.note.path, state.window))
    for _, path, window in sorted(window_rows):
        getattr(windows, window).append(path)
    errors.extend(AuditError(path=p.path, message=p.message) for p in problems)  # skipped by the scan
    count = threshold_count(limit, evidence_capable)
    coverage = fresh / evidence_capable if evidence_capable else 0.0
    return AuditReport(
        raw=raw,
        evidence_capable=evidence_capable,
        fresh_l2=fresh,
        coverage=round(coverage, 4),
        threshold=limit,
        threshold_count=count,
        surplus=fresh - count,
        windows=windows,
        stale=stale,
        provisional=provisional,
        disputed=disputed,
        errors=errors,
        today=day,
        ttl_days=policy.ttl_days,
        **split.figures(),
        unrecorded=unrecorded,
    )


def _list_flags(state: NoteState, provisional: list[ProvisionalNote], unrecorded: list[UnrecordedNote]) -> None:
    """A Keyword note written by a run that has not succeeded, or whose trust blocks no record holds:
    the audit and the stale report list both."""
    if state.provisional_run is not None:
        provisional.append(ProvisionalNote(path=state.facts.note.path, run_id=state.provisional_run))
    if (item := _unrecorded(state)) is not None:
        unrecorded.append(item)


def _unrecorded(state: NoteState) -> UnrecordedNote | None:
    if state.record.kind != "unrecorded" or not is_validated(state.facts.trust.verification):
        return None  # an unvalidated block claims nothing: it counts as L0 either way
    return UnrecordedNote(
        path=state.facts.note.path,
        run_id=state.record.run_id,
        level=state.facts.trust.level,
        reason=state.record.reason or "No record holds these trust blocks.",
    )


class _FreshSplit:
    """Fresh L2 split into verified and reviewed, with each reviewed note's "n of m", and the
    reviewed notes `min_supported_share` keeps out (the design's figures are left as they are)."""

    def __init__(self) -> None:
        self.verified = self.reviewed = 0
        self.claims: dict[str, str] = {}
        self.below: list[BelowShareNote] = []

    def add(self, state: NoteState) -> None:
        verification = state.facts.trust.verification
        path = state.facts.note.path
        if state.below_share is not None and verification is not None:
            self.below.append(
                BelowShareNote(
                    path=path,
                    claims_supported=verification.claims_supported,
                    claims_total=verification.claims_total,
                    reason=state.below_share,
                )
            )
        if not state.fresh_l2 or verification is None:
            return
        if verification.status == "verified":
            self.verified += 1
            return
        self.reviewed += 1
        phrase = claims_phrase(verification)
        if phrase is not None:
            self.claims[path] = phrase

    def figures(self) -> dict[str, Any]:
        return {
            "fresh_l2_verified": self.verified,
            "fresh_l2_reviewed": self.reviewed,
            "reviewed_claims": self.claims,
            "below_supported_share": self.below,
        }


def stale_report(catalog: NoteCatalog, policy: Policy, *, today: dt.date | None = None) -> StaleReport:
    """Stale Keyword notes with their triggers, and Fresh L2 notes per window (soonest first)."""
    day = today or dt.date.today()
    stale: list[StaleItem] = []
    provisional: list[ProvisionalNote] = []
    unrecorded: list[UnrecordedNote] = []
    windows: dict[Window, list[WindowItem]] = {"next_batch": [], "prepare": [], "watch": []}
    for state in iter_states(catalog, policy, day):
        if not state.keyword:
            continue
        _list_flags(state, provisional, unrecorded)
        trust = state.facts.trust
        if state.triggers:
            stale.append(
                StaleItem(
                    path=state.facts.note.path,
                    triggers=state.triggers,
                    level=trust.level,
                    status=trust.status,
                    revalidate_after=state.due,
                    days_left=state.days_left,
                    **_claim_counts(trust.verification),
                )
            )
        if state.fresh_l2 and state.window and state.due and state.days_left is not None:
            windows[state.window].append(
                WindowItem(
                    path=state.facts.note.path,
                    revalidate_after=state.due,
                    days_left=state.days_left,
                    window=state.window,
                    **_claim_counts(trust.verification),
                )
            )
    for items in windows.values():
        items.sort(key=lambda item: (item.days_left, item.path))
    return StaleReport(today=day, stale=stale, windows=windows, provisional=provisional, unrecorded=unrecorded)


def note_badge(catalog: NoteCatalog, policy: Policy, rel_path: str, *, today: dt.date | None = None) -> Badge:
    """The trust badge of one note (read-only)."""
    day = today or dt.date.today()
    note = catalog.note(rel_path)  # cached by (size, mtime): no re-parse of an unchanged note
    return badge_of(catalog, policy, note, day)


def note_state(catalog: NoteCatalog, policy: Policy, note: Note, day: dt.date) -> NoteState:
    """The evaluation of a note the catalog handed out, from the catalog's cached facts and records."""
    cache = _cache_for(catalog)
    return evaluate(cache.get(note), policy, day, cache.outcomes_for(catalog))


def badge_of(catalog: NoteCatalog, policy: Policy, note: Note, day: dt.date) -> Badge:
    """The badge of a note the catalog handed out (`NoteCatalog.note`, `.cached` or `.load`)."""
    cache = _cache_for(catalog)
    state = note_state(catalog, policy, note, day)
    verification = state.facts.trust.verification
    evidence = state.facts.trust.evidence
    level = state.facts.trust.level
    return Badge(
        path=note.path,
        level=level,
        level_name=LEVEL_NAMES.get(level, "Unverified"),
        status=state.facts.trust.status,
        fresh=state.fresh,
        fresh_l2=state.fresh_l2,
        triggers=state.triggers,
        revalidate_after=state.due,
        days_left=state.days_left,
        window=state.window,
        validator=verification.validator if verification else None,
        last_validated=verification.last_validated if verification else None,
        keyword=state.keyword,
        evidence_capable=state.facts.evidence_capable,
        evidence_status=evidence.status if evidence else None,
        provisional_run_id=state.provisional_run,
        error=state.errors[0] if state.errors else None,
        findings=state.errors,
        quotes=_quotes_of(cache.proofs_for(catalog), verification.run_id if verification else None, note.path),
        **_claim_counts(verification),
        record=state.record.kind,
        record_reason=state.record.reason,
        counted_level=state.counted_level,
    )


def _claim_counts(verification: Verification | None) -> dict[str, int | None]:
    counts = verification.claim_counts if verification is not None else None
    return {"claims_supported": counts[0], "claims_total": counts[1]} if counts else {}


def _quotes_of(proofs: RunProofs, run_id: str | None, path: str) -> list[BadgeQuote]:
    return [BadgeQuote.model_validate(p) for p in proofs.of(run_id, path)]


# -- output -----------------------------------------------------------------------------------
def threshold_label(threshold: float) -> str:
    """ "80% threshold" for 0.8, "82.5% threshold" for 0.825."""
    percent = Decimal(str(threshold)) * 100
    text = f"{percent:f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return f"{text}% threshold"


def coverage_percent(report: AuditReport) -> str:
    exact = report.fresh_l2 / report.evidence_capable if report.evidence_capable else 0.0
    return f"{exact * 100:.2f}%"


def render_text(report: AuditReport, *, stale_details: StaleReport | None = None) -> str:
    lines = [
        f"Raw Keywords: {report.raw}",
        f"Evidence-capable: {report.evidence_capable}",
        f"Fresh L2: {report.fresh_l2}",
        f"Coverage: {coverage_percent(report)}",
        f"{threshold_label(report.threshold)}: {report.threshold_count}",
        f"Threshold surplus: {report.surplus}",
        f"Fresh L2 verified: {report.fresh_l2_verified}, reviewed: {report.fresh_l2_reviewed}",
        "",
        f"As of {report.today.isoformat()} (TTL {report.ttl_days} days)",
    ]
    details: dict[str, WindowItem] = {}
    if stale_details is not None:
        for items in stale_details.windows.values():
            details.update({item.path: item for item in items})
    titles = {
        "next_batch": "Next batch (due in 0-7 days)",
        "prepare": "Prepare (due in 8-14 days)",
        "watch": "Watch (due in 15-30 days)",
    }
    for name, title in titles.items():
        paths: list[str] = getattr(report.windows, name)
        lines.append(f"{title}: {len(paths)}")
        for path in paths:
            item = details.get(path)
            suffix = f" ({item.revalidate_after.isoformat()}, {item.days_left} days)" if item else ""
            lines.append(f"  - {path}{suffix}")
    lines.extend(_reviewed_lines(report))
    lines.append(f"Stale: {len(report.stale)}")
    lines.extend(f"  - {s.path}: {', '.join(s.triggers)}" for s in report.stale)
    lines.append(f"Provisional: {len(report.provisional)}")
    lines.extend(f"  - {p.path}: written by run {p.run_id}, which did not succeed" for p in report.provisional)
    if report.unrecorded:
        lines.append(f"Unrecorded (counted as L0): {len(report.unrecorded)}")
        lines.extend(f"  - {u.path} (L{u.level}): {u.reason}" for u in report.unrecorded)
        lines.append(f"  {RE_ESTABLISH}")
    lines.append(f"Disputed: {len(report.disputed)}")
    lines.extend(f"  - {path}" for path in report.disputed)
    lines.append(f"Metadata errors: {len(report.errors)}")
    lines.extend(f"  - {e.path}{f':{e.line}' if e.line else ''}: {e.message}" for e in report.errors)
    return "\n".join(lines) + "\n"


def _reviewed_lines(report: AuditReport) -> list[str]:
    lines = [f"Reviewed with claim counts: {len(report.reviewed_claims)} of {report.fresh_l2_reviewed}"]
    lines.extend(f"  - {path}: {phrase}" for path, phrase in sorted(report.reviewed_claims.items()))
    if report.below_supported_share:
        lines.append(f"Below min_supported_share (not Fresh L2): {len(report.below_supported_share)}")
        lines.extend(f"  - {n.path}: {n.reason}" for n in report.below_supported_share)
    return lines


def audit_json(report: AuditReport) -> dict[str, Any]:
    return report.model_dump(mode="json")


def record_audit(catalog: NoteCatalog, report: AuditReport) -> str:
    """Append the audit's one-line summary to VAULT/.harness/audits.jsonl (only when asked)."""
    summary = {
        "recorded_at": now_utc_z(),
        "today": report.today.isoformat(),
        **report.model_dump(include=set(AuditFigures.model_fields)),
        "stale": len(report.stale),
        "disputed": len(report.disputed),
        "errors": len(report.errors),
    }
    try:
        path = append_jsonl(catalog.vault, AUDITS_FILE, summary)
    except OSError as exc:  # a read-only vault: 507 / one line, never a traceback
        raise not_writable(catalog.vault, catalog.vault.harness_dir / AUDITS_FILE, exc, "audit record") from None
    return path.relative_to(catalog.vault.root.resolve()).as_posix()


class AuditTrendPoint(AuditFigures):
    recorded_at: str
    today: str
    stale: int = 0
    disputed: int = 0
    errors: int = 0


class AuditTrend(BaseModel):
    audits: list[AuditTrendPoint]
    skipped_lines: int = Field(description="Lines of audits.jsonl that could not be read (kept, not shown).")


def audit_trend(catalog: NoteCatalog, *, limit: int = 365) -> AuditTrend:
    """The recorded audits (oldest first, at most `limit` of the latest), for the dashboard's trend."""
    path = catalog.vault.harness_dir / AUDITS_FILE
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return AuditTrend(audits=[], skipped_lines=0)
    points: list[AuditTrendPoint] = []
    skipped = 0
    for line in lines:
        if not line.strip():
            continue
        try:
            points.append(AuditTrendPoint.model_validate_json(line))
        except ValueError:
            skipped += 1
    return AuditTrend(audits=points[-limit:], skipped_lines=skipped)
