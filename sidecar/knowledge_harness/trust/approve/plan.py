"""Batch plans: candidates, the rollout's stage order, the dry runs and the stored plan (docs/approval.md).

See trust/approve/batch.py for the whole gate. The service works on `StoredPlan` (approve/models.py); a plan
is a dict only in its file (`.harness/plans/<plan_id>.json`), whose digest covers its canonical
JSON, so it is verified as read, before anything is typed.
"""

from __future__ import annotations

import datetime as dt
import logging
import math
import re
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Literal

from pydantic import ValidationError

from ...core.clock import compact_utc_z, now_utc, parse_utc_z, utc_z
from ...core.hashing import sha256_hex
from ...core.jsonutil import canonical_json, jsonable
from ...errors import (
    HarnessError,
    InputError,
    NotWritable,
    PlanTampered,
    Refused,
    SpliceRefused,
)
from ...vault.catalog import NoteCatalog
from ...vault.lock import ensure_writable, vault_lock
from ...vault.note import parse_note
from ...vault.paths import Vault, require_note_path
from ...vault.trust_splice import replace_trust_blocks
from ...vault.writer import see_note
from ..audit.audit import AuditReport, NoteState, iter_states, run_audit
from ..audit.freshness import is_validated
from ..policy import Policy, load_policy
from ..records import (
    check_id,
    list_run_ids,
    plan_claimed_by,
    read_plan,
    read_run,
    write_plan,
)
from ..validate.dry_run_models import DryRunReport, DryRunSource, TrustBlocks
from ..validate.evidence import MALFORMED_ANSWER_CODES
from ..validate.extraction import ExtractionPool
from ..validate.judge_budget import agent_judge_calls_on, is_paid_judge, ledger_calls_on
from ..validate.validation_models import ValidatorInfo
from ..validate.validation_service import (
    dry_run,
    note_workload,
    snapshot_ages,
)
from .models import (
    BatchRun,
    KeyOrder,
    PlanPolicy,
    PlanSkip,
    PlanSource,
    PlanStatus,
    PlanTarget,
    PlanView,
    Rollout,
    Stage,
    StageLimits,
    StoredPlan,
    StoredTarget,
)

PLAN_FORMAT = "kh-plan/1"
CHALLENGE_KEYWORD = "APPROVE_PRODUCTION"
DIGEST_SHOWN = 12
Reason = Literal["next_batch", "stale", "provisional", "unrecorded", "never_validated", "requested"]
CLOCK_SKEW = dt.timedelta(minutes=5)  # a plan "made" later than its approval by more than this: a clock went back
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
# the name `kh` prints its progress under (kh: knowledge_harness.trust.batch: dry run 1/2: …)
log = logging.getLogger("knowledge_harness.trust.batch")


# -- ids ---------------------------------------------------------------------------------------
def new_ids(now: dt.datetime) -> tuple[str, str]:
    """A plan id and the id of the one run that may apply it (same stamp and suffix)."""
    stamp = compact_utc_z(now)
    suffix = secrets.token_hex(4)
    return f"plan-{stamp}-{suffix}", f"run-{stamp}-{suffix}"


# -- candidates --------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Candidate:
    path: str
    reason: Reason
    days_left: int | None = None
    triggers: tuple[str, ...] = field(default_factory=tuple)

    def as_dict(self) -> dict[str, Any]:
        return {"path": self.path, "reason": self.reason, "days_left": self.days_left, "triggers": list(self.triggers)}


def _plannable(state: NoteState) -> bool:
    return state.keyword and state.facts.note.problem is None and state.facts.evidence_capable


