"""Applying a plan: the typed challenge, the claim, a guarded write per target, the scope check.

Each target is read and hashed once (vault/writer.see_note); those bytes are compared with the plan's
hash, spliced and handed to the writer, whose re-check right before the rename keeps an edit made
meanwhile from being overwritten (the note is then REFUSED and keeps its bytes).
"""

from __future__ import annotations

import datetime as dt
import os
import time
from collections.abc import Callable
from typing import Any

from ...actors import Actor
from ...core.clock import now_utc, parse_utc_z, utc_z
from ...errors import (
    Busy,
    ChallengeRefused,
    Conflict,
    HarnessError,
    PersonRequired,
    PlanExpired,
    Refused,
)
from ...vault.lock import vault_lock
from ...vault.note import parse_note
from ...vault.paths import Vault
from ...vault.scope import (
    OBSIDIAN_SELF_WRITTEN,
    ScopeReport,
    Snapshot,
    git_changed_paths,
    is_git_repository,
    snapshot,
    verify_scope,
)
from ...vault.writer import see_note, splice_trust_blocks
from ..policy import load_policy
from ..records import blocks_digest, check_id, claim_plan, plan_claimed_by
from .models import BatchRun, StoredPlan
from .plan import DIGEST_SHOWN, blocks_to_write, load_plan, require_clock_dated
from .record import FailureReason, finish, new_run, save, stored
from .recover import recover_interrupted_runs

CHALLENGE_KEYWORD = "APPROVE_PRODUCTION"
PAUSE_ENV = "KH_TEST_PAUSE_AFTER_WRITE"  # test-only, see trust/approve/batch.py


def expected_challenge(plan: StoredPlan) -> str:
    return f"{CHALLENGE_KEYWORD} {plan.digest[:DIGEST_SHOWN]}"


def check_challenge(plan: StoredPlan, challenge: str) -> None:
    """Exactly `APPROVE_PRODUCTION <digest12>`; the refusal never reveals the expected digest."""
    if challenge == expected_challenge(plan):
        return
    typed = challenge if len(challenge) <= 80 else challenge[:80] + "…"
    if challenge.strip() != challenge or "  " in challenge:
        why = "it has extra spaces"
    elif not challenge.startswith(CHALLENGE_KEYWORD + " "):
        why = f"it must start with the keyword {CHALLENGE_KEYWORD} (upper case) followed by one space"
    else:
        why = "the digest does not match this plan's digest"
    raise ChallengeRefused(
        f"Approval refused: the challenge {typed!r} is not exactly "
        f"'{CHALLENGE_KEYWORD} <the 12-digit digest of plan {plan.plan_id}>' ({why}); nothing was written.",
        detail={"plan_id": plan.plan_id, "reason": why},
    )


def _pause_for_tests() -> None:
    value = os.environ.get(PAUSE_ENV)
    if value:
        try:
            seconds = float(value)
        except ValueError:
            return
        time.sleep(max(0.0, min(seconds, 600.0)))


def _raise_if_busy_with(vault: Vault, plan_id: str, exc: HarnessError) -> None:
    holder = str((exc.detail or {}).get("holder", "")) if isinstance(exc.detail, dict) else ""
    if plan_id in holder:
        raise Conflict(
            f"The plan {plan_id} is being approved by another process right now; a plan is approved once.",
            detail={"plan_id": plan_id, "holder": holder},
        ) from exc


def approve(
    vault: Vault,
    plan_id: str,
    challenge: str,
    *,
    actor: Actor,
    now: dt.datetime | None = None,
    progress: Callable[[int, int, str], None] | None = None,
) -> dict[str, Any]:
    """Apply a plan after the exact typed challenge; returns the run record as stored (trust/approve/batch.py).

    Only a person approves: `actor` comes from a door that proved the person credential or a
    terminal, and its name is recorded as `approved_by`. `progress(done, total, path)` is called
    before each target is checked and written (the CLI draws it)."""
    if not actor.is_person:
        raise PersonRequired("Only a person may approve a batch: an agent prepares plans, a person applies them.")
    check_id("plan", plan_id)
    try:
        with vault_lock(vault, f"batch approve {plan_id}"):
            return stored(_apply_locked(vault, plan_id, challenge, now=now, actor=actor, progress=progress))
    except Busy as exc:
        _raise_if_busy_with(vault, plan_id, exc)
        raise


