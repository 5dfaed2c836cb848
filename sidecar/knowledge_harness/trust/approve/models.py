"""The approval wing's models: the stored plan the service works on (`StoredPlan`), its public view
(`PlanView`: POST /v1/batches, GET /v1/batches/{id}) and the run record (`BatchRun`: POST
/v1/batches/{id}/approve, GET /v1/runs/{id}).

A plan or a run is a dict only on its way to or from the disk (`StoredPlan.stored`, record.stored)
or to a door's JSON; dumps leave out what was never set, so a stored file keeps exactly the keys
it had. Files sort their keys; the doors send the models' order (the GETs the same as the POSTs).
A run record copies each target's findings and validator from the stored plan, so those come
with sorted keys (RecordedFinding, RecordedValidator). Keys a record has only sometimes
(`recovered_at`, a file's `disk`) have defaults: the routes serialize with `exclude_unset`, so a
record without them stays without them.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ...vault.scope import ScopeReport
from ..audit.freshness import Trigger
from ..validate.dry_run_models import NoteFinding, SourceVerdict, TrustBlocks
from ..validate.validation_models import FindingVerdict, GateCode, ResultVerdict, ValidatorInfo

Stage = Literal["canary", "pilot", "progressive"]
PlanReason = Literal["next_batch", "stale", "provisional", "unrecorded", "never_validated", "requested"]
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


class KeyOrder(_Model):
    """The key order of the proposed blocks, kept in the plan because its file sorts its keys."""

    verification: list[str]
    evidence: list[str]
    sources: list[list[str]]


class StoredTarget(_Model):
    """One planned note as `.harness/plans/<plan_id>.json` holds it."""

    path: str
    reason: PlanReason
    triggers: list[Trigger]
    days_left: int | None = None
    sha256_before: str
    sha256_after: str
    proposed: TrustBlocks
    key_order: KeyOrder | None = None
    current: TrustBlocks
    provenance: dict[str, Any] | None = None
    verdict: ResultVerdict
    score: float
    confidence: float
    validator: ValidatorInfo
    findings: list[NoteFinding]
    sources: list[PlanSource]


class PlanPolicy(_Model):
    """The policy a plan was made under."""

    ttl_days: int
    plan_ttl_hours: int
    judge: str


class StoredPlan(_Model):
    """A batch plan as the approval works on it; `digest` covers the canonical JSON of the rest."""

    format: Literal["kh-plan/1"]
    plan_id: str
    run_id: str
    stage: Stage
    limit: int
    out_of_order: bool = False
    agent_judge_calls: int = 0
    selection: Literal["notes", "candidates"]
    candidates_total: int
    created_at: str
    expires_at: str
    today: str | None = None
    policy: PlanPolicy
    targets: list[StoredTarget]
    skipped: list[PlanSkip]
    warnings: list[str] = Field(default_factory=list)
    digest: str = ""

    def stored(self) -> dict[str, Any]:
        """The plan as its file holds it: the keys it has (the digest's input is this without `digest`)."""
        return self.model_dump(mode="json", exclude_unset=True)


class PlanStatus(_Model):
    status: Literal["open", "expired", "consumed"]
    consumed_by_run: str | None
    expired: bool


class StageLimits(BaseModel):
    canary: int
    pilot: int
    progressive: int


class Rollout(BaseModel):
    """Where the rollout stands (GET /v1/batches/next)."""

    next_stage: Stage = Field(
        description="The stage a batch can be planned at now without overriding the rollout order."
    )
    succeeded: list[Stage]
    limits: StageLimits = Field(description="Each stage's note limit (the vault's policy).")


class PlanView(_Model):
    """A batch plan: the public keys of docs/approval.md (plan_id, digest, targets[path, sha256_before, proposed], expires_at) and more."""

    plan_id: str
    digest: str = Field(description="The first 12 hex digits of digest_sha256: type `APPROVE_PRODUCTION <digest>`.")
    digest_sha256: str
    run_id: str
    stage: Stage
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
    stage: Stage
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