def find_candidates(catalog: NoteCatalog, policy: Policy, today: dt.date) -> list[Candidate]:
    """Every candidate in the documented order (next_batch, stale, provisional, unrecorded, never validated)."""
    states = iter_states(catalog, policy, today)
    next_batch = sorted(
        (s.days_left if s.days_left is not None else 0, s.facts.note.path)
        for s in states
        if _plannable(s) and s.fresh_l2 and s.window == "next_batch"
    )
    stale = sorted(
        (s.days_left if s.days_left is not None else -(10**9), s.facts.note.path, tuple(s.triggers))
        for s in states
        if _plannable(s) and s.triggers
    )
    never = sorted(
        s.facts.note.path
        for s in states
        if _plannable(s) and not is_validated(s.facts.trust.verification) and not s.triggers
    )
    provisional = sorted(s.facts.note.path for s in states if _plannable(s) and s.provisional_run is not None)
    unrecorded = sorted(
        s.facts.note.path
        for s in states
        if _plannable(s) and s.record.kind == "unrecorded" and is_validated(s.facts.trust.verification)
    )
    out: list[Candidate] = [Candidate(path, "next_batch", days) for days, path in next_batch]
    out += [Candidate(path, "stale", None if days == -(10**9) else days, triggers) for days, path, triggers in stale]
    out += [Candidate(path, "provisional") for path in provisional]
    out += [Candidate(path, "unrecorded") for path in unrecorded]
    out += [Candidate(path, "never_validated") for path in never]
    seen: set[str] = set()
    unique = []
    for candidate in out:
        if candidate.path not in seen:
            seen.add(candidate.path)
            unique.append(candidate)
    return unique


# -- plans -------------------------------------------------------------------------------------
def key_order(proposed: TrustBlocks) -> KeyOrder:
    """The key order of the proposed blocks (stored in the plan: JSON files sort their keys)."""
    evidence = proposed.evidence or {}
    sources = evidence.get("sources")
    return KeyOrder(
        verification=list(proposed.verification or {}),
        evidence=list(evidence),
        sources=[list(s) for s in sources] if isinstance(sources, list) else [],
    )


def _ordered(mapping: Mapping[str, Any], order: Sequence[str]) -> dict[str, Any]:
    out = {key: mapping[key] for key in order if key in mapping}
    out.update({key: value for key, value in mapping.items() if key not in out})
    return out


