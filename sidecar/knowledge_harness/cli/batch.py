"""`kh batch plan|approve|show`: plans, and the typed approval that applies them (docs/approval.md)."""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import anyio
import typer

from ..core.dates import parse_day
from ..errors import PersonRequired, Refused
from ..trust.approve.batch import (
    CHALLENGE_KEYWORD,
    approve,
    build_plan,
    plan_view,
    preview_plan,
    recover_interrupted_runs,
    show_plan,
)
from ..trust.approve.models import PlanTarget, PlanView, StoredPlan
from ..trust.validate.validation_service import validator_label
from ..vault.paths import Vault
from .progress import progress_reporter
from .terminal import ask, confirm, person_at_terminal
from .validate import quote_lines

batch_app = typer.Typer(help="Batch plans and the typed approval gate.", no_args_is_help=True)


def _short(text: str, n: int = 110) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def render_plan(view: PlanView, vault: Path) -> str:
    out = [
        f"Plan {view.plan_id}  stage {view.stage} (limit {view.limit}), "
        f"{len(view.targets)} target(s) of {view.candidates_total} candidate(s)",
        f"Created {view.created_at}, expires {view.expires_at}; status {view.status}",
        "",
    ]
    for i, t in enumerate(view.targets, 1):
        out += _target_lines(i, t)
    for s in view.skipped:
        out.append(f"skipped {s.path}: {s.reason}")
    for warning in view.warnings:
        out.append(f"warning: {warning}")
    if view.rehearsal:
        return "\n".join([*out, "", *_rehearsal_lines(view)]) + "\n"
    out += [
        "",
        "Only the verification and evidence blocks of these notes will change.",
        f"Digest: {view.digest}",
        f"To apply, read the plan, then run at a terminal: kh batch approve {shlex.quote(str(vault))} {view.plan_id}",
        f"and type {CHALLENGE_KEYWORD} <digest> when asked.",
    ]
    return "\n".join(out) + "\n"


def _target_lines(i: int, t: PlanTarget) -> list[str]:
    v = t.proposed.verification or {}
    e = t.proposed.evidence or {}
    cur = t.current.verification or {}
    why = t.reason + (f" ({', '.join(t.triggers)})" if t.triggers else "")
    if t.days_left is not None:
        why += f", due in {t.days_left} days"
    out = [
        f"{i}. {t.path}  [{why}]",
        f"   sha256 now {t.sha256_before[:12]} → after {t.sha256_after[:12]}",
        f"   verdict {t.verdict}: verification {cur.get('status', '—')}/L{cur.get('level', 0)} → "
        f"{v.get('status')}/L{v.get('level')}, revalidate_after {v.get('revalidate_after')}; "
        f"evidence {e.get('status')} ({e.get('source_count')} source(s))",
    ]
    urls = {src.source_id: src.url for src in t.sources}
    self_judged = any(f.self_judged for f in t.findings)
    out.append(
        f"   judged by {validator_label(t.validator)}"
        + ("  (the note's own generator: self_judged)" if self_judged else "")
    )
    for f in t.findings:
        out.append(f"     [{f.verdict}] {_short(f.text or f.claim_id)}")
        out.extend(quote_lines(f, "         ", urls))
        if f.reason_code:
            out.append(f"         {f.reason_code}: {_short(f.reason)}")
    return out


def _rehearsal_lines(view: PlanView) -> list[str]:
    return [
        f"REHEARSAL as of {view.today} (--today): this plan cannot be approved. The dates a run writes come",
        "from this machine's clock: plan again without --today to get a plan you can approve.",
    ]


def _plan_text(view: PlanView, vault: Path, *, as_json: bool) -> str:
    if as_json:
        return json.dumps(view.model_dump(mode="json", exclude_unset=True), ensure_ascii=False, indent=2)
    return render_plan(view, vault)


