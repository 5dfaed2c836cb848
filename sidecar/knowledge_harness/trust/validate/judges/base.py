"""The Judge protocol: claims + evidence texts in, one finding per claim out.

A judge is handed only claims that have at least one evidence text to look at, and only
evidence items with text. It answers one `Finding` per claim (supported / unsupported /
contradicted) with the source and a verbatim quote, plus an overall confidence. A judge that
cannot answer raises `JudgeFailed`; the validator then answers `unverifiable`, never `pass`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from ..validation_models import ClaimIn, EvidenceIn, Finding, ValidatorInfo


class JudgeFailed(Exception):
    """The judge could not produce findings (model down, invalid output twice, ...)."""


@dataclass(frozen=True, slots=True)
class JudgeOutput:
    findings: list[Finding]
    confidence: float
    # who judged, when only the answer tells (the agent judge: the MCP client that answered)
    info: ValidatorInfo | None = None


@runtime_checkable
class Judge(Protocol):
    @property
    def info(self) -> ValidatorInfo: ...

    def judge(self, claims: list[ClaimIn], evidence: list[EvidenceIn]) -> JudgeOutput: ...


class UnknownJudge(LookupError):
    """No judge of that name is registered (or its files are missing)."""
