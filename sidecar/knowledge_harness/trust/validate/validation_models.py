"""The validator schema (docs/validator.md) as pydantic models with hard limits.

The limits make hostile requests fail validation (422) instead of eating the process: at most
1,000 claims of 4,000 characters, 100 evidence items of 1,000,000 characters, 5,000,000
characters of evidence in all.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

MAX_CLAIMS = 1000
MAX_CLAIM_CHARS = 4000
MAX_EVIDENCE = 100
MAX_EVIDENCE_CHARS = 1_000_000
MAX_TOTAL_EVIDENCE_CHARS = 5_000_000
MAX_ID_CHARS = 128

FindingVerdict = Literal["supported", "unsupported", "contradicted", "no_evidence"]
ResultVerdict = Literal["pass", "warn", "fail", "unverifiable"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ClaimIn(_Model):
    id: str = Field(min_length=1, max_length=MAX_ID_CHARS)
    text: str = Field(min_length=1, max_length=MAX_CLAIM_CHARS)
    source_ids: list[str] | None = Field(default=None, max_length=MAX_EVIDENCE)


class EvidenceIn(_Model):
    source_id: str = Field(min_length=1, max_length=MAX_ID_CHARS)
    url: str = Field(default="", max_length=2048)
    text: str | None = Field(default=None, max_length=MAX_EVIDENCE_CHARS)
    fetch_error: str | None = Field(default=None, max_length=1000)


class ValidationOptions(_Model):
    judge: str | None = Field(
        default=None, max_length=64, description="A registered judge name; default: the policy's."
    )


class ValidationRequest(_Model):
    claims: list[ClaimIn] = Field(min_length=1, max_length=MAX_CLAIMS)
    evidence: list[EvidenceIn] = Field(default_factory=list, max_length=MAX_EVIDENCE)
    options: ValidationOptions | None = None

    @model_validator(mode="after")
    def _limits(self) -> ValidationRequest:
        total = sum(len(e.text or "") for e in self.evidence)
        if total > MAX_TOTAL_EVIDENCE_CHARS:
            raise ValueError(f"the evidence texts hold {total} characters, more than {MAX_TOTAL_EVIDENCE_CHARS}")
        ids = [e.source_id for e in self.evidence]
        if len(set(ids)) != len(ids):
            raise ValueError("evidence source_id values must be unique")
        claim_ids = [c.id for c in self.claims]
        if len(set(claim_ids)) != len(claim_ids):
            raise ValueError("claim id values must be unique")
        return self


# Why the quote gate turned a judge's `supported` / `contradicted` into `unsupported` (trust/validate/validator.py).
GateCode = Literal["quote_not_found", "quote_does_not_state_claim", "self_judged"]


class QuoteSpan(_Model):
    """A quote found in its source: the characters [start, end) of the evidence snapshot's text."""

    source_id: str
    start: int = Field(ge=0)
    end: int = Field(ge=0)
    text: str


class Finding(_Model):
    claim_id: str
    verdict: FindingVerdict
    source_id: str | None = None
    # The judge's quote; several passages of one page are joined by " … " (each must be found).
    quote: str = ""
    reason: str = ""
    # Filled by the validator: the quote's pieces as found in the snapshot, why the gate
    # downgraded the finding, what the judge had said before, and whether the judge is the
    # note's own generator.
    quotes: list[QuoteSpan] = Field(default_factory=list)
    reason_code: GateCode | None = None
    judged: FindingVerdict | None = None
    self_judged: bool = False


class ValidatorInfo(_Model):
    name: str
    version: str
    model: str | None = None
    # the agent judge: the MCP client that answered (its initialize handshake's name and version)
    client: str | None = None
    client_version: str | None = None


class ValidationResult(_Model):
    verdict: ResultVerdict
    score: float = Field(ge=0.0, le=1.0)
    confidence: float = Field(ge=0.0, le=1.0)
    findings: list[Finding]
    validator: ValidatorInfo
