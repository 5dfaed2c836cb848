"""Freshness: stale triggers and the Stage F windows (docs/trust-policy.md, "Freshness").

A note is *validated* when its `verification` block records a validation: a `last_validated`
or `revalidate_after` date, a level ≥ 1, or a status other than `unverified`. Only validated
notes can be stale. Triggers:

- `content_changed`: the body's SHA-256 differs from `verification.content_sha256`;
- `references_changed`: the references' SHA-256 differs from `verification.references_sha256`;
- `age_expired`: today is after the deadline (below);
- `no_baseline`: a hash (`content_sha256` or `references_sha256`) or both dates are missing, so
  freshness cannot be proven (notes validated before the hashes existed);
- `evidence_unreachable`: the last validation could fetch none of the cited pages (network error,
  5xx, timeout, too large): the note is due again soon (`retry_unreachable_days`, default 1 day);
- `evidence_missing`: the same, and every cited page answered 404 or 410 (gone, not down);
- `future_dated`: `last_validated` is more than a day ahead of the machine's clock: no run dated it
  (a run takes its date from the clock), so its freshness is not believed.

The deadline is the earlier of `revalidate_after` and `last_validated + ttl_days` (whichever
exist), so a shortened TTL in the policy takes effect at once. Windows count the days left
until the deadline: 0–7 `next_batch`, 8–14 `prepare`, 15–30 `watch`, more than 30 none. A
deadline already passed is not in any window: the note is stale with `age_expired`.
"""

from __future__ import annotations

import datetime as dt
from typing import Literal, get_args

from ...vault.note import Note
from ..policy import Policy
from ..schema import Evidence, Verification

Trigger = Literal[
    "content_changed",
    "references_changed",
    "age_expired",
    "no_baseline",
    "evidence_unreachable",
    "evidence_missing",
    "future_dated",
]
Window = Literal["next_batch", "prepare", "watch"]
TRIGGERS: tuple[Trigger, ...] = get_args(Trigger)
FUTURE_SLACK = dt.timedelta(days=1)  # time zones: a note validated "tomorrow" somewhere is not in the future
GONE_ERRORS = frozenset({"http_404", "http_410"})
WINDOWS: tuple[Window, ...] = get_args(Window)
WINDOW_DAYS: dict[Window, tuple[int, int]] = {"next_batch": (0, 7), "prepare": (8, 14), "watch": (15, 30)}


def is_validated(verification: Verification | None) -> bool:
    if verification is None:
        return False
    return (
        verification.last_validated is not None
        or verification.revalidate_after is not None
        or verification.level >= 1
        or verification.status != "unverified"
    )


def deadline(verification: Verification | None, policy: Policy) -> dt.date | None:
    """The effective revalidation date: min(revalidate_after, last_validated + TTL)."""
    if verification is None:
        return None
    candidates = []
    if verification.revalidate_after is not None:
        candidates.append(verification.revalidate_after)
    if verification.last_validated is not None:
        candidates.append(verification.last_validated + dt.timedelta(days=policy.ttl_days))
    return min(candidates) if candidates else None


def days_left(verification: Verification | None, policy: Policy, today: dt.date) -> int | None:
    due = deadline(verification, policy)
    return None if due is None else (due - today).days


def window_for(days: int | None) -> Window | None:
    """Stage F window for a number of days left; None when > 30 days, expired, or unknown."""
    if days is None or days < 0:
        return None
    for name, (low, high) in WINDOW_DAYS.items():
        if low <= days <= high:
            return name
    return None


def stale_triggers(
    note: Note,
    verification: Verification | None,
    policy: Policy,
    today: dt.date,
    *,
    content_sha256: str | None = None,
    references_sha256: str | None = None,
    evidence: Evidence | None = None,
) -> list[Trigger]:
    """The stale triggers of a note, in TRIGGERS order; [] when fresh or never validated.

    The current hashes may be passed in when already computed (the audit caches them).
    """
    if not is_validated(verification):
        return []
    assert verification is not None
    triggers: list[Trigger] = []
    current_content = content_sha256 if content_sha256 is not None else note.content_sha256
    current_refs = references_sha256 if references_sha256 is not None else note.references_sha256
    if verification.content_sha256 is not None and verification.content_sha256 != current_content:
        triggers.append("content_changed")
    if verification.references_sha256 is not None and verification.references_sha256 != current_refs:
        triggers.append("references_changed")
    due = deadline(verification, policy)
    if due is not None and today > due:
        triggers.append("age_expired")
    if verification.content_sha256 is None or verification.references_sha256 is None or due is None:
        triggers.append("no_baseline")
    unreachable = evidence_trigger(evidence)
    if unreachable is not None:
        triggers.append(unreachable)
    # a difference of dates, never a date moved by the slack: 0001-01-01 and 9999-12-31 cannot overflow
    if verification.last_validated is not None and verification.last_validated - today > FUTURE_SLACK:
        triggers.append("future_dated")
    return triggers


def evidence_trigger(evidence: Evidence | None) -> Trigger | None:
    """`evidence_missing` when the last validation found every cited page gone (404/410),
    `evidence_unreachable` when it could fetch none for another reason, else None."""
    if evidence is None or evidence.status != "unreachable":
        return None
    errors = [str((source.model_extra or {}).get("error") or "") for source in evidence.sources]
    if errors and all(error in GONE_ERRORS for error in errors):
        return "evidence_missing"
    return "evidence_unreachable"
