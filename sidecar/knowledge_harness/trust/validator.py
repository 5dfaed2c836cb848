"""The validator: a pure function ValidationRequest → ValidationResult (docs/validator.md).

It reads and writes no file and imports nothing from `vault/` (an import-linter contract and a
test check this). Rules:
- no evidence text at all → `unverifiable` (every claim `no_evidence`; the judge is not asked);
- a claim whose cited sources have no text → `no_evidence`;
- the judge answers for the other claims; a judge failure → `unverifiable`, never `pass`;
- a finding that quotes text not present in its source, or names a source the claim may not
  use, is downgraded to `unsupported` (a judge cannot support or refute with words the
  evidence does not contain); a claim the judge skipped is `unsupported`;
- any `contradicted` → `fail`; every claim `supported` → `pass`; some supported → `warn`;
  none supported (evidence text was there but backs nothing) → `unverifiable`. The design's
  reviewed/L2 means "evidence fetched, *some* claims not found in it"; a page that supports
  nothing (a portal, a link list) must not lift a note to L2.
Confidence is reported, and never changes the verdict. Score = share of supported claims.
"""

from __future__ import annotations

import re

from .judges import JudgeFailed
from .judges.base import Judge
from .text import nfkc
from .validation_models import ClaimIn, EvidenceIn, Finding, ValidationRequest, ValidationResult

_WS = re.compile(r"\s+")


def _squash(text: str) -> str:
    return _WS.sub("", nfkc(text)).lower()


def _quote_found(quote: str, source: EvidenceIn | None) -> bool:
    if source is None or not source.text:
        return False
    q = _squash(quote).strip("\"'「」…")
    if not q:
        return False
    return q[:600] in _squash(source.text)


def verdict_of(findings: list[Finding]) -> str:
    if any(f.verdict == "contradicted" for f in findings):
        return "fail"
    if findings and all(f.verdict == "supported" for f in findings):
        return "pass"
    if not any(f.verdict == "supported" for f in findings):
        return "unverifiable"
    return "warn"


def _unverifiable(
    request: ValidationRequest, judge: Judge, reason: str, verdict: str = "no_evidence"
) -> ValidationResult:
    findings = [
        Finding(claim_id=c.id, verdict=verdict, source_id=None, quote="", reason=reason) for c in request.claims
    ]
    return ValidationResult(verdict="unverifiable", score=0.0, confidence=0.0, findings=findings, validator=judge.info)


def validate(request: ValidationRequest, judge: Judge) -> ValidationResult:
    with_text = {e.source_id: e for e in request.evidence if e.text and e.text.strip()}
    if not with_text:
        errors = "; ".join(f"{e.url or e.source_id}: {e.fetch_error}" for e in request.evidence if e.fetch_error)
        reason = "No evidence text could be obtained" + (f" ({errors[:500]})." if errors else ".")
        return _unverifiable(request, judge, reason)

    judgeable: list[ClaimIn] = []
    findings_by_claim: dict[str, Finding] = {}
    allowed: dict[str, set[str]] = {}
    for claim in request.claims:
        sources = set(claim.source_ids) if claim.source_ids else set(with_text)
        allowed[claim.id] = sources
        if sources & set(with_text):
            judgeable.append(claim)
        else:
            findings_by_claim[claim.id] = Finding(
                claim_id=claim.id,
                verdict="no_evidence",
                reason="None of the sources this claim cites has evidence text.",
            )

    confidence = 0.0
    if judgeable:
        try:
            output = judge.judge(judgeable, list(with_text.values()))
        except JudgeFailed as exc:
            return _unverifiable(request, judge, f"The judge failed: {exc}", verdict="unsupported")
        confidence = max(0.0, min(1.0, output.confidence))
        wanted = {c.id for c in judgeable}
        for finding in output.findings:
            if finding.claim_id not in wanted or finding.claim_id in findings_by_claim:
                continue
            if finding.verdict in ("supported", "contradicted"):
                source = with_text.get(finding.source_id or "")
                if finding.source_id not in allowed[finding.claim_id] or not _quote_found(finding.quote, source):
                    finding = finding.model_copy(
                        update={
                            "verdict": "unsupported",
                            "reason": f"Judged {finding.verdict}, but the quote is not in the cited evidence.",
                        }
                    )
            findings_by_claim[finding.claim_id] = finding
        for claim in judgeable:
            findings_by_claim.setdefault(
                claim.id,
                Finding(claim_id=claim.id, verdict="unsupported", reason="The judge gave no finding for this claim."),
            )

    findings = [findings_by_claim[c.id] for c in request.claims]
    supported = sum(1 for f in findings if f.verdict == "supported")
    return ValidationResult(
        verdict=verdict_of(findings),
        score=round(supported / len(findings), 4),
        confidence=round(confidence, 4),
        findings=findings,
        validator=judge.info,
    )
