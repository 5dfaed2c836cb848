"""The validator: a pure function ValidationRequest → ValidationResult (docs/validator.md).

It reads and writes no file and imports nothing from `vault/` (an import-linter contract and a
test check this). Rules:
- no evidence text at all → `unverifiable` (every claim `no_evidence`; the judge is not asked);
- a claim whose cited sources have no text → `no_evidence`;
- the judge answers for the other claims; a judge failure → `unverifiable`, never `pass`;
- the quote gate: a `supported` or `contradicted` finding stands only when it names a source the
  claim may use and every piece of its quote is found in that source's text (trust/validate/quotes.py);
  otherwise it becomes `unsupported` with `reason_code` `quote_not_found`. For a model's
  `supported` the found quotes must also state the claim's specifics (every number, date and
  name in the same role, polarity agreeing: judges/binding.py), else `quote_does_not_state_claim`.
  The embedded judges bind claims themselves, so only the first half applies to them. A claim
  the judge skipped is `unsupported`;
- any `contradicted` → `fail`; every claim `supported` → `pass`; some supported → `warn`;
  none supported (evidence text was there but backs nothing) → `unverifiable`. The design's
  reviewed/L2 means "evidence fetched, *some* claims not found in it"; a page that supports
  nothing (a portal, a link list) must not lift a note to L2.
Confidence is reported, and never changes the verdict. Score = share of supported claims.
"""

from __future__ import annotations

from .judges import JudgeFailed
from .judges.base import Judge
from .judges.binding import bind_claim, page_dateline, page_subject, quoted_dateline
from .quotes import MAX_QUOTES, SourceText, pieces, too_short
from .text import sentence_texts
from .validation_models import (
    ClaimIn,
    EvidenceIn,
    Finding,
    QuoteSpan,
    ValidationRequest,
    ValidationResult,
    ValidatorInfo,
)

# Judges that check a claim's numbers, dates and names themselves before they answer `supported`.
EMBEDDED_JUDGES = frozenset({"lexical", "lexical_embeddings"})
AROUND_CHARS = 2000  # how far before a quote its section heading and the sentence before it are looked for


def verdict_of(findings: list[Finding]) -> str:
    if any(f.verdict == "contradicted" for f in findings):
        return "fail"
    if findings and all(f.verdict == "supported" for f in findings):
        return "pass"
    if not any(f.verdict == "supported" for f in findings):
        return "unverifiable"
    return "warn"


def _unverifiable(
    request: ValidationRequest, info: ValidatorInfo, reason: str, verdict: str = "no_evidence"
) -> ValidationResult:
    findings = [
        Finding(claim_id=c.id, verdict=verdict, source_id=None, quote="", reason=reason) for c in request.claims
    ]
    return ValidationResult(verdict="unverifiable", score=0.0, confidence=0.0, findings=findings, validator=info)


