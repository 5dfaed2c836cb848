"""`kh runs show|list`, `kh prov export`, `kh discover`: run records, their PROV, read-only discovery."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from ..core.dates import parse_day
from ..errors import HarnessError
from ..trust.approve.batch import recover_interrupted_runs, show_run
from ..trust.approve.discovery import discover, render_text
from ..trust.approve.prov import export_prov
from ..trust.records import list_run_ids, read_run
from ..vault.paths import Vault

runs_app = typer.Typer(help="Records of batch runs (approvals).", no_args_is_help=True)
prov_app = typer.Typer(help="W3C PROV of batch runs.", no_args_is_help=True)


@runs_app.command("show")
def runs_show(
    vault: Annotated[Path, typer.Argument(help="The vault folder.")],
    run_id: Annotated[str, typer.Argument(help="The run id.")],
) -> None:
    """Print a run record as JSON (an interrupted run is first closed as FAILED)."""
    typer.echo(json.dumps(show_run(Vault.open(vault), run_id), ensure_ascii=False, indent=2))


@runs_app.command("list")
def runs_list(
    vault: Annotated[Path, typer.Argument(help="The vault folder.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """List batch runs with their status, consumption and result."""
    handle = Vault.open(vault)
    recover_interrupted_runs(handle)
    rows = []
    for run_id in list_run_ids(handle):
        try:
            record = read_run(handle, run_id)
        except HarnessError as exc:  # one damaged record never hides the others
            typer.echo(f"kh: {exc.message} Left as it is.", err=True)
            continue
        rows.append(
            {k: record.get(k) for k in ("run_id", "plan_id", "run_status", "consumption", "result", "started_at")}
        )
    if as_json:
        typer.echo(json.dumps({"runs": rows}, ensure_ascii=False, indent=2))
        return
    for row in rows:
        typer.echo(
            f"{row['run_id']}  {row['run_status']} / {row['consumption']}  {row['result']}  plan {row['plan_id']}"
        )


@prov_app.command("export")
def prov_export(
    vault: Annotated[Path, typer.Argument(help="The vault folder.")],
    run_id: Annotated[str, typer.Argument(help="The run id.")],
    fmt: Annotated[str, typer.Option("--format", help="json (PROV-JSON) or turtle (PROV-O).")] = "json",
) -> None:
    """Export the W3C PROV of a run: note versions, evidence snapshots, validation, approval, writes."""
    typer.echo(export_prov(Vault.open(vault), run_id, fmt), nl=False)


def discover_cmd(
    vault: Annotated[Path, typer.Argument(help="The vault folder.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the discovery as JSON.")] = False,
    today: Annotated[str | None, typer.Option("--today", help="As of this date (YYYY-MM-DD).")] = None,
) -> None:
    """Read-only discovery for cron: candidates by window and counts; writes only .harness/discovery.json."""
    report = discover(Vault.open(vault), today=parse_day(today, name="--today"))
    typer.echo(json.dumps(report, ensure_ascii=False, indent=2) if as_json else render_text(report), nl=as_json)


def register(app: typer.Typer) -> None:
    app.add_typer(runs_app, name="runs")
    app.add_typer(prov_app, name="prov")
    app.command("discover")(discover_cmd)
