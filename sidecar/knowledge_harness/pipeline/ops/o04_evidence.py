"""O-04 Collect Evidence: search rounds, fetches, classification, dedupe, limits, metrics.

The seed's initial limits (configurable in `[evidence]`): 3 rounds × 4 queries, 20 body
fetches, 12 adopted, 3 per domain, 15 minutes, 2 extra tries per URL on a transient failure.
Any evidence → EVIDENCE_READY / ADVANCE (gaps become uncertainties); nothing at all → HOLD;
nothing but transient failures → RETRYABLE_ERROR (running again resumes).
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from ..contract import ReasonCode, Result, State, Uncertainty
from ..safety import find_sensitive, mask
from ..search import ProviderError, SearchHit, build_providers, key_terms
from .base import OpContext, Outcome, Prepared, Wait

OPERATION = "O-04"
CLASS_CONFIDENCE = {
    "primary": (0.9, "公式・一次情報のドメイン規則に一致"),
    "secondary": (0.7, "二次情報（解説・自分のノート）"),
    "community": (0.5, "コミュニティ情報（個人の意見・評価）"),
    "discovery_only": (0.2, "検索スニペットのみ。本文未取得のため発見専用"),
}
_TRACKING = ("utm_", "fbclid", "gclid", "ref_src")


def normalize_url(url: str) -> str:
    parts = urlsplit(url.strip())
    host = (parts.hostname or "").lower()
    if host.startswith("www."):
        host = host[4:]
    netloc = host + (f":{parts.port}" if parts.port and parts.port not in (80, 443) else "")
    query = urlencode(sorted((k, v) for k, v in parse_qsl(parts.query) if not k.lower().startswith(_TRACKING)))
    path = parts.path.rstrip("/") or "/"
    return urlunsplit((parts.scheme.lower(), netloc, path, query, ""))


def domain_of(url: str) -> str:
    host = (urlsplit(url).hostname or "").lower()
    return host[4:] if host.startswith("www.") else host


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


class CollectEvidence:
    operation = OPERATION

    def prepare(self, ctx: OpContext) -> Prepared | Wait:
        sha = ctx.artifact_sha("screened_request")
        return Prepared(
            inputs={"screened_request": sha, "evidence": ctx.config.evidence.model_dump(mode="json")},
            payload=ctx.artifact("screened_request"),
            input_refs=[f"artifact:screened_request@sha256:{sha}"],
        )

    def run(self, ctx: OpContext, prepared: Prepared) -> Outcome:
        cfg = ctx.config.evidence
        started = time.monotonic()
        screened: dict[str, Any] = prepared.payload
        title, question = screened["title_masked"], screened["question_masked"]
        exclude = {ctx.run.request.path} if ctx.run.request.path else set()
        providers = build_providers(ctx.catalog, cfg, exclude)
        codes: list[ReasonCode] = []
        uncertainties: list[Uncertainty] = []
        candidates: dict[str, Candidate] = {}
        context: list[SearchHit] = []
        searches = duplicates = 0
        provider_failures: list[dict[str, Any]] = []
        queries_run: list[dict[str, Any]] = []
        learned: list[str] = []
        timed_out = False
        stop_reason = "rounds_done"
        for round_no in range(1, cfg.rounds + 1):
            new_in_round = 0
            for query in make_queries(title, question, round_no, learned, cfg.queries_per_round):
                if any(q["query"] == query for q in queries_run):
                    continue
                if time.monotonic() - started > cfg.time_limit_seconds:
                    timed_out = True
                    break
                searches += 1
                found = 0
                for provider in providers:
                    try:
                        hits = provider.search(query, limit=max(10, 2 * cfg.max_fetches), context=context)
                    except ProviderError as exc:
                        provider_failures.append(
                            {"provider": provider.name, "query": query, "error": str(exc), "transient": exc.transient}
                        )
                        continue
                    for hit in hits:
                        key = f"note:{hit.note_path}" if hit.note_path else normalize_url(hit.url or "")
                        if key in candidates:
                            duplicates += 1
                            candidates[key].queries.append(query)
                            continue
                        candidates[key] = Candidate(key, hit, [query])
                        context.append(hit)
                        found += 1
                        new_in_round += 1
                        for term in key_terms(hit.title, 3):
                            if term not in learned and term.lower() not in question.lower():
                                learned.append(term)
                queries_run.append({"round": round_no, "query": query, "new_hits": found})
            if timed_out:
                stop_reason = "time_limit"
                break
            if new_in_round == 0:
                stop_reason = "only_duplicates"
                break
            if len(candidates) >= cfg.max_adopted * 2:
                stop_reason = "enough_candidates"
                break

        # -- fetch and adopt ------------------------------------------------------------------------
        fetcher = ctx.fetcher_factory()
        sources: list[dict[str, Any]] = []
        failures: list[dict[str, Any]] = []
        per_domain: dict[str, int] = {}
        seen_content: set[str] = set()
        fetched_urls = attempts = successes = 0
        domain_capped = limit_hit = False
        for cand in candidates.values():
            if len(sources) >= cfg.max_adopted:
                limit_hit = True
                break
            hit = cand.hit
            if hit.note_path:
                domain = "vault"
                if per_domain.get(domain, 0) >= cfg.per_domain:
                    domain_capped = True
                    continue
                digest = hashlib.sha256(hit.snippet.encode("utf-8")).hexdigest()
                if digest in seen_content:
                    duplicates += 1
                    continue
                seen_content.add(digest)
                per_domain[domain] = per_domain.get(domain, 0) + 1
                sclass = "discovery_only" if hit.extra.get("status") == "disputed" else "secondary"
                sources.append(self._source(ctx, cand, sclass, hit.snippet, None, domain))
                continue
            url = hit.url or ""
            domain = domain_of(url)
            if per_domain.get(domain, 0) >= cfg.per_domain:
                domain_capped = True
                continue
            if fetched_urls >= cfg.max_fetches or time.monotonic() - started > cfg.time_limit_seconds:
                limit_hit = limit_hit or fetched_urls >= cfg.max_fetches
                timed_out = timed_out or time.monotonic() - started > cfg.time_limit_seconds
                failures.append({"url": url, "error": "not fetched (limit)", "transient": False, "attempts": 0})
                continue
            fetched_urls += 1
            result = None
            tries = 0
            for _ in range(1 + cfg.retries_per_url):
                tries += 1
                attempts += 1
                result = fetcher.fetch(url)
                if result.ok or not result.transient:
                    break
            assert result is not None
            if not result.ok:
                failures.append({"url": url, "error": result.error, "transient": result.transient, "attempts": tries})
                continue
            successes += 1
            digest = result.sha256 or ""
            if digest in seen_content:
                duplicates += 1
                continue
            seen_content.add(digest)
            per_domain[domain] = per_domain.get(domain, 0) + 1
            sclass = cfg.classify_host(urlsplit(result.final_url).hostname or domain)
            sources.append(self._source(ctx, cand, sclass, result.text, result, domain))

        seconds = round(time.monotonic() - started, 3)
        primary = sum(1 for s in sources if s["source_class"] == "primary")
        usable = [s for s in sources if s["source_class"] != "discovery_only"]
        transient_failures = [f for f in failures if f["transient"]] + [f for f in provider_failures if f["transient"]]
        missing_points = 1 if primary < cfg.primary_target else 0
        metrics = {
            "searches": searches,
            "fetch_attempts": attempts,
            "fetched_urls": fetched_urls,
            "success_rate": round(successes / attempts, 4) if attempts else None,
            "adopted": len(sources),
            "primary_ratio": round(primary / len(sources), 4) if sources else 0.0,
            "duplicates": duplicates,
            "unreachable": len(failures),
            "contradictions": 0,
            "missing_points": missing_points,
            "seconds": seconds,
            "provider_failures": len(provider_failures),
        }
        for failure in failures:
            uncertainties.append(
                Uncertainty(
                    item=f"取得不能: {failure['url']}（{failure['error']}）",
                    impact="この出典に依存する記述は未確認のまま扱う",
                    code=ReasonCode.FETCH_FAILED,
                )
            )
        for failure in provider_failures:
            uncertainties.append(
                Uncertainty(
                    item=f"検索不能: {failure['provider']}（{failure['error']}）",
                    impact="検索範囲が狭い",
                    code=ReasonCode.SEARCH_PROVIDER_FAILED,
                )
            )
        if usable and primary < cfg.primary_target:
            uncertainties.append(
                Uncertainty(
                    item=f"一次・公式情報が目標{cfg.primary_target}件に対し{primary}件",
                    impact="核心事実の裏付けが弱い。件数合わせの補完はしない",
                    code=ReasonCode.PRIMARY_TARGET_UNMET,
                )
            )
        if failures:
            codes.append(ReasonCode.FETCH_FAILED)
        if provider_failures:
            codes.append(ReasonCode.SEARCH_PROVIDER_FAILED)
        if duplicates:
            codes.append(ReasonCode.DUPLICATES_REMOVED)
        if domain_capped:
            codes.append(ReasonCode.DOMAIN_CAP_APPLIED)
        if limit_hit:
            codes.append(ReasonCode.LIMIT_REACHED)
        if timed_out:
            codes.append(ReasonCode.TIME_LIMIT_REACHED)
        if stop_reason == "only_duplicates" and candidates:
            codes.append(ReasonCode.SEARCH_EXHAUSTED)
        evidence_set = {
            "question_masked": question,
            "title_masked": title,
            "sources": sources,
            "unreachable": failures,
            "provider_failures": provider_failures,
            "queries": queries_run,
            "stop_reason": stop_reason,
            "metrics": metrics,
            "uncertainties": [u.model_dump(mode="json") for u in uncertainties],
        }
        if usable:
            if primary < cfg.primary_target:
                codes.append(ReasonCode.PRIMARY_TARGET_UNMET)
            return Outcome(
                Result.ADVANCE,
                State.EVIDENCE_READY,
                [ReasonCode.EVIDENCE_COLLECTED, *codes],
                f"証拠を{len(sources)}件採用しました（一次情報{primary}件、取得不能{len(failures)}件、重複{duplicates}件）。"
                + ("不足・取得不能は不確実性として記録しました。" if uncertainties else ""),
                uncertainties=uncertainties,
                artifacts={"evidence_set": evidence_set},
                metrics=metrics,
            )
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

    def _source(
        self, ctx: OpContext, cand: Candidate, sclass: str, text: str, fetched: Any, domain: str
    ) -> dict[str, Any]:
        cfg = ctx.config.evidence
        hit = cand.hit
        confidence, reason = CLASS_CONFIDENCE[sclass]
        stored = safe_text(text, cfg.max_text_chars)
        if hit.note_path:
            key = f"vault:{hit.note_path}"
            url = None
            ref = f"{hit.note_path}#L{hit.line}-L{hit.end_line}"
            locator = f"L{hit.line}-L{hit.end_line}"
            publisher = "vault"
            fetched_at = ctx.now_iso()
            title = hit.title
        else:
            key = normalize_url(hit.url or "")
            url = fetched.final_url if fetched else hit.url
            ref = None
            locator = "本文全体（抜粋）"
            publisher = domain
            fetched_at = fetched.fetched_at if fetched else ctx.now_iso()
            title = str((fetched.title if fetched and fetched.title else hit.title) or url)
        first = " ".join(stored.split())[:200]
        return {
            "source_id": "S-" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:10],
            "url": url,
            "repository_ref": ref,
            "title": safe_text(title or "", 300),
            "publisher": publisher,
            "author": "未確認",
            "published_at": hit.extra.get("published") or "未確認",
            "fetched_at": fetched_at,
            "target_version": "未確認",
            "locator": locator,
            "summary_ja": f"抜粋: {first}" if first else "未確認",
            "text": stored,
            "snapshot_sha256": hashlib.sha256(stored.encode("utf-8")).hexdigest(),
            "source_class": sclass,
            "confidence": confidence,
            "confidence_reason": reason,
            "discovered_via": [hit.discovered_via, *cand.queries[:3]],
            "domain": domain,
        }
