"""The approval gate: batch plans, the typed challenge, guarded writes, scope checks, run records.

This module is the gate's one door (CLI, REST, tests): plans are made in approve/plan.py, applied in
approve/apply.py on a typed run record (approve/record.py), and interrupted runs closed in
approve/recover.py.

Stages C–E of the trust design: canary, pilot, progressive (docs/approval.md is the user's guide).

**Candidates**, in this order (`find_candidates`), each group without duplicates:

1. `next_batch`: Fresh L2 notes whose deadline is 0–7 days away, soonest first;
2. `stale`: validated, evidence-capable Keyword notes with a stale trigger, most overdue first
   (no deadline at all counts as most overdue), then by path;
3. `provisional`: notes written by a run that did not succeed; `unrecorded`: validated notes whose
   trust blocks no record holds (hand-written, copied, edited after the run), by path;
4. `never_validated`: evidence-capable Keyword notes without any validation, by path.

Notes whose frontmatter cannot be read are never candidates. A plan takes the first N where N
is the stage's limit (policy `[stages]`: canary 1, pilot 8, progressive N), or exactly the notes
the person lists (`--notes`, at most the stage's limit).

**A plan** (`.harness/plans/<plan_id>.json`) holds, per target, the path, the SHA-256 of the file
when planned, the proposed `verification` / `evidence` blocks (from the dry-run validation,
with `verification.run_id` set to the run that will apply them), the SHA-256 the file will have
after the metadata-only splice, the verdict and the findings. Its digest is the SHA-256 of the
plan's canonical JSON (sorted keys, no whitespace, the `digest` key itself left out), shown as
its first 12 hex digits. A plan expires after `plan_ttl_hours` (24 h by default).

**Approval** needs exactly `APPROVE_PRODUCTION <digest12>`. Under the vault lock the plan is
checked (intact, not consumed, not expired, challenge exact), then consumed atomically before
anything is written; the run record is written as IN_PROGRESS; each target is written through
the metadata-only writer with its precondition hash (a target changed since planning is
REFUSED and keeps its bytes; the others proceed); the record is replaced after every file.
Finally the scope is verified (snapshot, and git where the vault is a repository): the files
changed during the run must be exactly the targets written, each with the bytes planned.

**Run records** keep process integrity apart from result integrity (docs/approval.md, "Run records"):
`run_status` SUCCEEDED | FAILED (IN_PROGRESS while running), `consumption` CONSUMED (the plan's
one approval is spent the moment a run starts, whether or not it writes: "この実行枠は消費済み"),
and a result per file and for the run:

- per file: APPLIED, REFUSED (guard refused; nothing written), PROVISIONAL_RETAIN (written,
  but the run failed afterwards: the data is kept, provisionally), NOT_APPLIED (never reached
  or not written when the run failed), ERROR (the write itself failed);
- per run: APPLIED (every target), PARTIALLY_APPLIED (some refused), REFUSED (all refused),
  PROVISIONAL_RETAIN (writes happened and the run FAILED), NOT_APPLIED (FAILED, nothing written).

A FAILED run carries `failure_reason` (scope_verification_failed | interrupted | write_error)
and `failure` (one sentence). A FAILED run is never reported as SUCCEEDED because its data
looks right. A run interrupted
by a crash is found IN_PROGRESS by the next writer or reader (`recover_interrupted_runs`, run
by every batch / runs command and at `kh serve` start) and reported FAILED, with the files
written reconciled from the journal and the disk.

Test-only: env `KH_TEST_PAUSE_AFTER_WRITE=<seconds>` sleeps after each file is written and
recorded, so tests can kill the process (or edit a file) between writes. Never set it otherwise.
"""

from __future__ import annotations

from ..validate.judge_budget import agent_judge_calls_on
from .apply import (
    CHALLENGE_KEYWORD,
    PAUSE_ENV,
    approve,
    check_challenge,
    expected_challenge,
)
from .plan import (
    CLOCK_SKEW,
    COVERAGE_STEPS,
    DIGEST_SHOWN,
    PLAN_FORMAT,
    PROVING_VERDICTS,
    STAGES,
    WATCH_DAYS,
    Candidate,
    PlanPreview,
    Reason,
    blocks_to_write,
    build_plan,
    find_candidates,
    is_rehearsal,
    key_order,
    load_plan,
    new_ids,
    plan_digest,
    plan_status,
    plan_view,
    preview_plan,
    progressive_size,
    proves_something,
    require_agent_judge_budget,
    require_clock_dated,
    require_stage_order,
    rollout,
    show_plan,
    succeeded_stages,
)
from .record import (
    RUN_FORMAT,
    finish,
)
from .recover import (
    recover_interrupted_runs,
    recover_quietly,
    show_run,
)

__all__ = [
    "CHALLENGE_KEYWORD",
    "CLOCK_SKEW",
    "COVERAGE_STEPS",
    "DIGEST_SHOWN",
    "PAUSE_ENV",
    "PLAN_FORMAT",
    "PROVING_VERDICTS",
    "RUN_FORMAT",
    "STAGES",
    "WATCH_DAYS",
    "Candidate",
    "PlanPreview",
    "Reason",
    "agent_judge_calls_on",
    "approve",
    "blocks_to_write",
    "build_plan",
    "check_challenge",
    "expected_challenge",
    "find_candidates",
    "finish",
    "is_rehearsal",
    "key_order",
    "load_plan",
    "new_ids",
    "plan_digest",
    "plan_status",
    "plan_view",
    "preview_plan",
    "progressive_size",
    "proves_something",
    "recover_interrupted_runs",
    "recover_quietly",
    "require_agent_judge_budget",
    "require_clock_dated",
    "require_stage_order",
    "rollout",
    "show_plan",
    "show_run",
    "succeeded_stages",
]