class QuoteGate:
    """Decides each `supported` / `contradicted` finding by its quote (module docstring)."""

    def __init__(self, evidence: dict[str, EvidenceIn], allowed: dict[str, set[str]], *, binds: bool) -> None:
        self.evidence = evidence
        self.allowed = allowed
        self.binds = binds
        self._texts: dict[str, SourceText] = {}
        self._pages: dict[str, tuple[str, str]] = {}

    def _source(self, source_id: str) -> SourceText | None:
        if source_id not in self._texts:
            item = self.evidence.get(source_id)
            if item is None or not item.text:
                return None
            self._texts[source_id] = SourceText(item.text)
        return self._texts[source_id]

    def locate(self, finding: Finding) -> tuple[list[QuoteSpan], str]:
        """The quote's pieces found in the named source, or ([], why not)."""
        sid = finding.source_id or ""
        if not sid:
            return [], "names no source"
        if sid not in self.allowed.get(finding.claim_id, set()):
            return [], f"names {sid}, which this claim does not cite"
        source = self._source(sid)
        if source is None:
            return [], f"names {sid}, which has no evidence text"
        parts = pieces(finding.quote)
        if not parts:
            return [], "gives no quote"
        if len(parts) > MAX_QUOTES:
            return [], f"gives {len(parts)} quote pieces, more than {MAX_QUOTES}"
        spans = []
        for part in parts:
            if too_short(part):
                return [], f"quotes {part[:40]!r}, too short to prove anything"
            found = source.find(part)
            if found is None:
                return [], f"quotes {part[:80]!r}, which is not in {sid}"
            spans.append(QuoteSpan(source_id=sid, start=found.start, end=found.end, text=found.text))
        return spans, ""

    def _page(self, source_id: str) -> tuple[str, str]:
        """The source's subject text and dateline (judges/binding.py), read once per source."""
        if source_id not in self._pages:
            item = self.evidence.get(source_id)
            lines = sentence_texts(item.text) if item is not None and item.text else []
            self._pages[source_id] = (page_subject(lines), page_dateline(lines))
        return self._pages[source_id]

    def _around(self, spans: list[QuoteSpan]) -> str:
        """What the page says right before the quotes: the heading of the section each quote sits in and
        the sentence just before it. Their opening names are who a quote's "he" or "the company" may be."""
        item = self.evidence.get(spans[0].source_id) if spans else None
        if item is None or not item.text:
            return ""
        found: list[str] = []
        for span in spans:
            before = item.text[max(0, span.start - AROUND_CHARS) : span.start]
            lines = [line.strip() for line in before.split("\n") if line.strip()]
            if lines and not before.endswith("\n") and not before.rstrip().endswith((".", "!", "?", "\u3002")):
                lines.pop()  # the quote starts inside this line: its start is the quote's sentence
            headings = [line for line in lines if line.startswith("#")]
            if headings:
                found.append(headings[-1].lstrip("# "))
            said = sentence_texts("\n".join(lines[-1:]))
            if said:
                found.append(said[-1])
        return "\n".join(dict.fromkeys(found))

    def states(self, claim: ClaimIn, spans: list[QuoteSpan]) -> tuple[bool, str]:
        """The quotes state the claim. Only the quoted sentences bind it; the page's title and first
        sentence, the quote's section heading and the sentence before it may say who "he" or "the album"
        is, and the page's dateline (or one the reader quoted) which year "on Monday" is in."""
        subject, dateline = self._page(spans[0].source_id) if spans else ("", "")
        quoted = sentence_texts("\n".join(s.text for s in spans))
        around = self._around(spans)
        binding = bind_claim(
            claim.text,
            quoted,
            subject="\n".join(t for t in (subject, around) if t),
            dateline=quoted_dateline(quoted) or dateline,
            reader=True,
        )
        return binding.states and not binding.contradicts, binding.reason

    def decide(self, claim: ClaimIn, finding: Finding) -> Finding:
        if finding.verdict not in ("supported", "contradicted"):
            return finding
        said = finding.verdict
        spans, why = self.locate(finding)
        if not spans:
            return finding.model_copy(
                update={
                    "verdict": "unsupported",
                    "judged": said,
                    "reason_code": "quote_not_found",
                    "reason": f"Judged {said}, but the quote is not in the cited evidence: the finding {why}.",
                }
            )
        if said == "supported" and self.binds:
            ok, why = self.states(claim, spans)
            if not ok:
                return finding.model_copy(
                    update={
                        "verdict": "unsupported",
                        "judged": said,
                        "quotes": spans,
                        "reason_code": "quote_does_not_state_claim",
                        "reason": f"Judged supported, but the quote does not state the claim: {why}",
                    }
                )
        return finding.model_copy(update={"quotes": spans, "judged": said})


def mark_self_judged(result: ValidationResult, *, refuse: bool) -> ValidationResult:
    """Every finding flagged `self_judged` (the judge is the note's own generator); with `refuse`
    (policy `[judge] independent = "required"`) its support does not count: never `pass`."""
    findings = []
    for finding in result.findings:
        update: dict[str, object] = {"self_judged": True}
        if refuse and finding.verdict == "supported":
            update.update(
                verdict="unsupported",
                judged=finding.judged or "supported",
                reason_code="self_judged",
                reason="Judged supported by the note's own generator; the policy requires an independent judge.",
            )
        findings.append(finding.model_copy(update=update))
    supported = sum(1 for f in findings if f.verdict == "supported")
    return result.model_copy(
        update={
            "findings": findings,
            "verdict": verdict_of(findings),
            "score": round(supported / len(findings), 4) if findings else 0.0,
        }
    )


def validate(request: ValidationRequest, judge: Judge) -> ValidationResult:
    with_text = {e.source_id: e for e in request.evidence if e.text and e.text.strip()}
    if not with_text:
        errors = "; ".join(f"{e.url or e.source_id}: {e.fetch_error}" for e in request.evidence if e.fetch_error)
        reason = "No evidence text could be obtained" + (f" ({errors[:500]})." if errors else ".")
        return _unverifiable(request, judge.info, reason)

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
    info = judge.info
    if judgeable:
        try:
            output = judge.judge(judgeable, list(with_text.values()))
        except JudgeFailed as exc:
            return _unverifiable(request, judge.info, f"The judge failed: {exc}", verdict="unsupported")
        info = output.info or judge.info
        confidence = max(0.0, min(1.0, output.confidence))
        gate = QuoteGate(with_text, allowed, binds=info.name not in EMBEDDED_JUDGES)
        claims = {c.id: c for c in judgeable}
        for finding in output.findings:
            judged = claims.get(finding.claim_id)
            if judged is None or finding.claim_id in findings_by_claim:
                continue
            findings_by_claim[finding.claim_id] = gate.decide(judged, finding)
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
        validator=info,
    )
