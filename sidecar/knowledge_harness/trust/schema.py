"""The trust metadata of a note: `provenance`, `verification`, `evidence` (docs/trust-policy.md).

Reading never fails on bad metadata: each invalid value (level 7, status "great", a date that
is not a date, a block that is not a mapping) becomes a `TrustFinding` and is left out of the
parsed model; the other fields are still read. Keys we do not know are kept as extras so a
round-trip through the models never drops them.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from .policy import EvidenceStatus, Status

LEVEL_NAMES = {0: "Unverified", 1: "Machine Review", 2: "Grounded", 3: "Primary Mapped"}
TRUST_BLOCKS = ("provenance", "verification", "evidence")
_HEX64 = re.compile(r"^[0-9a-f]{64}$")


def _to_date(value: Any) -> Any:
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, str):
        text = value.strip()
        try:
            return dt.date.fromisoformat(text[:10]) if re.match(r"^\d{4}-\d{2}-\d{2}([T ].*)?$", text) else value
        except ValueError:
            return value
    return value


class _Block(BaseModel):
    model_config = ConfigDict(extra="allow")


_M = TypeVar("_M", bound=_Block)


class Provenance(_Block):
    origin: Literal["ai_generated", "human", "mixed"] | None = None
    generator: str | None = None


class EvidenceSource(_Block):
    url: str
    snapshot_sha256: str | None = None
    fetched_at: str | None = None
    verdict: str | None = None

    @field_validator("fetched_at", mode="before")
    @classmethod
    def _iso(cls, value: Any) -> Any:
        return value.isoformat() if isinstance(value, dt.date | dt.datetime) else value


class Verification(_Block):
    status: Status = "unverified"
    level: int = Field(default=0, ge=0, le=3)
    validator: str | None = None
    last_validated: dt.date | None = None
    revalidate_after: dt.date | None = None
    content_sha256: str | None = None
    references_sha256: str | None = None
    run_id: str | None = None
    claims_supported: int | None = Field(default=None, ge=0)
    claims_total: int | None = Field(default=None, ge=1)

    @field_validator("level", mode="before")
    @classmethod
    def _no_bool(cls, value: Any) -> Any:
        if isinstance(value, bool):
            raise ValueError("level must be 0, 1, 2 or 3")
        return value

    @field_validator("last_validated", "revalidate_after", mode="before")
    @classmethod
    def _date(cls, value: Any) -> Any:
        return _to_date(value)

    @field_validator("claims_supported", "claims_total", mode="before")
    @classmethod
    def _count(cls, value: Any) -> Any:
        if isinstance(value, bool):
            raise ValueError("must be a whole number")
        return value

    @property
    def claim_counts(self) -> tuple[int, int] | None:
        """(supported, total) as a plan wrote them; None for a block written before plans counted claims."""
        if self.claims_supported is None or self.claims_total is None or self.claims_supported > self.claims_total:
            return None
        return self.claims_supported, self.claims_total

    @field_validator("content_sha256", "references_sha256", mode="before")
    @classmethod
    def _hex(cls, value: Any) -> Any:
        if value is None:
            return None
        if not isinstance(value, str) or not _HEX64.match(value.strip().lower()):
            raise ValueError("must be a SHA-256 in lowercase hex (64 characters)")
        return value.strip().lower()

    @field_validator("validator", "run_id", mode="before")
    @classmethod
    def _text(cls, value: Any) -> Any:
        return str(value) if isinstance(value, int | float) and not isinstance(value, bool) else value


class Evidence(_Block):
    status: EvidenceStatus | None = None
    source_count: int | None = Field(default=None, ge=0)
    sources: list[EvidenceSource] = Field(default_factory=list)


class TrustFinding(BaseModel):
    """One invalid value in a note's trust metadata."""

    key: str  # dotted, e.g. "verification.level"
    message: str


class TrustMetadata(BaseModel):
    provenance: Provenance | None = None
    verification: Verification | None = None
    evidence: Evidence | None = None
    findings: list[TrustFinding] = Field(default_factory=list)

    @property
    def level(self) -> int:
        return self.verification.level if self.verification else 0

    @property
    def status(self) -> str:
        return self.verification.status if self.verification else "unverified"


def _salvage(model: type[_M], block: str, data: Mapping[str, Any], findings: list[TrustFinding]) -> _M:
    """Validate; on errors, record each one and retry without the offending top-level keys."""
    values = {str(k): v for k, v in data.items()}
    for _ in range(len(values) + 1):
        try:
            return model.model_validate(values)
        except ValidationError as exc:
            bad: set[str] = set()
            for error in exc.errors():
                loc = error["loc"]
                key = str(loc[0]) if loc else ""
                shown = ".".join(str(p) for p in (block, *loc))
                got = values.get(key) if len(loc) == 1 else None
                suffix = f" (got {got!r})" if len(loc) == 1 and key in values else ""
                findings.append(TrustFinding(key=shown, message=f"{shown}: {error['msg']}{suffix}."))
                bad.add(key)
            if not bad or not bad & set(values):
                break
            values = {k: v for k, v in values.items() if k not in bad}
    return model.model_validate({})


def read_trust(properties: Mapping[str, Any]) -> TrustMetadata:
    """Parse the three trust blocks from a note's properties; never raises."""
    findings: list[TrustFinding] = []
    parsed: dict[str, Any] = {}
    models: dict[str, type[_Block]] = {"provenance": Provenance, "verification": Verification, "evidence": Evidence}
    for block, model in models.items():
        if block not in properties:
            continue
        raw = properties[block]
        if raw is None:
            continue
        if not isinstance(raw, Mapping):
            findings.append(
                TrustFinding(key=block, message=f"{block}: must be a mapping of keys, not {type(raw).__name__}.")
            )
            continue
        parsed[block] = _salvage(model, block, raw, findings)
    return TrustMetadata(**parsed, findings=findings)


def finding_line(raw: bytes, yaml_start: int, yaml_end: int, key: str) -> int | None:
    """Best-effort 1-based file line of a dotted key ("verification.level") in the frontmatter."""
    text = raw[yaml_start:yaml_end].decode("utf-8", errors="replace")
    first_line = raw[:yaml_start].count(b"\n") + 1
    parts = key.split(".")
    lines = text.splitlines()
    top = re.compile(rf"^{re.escape(parts[0])}\s*:")
    for index, line in enumerate(lines):
        if top.match(line):
            if len(parts) == 1 or not parts[1] or parts[1].isdigit():
                return first_line + index
            sub = re.compile(rf"^[ \t]+{re.escape(parts[1])}\s*:")
            for offset, inner in enumerate(lines[index + 1 :], start=index + 1):
                if inner and not inner[0].isspace() and not inner.startswith("#"):
                    break
                if sub.match(inner):
                    return first_line + offset
            return first_line + index
    return None
