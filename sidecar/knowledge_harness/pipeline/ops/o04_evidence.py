"""O-04 Collect Evidence: search rounds, ranking by source class, fetches, dedupe, limits, metrics.

The initial limits (docs/design/pipeline.md) (configurable in `[evidence]`): 3 rounds × 4 queries, 20 body
fetches, 12 adopted, 3 per domain, 15 minutes, 2 extra tries per URL on a transient failure.
Primary sources are adopted first (primary_target), then independent secondary and community
sources (reaction_target), then the rest by class up to max_adopted. Vault notes are read whole;
author, dates and version come from the source's own metadata. Every candidate ends in a ledger
and every failed fetch is recorded with its reason. Any evidence → EVIDENCE_READY / ADVANCE (gaps,
stale sources and conflicting versions become uncertainties); nothing at all → HOLD; nothing but
transient failures → RETRYABLE_ERROR (running again resumes).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import time
from dataclasses import dataclass, field, replace
from typing import Any

from ...core.urls import domain_of, normalize_url
from ...errors import HarnessError
from ...vault.note import Note
from ..config import EvidenceSettings
from ..contract import ReasonCode, Result, State, Uncertainty
from ..fetching import Fetched
from ..page_metadata import PageMetadata, normalize_date
from ..safety import find_sensitive, mask
from ..search import ProviderError, SearchHit, SearchProvider, build_providers, key_terms
from .base import OpContext, Outcome, Prepared, ProgramStep, Wait, moves

log = logging.getLogger(__name__)

OPERATION = "O-04"
CLASS_CONFIDENCE = {
    "primary": (0.9, "公式・一次情報のドメイン規則に一致"),
    "secondary": (0.7, "二次情報（解説・自分のノート）"),
    "community": (0.5, "コミュニティ情報（個人の意見・評価）"),
    "discovery_only": (0.2, "検索スニペットのみ。本文未取得のため発見専用"),
}


def safe_text(text: str, limit: int) -> str:
    """Masked (secrets and personal information) and truncated: what may be stored."""
    return mask(text, find_sensitive(text))[:limit]


def make_queries(title: str, question: str, round_no: int, learned: list[str], per_round: int) -> list[str]:
    terms = key_terms(f"{title}\n{question}")
    if round_no == 1:
        first = " ".join(question.split())[:200]
        queries = [first, " ".join(terms[:4]), " ".join(terms[:2]), " ".join(terms[2:5])]
    elif round_no == 2:
        queries = [" ".join(terms[i : i + 2]) for i in range(0, min(len(terms), 8), 2)]
        queries += [f"{terms[0]} {t}" for t in learned[:2]] if terms else []
    else:
        queries = [*terms[:2], *learned[:2]]
    seen: dict[str, None] = {}
    for q in queries:
        q = q.strip()
        if q:
            seen.setdefault(q, None)
    return list(seen)[:per_round]


@dataclass
class Candidate:
    key: str
    hit: SearchHit
    queries: list[str] = field(default_factory=list)
    expected_class: str = "secondary"  # by the URL's rules before fetching; notes are secondary


class CollectEvidence(ProgramStep):
    operation = OPERATION
    name = "Collect Evidence"
    transitions = moves({State.SCREENED: {State.EVIDENCE_READY, State.HOLD, State.SCREENED}})
    next_in = (State.SCREENED,)

    def prepare(self, ctx: OpContext) -> Prepared | Wait:
        sha = ctx.artifact_sha("screened_request")
        return Prepared(
            inputs={"screened_request": sha, "evidence": ctx.config.evidence.model_dump(mode="json")},
            payload=ctx.artifact("screened_request"),
            input_refs=[f"artifact:screened_request@sha256:{sha}"],
        )

    def run(self, ctx: OpContext, prepared: Prepared) -> Outcome:
        started = time.monotonic()
        screened: dict[str, Any] = prepared.payload
        title, question = screened["title_masked"], screened["question_masked"]
        search = _search_rounds(ctx, title, question, started)
        adoption = _Adoption(ctx, started)
        for cand in search.candidates.values():
            adoption.queue(cand)
        adoption.adopt()
        tally = _Tally.of(adoption, search, ctx.clock().astimezone(dt.UTC).date(), ctx.config.evidence.stale_after_days)
        return _outcome(ctx, title, question, search, adoption, tally, round(time.monotonic() - started, 3))


@dataclass
class _Search:
    """What the search rounds found (candidates by URL or note key) and how the rounds went."""

    candidates: dict[str, Candidate] = field(default_factory=dict)
    searches: int = 0
    duplicates: int = 0
    provider_failures: list[dict[str, Any]] = field(default_factory=list)
    queries_run: list[dict[str, Any]] = field(default_factory=list)
    context: list[SearchHit] = field(default_factory=list)  # every new hit, for providers that follow others
    learned: list[str] = field(default_factory=list)  # title terms of hits, for the next rounds' queries
    timed_out: bool = False
    stop_reason: str = "rounds_done"


def _search_rounds(ctx: OpContext, title: str, question: str, started: float) -> _Search:
    """Search rounds until the rounds are done, the time is up, a round finds nothing new, or
    there are twice as many candidates as may be adopted."""
    cfg = ctx.config.evidence
    exclude = {ctx.run.request.path} if ctx.run.request.path else set()
    providers = build_providers(ctx.catalog, cfg, exclude)
    search = _Search()
    for round_no in range(1, cfg.rounds + 1):
        new_in_round = 0
        for query in make_queries(title, question, round_no, search.learned, cfg.queries_per_round):
            if any(q["query"] == query for q in search.queries_run):
                continue
            if time.monotonic() - started > cfg.time_limit_seconds:
                search.timed_out = True
                break
            found = _run_query(search, providers, query, question, limit=max(10, 2 * cfg.max_fetches))
            search.queries_run.append({"round": round_no, "query": query, "new_hits": found})
            new_in_round += found
        if search.timed_out:
            search.stop_reason = "time_limit"
            break
        if new_in_round == 0:
            search.stop_reason = "only_duplicates"
            break
        if len(search.candidates) >= cfg.max_adopted * 2:
            search.stop_reason = "enough_candidates"
            break
    return search


def _run_query(search: _Search, providers: list[SearchProvider], query: str, question: str, *, limit: int) -> int:
    """One query through every provider; returns how many new candidates it found."""
    search.searches += 1
    found = 0
    for provider in providers:
        try:
            hits = provider.search(query, limit=limit, context=search.context)
            log.debug("O-04 search %d (%s): %d hits", search.searches, provider.name, len(hits))
        except ProviderError as exc:
            search.provider_failures.append(
                {"provider": provider.name, "query": query, "error": str(exc), "transient": exc.transient}
            )
            continue
        for hit in hits:
            key = f"note:{hit.note_path}" if hit.note_path else normalize_url(hit.url or "")
            if key in search.candidates:
                search.duplicates += 1
                search.candidates[key].queries.append(query)
                continue
            search.candidates[key] = Candidate(key, hit, [query])
            search.context.append(hit)
            found += 1
            for term in key_terms(hit.title, 3):
                if term not in search.learned and term.lower() not in question.lower():
                    search.learned.append(term)
    return found


@dataclass
class _Tally:
    """The adopted sources counted the ways the metrics, uncertainties and reason codes need."""

    usable: list[dict[str, Any]]  # adopted and citable (not discovery-only)
    primary: int
    reaction: int  # publishers of adopted secondary and community sources
    not_fetched: list[dict[str, Any]]  # ledger entries left unfetched by a limit
    stale: list[dict[str, Any]]
    versions: dict[str, list[str]]  # stated target version -> source ids
    duplicates: int  # in the search and in the fetched content
    timed_out: bool

    @classmethod
    def of(cls, adoption: _Adoption, search: _Search, today: dt.date, stale_after_days: int) -> _Tally:
        usable = [s for s in adoption.sources if s["source_class"] != "discovery_only"]
        versions: dict[str, list[str]] = {}
        for s in usable:
            if s["target_version"] != UNKNOWN:
                versions.setdefault(s["target_version"], []).append(s["source_id"])
        return cls(
            usable=usable,
            primary=sum(1 for s in usable if s["source_class"] == "primary"),
            reaction=len({s["publisher_key"] for s in usable if s["source_class"] in ("secondary", "community")}),
            not_fetched=[e for e in adoption.ledger if e["disposition"] == "not_fetched"],
            stale=[s for s in usable if _is_stale(s, today, stale_after_days)],
            versions=versions,
            duplicates=search.duplicates + adoption.duplicates,
            timed_out=search.timed_out or adoption.timed_out,
        )


def _metrics(
    cfg: EvidenceSettings, search: _Search, adoption: _Adoption, tally: _Tally, seconds: float
) -> dict[str, Any]:
    usable, primary = tally.usable, tally.primary
    return {
        "searches": search.searches,
        "fetch_attempts": adoption.attempts,
        "fetched_urls": adoption.fetched_urls,
        "success_rate": round(adoption.successes / adoption.attempts, 4) if adoption.attempts else None,
        "adopted": len(usable),
        "primary": primary,
        "primary_ratio": round(primary / len(usable), 4) if usable else 0.0,
        "reaction_sources": tally.reaction,
        "discovery_only": len(adoption.sources) - len(usable),
        "duplicates": tally.duplicates,
        "unreachable": len(adoption.failures),
        "not_fetched": len(tally.not_fetched),
        # O-04 cannot judge meaning; contradictions are counted from the packet (O-05, O-13)
        "contradictions": 0,
        "scope_ambiguities": 1 if len(tally.versions) > 1 else 0,
        "stale_sources": len(tally.stale),
        "truncated": sum(1 for s in adoption.sources if s["text_truncated"]),
        "missing_points": 1 if primary < cfg.primary_target else 0,
        "seconds": seconds,
        "provider_failures": len(search.provider_failures),
    }


def _uncertainties(cfg: EvidenceSettings, search: _Search, adoption: _Adoption, tally: _Tally) -> list[Uncertainty]:
    """Every gap the evidence set has: failed fetches and searches, limits, targets, age, scope."""
    uncertainties = [
        Uncertainty(
            item=f"取得不能: {failure.get('url') or failure.get('note')}（{failure['error']}、試行{failure['attempts']}回）",
            impact="この出典に依存する記述は未確認のまま扱う",
            code=ReasonCode.FETCH_FAILED,
        )
        for failure in adoption.failures
    ]
    if tally.not_fetched:
        uncertainties.append(
            Uncertainty(
                item=f"上限のため本文を取得しなかった候補が{len(tally.not_fetched)}件ある（{tally.not_fetched[0]['reason']}）",
                impact="検索で見つかったが読んでいない出典がある。記述はそれらに依存しない",
                code=ReasonCode.LIMIT_REACHED,
            )
        )
    for failure in search.provider_failures:
        uncertainties.append(
            Uncertainty(
                item=f"検索不能: {failure['provider']}（{failure['error']}）",
                impact="検索範囲が狭い",
                code=ReasonCode.SEARCH_PROVIDER_FAILED,
            )
        )
    if tally.usable and tally.primary < cfg.primary_target:
        uncertainties.append(
            Uncertainty(
                item=f"一次・公式情報が目標{cfg.primary_target}件に対し{tally.primary}件",
                impact="核心事実の裏付けが弱い。件数合わせの補完はしない",
                code=ReasonCode.PRIMARY_TARGET_UNMET,
            )
        )
    for s in tally.stale:
        uncertainties.append(
            Uncertainty(
                item=f"出典が古い: {s['title']}（{_source_date(s)}、{cfg.stale_after_days}日より前）",
                impact="現在の仕様・挙動と異なる可能性がある。新しい出典で確認できない記述は限定する",
                code=ReasonCode.SOURCE_STALE,
                source_ids=[s["source_id"]],
            )
        )
    if len(tally.versions) > 1:
        listed = "、".join(sorted(tally.versions))
        uncertainties.append(
            Uncertainty(
                item=f"対象バージョンが出典間で異なる（{listed}）",
                impact="どのバージョンについての記述かを限定する必要がある",
                code=ReasonCode.SCOPE_AMBIGUOUS,
                source_ids=sorted(sid for ids in tally.versions.values() for sid in ids),
            )
        )
    return uncertainties


def _reason_codes(search: _Search, adoption: _Adoption, tally: _Tally) -> list[ReasonCode]:
    """The codes of what happened while collecting, whatever the outcome."""
    happened = [
        (bool(adoption.failures), ReasonCode.FETCH_FAILED),
        (bool(search.provider_failures), ReasonCode.SEARCH_PROVIDER_FAILED),
        (bool(tally.duplicates), ReasonCode.DUPLICATES_REMOVED),
        (adoption.domain_capped, ReasonCode.DOMAIN_CAP_APPLIED),
        (adoption.limit_hit, ReasonCode.LIMIT_REACHED),
        (tally.timed_out, ReasonCode.TIME_LIMIT_REACHED),
        (search.stop_reason == "only_duplicates" and bool(search.candidates), ReasonCode.SEARCH_EXHAUSTED),
        (bool(tally.stale), ReasonCode.SOURCE_STALE),
        (len(tally.versions) > 1, ReasonCode.SCOPE_AMBIGUOUS),
    ]
    return [code for hit, code in happened if hit]


def _outcome(
    ctx: OpContext,
    title: str,
    question: str,
    search: _Search,
    adoption: _Adoption,
    tally: _Tally,
    seconds: float,
) -> Outcome:
    """Some evidence: EVIDENCE_READY; only transient failures: retry; nothing at all: HOLD."""
    cfg = ctx.config.evidence
    metrics = _metrics(cfg, search, adoption, tally, seconds)
    uncertainties = _uncertainties(cfg, search, adoption, tally)
    codes = _reason_codes(search, adoption, tally)
    failures, provider_failures = adoption.failures, search.provider_failures
    evidence_set = {
        "question_masked": question,
        "title_masked": title,
        "sources": adoption.sources,
        "candidates": adoption.ledger,
        "unreachable": failures,
        "provider_failures": provider_failures,
        "queries": search.queries_run,
        "stop_reason": search.stop_reason,
        "targets": {"primary": cfg.primary_target, "reaction": cfg.reaction_target, "max_adopted": cfg.max_adopted},
        "metrics": metrics,
        "uncertainties": [u.model_dump(mode="json") for u in uncertainties],
    }
    usable, primary = tally.usable, tally.primary
    if usable:
        if primary < cfg.primary_target:
            codes.append(ReasonCode.PRIMARY_TARGET_UNMET)
        if tally.reaction < cfg.reaction_target:
            codes.append(ReasonCode.REACTION_TARGET_UNMET)
        return Outcome(
            Result.ADVANCE,
            State.EVIDENCE_READY,
            [ReasonCode.EVIDENCE_COLLECTED, *codes],
            f"証拠を{len(usable)}件採用しました（一次情報{primary}件、二次・コミュニティ{len(usable) - primary}件、"
            f"取得不能{len(failures)}件、重複{tally.duplicates}件）。"
            + ("不足・取得不能・古さ・範囲の食い違いは不確実性として記録しました。" if uncertainties else ""),
            uncertainties=uncertainties,
            artifacts={"evidence_set": evidence_set},
            metrics=metrics,
        )
    transient_failures = [f for f in failures if f["transient"]] + [f for f in provider_failures if f["transient"]]
    if transient_failures:
        return Outcome(
            Result.RETRYABLE_ERROR,
            State.SCREENED,
            [ReasonCode.EVIDENCE_TRANSIENT_FAILURE, *codes],
            f"一時的な取得失敗（{len(transient_failures)}件）のため証拠を得られませんでした。再実行すると収集を再開します。",
            uncertainties=uncertainties,
            artifacts={"evidence_attempt": evidence_set},
            metrics=metrics,
        )
    return Outcome(
        Result.HOLD,
        State.HOLD,
        [ReasonCode.EVIDENCE_NONE, *codes],
        "証拠を一件も取得できないためHOLDで終了します。再開条件: 検索範囲の変更、出典の到達性の回復、関連ノートの追加。",
        uncertainties=uncertainties,
        artifacts={"evidence_set": evidence_set},
        metrics=metrics,
    )


UNKNOWN = "未確認"
CLASS_ORDER = ("primary", "secondary", "community")
EXCERPT_CHARS = 300


def _source_date(source: dict[str, Any]) -> str:
    modified = source.get("modified_at")
    return str(modified if modified and modified != UNKNOWN else source.get("published_at") or UNKNOWN)


def _is_stale(source: dict[str, Any], today: dt.date, days: int) -> bool:
    date = normalize_date(_source_date(source))
    return date is not None and (today - dt.date.fromisoformat(date)).days > days


def _note_metadata(note: Note) -> PageMetadata:
    """Author, dates and version a note states in its own frontmatter."""
    props = note.properties
    meta = PageMetadata()

    def put(name: str, value: str | None, where: str) -> None:
        if value and getattr(meta, name) is None:
            setattr(meta, name, value)
            meta.found_in[name] = where

    for key in ("author", "authors"):
        value = props.get(key)
        if isinstance(value, list):
            value = ", ".join(str(v) for v in value[:10])
        put("author", str(value)[:200] if value else None, f"frontmatter:{key}")
    provenance = props.get("provenance")
    if isinstance(provenance, dict) and provenance.get("generator"):
        origin = provenance.get("origin")
        generator = str(provenance["generator"])[:100]
        put("author", f"{generator}（{origin}）" if origin else generator, "frontmatter:provenance.generator")
    for key in ("published", "date", "created"):
        put("published", normalize_date(str(props.get(key) or "")), f"frontmatter:{key}")
    for key in ("updated", "modified", "last_modified"):
        put("modified", normalize_date(str(props.get(key) or "")), f"frontmatter:{key}")
    for key in ("target_version", "version"):
        value = props.get(key)
        put(
            "version",
            str(value)[:100] if isinstance(value, (str, int, float)) and value != "" else None,
            f"frontmatter:{key}",
        )
    return meta


class _Adoption:
    """Candidates ranked by source class and adopted by the targets (docs/pipeline.md, O-04):
    primary sources first up to `primary_target`, then secondary and community sources from
    publishers not yet adopted up to `reaction_target` independent ones, then the rest in class
    order, the least-adopted publisher first, up to `max_adopted`. Every candidate ends in the ledger with what happened to it and why."""

    def __init__(self, ctx: OpContext, started: float) -> None:
        self.ctx = ctx
        self.cfg = ctx.config.evidence
        self.started = started
        self.fetcher = ctx.fetcher_factory()
        self.queues: dict[str, list[Candidate]] = {c: [] for c in CLASS_ORDER}
        self.sources: list[dict[str, Any]] = []
        self.failures: list[dict[str, Any]] = []
        self.ledger: list[dict[str, Any]] = []
        self.per_domain: dict[str, int] = {}
        self.seen_content: set[str] = set()
        self.attempts = self.successes = self.fetched_urls = self.duplicates = 0
        self.domain_capped = self.limit_hit = self.timed_out = False

    def _log(self, cand: Candidate, disposition: str, reason: str, **extra: Any) -> None:
        hit = cand.hit
        entry = {
            "candidate": cand.key,
            "title": safe_text(hit.title or "", 300),
            "expected_class": cand.expected_class,
            "discovered_via": hit.discovered_via,
            "disposition": disposition,
            "reason": reason,
        }
        self.ledger.append({**entry, **extra})

    def queue(self, cand: Candidate) -> None:
        hit = cand.hit
        if hit.note_path:
            if hit.extra.get("status") == "disputed":
                cand.expected_class = "discovery_only"
                source = self._note_source(cand, "discovery_only")
                if source is not None:
                    self.sources.append(source)
                    self._log(cand, "discovery_only", "disputed note: kept for discovery, not citable")
                return
            cand.expected_class = "secondary"
        else:
            cand.expected_class = self.cfg.classify_url(hit.url or "")
        self.queues[cand.expected_class].append(cand)

    def _adopted(self) -> list[dict[str, Any]]:
        return [s for s in self.sources if s["source_class"] != "discovery_only"]

    def _count(self, classes: tuple[str, ...]) -> int:
        if classes == ("primary",):
            return sum(1 for s in self._adopted() if s["source_class"] == "primary")
        return len({s["publisher_key"] for s in self._adopted() if s["source_class"] in classes})

    def _next(self, phase: str, classes: tuple[str, ...]) -> Candidate | None:
        """The next candidate of the best class that has one. The reaction phase takes only a
        publisher not yet adopted; the fill phase the publisher with the fewest adopted sources
        (so no single publisher, the vault included, takes the remaining places)."""
        adopted: dict[str, int] = {}
        for source in self._adopted():
            adopted[source["publisher_key"]] = adopted.get(source["publisher_key"], 0) + 1
        for cls in classes:
            queue = self.queues[cls]
            if not queue:
                continue
            if phase == "reaction_target":
                fresh = [i for i, cand in enumerate(queue) if _publisher_key(cand.hit) not in adopted]
                if fresh:
                    return queue.pop(fresh[0])
                continue
            if phase == "fill":
                best = min(range(len(queue)), key=lambda i: (adopted.get(_publisher_key(queue[i].hit), 0), i))
                return queue.pop(best)
            return queue.pop(0)
        return None

    def adopt(self) -> None:
        cfg = self.cfg
        phases: list[tuple[str, tuple[str, ...], int | None]] = [
            ("primary_target", ("primary",), cfg.primary_target),
            ("reaction_target", ("secondary", "community"), cfg.reaction_target),
            ("fill", CLASS_ORDER, None),
        ]
        for phase, classes, target in phases:
            while len(self._adopted()) < cfg.max_adopted and (target is None or self._count(classes) < target):
                cand = self._next(phase, classes)
                if cand is None:
                    break
                self._try(cand, phase)
        for cls in CLASS_ORDER:
            for cand in self.queues[cls]:
                self.limit_hit = True
                self._log(cand, "not_adopted", f"adoption limit reached (max_adopted {cfg.max_adopted})")
            self.queues[cls] = []

    def _try(self, cand: Candidate, phase: str) -> None:
        source = self._try_note(cand) if cand.hit.note_path else self._try_url(cand)
        if source is not None:
            source["adopted_for"] = phase
            self.sources.append(source)
            self._log(cand, "adopted", phase, source_id=source["source_id"], source_class=source["source_class"])

    def _try_note(self, cand: Candidate) -> dict[str, Any] | None:
        source = self._note_source(cand, "secondary")
        if source is None:
            return None
        if source["snapshot_sha256"] in self.seen_content:
            self.duplicates += 1
            self._log(cand, "duplicate", "same text as an adopted source")
            return None
        self.seen_content.add(source["snapshot_sha256"])
        return source

    def _note_source(self, cand: Candidate, sclass: str) -> dict[str, Any] | None:
        path = cand.hit.note_path or ""
        try:
            note = self.ctx.catalog.note(path)
        except HarnessError as exc:
            self.failures.append({"note": path, "error": str(exc), "code": exc.code, "transient": False, "attempts": 1})
            self._log(cand, "fetch_failed", f"the note cannot be read: {exc}")
            return None
        return self._source(cand, sclass, note.body, None, "vault", note=note)

    def _try_url(self, cand: Candidate) -> dict[str, Any] | None:
        cfg, hit = self.cfg, cand.hit
        url = hit.url or ""
        domain = domain_of(url)
        if self.per_domain.get(domain, 0) >= cfg.per_domain:
            self.domain_capped = True
            self._log(cand, "domain_cap", f"{cfg.per_domain} sources of {domain} already adopted (per_domain)")
            return None
        if self.fetched_urls >= cfg.max_fetches:
            self.limit_hit = True
            self._log(cand, "not_fetched", f"fetch limit reached (max_fetches {cfg.max_fetches})")
            return None
        if time.monotonic() - self.started > cfg.time_limit_seconds:
            self.timed_out = True
            self._log(cand, "not_fetched", f"time limit reached ({cfg.time_limit_seconds:g} s)")
            return None
        self.fetched_urls += 1
        result: Fetched | None = None
        tries = 0
        for _ in range(1 + cfg.retries_per_url):
            tries += 1
            self.attempts += 1
            result = self.fetcher.fetch(url)
            if result.ok or not result.transient:
                break
        assert result is not None
        log.info("O-04 fetch %d: %s (%s)", self.fetched_urls, url, "ok" if result.ok else result.error or "error")
        if not result.ok:
            error = result.error or "error"
            failure: dict[str, Any] = {
                "url": url,
                "error": error,
                "status": result.status,
                "transient": result.transient,
                "attempts": tries,
                "expected_class": cand.expected_class,
            }
            self.failures.append(failure)
            self._log(cand, "fetch_failed", error, attempts=tries, transient=result.transient)
            return None
        self.successes += 1
        digest = result.sha256 or ""
        if digest in self.seen_content:
            self.duplicates += 1
            self._log(cand, "duplicate", "same text as an adopted source")
            return None
        self.seen_content.add(digest)
        self.per_domain[domain] = self.per_domain.get(domain, 0) + 1
        sclass = cfg.classify_url(result.final_url or url)
        return self._source(cand, sclass, result.text, result, domain)

    def _source(
        self,
        cand: Candidate,
        sclass: str,
        text: str,
        fetched: Fetched | None,
        domain: str,
        *,
        note: Note | None = None,
    ) -> dict[str, Any]:
        ctx, cfg, hit = self.ctx, self.cfg, cand.hit
        confidence, reason = CLASS_CONFIDENCE[sclass]
        masked = mask(text, find_sensitive(text))
        stored, truncated = masked[: cfg.max_text_chars], len(masked) > cfg.max_text_chars
        if note is not None:
            key = f"vault:{note.path}"
            url = None
            first = note.body_start_line
            last = first + max(0, len(note.body.splitlines()) - 1)
            ref = f"{note.path}#L{first}-L{last}"
            locator = f"ノート全体 L{first}-L{last}（検索で一致した箇所 L{hit.line}-L{hit.end_line}）"
            publisher = "vault"
            fetched_at = ctx.now_iso()
            title = hit.title or note.title
            meta = _note_metadata(note)
            excerpt_text = hit.snippet or stored
        else:
            key = normalize_url(hit.url or "")
            url = fetched.final_url if fetched else hit.url
            ref = None
            locator = "本文全体" + ("（上限で切り詰め）" if truncated else "")
            meta = replace(fetched.metadata) if fetched and fetched.metadata else PageMetadata()
            meta.found_in = dict(meta.found_in)
            publisher = meta.publisher or domain
            fetched_at = fetched.fetched_at if fetched else ctx.now_iso()
            title = str((fetched.title if fetched and fetched.title else hit.title) or url)
            searx_date = normalize_date(str(hit.extra.get("published") or ""))
            if meta.published is None and searx_date:
                meta.published = searx_date
                meta.found_in["published"] = "searxng:publishedDate"
            excerpt_text = stored
        excerpt = " ".join(safe_text(excerpt_text, cfg.max_text_chars).split())[:EXCERPT_CHARS]
        return {
            "source_id": "S-" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:10],
            "url": url,
            "repository_ref": ref,
            "title": safe_text(title or "", 300),
            "publisher": safe_text(publisher, 200),
            "publisher_key": _publisher_key(hit),
            "author": safe_text(meta.author, 200) if meta.author else UNKNOWN,
            "published_at": meta.published or UNKNOWN,
            "modified_at": meta.modified or UNKNOWN,
            "fetched_at": fetched_at,
            "target_version": safe_text(meta.version, 100) if meta.version else UNKNOWN,
            "metadata_from": dict(sorted(meta.found_in.items())),
            "locator": locator,
            "excerpt": excerpt,
            "summary_ja": UNKNOWN,
            "text": stored,
            "text_truncated": truncated,
            "snapshot_sha256": hashlib.sha256(stored.encode("utf-8")).hexdigest(),
            "source_class": sclass,
            "confidence": confidence,
            "confidence_reason": reason,
            "discovered_via": [hit.discovered_via, *cand.queries[:3]],
            "domain": domain,
        }


def _publisher_key(hit: SearchHit) -> str:
    """Who stands behind a source, for independence: the web domain; all vault notes are one (the vault)."""
    return "vault" if hit.note_path else domain_of(hit.url or "")