@batch_app.command("plan")
def plan_cmd(
    vault: Annotated[Path, typer.Argument(help="The vault folder.")],
    stage: Annotated[
        str,
        typer.Option(
            "--stage",
            help="canary (1 note), then pilot (≤ 8), then progressive (to the next coverage step: 25/50/80 %).",
        ),
    ] = "canary",
    notes: Annotated[
        str | None, typer.Option("--notes", help="Comma-separated vault-relative notes instead of the candidates.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the plan as JSON.")] = False,
    today: Annotated[
        str | None,
        typer.Option(
            "--today",
            help="Rehearse the plan as of this date (YYYY-MM-DD): it is shown and kept, but cannot be approved "
            "unless the date is this machine's.",
        ),
    ] = None,
    judge: Annotated[str | None, typer.Option("--judge", help="Judge name (default: the policy's).")] = None,
    out_of_order: Annotated[
        bool,
        typer.Option("--out-of-order", help="Plan a pilot or progressive batch before the previous stage succeeded."),
    ] = False,
    yes: Annotated[
        bool, typer.Option("--yes", help="Go ahead with a paid (LLM) judge without asking at the terminal.")
    ] = False,
    refetch: Annotated[
        bool, typer.Option("--refetch", help="Fetch every cited page anew instead of reusing a recent snapshot.")
    ] = False,
) -> None:
    """Build a plan: candidates (or --notes), dry-run validation, proposed blocks, digest. Writes no note."""
    handle = Vault.open(vault)
    recover_interrupted_runs(handle)
    listed = [n for n in (notes or "").split(",") if n.strip()] or None
    day = parse_day(today, name="--today")
    preview = preview_plan(
        handle, stage=stage, notes=listed, today=day, judge_name=judge, out_of_order=out_of_order, refetch=refetch
    )
    typer.echo(preview.describe(), err=True)
    # A model costs money: a person says yes at the terminal, or the command says --yes.
    if preview.paid and not yes and not _confirmed("Go ahead?"):
        raise Refused("Not planned: the paid judge was not confirmed; nothing was fetched or judged.")

    async def run(progress: Callable[[int, int, str], None]) -> StoredPlan:
        return await build_plan(
            handle,
            stage=stage,
            notes=listed,
            today=day,
            judge_name=judge,
            out_of_order=out_of_order,
            refetch=refetch,
            progress=progress,
        )

    with progress_reporter("Validating") as progress:
        view = plan_view(handle, anyio.run(run, progress))
    typer.echo(_plan_text(view, vault, as_json=as_json), nl=as_json)


def _confirmed(question: str) -> bool:
    try:
        return confirm(question)
    except PersonRequired as exc:
        raise Refused("A paid judge needs a yes at a terminal, or --yes; nothing was fetched or judged.") from exc


@batch_app.command("show")
def show_cmd(
    vault: Annotated[Path, typer.Argument(help="The vault folder.")],
    plan_id: Annotated[str, typer.Argument(help="The plan id.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the plan as JSON.")] = False,
) -> None:
    """Show a plan, its digest and whether it is open, expired or consumed."""
    view = show_plan(Vault.open(vault), plan_id)
    typer.echo(_plan_text(view, vault, as_json=as_json), nl=as_json)


@batch_app.command("approve")
def approve_cmd(
    vault: Annotated[Path, typer.Argument(help="The vault folder.")],
    plan_id: Annotated[str, typer.Argument(help="The plan id.")],
    challenge: Annotated[
        str | None, typer.Option("--challenge", hidden=True, help="Refused: the challenge is typed at the terminal.")
    ] = None,
) -> None:
    """Ask the person at the terminal for the typed challenge, then apply the plan; prints the run record.

    Without an interactive terminal it refuses (exit 1) and writes nothing. Exit 1 unless every target applied."""
    if challenge is not None:
        raise PersonRequired(
            f"--challenge is not accepted: run kh batch approve at a terminal and type {CHALLENGE_KEYWORD} <digest>"
            " when asked; nothing was changed."
        )
    person = person_at_terminal("kh batch approve")
    handle = Vault.open(vault)
    view = show_plan(handle, plan_id)
    typer.echo(render_plan(view, vault), nl=False, err=True)
    challenge = ask(f"Type {CHALLENGE_KEYWORD} <digest> to apply {plan_id}: ")
    with progress_reporter("Writing") as progress:
        record = approve(handle, plan_id, challenge, actor=person, progress=progress)
    typer.echo(json.dumps(record, ensure_ascii=False, indent=2))
    if record["run_status"] != "SUCCEEDED" or record["result"] != "APPLIED":
        typer.echo(
            f"kh: run {record['run_id']}: {record['run_status']} / {record['consumption']}, result {record['result']}"
            + (f" — {str(record['failure']).rstrip('.')}" if record.get("failure") else "")
            + ".",
            err=True,
        )
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.add_typer(batch_app, name="batch")
