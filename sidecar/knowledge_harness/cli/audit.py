"""`kh audit`: the read-only trust audit of a vault."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from ..core.dates import parse_day
from ..errors import InputError
from ..trust.audit.audit import audit_json, record_audit, render_text, run_audit, stale_report
from ..trust.policy import load_policy
from ..vault.catalog import NoteCatalog
from ..vault.paths import Vault


def _fraction(name: str, value: float | None) -> float | None:
    if value is not None and not 0.0 <= value <= 1.0:
        raise InputError(f"{name} must be between 0 and 1 (a fraction such as 0.8), got {value}.")
    return value


def audit(
    vault: Annotated[Path, typer.Argument(help="The vault folder.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    today: Annotated[str | None, typer.Option("--today", help="Audit as of this date (YYYY-MM-DD).")] = None,
    threshold: Annotated[
        float | None, typer.Option("--threshold", help="Coverage threshold (0-1); default from policy.toml.")
    ] = None,
    fail_under: Annotated[
        float | None, typer.Option("--fail-under", help="Exit 1 when coverage is below this fraction.")
    ] = None,
    record: Annotated[
        bool, typer.Option("--record", help="Append a one-line summary to .harness/audits.jsonl.")
    ] = False,
) -> None:
    """Read-only trust audit: Fresh L2 coverage, stale notes, windows, disputes, metadata errors."""
    day = parse_day(today, name="--today")
    _fraction("--threshold", threshold)
    _fraction("--fail-under", fail_under)
    handle = Vault.open(vault)
    policy = load_policy(handle.root)
    catalog = NoteCatalog(handle)
    report = run_audit(catalog, policy, today=day, threshold=threshold)
    if as_json:
        typer.echo(json.dumps(audit_json(report), ensure_ascii=False, indent=2, sort_keys=False))
    else:
        typer.echo(render_text(report, stale_details=stale_report(catalog, policy, today=report.today)), nl=False)
    if record:
        record_audit(catalog, report)
    if fail_under is not None:
        exact = report.fresh_l2 / report.evidence_capable if report.evidence_capable else 0.0
        if exact < fail_under:
            typer.echo(
                f"kh: coverage {exact * 100:.2f}% is below --fail-under {fail_under * 100:g}%.",
                err=True,
            )
            raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("audit")(audit)