def blocks_to_write(proposed: TrustBlocks, order: KeyOrder | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """The proposed blocks as the writer takes them: keys in the planned order, ISO dates as dates."""
    order = order or key_order(proposed)
    verification = _ordered(proposed.verification or {}, order.verification)
    for key in ("last_validated", "revalidate_after"):
        value = verification.get(key)
        if isinstance(value, str) and _DATE.match(value):
            verification[key] = dt.date.fromisoformat(value)
    evidence = _ordered(proposed.evidence or {}, order.evidence)
    sources = evidence.get("sources")
    if isinstance(sources, list):
        orders = order.sources
        evidence["sources"] = [
            _ordered(item, orders[i]) if isinstance(item, Mapping) and i < len(orders) else item
            for i, item in enumerate(sources)
        ]
    return verification, evidence


def _malformed_evidence(report: DryRunReport) -> str | None:
    """A note none of whose cited pages could be read, at least one because its server answered
    something malformed (a redirect to `http:\\\\x`, a broken head): nothing to record about the
    note, so the plan lists it as skipped with the reasons instead of planning an L1 write."""
    sources = report.sources
    if not sources or any(s.ok for s in sources):
        return None
    if not any(s.error in MALFORMED_ANSWER_CODES for s in sources):
        return None
    reasons = "; ".join(f"{s.url}: {s.error}: {s.message or ''}".strip() for s in sources[:3])
    more = f" (and {len(sources) - 3} more)" if len(sources) > 3 else ""
    return f"No cited page could be read (evidence_unreachable): {reasons}{more}"


def _with_run_id(verification: Mapping[str, Any], run_id: str) -> dict[str, Any]:
    """Insert `run_id` right after `references_sha256` (the writer's key order)."""
    out: dict[str, Any] = {}
    for key, value in verification.items():
        if key == "run_id":
            continue
        out[key] = value
        if key == "references_sha256":
            out["run_id"] = run_id
    out.setdefault("run_id", run_id)
    return out


def plan_digest(plan: Mapping[str, Any] | StoredPlan) -> str:
    """The SHA-256 of the plan's canonical JSON, its `digest` left out (of a stored file or a new plan)."""
    stored = plan.stored() if isinstance(plan, StoredPlan) else plan
    body = {k: v for k, v in stored.items() if k != "digest"}
    return sha256_hex(canonical_json(body))


STAGES: tuple[Stage, ...] = ("canary", "pilot", "progressive")
WATCH_DAYS = 30  # beyond the last Stage F window: a requested note this far from its deadline gets a warning
COVERAGE_STEPS = (Decimal("0.25"), Decimal("0.50"), Decimal("0.80"))


# the verdicts that write L2 or higher (docs/design/trust.md: pass → verified, warn → reviewed)
PROVING_VERDICTS = frozenset({"pass", "warn"})


def proves_something(run: BatchRun) -> bool:
    """A run that SUCCEEDED and APPLIED at least one note whose new result is L2 or higher: a canary whose
    one note was refused (edited meanwhile), or that only wrote L1 (a page that answered 404), proved
    nothing about the cycle."""
    return run.run_status == "SUCCEEDED" and any(_proving(f.result, f.verdict) for f in run.files)


def _proving(result: object, verdict: object) -> bool:
    """A note the run APPLIED whose new result is L2 or higher."""
    return result == "APPLIED" and verdict in PROVING_VERDICTS


def succeeded_stages(vault: Vault) -> set[Stage]:
    """The stages of the batch runs that SUCCEEDED (the rollout order: canary, pilot, progressive); a canary
    counts only when it proved something (`proves_something`)."""
    done: set[Stage] = set()
    for run_id in list_run_ids(vault):
        try:
            record = read_run(vault, run_id)
        except HarnessError:
            continue
        stage = _stage_succeeded(record)
        if stage is not None:
            done.add(stage)
    return done


def _stage_succeeded(record: dict[str, Any]) -> Stage | None:
    """The stage a run record on disk shows succeeded, if any."""
    try:
        run = BatchRun.model_validate(record)
    except ValidationError:
        return _stage_claimed(record)
    if run.run_status != "SUCCEEDED" or (run.stage == "canary" and not proves_something(run)):
        return None
    return run.stage


def _stage_claimed(record: Mapping[str, Any]) -> Stage | None:
    """A record this version cannot type (written by a version with other keys, or half of one) counts as
    it says, as every record did before runs were typed: a stage that succeeded stays succeeded."""
    stage = next((known for known in STAGES if known == record.get("stage")), None)
    if stage is None or record.get("run_status") != "SUCCEEDED":
        return None
    files = record.get("files")
    if stage == "canary" and not (
        isinstance(files, list)
        and any(isinstance(f, Mapping) and _proving(f.get("result"), f.get("verdict")) for f in files)
    ):
        return None
    return stage


def rollout(vault: Vault) -> Rollout:
    """Where the rollout stands: the stage a batch can be planned at now without overriding the order
    (the first stage without a successful run; progressive once canary and pilot succeeded, again
    and again), the stages that succeeded, and each stage's note limit from the policy."""
    done = succeeded_stages(vault)
    limits = load_policy(vault.root).stages
    return Rollout(
        next_stage=next((stage for stage in STAGES if stage not in done), STAGES[-1]),
        succeeded=[stage for stage in STAGES if stage in done],
        limits=StageLimits(**{stage: limits.limit(stage) for stage in STAGES}),
    )


def require_stage(stage: str) -> Stage:
    for known in STAGES:
        if stage == known:
            return known
    raise InputError(f"Unknown stage {stage!r}; use canary, pilot or progressive.")


def require_stage_order(vault: Vault, stage: str, *, out_of_order: bool) -> None:
    """canary must have SUCCEEDED before a pilot is planned, and a pilot before progressive."""
    index = STAGES.index(require_stage(stage))
    if index == 0 or out_of_order:
        return
    done = succeeded_stages(vault)
    missing = [earlier for earlier in STAGES[:index] if earlier not in done]
    if missing:
        needed = missing[0]
        raise Refused(
            f"A {stage} batch comes after a {' and a '.join(missing)} batch that succeeded, and this vault has none"
            + (
                " (a canary counts only when it applied at least one note at L2 or higher: a refused note, or one "
                "that only reached L1, proves nothing)"
                if needed == "canary"
                else ""
            )
            + f": plan and approve a {needed} first (kh batch plan VAULT --stage {needed}), "
            "or pass --out-of-order to override (recorded in the plan and its run).",
            detail={"stage": stage, "missing_stage": needed},
        )


def progressive_size(report: AuditReport) -> int:
    """Notes a progressive batch needs to reach the next coverage step (25 %, 50 %, 80 %), else the rest."""
    fresh, capable = report.fresh_l2, report.evidence_capable
    for step in COVERAGE_STEPS:
        target = math.ceil(step * capable)
        if fresh < target:
            return target - fresh
    return max(capable - fresh, 1)


def _resolve_targets(
    catalog: NoteCatalog, policy: Policy, stage: str, notes: Sequence[str] | None, today: dt.date
) -> tuple[list[Candidate], int]:
    limit = policy.stages.limit(stage)
    if stage == "progressive" and not notes:
        limit = min(limit, progressive_size(run_audit(catalog, policy, today=today)))
    if notes:
        requested: list[str] = []
        for raw in notes:
            path = require_note_path(raw.strip())
            if path not in requested:
                requested.append(path)
        if len(requested) > limit:
            raise InputError(
                f"{len(requested)} notes were listed but the {stage} stage allows at most {limit}; "
                "list fewer notes or choose a later stage (--stage pilot|progressive)."
            )
        states = {state.facts.note.path: state for state in iter_states(catalog, policy, today)}
        chosen = []
        for path in requested:
            state = states.get(path)
            days = state.days_left if state is not None else None
            triggers = tuple(state.triggers) if state is not None else ()
            chosen.append(Candidate(path, "requested", days, triggers))
        return chosen, len(requested)
    found = find_candidates(catalog, policy, today)
    return found[:limit], len(found)


@dataclass(frozen=True)
class PlanPreview:
    """What a plan will cost before anything is fetched: pages, claims and judge calls."""

    stage: str
    notes: list[str]
    pages: int
    claims: int
    judge: str
    judge_calls: int
    reused: dict[str, int] = field(default_factory=dict)  # url -> age (s) of the snapshot reused
    asked: dict[str, int] = field(default_factory=dict)  # url -> age (s) of a snapshot with validators

    @property
    def paid(self) -> bool:
        """Every judge but the embedded lexical ones and the agent judge (the agent's own quota) calls a model, which may
        cost money."""
        return is_paid_judge(self.judge)

    def describe(self) -> str:
        calls = f", {self.judge_calls} call(s) to the {self.judge} judge" if self.paid else " (offline, free)"
        reused = ""
        if self.reused:
            ages = ", ".join(_age(a) for a in sorted(self.reused.values()))
            reused = f", reuse {len(self.reused)} snapshot(s) fetched {ages} ago (--refetch fetches them anew)"
        asked = ""
        if self.asked:
            ages = ", ".join(_age(a) for a in sorted(self.asked.values()))
            asked = (
                f" ({len(self.asked)} of them only if changed since their snapshot, fetched {ages} ago: "
                "ETag/Last-Modified; a snapshot is reused on 304 Not Modified)"
            )
        return (
            f"This {self.stage} plan will fetch {self.pages - len(self.reused)} cited page(s){asked}{reused} and judge "
            f"{self.claims} claim(s) of {len(self.notes)} note(s) with the {self.judge} judge{calls}."
        )


def _age(seconds: int) -> str:
    return f"{seconds} s" if seconds < 120 else f"{seconds // 60} min"


def preview_plan(
    vault: Vault,
    *,
    stage: str = "canary",
    notes: Sequence[str] | None = None,
    today: dt.date | None = None,
    judge_name: str | None = None,
    out_of_order: bool = False,
    refetch: bool = False,
) -> PlanPreview:
    """The targets a plan would take and what validating them costs; fetches and judges nothing."""
    day = today or now_utc().date()
    require_stage_order(vault, stage, out_of_order=out_of_order)
    policy = load_policy(vault.root)
    chosen, _ = _resolve_targets(NoteCatalog(vault), policy, stage, notes, day)
    if chosen:
        ensure_writable(vault, "batch plan")  # a read-only vault: one line now, not a preview then an error
    pages: set[str] = set()
    claims = calls = 0
    for candidate in chosen:
        try:
            count, urls = note_workload(vault, candidate.path)
        except HarnessError:
            continue
        claims += count
        calls += 1 if count else 0
        pages.update(urls)
    judge = judge_name or policy.judge.backend
    reused, asked = ({}, {}) if refetch else snapshot_ages(vault, sorted(pages), policy)
    return PlanPreview(stage, [c.path for c in chosen], len(pages), claims, judge, calls, reused, asked)


def require_agent_judge_budget(vault: Vault, preview: PlanPreview, budget: int) -> int:
    """An agent's plan that would call a paid judge is refused unless the machine configuration grants
    the agent enough calls today (`[agents] judge_calls_per_day`); the calls it may spend."""
    if not preview.paid:
        return 0
    day = now_utc().date()
    used = agent_judge_calls_on(vault, day) + ledger_calls_on(vault, day)  # plans stored, then the ledger
    if preview.judge_calls > budget - used:
        raise Refused(
            f"The agent token may not spend money: this plan would make {preview.judge_calls} call(s) to the paid "
            f"{preview.judge} judge and the machine configuration grants agents {budget} a day ({used} used today). "
            "A person can plan it (kh batch plan asks at the terminal), or the machine's owner can set "
            "[agents] judge_calls_per_day.",
            detail={"judge": preview.judge, "judge_calls": preview.judge_calls, "budget": budget, "used_today": used},
        )
    return preview.judge_calls


async def build_plan(
    vault: Vault,
    *,
    stage: str = "canary",
    notes: Sequence[str] | None = None,
    today: dt.date | None = None,
    now: dt.datetime | None = None,
    judge_name: str | None = None,
    backoff_seconds: float = 0.5,
    out_of_order: bool = False,
    agent_judge_calls: int = 0,
    refetch: bool = False,
    progress: Callable[[int, int, str], None] | None = None,
) -> StoredPlan:
    """Select the targets, dry-run each, store the plan; returns the stored plan (with its digest).

    Stages go in order (canary, pilot, progressive) unless `out_of_order`, which the plan records.
    `progress(done, total, path)` is called before each note's dry run (the CLI draws it)."""
    moment = now or now_utc()
    day = today or moment.date()
    require_stage_order(vault, stage, out_of_order=out_of_order)
    policy = load_policy(vault.root)
    catalog = NoteCatalog(vault)
    chosen, total = _resolve_targets(catalog, policy, stage, notes, day)
    if not chosen:
        raise Refused(
            "Nothing to plan: no note is due (next_batch window), stale, or evidence-capable and never validated.",
            detail={"stage": stage},
        )
    ensure_writable(vault, "batch plan")  # a read-only vault fails here, before any fetch
    plan_id, run_id = new_ids(moment)
    targets: list[StoredTarget] = []
    skipped: list[PlanSkip] = []
    workers = ExtractionPool()  # the plan's notes share warm extraction workers (killed with the pool)
    for done, candidate in enumerate(chosen):
        if progress is not None:
            progress(done, len(chosen), candidate.path)
        log.info("dry run %d/%d: %s", done + 1, len(chosen), candidate.path)
        planned = await _plan_target(
            vault,
            candidate,
            run_id,
            policy=policy,
            judge_name=judge_name,
            today=day,
            backoff_seconds=backoff_seconds,
            refetch=refetch,
            workers=workers,
        )
        if isinstance(planned, str):
            skipped.append(PlanSkip(path=candidate.path, reason=planned))
        else:
            targets.append(planned)
    if not targets:
        raise Refused(
            "Nothing to plan: every selected note was skipped.",
            detail={"skipped": [skip.model_dump() for skip in skipped]},
        )
    warnings = [
        f"{t.path} is due in {t.days_left} days (more than {WATCH_DAYS}): it does not need revalidation yet."
        for t in targets
        if t.reason == "requested" and t.days_left is not None and t.days_left > WATCH_DAYS and not t.triggers
    ]
    expires = moment + dt.timedelta(hours=policy.plan_ttl_hours)
    plan = StoredPlan(
        format=PLAN_FORMAT,
        plan_id=plan_id,
        run_id=run_id,
        stage=require_stage(stage),
        limit=policy.stages.limit(stage),
        out_of_order=out_of_order,
        agent_judge_calls=agent_judge_calls,
        selection="notes" if notes else "candidates",
        candidates_total=total,
        created_at=utc_z(moment),
        expires_at=utc_z(expires),
        today=day.isoformat(),
        policy=PlanPolicy(ttl_days=policy.ttl_days, plan_ttl_hours=policy.plan_ttl_hours, judge=policy.judge.backend),
        targets=targets,
        skipped=skipped,
        warnings=warnings,
    )
    plan.digest = plan_digest(plan)
    with vault_lock(vault, f"batch plan {plan_id}"):
        write_plan(vault, plan_id, plan.stored())
    return plan


async def _plan_target(
    vault: Vault,
    candidate: Candidate,
    run_id: str,
    *,
    policy: Policy,
    judge_name: str | None,
    today: dt.date,
    backoff_seconds: float,
    refetch: bool,
    workers: ExtractionPool,
) -> StoredTarget | str:
    """One note's planned target (dry run, proposed blocks, hashes before and after), or why it is skipped."""
    try:
        seen = see_note(vault, candidate.path)
        before = seen.raw
        report = await dry_run(
            vault,
            candidate.path,
            policy=policy,
            judge_name=judge_name,
            today=today,
            backoff_seconds=backoff_seconds,
            refetch=refetch,
            workers=workers,
        )
    except NotWritable:
        raise  # the vault, not this note
    except HarnessError as exc:
        log.info("skipped %s: %s", candidate.path, exc.message)
        return exc.message
    except OSError as exc:  # one unreadable note never fails the whole plan
        return f"The note cannot be read: {exc.strerror or exc}."
    try:
        after_validation = see_note(vault, candidate.path).sha256
    except (HarnessError, OSError):  # deleted or made unreadable meanwhile: this note, not the plan
        return "The note was deleted or became unreadable while it was being validated."
    if after_validation != seen.sha256:
        return "The note changed while it was being validated."
    malformed = _malformed_evidence(report)
    if malformed is not None:
        return malformed
    verification = _with_run_id(report.proposed.verification or {}, run_id)
    proposed = TrustBlocks(verification=verification, evidence=report.proposed.evidence)
    order = key_order(proposed)
    try:
        new_v, new_e = blocks_to_write(proposed, order)
        after = replace_trust_blocks(before, new_v, new_e, path=candidate.path)
        # The hash must describe the body as it will be stored: a note without frontmatter
        # but with a BOM gets its frontmatter after the BOM, so its body loses the BOM.
        stored_body = parse_note(candidate.path, after).content_sha256
        if stored_body != verification.get("content_sha256"):
            verification = {**verification, "content_sha256": stored_body}
            proposed = TrustBlocks(verification=verification, evidence=proposed.evidence)
            new_v, new_e = blocks_to_write(proposed, order)
            after = replace_trust_blocks(before, new_v, new_e, path=candidate.path)
    except (SpliceRefused, InputError) as exc:
        return exc.message
    result = report.result
    return StoredTarget(
        path=report.path,
        reason=candidate.reason,
        triggers=list(candidate.triggers),
        days_left=candidate.days_left,
        sha256_before=seen.sha256,
        sha256_after=sha256_hex(after),
        proposed=proposed,
        key_order=order,
        current=report.current,
        provenance=_provenance_of(candidate.path, before),
        verdict=result.verdict,
        score=result.score,
        confidence=result.confidence,
        validator=_with_every_key(result.validator),
        findings=report.findings,
        sources=[_plan_source(s) for s in report.sources],
    )


def _with_every_key(validator: ValidatorInfo) -> ValidatorInfo:
    """The validator with its defaults set too: a plan's file keeps only the keys that were set
    (`StoredPlan.stored`), and a plan records every key of the validator that judged it."""
    return ValidatorInfo.model_validate(validator.model_dump())


def _plan_source(source: DryRunSource) -> PlanSource:
    return PlanSource(
        source_id=source.source_id,
        url=source.url,
        ok=source.ok,
        status=source.status,
        snapshot_sha256=source.snapshot_sha256,
        fetched_at=source.fetched_at,
        verdict=source.verdict,
    )


def _provenance_of(path: str, raw: bytes) -> dict[str, Any] | None:
    value = parse_note(path, raw).properties.get("provenance")
    return jsonable(dict(value)) if isinstance(value, Mapping) else None


def plan_status(vault: Vault, plan: StoredPlan, *, now: dt.datetime | None = None) -> PlanStatus:
    consumed_by = plan_claimed_by(vault, plan.plan_id)
    expired = (now or now_utc()) >= parse_utc_z(plan.expires_at)
    status: Literal["open", "expired", "consumed"] = "consumed" if consumed_by else ("expired" if expired else "open")
    return PlanStatus(status=status, consumed_by_run=consumed_by, expired=expired)


def plan_view(vault: Vault, plan: StoredPlan, *, now: dt.datetime | None = None) -> PlanView:
    """The public plan of docs/approval.md (plan_id, digest, targets[path, sha256_before, proposed], expires_at) and more."""
    status = plan_status(vault, plan, now=now)
    return PlanView(
        plan_id=plan.plan_id,
        digest=plan.digest[:DIGEST_SHOWN],
        digest_sha256=plan.digest,
        run_id=plan.run_id,
        stage=plan.stage,
        limit=plan.limit,
        out_of_order=plan.out_of_order,
        selection=plan.selection,
        candidates_total=plan.candidates_total,
        created_at=plan.created_at,
        expires_at=plan.expires_at,
        today=str(plan.today),
        status=status.status,
        consumed_by_run=status.consumed_by_run,
        expired=status.expired,
        targets=[PlanTarget(**{name: getattr(t, name) for name in PlanTarget.model_fields}) for t in plan.targets],
        skipped=plan.skipped,
        warnings=list(plan.warnings),
        rehearsal=is_rehearsal(plan),
    )


def is_rehearsal(plan: StoredPlan) -> bool:
    """A plan dated by anything but this machine's clock on the day it was made (`kh batch plan --today`)."""
    return str(plan.today) != parse_utc_z(plan.created_at).date().isoformat()


def require_clock_dated(plan: StoredPlan, moment: dt.datetime) -> None:
    """Approval takes only a plan dated by the clock, approved on a day inside its expiry window: the dates
    a run writes (`last_validated`, `revalidate_after`) are then the machine's, whoever asked for the plan."""
    made = parse_utc_z(plan.created_at)
    expires = parse_utc_z(plan.expires_at)
    detail = {"plan_id": plan.plan_id, "today": plan.today, "created_at": plan.created_at}
    if is_rehearsal(plan):
        raise Refused(
            f"The plan {plan.plan_id} is a rehearsal dated {plan.today} (kh batch plan --today), not by "
            f"this machine's clock ({made.date().isoformat()}); a rehearsal cannot be approved and nothing was "
            "written. Make a new plan without --today.",
            detail=detail,
        )
    if not made.date() <= moment.date() <= expires.date() or moment < made - CLOCK_SKEW:
        raise Refused(
            f"This machine's date ({moment.date().isoformat()}) is outside the window of the plan "
            f"{plan.plan_id} ({made.date().isoformat()} to {expires.date().isoformat()}); nothing was written. "
            "Check the clock, then make a new plan.",
            detail={**detail, "now": utc_z(moment)},
        )


def load_plan(vault: Vault, plan_id: str) -> StoredPlan:
    """The stored plan, its digest checked on the file's own JSON before it is typed."""
    plan = read_plan(vault, check_id("plan", plan_id))
    if plan.get("format") != PLAN_FORMAT or plan.get("plan_id") != plan_id:
        raise PlanTampered(f"The plan file {plan_id} is not a plan this sidecar wrote; nothing was written.")
    if plan_digest(plan) != plan.get("digest"):
        raise PlanTampered(
            f"The plan {plan_id} was modified after it was made (its digest no longer matches); "
            "nothing was written. Make a new plan."
        )
    try:
        return StoredPlan.model_validate(plan)
    except ValidationError as exc:
        raise PlanTampered(
            f"The plan file {plan_id} is not a plan this sidecar can read ({exc.error_count()} problem(s)); "
            "nothing was written. Make a new plan."
        ) from exc


def show_plan(vault: Vault, plan_id: str) -> PlanView:
    from .recover import recover_interrupted_runs  # recovery closes runs; a plan never needs it to be made

    recover_interrupted_runs(vault)
    return plan_view(vault, load_plan(vault, plan_id))