def _apply_locked(
    vault: Vault,
    plan_id: str,
    challenge: str,
    *,
    now: dt.datetime | None,
    actor: Actor,
    progress: Callable[[int, int, str], None] | None,
) -> BatchRun:
    recover_interrupted_runs(vault)
    plan = load_plan(vault, plan_id)
    claimed = plan_claimed_by(vault, plan_id)
    if claimed:
        raise Conflict(
            f"The plan {plan_id} was already approved (run {claimed}); a plan is approved once. Make a new plan.",
            detail={"plan_id": plan_id, "run_id": claimed},
        )
    moment = now or now_utc()
    if moment >= parse_utc_z(plan.expires_at):
        raise PlanExpired(
            f"The plan {plan_id} expired at {plan.expires_at}; nothing was written. Make a new plan.",
            detail={"plan_id": plan_id, "expires_at": plan.expires_at},
        )
    require_clock_dated(plan, moment)
    check_challenge(plan, challenge)
    run_id = plan.run_id
    if not claim_plan(vault, plan_id, run_id):
        raise Conflict(f"The plan {plan_id} was already approved; a plan is approved once.")

    git_before = git_changed_paths(vault) if is_git_repository(vault.root) else None
    before = snapshot(vault)
    record = new_run(plan, challenge, approved_by=actor.name, approved_via=actor.via, approved_at=utc_z(moment))
    save(vault, record)

    failure: tuple[FailureReason, str] | None = None
    targets = plan.targets
    for done, (target, entry) in enumerate(zip(targets, record.files, strict=True)):
        path = target.path
        if progress is not None:
            progress(done, len(targets), path)
        try:
            seen = see_note(vault, path)  # read and hashed once: the check below and the write use these bytes
        except HarnessError as exc:
            entry.result, entry.reason = "REFUSED", f"The note cannot be read any more: {exc.message}"
            save(vault, record)
            continue
        entry.sha256_found = seen.sha256
        if seen.sha256 != target.sha256_before:
            entry.result = "REFUSED"
            entry.reason = "The note changed since the plan was made (its SHA-256 differs); it was left as it is."
            save(vault, record)
            continue
        entry.result = "WRITING"
        save(vault, record)
        verification, evidence = blocks_to_write(target.proposed, target.key_order)
        try:
            receipt, new_bytes = splice_trust_blocks(vault, seen, verification, evidence, run_id=run_id)
        except Refused as exc:  # PreconditionFailed (changed just now), SpliceRefused
            entry.result, entry.reason = "REFUSED", exc.message
            save(vault, record)
            continue
        except (HarnessError, OSError) as exc:
            message = exc.message if isinstance(exc, HarnessError) else f"{type(exc).__name__}: {exc}"
            entry.result, entry.reason = "ERROR", f"The write failed: {message}"
            failure = ("write_error", f"Writing {path} failed: {message}")
            save(vault, record)
            break
        entry.result = "APPLIED"
        entry.sha256_after = receipt.sha256_after
        entry.written_at = receipt.written_at
        # the record behind the note's level (docs/audit.md, "Records"): the digest of the blocks as written
        entry.blocks_sha256 = blocks_digest(parse_note(path, new_bytes).properties)
        save(vault, record)
        _pause_for_tests()

    if failure is None:
        failure = _verify_after(vault, record, before, git_before)
    else:
        record.scope = _scope(vault, record, before, git_before)
    if failure is None:
        finish(record, failed=None)
    else:
        finish(record, failed=failure[0], message=failure[1])
    record.finished_at = utc_z(now_utc())
    save(vault, record)
    return record


def _scope_ignore(vault: Vault) -> tuple[str, ...]:
    """Obsidian's own layout files, plus the policy's `scope_ignore` (files under .obsidian/ only)."""
    try:
        extra = load_policy(vault.root).scope_ignore
    except HarnessError:
        extra = []
    return OBSIDIAN_SELF_WRITTEN + tuple(extra)


def _scope(vault: Vault, record: BatchRun, before: Snapshot, git_before: set[str] | None) -> ScopeReport:
    applied = {f.path for f in record.files if f.result == "APPLIED"}
    report = verify_scope(vault, before, applied, git_before=git_before, ignore=_scope_ignore(vault))
    # validated from its full dump so that every key counts as set and is stored (record.stored)
    return ScopeReport.model_validate(report.model_dump())


def _verify_after(
    vault: Vault, record: BatchRun, before: Snapshot, git_before: set[str] | None
) -> tuple[FailureReason, str] | None:
    """Scope verification plus a read-back of every written file; (reason, message) or None."""
    record.scope = report = _scope(vault, record, before, git_before)
    problems: list[str] = []
    if not report.ok:
        problems.append(report.message)
    for entry in (f for f in record.files if f.result == "APPLIED"):
        try:
            now_sha: str | None = see_note(vault, entry.path).sha256
        except HarnessError:
            now_sha = None
        if now_sha != entry.sha256_after:
            problems.append(f"{entry.path} no longer has the bytes written by this run.")
        elif entry.sha256_after != entry.sha256_planned_after:
            problems.append(f"{entry.path} was written with bytes other than the plan's.")
    if not problems:
        return None
    return ("scope_verification_failed", " ".join(problems))
