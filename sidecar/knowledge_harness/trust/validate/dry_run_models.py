"""The dry-run validation of one note: what `validation_service.dry_run` returns and every door
sends (POST /v1/trust/notes/{path}/validate, MCP `validate_note_dry_run`, `kh validate --json`), and
what the approval plans from. The doors dump it whole (`model_dump`), in the fields' order, so their
JSON keeps its keys and order and the plugin gets generated types. The two trust blocks are the
note's own frontmatter and stay open (`dict[str, Any]`).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from .claims import ClaimKind
from .validation_models import Finding, ValidationResult

SourceVerdict = Literal["supported", "unsupported", "contradicted", "fetch_failed", "unused"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TrustBlocks(_Model):
    """The `verification` and `evidence` frontmatter blocks (null when a note has none)."""

    verification: dict[str, Any] | None
    evidence: dict[str, Any] | None


class NoteClaim(_Model):
    id: str
    text: str
    line: int
    end_line: int
    references: list[str]
    kind: ClaimKind


class NoteFinding(Finding):
    """A validator finding located in the note (line span and the claim's text)."""

    line: int | None
    end_line: int | None
    text: str


class DryRunSource(_Model):
    source_id: str
    url: str
    final_url: str | None
    status: int | None
    ok: bool
    error: str | None
    message: str | None
    content_type: str | None
    charset: str | None
    title: str | None
    published: str | None
    bytes: int
    attempts: int
    fetched_at: str
    snapshot_sha256: str | None
    reused_snapshot: bool
    verdict: SourceVerdict


class DryRunReport(_Model):
    """Evidence + validator + the proposed blocks for one note; nothing but snapshots was written."""

    path: str
    title: str
    dry_run: bool
    claims: list[NoteClaim]
    sources: list[DryRunSource]
    result: ValidationResult
    judge: str = Field(
        description="Who judged, as the record names it: lexical-8, openai_compat:<model>, agent:<client> <version>."
    )
    self_judged: bool = Field(description="The judge is the note's own generator (its provenance.generator).")
    findings: list[NoteFinding]
    current: TrustBlocks
    proposed: TrustBlocks
    snapshots_written: list[str]
