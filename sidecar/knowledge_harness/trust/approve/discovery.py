"""`kh discover`: the read-only discovery that automation may run (docs/automation.md: automate discovery, never production).

Automation stops at discovery: it audits the vault and lists the candidates of the next batch,
by window, with counts. It writes exactly one file, `.harness/discovery.json` (replaced
atomically), and never touches a note, a plan or a run. Production writes always need a
person to make a plan and type `APPROVE_PRODUCTION <digest>` (docs/automation.md).
"""

from __future__ import annotations

import datetime as dt
import shlex
from typing import Any

from pydantic import BaseModel, Field

from ...core.clock import now_utc, utc_z
from ...vault.catalog import NoteCatalog
from ...vault.paths import Vault
from ..audit.audit import run_audit, stale_report
from ..policy import Policy, load_policy
from ..records import write_discovery
from .batch import find_candidates

DISCOVERY_FORMAT = "kh-discovery/1"


def discover(vault: Vault, *, today: dt.date | None = None, now: dt.datetime | None = None) -> dict[str, Any]:
    moment = now or now_utc()
    day = today or moment.date()
    policy = load_policy(vault.root)
    catalog = NoteCatalog(vault)
    audit = run_audit(catalog, policy, today=day)
    stale = stale_report(catalog, policy, today=day)
    candidates = find_candidates(catalog, policy, day)
    by_reason: dict[str, list[str]] = {
        "next_batch": [],
        "stale": [],
        "provisional": [],
        "unrecorded": [],
        "never_validated": [],
    }
    for candidate in candidates:
        by_reason.setdefault(candidate.reason, []).append(candidate.path)
    windows = {
        name: [
            {"path": item.path, "revalidate_after": item.revalidate_after.isoformat(), "days_left": item.days_left}
            for item in items
        ]
        for name, items in stale.windows.items()
    }
    report: dict[str, Any] = {
        "format": DISCOVERY_FORMAT,
        "generated_at": utc_z(moment),
        "today": day.isoformat(),
        "read_only": True,
        "counts": {
            "candidates": len(candidates),
            "next_batch": len(windows.get("next_batch", [])),
            "prepare": len(windows.get("prepare", [])),
            "watch": len(windows.get("watch", [])),
            "stale": len(by_reason["stale"]),
            "never_validated": len(by_reason["never_validated"]),
            "provisional": len(by_reason["provisional"]),
            "unrecorded": len(by_reason["unrecorded"]),
            "disputed": len(audit.disputed),
            "errors": len(audit.errors),
        },
        "coverage": {
            "raw": audit.raw,
            "evidence_capable": audit.evidence_capable,
            "fresh_l2": audit.fresh_l2,
            "coverage": audit.coverage,
            "threshold": audit.threshold,
            "threshold_count": audit.threshold_count,
            "surplus": audit.surplus,
        },
        "windows": windows,
        "stale": [{"path": item.path, "triggers": list(item.triggers)} for item in stale.stale],
        "never_validated": by_reason["never_validated"],
        "provisional": [{"path": p.path, "run_id": p.run_id} for p in audit.provisional],
        "unrecorded": [{"path": u.path, "run_id": u.run_id, "reason": u.reason} for u in audit.unrecorded],
        "candidates": [c.as_dict() for c in candidates],
        "stage_limits": {
            "canary": policy.stages.canary,
            "pilot": policy.stages.pilot,
            "progressive": policy.stages.progressive,
        },
        "next_step": f"A person runs `kh batch plan {shlex.quote(str(vault.root))} --stage canary|pilot|progressive`, "
        "reads the plan, and approves it by typing APPROVE_PRODUCTION <digest>.",
    }
    write_discovery(vault, report)
    return report


def render_text(report: dict[str, Any]) -> str:
    counts = report["counts"]
    cov = report["coverage"]
    lines = [
        f"Discovery as of {report['today']} (read-only; wrote .harness/discovery.json)",
        f"Candidates: {counts['candidates']} (next_batch {counts['next_batch']}, stale {counts['stale']}, "
        f"provisional {counts['provisional']}, unrecorded {counts['unrecorded']}, "
        f"never validated {counts['never_validated']})",
        f"Windows: next_batch {counts['next_batch']}, prepare {counts['prepare']}, watch {counts['watch']}",
        f"Fresh L2: {cov['fresh_l2']} of {cov['evidence_capable']} evidence-capable "
        f"(coverage {cov['coverage'] * 100:.2f}%, surplus {cov['surplus']})",
    ]
    for candidate in report["candidates"]:
        extra = ", ".join(candidate["triggers"]) if candidate["triggers"] else ""
        days = "" if candidate["days_left"] is None else f" ({candidate['days_left']} days left)"
        lines.append(f"  - {candidate['path']}: {candidate['reason']}{days}{' ' + extra if extra else ''}")
    lines.append("Nothing was written to notes. " + report["next_step"])
    return "\n".join(lines) + "\n"


class CandidateItem(BaseModel):
    path: str
    reason: str = Field(
        description="next_batch, stale, provisional, unrecorded or never_validated (docs/automation.md)."
    )
    days_left: int | None
    triggers: list[str]


class CandidateList(BaseModel):
    """The candidates of the next batch as of `today`: what `kh discover` lists, computed when asked
    (read-only: unlike `kh discover` it writes no file)."""

    today: dt.date
    candidates: list[CandidateItem]
    counts: dict[str, int] = Field(description="Candidates per reason.")


def candidate_list(catalog: NoteCatalog, policy: Policy, today: dt.date) -> CandidateList:
    items = [CandidateItem(**candidate.as_dict()) for candidate in find_candidates(catalog, policy, today)]
    counts = {"next_batch": 0, "stale": 0, "provisional": 0, "unrecorded": 0, "never_validated": 0}
    for item in items:
        counts[item.reason] = counts.get(item.reason, 0) + 1
    return CandidateList(today=today, candidates=items, counts=counts)
