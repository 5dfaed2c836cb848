"""Response models of the approval gate (POST /v1/batches, GET /v1/batches/{id},
POST /v1/batches/{id}/approve, GET /v1/runs/{id}).

They describe the dicts of `batch.plan_view` (of a new plan) and the run records of
`batch.approve`, key for key and in their order, so the JSON of POST /v1/batches and of the
approval is unchanged and the plugin gets generated types. The GETs read stored files, whose
keys are sorted: they now send the same keys in the same order as the POSTs (the values are
unchanged). A run record copies each target's findings and validator from the stored plan, so
those come with sorted keys (RecordedFinding, RecordedValidator). Keys a record has only sometimes (`recovered_at`, a file's `disk`) have defaults: the
routes serialize with `exclude_unset`, so a record without them stays without them. The CLI
(`kh batch plan --json`, `kh runs show`) prints the dicts themselves.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ..vault.scope import ScopeReport
from .dry_run_models import NoteFinding, SourceVerdict, TrustBlocks
from .freshness import Trigger
from .validation_models import FindingVerdict, GateCode, ResultVerdict, ValidatorInfo

PlanReason = Literal["next_batch", "stale", "provisional", "never_validated", "requested"]
FileResult = Literal["PENDING", "WRITING", "APPLIED", "REFUSED", "PROVISIONAL_RETAIN", "NOT_APPLIED", "ERROR"]
RunResult = Literal["APPLIED", "PARTIALLY_APPLIED", "REFUSED", "PROVISIONAL_RETAIN", "NOT_APPLIED"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class PlanSource(_Model):
    source_id: str
    url: str
    ok: bool
    status: int | None
    snapshot_sha256: str | None
    fetched_at: str
    verdict: SourceVerdict


class PlanTarget(_Model):
    path: str
    reason: PlanReason
    triggers: list[Trigger]
    days_left: int | None = Field(default=None, description="Days to the note's deadline when planned.")
    sha256_before: str
    sha256_after: str = Field(description="The SHA-256 the file will have after the metadata-only splice.")
    proposed: TrustBlocks
    current: TrustBlocks
    verdict: ResultVerdict
    validator: ValidatorInfo
    findings: list[NoteFinding]
    sources: list[PlanSource]


class PlanSkip(_Model):
    path: str
    reason: str


class PlanView(_Model):
    """A batch plan: the public keys of docs/approval.md (plan_id, digest, targets[path, sha256_before, proposed], expires_at) and more."""

    plan_id: str
    digest: str = Field(description="The first 12 hex digits of digest_sha256: type `APPROVE_PRODUCTION <digest>`.")
    digest_sha256: str
    run_id: str
    stage: Literal["canary", "pilot", "progressive"]
    limit: int
    out_of_order: bool = Field(default=False, description="Planned before the previous stage succeeded, by override.")
    selection: Literal["notes", "candidates"]
    candidates_total: int
    created_at: str
    expires_at: str
    today: str
    status: Literal["open", "expired", "consumed"]
    consumed_by_run: str | None
    expired: bool
    targets: list[PlanTarget]
    skipped: list[PlanSkip]
    warnings: list[str] = Field(default_factory=list, description="e.g. a requested note due in more than 30 days.")
    rehearsal: bool = Field(
        default=False, description="Dated by `kh batch plan --today`, not by the clock: shown, never approved."
    )


class RecordedValidator(_Model):
    """ValidatorInfo as a run record holds it (copied from the stored plan: sorted keys); `client` and
    `client_version` (the agent judge's MCP client) are absent from runs recorded before them."""

    client: str | None = None
    client_version: str | None = None
    model: str | None
    name: str
    version: str


class RecordedQuote(_Model):
    """QuoteSpan as a run record holds it (sorted keys)."""

    end: int
    source_id: str
    start: int
    text: str


class RecordedFinding(_Model):
    """NoteFinding as a run record holds it (copied from the stored plan: sorted keys); the quote gate's
    keys (`judged`, `quotes`, `reason_code`, `self_judged`) are absent from runs recorded before it."""

    claim_id: str
    end_line: int | None
    judged: FindingVerdict | None = None
    line: int | None
    quote: str
    quotes: list[RecordedQuote] = Field(default_factory=list)
    reason: str
    reason_code: GateCode | None = None
    self_judged: bool = False
    source_id: str | None
    text: str
    verdict: FindingVerdict


class RunFile(_Model):
    path: str
    result: FileResult
    reason: str | None
    sha256_before: str
    sha256_planned_after: str
    sha256_found: str | None
    sha256_after: str | None
    written_at: str | None
    verdict: ResultVerdict
    validator: RecordedValidator
    findings: list[RecordedFinding]
    blocks_sha256: str | None = Field(
        default=None,
        description="SHA-256 of the verification and evidence blocks this run wrote (canonical JSON of their values): "
        "the record the note's level rests on. Absent on runs recorded before runs kept it.",
    )
    disk: Literal["new", "old", "missing", "changed_since"] | None = Field(
        default=None, description="Only on runs recovered after an interruption: what the disk held then."
    )


class RunWriter(_Model):
    pid: int
    program: str


class BatchRun(_Model):
    """A batch run record: process integrity (run_status, consumption) apart from the result."""

    format: Literal["kh-run/1"]
    run_id: str
    plan_id: str
    plan_digest: str
    digest: str
    stage: Literal["canary", "pilot", "progressive"]
    out_of_order: bool = False
    challenge: str
    approved_by: str = Field(
        description='The person who typed the challenge: the OS account ("… via Obsidian" from the plugin).'
    )
    approved_via: str | None = Field(default=None, description="The door: terminal, http or plugin.")
    approved_at: str
    started_at: str
    updated_at: str
    finished_at: str | None
    run_status: Literal["IN_PROGRESS", "SUCCEEDED", "FAILED"]
    consumption: Literal["CONSUMED", "NOT_CONSUMED"]
    result: RunResult | None
    files: list[RunFile]
    files_written: list[str]
    scope: ScopeReport | None
    failure: str | None
    failure_reason: Literal["scope_verification_failed", "interrupted", "write_error"] | None
    validators: list[str]
    writer: RunWriter
    recovered_at: str | None = Field(default=None, description="Only on runs closed after an interruption.")
