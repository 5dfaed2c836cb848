"""The validation services behind REST, MCP and the CLI.

- `validate_request(vault_root, request)`: the read-only validator on a caller's request
  (POST /v1/validate, MCP `validate`); the judge comes from `options.judge` or the policy.
- `dry_run(vault, path)`: one note → claims → evidence (fresh snapshots reused, the rest fetched
  under the policy's guard and limits) → validator → the policy's mapping → the proposed
  `verification` / `evidence` blocks, as a `DryRunReport` (dry_run_models.py) the doors dump.
  It writes nothing but evidence snapshots; production writes go through the approval gate.
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import anyio
from pydantic import ValidationError

from ...core.clock import parse_utc_z
from ...core.jsonutil import jsonable
from ...errors import EvidenceTooLarge, InputError, InvalidNote
from ...vault.lock import not_writable
from ...vault.note import Note, read_note
from ...vault.paths import Vault
from ...vault.references import is_evidence_url
from ..policy import Policy, load_policy, proposed_blocks
from .claims import Claim, extract_claims
from .dry_run_models import DryRunReport, DryRunSource, NoteClaim, NoteFinding, SourceVerdict, TrustBlocks
from .evidence import FetchedPage, Fetcher, conditional_headers
from .extraction import ExtractionPool
from .judge_queue import Progress, VaultTaskQueue
from .judges import JudgeFailed, UnknownJudge, get_judge
from .judges.agent import TaskQueue
from .judges.base import Judge
from .snapshots import EvidenceStore
from .validation_models import (
    MAX_EVIDENCE,
    MAX_TOTAL_EVIDENCE_CHARS,
    ClaimIn,
    EvidenceIn,
    ValidationRequest,
    ValidationResult,
    ValidatorInfo,
)
from .validator import mark_self_judged, validate


def make_judge(
    policy: Policy, name: str | None = None, *, queue: TaskQueue | None = None, wait_seconds: float | None = None
) -> Judge:
    """The judge by name (default: the policy's); the agent judge posts its tasks to `queue`."""
    backend = name or policy.judge.backend
    config = policy.judge.model_dump()
    if queue is not None:
        config["queue"] = queue
    if wait_seconds is not None:
        config["wait_seconds"] = wait_seconds
    try:
        return get_judge(backend, config)
    except UnknownJudge as exc:
        raise InputError(str(exc)) from exc
    except JudgeFailed as exc:
        raise InputError(f"The judge {backend!r} is not configured: {exc}") from exc


def validator_label(info: ValidatorInfo) -> str:
    """Who judged, as `verification.validator` and the run record name it: `lexical-8`,
    `openai_compat:<model>`, `agent:<client name> <version>`."""
    if info.name == "agent":
        client = " ".join(p for p in (info.client or "unknown client", info.client_version) if p)
        return f"agent:{client}"
    if info.name == "openai_compat" and info.model:
        return f"openai_compat:{info.model}"
    return info.model or f"{info.name}-{info.version}"


def stored_validator_label(info: Mapping[str, Any]) -> str:
    """`validator_label` of a validator as a plan stored it (an older plan's too)."""
    try:
        return validator_label(ValidatorInfo.model_validate(dict(info)))
    except ValidationError:
        return str(info.get("model") or f"{info.get('name')}-{info.get('version')}")


def validate_request(vault_root: Path, request: ValidationRequest, *, policy: Policy | None = None) -> ValidationResult:
    policy = policy or load_policy(vault_root)
    judge = make_judge(
        policy, request.options.judge if request.options else None, queue=VaultTaskQueue(Vault.open(vault_root))
    )
    return validate(request, judge)


def _judge_names(info: ValidatorInfo) -> list[str]:
    return [n for n in (info.client, info.model if info.name == "openai_compat" else None) if n]


def _family(name: str) -> str:
    """A product's first word: `claude` for "claude-code" and "Claude", `codex` for "codex-mcp-client"."""
    words = re.findall(r"[a-z0-9]+", unicodedata.normalize("NFKC", name).casefold())
    return words[0] if words else ""


def is_self_judged(info: ValidatorInfo, provenance: Mapping[str, Any] | None) -> bool:
    """The judging client or model is the note's own generator (its `provenance.generator`)."""
    generator = provenance.get("generator") if isinstance(provenance, Mapping) else None
    if not isinstance(generator, str) or not _family(generator):
        return False
    return any(_family(name) == _family(generator) for name in _judge_names(info))


def _current_level(note: Note) -> int:
    block = note.properties.get("verification")
    if isinstance(block, Mapping):
        level = block.get("level")
        if isinstance(level, int) and not isinstance(level, bool):
            return max(0, min(level, 3))
    return 0


def _block(note: Note, key: str) -> dict[str, Any] | None:
    value = note.properties.get(key)
    return dict(value) if isinstance(value, Mapping) else None


def note_workload(vault: Vault, path: str) -> tuple[int, list[str]]:
    """What validating a note costs: its claims and the pages it cites (read-only, no fetch)."""
    note = read_note(vault, path)
    claims = extract_claims(note) if note.problem is None else []
    return len(claims), _source_urls(note, claims)


def _source_urls(note: Note, claims: list[Claim]) -> list[str]:
    urls: dict[str, None] = {}
    for url in note.references:
        if is_evidence_url(url):
            urls.setdefault(url, None)
    for claim in claims:
        for url in claim.references:
            if is_evidence_url(url):
                urls.setdefault(url, None)
    return list(urls)[:MAX_EVIDENCE]


def _source_verdict(source_id: str, page: FetchedPage, result: ValidationResult) -> SourceVerdict:
    """What one source did for the note's claims judged against it.

    `supported` only when every one of those claims is supported: one contradicted claim makes
    the source `contradicted`, one unsupported (or evidence-less) claim makes it `unsupported`.
    """
    if not page.ok:
        return "fetch_failed"
    verdicts = {f.verdict for f in result.findings if f.source_id == source_id}
    if "contradicted" in verdicts:
        return "contradicted"
    if verdicts & {"unsupported", "no_evidence"}:
        return "unsupported"
    if "supported" in verdicts:
        return "supported"
    return "unused"


ANY_AGE = dt.timedelta(days=36500)


def _latest_snapshot(
    store: EvidenceStore, url: str, now: dt.datetime
) -> tuple[dict[str, Any], str, dt.timedelta] | None:
    """The URL's latest intact snapshot (record, text) and its age: one read of it, whatever its age."""
    found = store.lookup(url, max_age=ANY_AGE, now=now)
    if found is None:
        return None
    fetched = parse_utc_z(str(found[0]["fetched_at"]))  # lookup checked it parses
    if fetched.tzinfo is None:
        fetched = fetched.replace(tzinfo=dt.UTC)
    return found[0], found[1], now - fetched


def _within(age: dt.timedelta, max_age: dt.timedelta) -> bool:
    """As EvidenceStore.lookup judges a snapshot young enough (a window of 0 reuses none)."""
    return max_age > dt.timedelta(0) and age <= max_age


def snapshot_ages(vault: Vault, urls: Sequence[str], policy: Policy) -> tuple[dict[str, int], dict[str, int]]:
    """What a validation (without `refetch`) would do with each cited page's latest snapshot, url → its
    age in seconds (read-only): (reused: younger than the policy's window and kept no ETag /
    Last-Modified, so read without asking the server; asked: kept validators, so the server is asked
    whether the page changed and the snapshot reused on 304 Not Modified)."""
    store = EvidenceStore(vault)
    max_age = dt.timedelta(minutes=policy.evidence.snapshot_max_age_minutes)
    now = dt.datetime.now(dt.UTC)
    reused: dict[str, int] = {}
    asked: dict[str, int] = {}
    for url in urls:
        latest = _latest_snapshot(store, url, now)
        if latest is None:
            continue
        record, _text, age = latest
        if conditional_headers(record):
            asked[url] = max(0, int(age.total_seconds()))
        elif _within(age, max_age):
            reused[url] = max(0, int(age.total_seconds()))
    return reused, asked


def _from_snapshot(url: str, record: Mapping[str, Any], text: str, *, fetched_at: str | None = None) -> FetchedPage:
    return FetchedPage(
        url=url,
        final_url=record.get("final_url"),
        status=record.get("status"),
        content_type=record.get("content_type"),
        charset=record.get("charset"),
        text=text,
        title=record.get("title"),
        published=record.get("published"),
        bytes=int(record.get("bytes") or 0),
        fetched_at=fetched_at or str(record.get("fetched_at")),
        attempts=0,
        sha256=str(record.get("sha256")),
        reused=True,
        etag=record.get("etag"),
        last_modified=record.get("last_modified"),
    )


async def collect_evidence(
    vault: Vault,
    urls: list[str],
    policy: Policy,
    *,
    backoff_seconds: float = 0.5,
    refetch: bool = False,
    workers: ExtractionPool | None = None,
) -> tuple[list[FetchedPage], list[str]]:
    """Snapshots younger than the policy's window are reused (none with `refetch`) unless they kept the
    page's validators (ETag / Last-Modified): then, as for an older snapshot with validators, the page is
    asked for conditionally and the snapshot reused on 304 Not Modified. The rest is fetched; successful
    fetches are snapshotted (content-addressed: a changed page, a new snapshot)."""
    store = EvidenceStore(vault)
    max_age = dt.timedelta(minutes=policy.evidence.snapshot_max_age_minutes)
    pages: dict[str, FetchedPage] = {}
    to_fetch: list[str] = []
    asked: dict[str, tuple[dict[str, Any], str]] = {}  # url → the snapshot a conditional request asks about
    now = dt.datetime.now(dt.UTC)
    for url in urls:
        latest = None if refetch else _latest_snapshot(store, url, now)
        if latest is not None:
            record, text, age = latest
            if conditional_headers(record):
                asked[url] = (record, text)
            elif _within(age, max_age):
                pages[url] = _from_snapshot(url, record, text)
                continue
        to_fetch.append(url)
    written: list[str] = []
    if to_fetch:
        fetcher = Fetcher(policy.evidence, backoff_seconds=backoff_seconds, workers=workers)
        fetched = await fetcher.fetch_all(to_fetch, {u: record for u, (record, _) in asked.items()})
        for page in fetched:
            if page.not_modified and page.url in asked:
                record, text = asked[page.url]
                page = _from_snapshot(page.url, record, text, fetched_at=page.fetched_at)
                page.attempts = 1
            pages[page.url] = page
            if page.ok and page.text is not None:
                try:
                    paths = store.save(page.record(), page.text)
                except OSError as exc:  # a read-only vault: one clear error, not a traceback
                    raise not_writable(vault, store.root, exc, "saving the evidence snapshots") from None
                written.extend(store.rel(p) for p in paths)
    return [pages[u] for u in urls], written


def _request(claims: list[Claim], pages: list[FetchedPage], sid: dict[str, str], path: str) -> ValidationRequest:
    try:
        return ValidationRequest(
            claims=[
                ClaimIn(id=c.id, text=c.text, source_ids=[sid[u] for u in c.references if u in sid] or None)
                for c in claims
            ],
            evidence=[
                EvidenceIn(
                    source_id=sid[p.url],
                    url=p.url,
                    text=p.text if p.ok else None,
                    fetch_error=None if p.ok else f"{p.error}: {p.message}"[:1000],
                )
                for p in pages
            ],
        )
    except ValidationError as exc:  # a limit of the validator's schema; never an internal error
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "request"
        raise InvalidNote(
            f"The note cannot be validated: {where}: {first['msg']}.", detail={"path": path, "where": where}
        ) from exc


async def dry_run(
    vault: Vault,
    path: str,
    *,
    policy: Policy | None = None,
    judge_name: str | None = None,
    today: dt.date | None = None,
    backoff_seconds: float = 0.5,
    refetch: bool = False,
    progress: Progress | None = None,
    wait_seconds: float | None = None,
    steps: Callable[[int, int, str], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
    workers: ExtractionPool | None = None,
) -> DryRunReport:
    """`workers`: the caller's extraction workers (the sidecar's, a batch's), kept for its next pages.
    `progress` hears what the agent judge's task is doing; `wait_seconds` overrides the policy's wait.
    `steps(done, total, step)` is called before `fetch` and before `judge` (it may raise Cancelled);
    `cancelled()` ends an agent judge's wait."""
    policy = policy or load_policy(vault.root)
    note = read_note(vault, path)
    if note.problem is not None:
        raise InvalidNote(f"The note cannot be read: {note.problem.message}", detail=note.problem.as_dict())
    queue = VaultTaskQueue(vault, note={"path": note.path, "title": note.title}, progress=progress, cancelled=cancelled)
    judge = make_judge(policy, judge_name, queue=queue, wait_seconds=wait_seconds)
    claims = extract_claims(note)
    urls = _source_urls(note, claims)
    step = steps or (lambda _done, _total, _step: None)
    step(0, 2, "fetch")
    pages, written = await collect_evidence(
        vault, urls, policy, backoff_seconds=backoff_seconds, refetch=refetch, workers=workers
    )
    step(1, 2, "judge")
    sid = {url: f"s{i + 1}" for i, url in enumerate(urls)}

    if claims:
        total = sum(len(p.text or "") for p in pages if p.ok)
        if total > MAX_TOTAL_EVIDENCE_CHARS:
            raise EvidenceTooLarge(
                f"The note's {sum(p.ok for p in pages)} cited pages hold {total:,} characters of text, more than "
                f"the {MAX_TOTAL_EVIDENCE_CHARS:,} one validation can judge (evidence_too_large); cite fewer "
                "or shorter pages.",
                detail={"path": note.path, "characters": total, "limit": MAX_TOTAL_EVIDENCE_CHARS},
            )
        request = _request(claims, pages, sid, note.path)
        result = await anyio.to_thread.run_sync(validate, request, judge)
        if is_self_judged(result.validator, _block(note, "provenance")):
            result = mark_self_judged(result, refuse=policy.judge.independent == "required")
    else:
        result = ValidationResult(verdict="unverifiable", score=0.0, confidence=0.0, findings=[], validator=judge.info)

    sources = [_dry_run_source(sid[p.url], p, result) for p in pages]
    fetch_failed = not any(p.ok for p in pages)
    verification, evidence = proposed_blocks(
        policy,
        verdict=result.verdict,
        fetch_failed=fetch_failed,
        all_claims_primary_supported=_primary_mapped(claims, result, {sid[p.url]: p for p in pages}, policy),
        current_level=_current_level(note),
        validator=validator_label(result.validator),
        content_sha256=note.content_sha256,
        references_sha256=note.references_sha256,
        run_id=None,
        sources=[source.model_dump() for source in sources],
        today=today,
        existing_verification=_block(note, "verification"),
        existing_evidence=_block(note, "evidence"),
        claims=(sum(1 for f in result.findings if f.verdict == "supported"), len(result.findings)),
    )
    verification.pop("self_judged", None)  # kept from an earlier validation only when true again
    self_judged = any(f.self_judged for f in result.findings)
    if self_judged:
        verification["self_judged"] = True
    return DryRunReport(
        path=note.path,
        title=note.title,
        dry_run=True,
        claims=[_note_claim(c) for c in claims],
        sources=sources,
        result=result,
        judge=validator_label(result.validator),
        self_judged=self_judged,
        findings=_note_findings(result, claims),
        current=TrustBlocks(
            verification=jsonable(_block(note, "verification")), evidence=jsonable(_block(note, "evidence"))
        ),
        proposed=TrustBlocks(verification=jsonable(verification), evidence=jsonable(evidence)),
        snapshots_written=written,
    )


def _dry_run_source(source_id: str, page: FetchedPage, result: ValidationResult) -> DryRunSource:
    return DryRunSource(
        source_id=source_id,
        url=page.url,
        final_url=page.final_url,
        status=page.status,
        ok=page.ok,
        error=page.error,
        message=page.message,
        content_type=page.content_type,
        charset=page.charset,
        title=page.title,
        published=page.published,
        bytes=page.bytes,
        attempts=page.attempts,
        fetched_at=page.fetched_at,
        snapshot_sha256=page.sha256 if page.ok else None,
        reused_snapshot=page.reused,
        verdict=_source_verdict(source_id, page, result),
    )


def _note_claim(claim: Claim) -> NoteClaim:
    return NoteClaim(
        id=claim.id,
        text=claim.text,
        line=claim.line,
        end_line=claim.end_line,
        references=list(claim.references),
        kind=claim.kind,
    )


def _note_findings(result: ValidationResult, claims: Sequence[Claim]) -> list[NoteFinding]:
    """Each finding located in the note: its claim's line span and text (none for an unknown claim)."""
    by_id = {c.id: c for c in claims}
    findings = []
    for finding in result.findings:
        claim = by_id.get(finding.claim_id)
        findings.append(
            NoteFinding(
                **finding.model_dump(),
                line=claim.line if claim else None,
                end_line=claim.end_line if claim else None,
                text=claim.text if claim else "",
            )
        )
    return findings


def _primary_mapped(
    claims: Sequence[Claim], result: ValidationResult, pages: Mapping[str, Any], policy: Policy
) -> bool:
    """L3 Primary Mapped: every claim is supported by at least one page of a primary domain."""
    if not claims or not policy.primary_domains:
        return False
    mapped: set[str] = set()
    for finding in result.findings:
        page = pages.get(finding.source_id or "")
        if page is None or not page.ok or finding.verdict != "supported":
            continue
        if policy.is_primary(page.final_url or page.url):
            mapped.add(finding.claim_id)
    return all(claim.id in mapped for claim in claims)
