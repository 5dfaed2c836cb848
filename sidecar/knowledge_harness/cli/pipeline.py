"""`kh pipeline …`: the harness pipeline (seed 004) from the command line.

Commands of part 1: capture, authorize, advance, status, list, answer, task next, task submit.
Part 2 adds `decide` and `check-draft` with `@pipeline_app.command(...)` in this module.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from ..errors import InputError
from ..pipeline.contract import RunStatus
from ..pipeline.engine import Pipeline, SubmissionRefused
from ..vault.paths import Vault

pipeline_app = typer.Typer(
    help="The harness pipeline: capture, authorize, advance, status, tasks.", no_args_is_help=True
)
task_app = typer.Typer(help="The external-agent door: read the next task, submit its output.", no_args_is_help=True)
pipeline_app.add_typer(task_app, name="task")

VaultArg = Annotated[Path, typer.Argument(help="The vault folder.")]
RunArg = Annotated[str, typer.Argument(help="The run id.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON.")]


def _pipeline(vault: Path) -> Pipeline:
    return Pipeline(Vault.open(vault))


def _print_json(data: Any) -> None:
    typer.echo(json.dumps(data, ensure_ascii=False, indent=2, sort_keys=True))


def _print_status(status: RunStatus) -> None:
    typer.echo(
        f"{status.run_id}  {status.state}" + (f"  waiting for {status.waiting_for}" if status.waiting_for else "")
    )
    for r in status.records:
        typer.echo(
            f"  {r['operation']}  {r['state_before'] or '-'} -> {r['state_after']}  {r['result']}  {r['summary_ja']}"
        )


@pipeline_app.command("capture")
def capture(
    vault: VaultArg,
    note: Annotated[str, typer.Argument(help="The request note, vault-relative.")],
    as_json: JsonOpt = False,
) -> None:
    """O-01: capture a request note (frontmatter `harness: request`). Does not start processing."""
    status = _pipeline(vault).capture_note(note)
    if as_json:
        _print_json({"run_id": status.run_id, "state": status.state})
    else:
        _print_status(status)


@pipeline_app.command("authorize")
def authorize(
    vault: VaultArg,
    run_id: RunArg,
    by: Annotated[str, typer.Option(help="Who sets the run label.")] = "cli",
    as_json: JsonOpt = False,
) -> None:
    """O-02: the person's run label."""
    status = _pipeline(vault).authorize(run_id, by=by, via="cli")
    if as_json:
        _print_json(status.model_dump(mode="json"))
    else:
        _print_status(status)


@pipeline_app.command("advance")
def advance(vault: VaultArg, run_id: RunArg, as_json: JsonOpt = False) -> None:
    """Run operations until the run waits (authorization, an agent, a person, a retry) or ends."""
    status = _pipeline(vault).advance(run_id)
    if as_json:
        _print_json(status.model_dump(mode="json"))
    else:
        _print_status(status)


@pipeline_app.command("status")
def status(vault: VaultArg, run_id: RunArg, as_json: JsonOpt = False) -> None:
    """A run: state, what it waits for, its records."""
    result = _pipeline(vault).status(run_id)
    if as_json:
        _print_json(result.model_dump(mode="json"))
    else:
        _print_status(result)


@pipeline_app.command("list")
def list_runs(vault: VaultArg, as_json: JsonOpt = False) -> None:
    """Runs and their states."""
    runs = _pipeline(vault).list_runs()
    if as_json:
        _print_json({"runs": [r.model_dump(mode="json") for r in runs]})
        return
    for r in runs:
        typer.echo(f"{r.run_id}  {r.state:<18} {r.waiting_for or '':<28} {r.title}")


@pipeline_app.command("answer")
def answer(
    vault: VaultArg,
    run_id: RunArg,
    question_id: Annotated[str, typer.Argument(help="The question id, e.g. Q-01.")],
    value: Annotated[str, typer.Argument(help="One of the question's choices.")],
    by: Annotated[str, typer.Option(help="Who answers.")] = "cli",
    as_json: JsonOpt = False,
) -> None:
    """The person's answer to a pipeline question (publishability, screening)."""
    result = _pipeline(vault).answer(run_id, question_id, value, by=by)
    if as_json:
        _print_json(result.model_dump(mode="json"))
    else:
        _print_status(result)


@task_app.command("next")
def task_next(
    vault: VaultArg,
    operation: Annotated[str | None, typer.Option(help="Only tasks of this operation, e.g. O-05.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """The oldest open task for an external agent (Claude Code, Codex)."""
    task = _pipeline(vault).next_task(operation=operation)
    if as_json:
        _print_json({"task": task.model_dump(mode="json") if task else None})
    elif task is None:
        typer.echo("No open task.")
    else:
        typer.echo(f"{task.task_id}  {task.operation} {task.operation_name}  run {task.run_id}")
        typer.echo(task.instructions_ja)
        typer.echo(f"Submit: kh pipeline task submit {vault} {task.task_id} --file OUT.json")


@task_app.command("submit")
def task_submit(
    vault: VaultArg,
    task_id: Annotated[str, typer.Argument(help="The task id.")],
    file: Annotated[Path, typer.Option("--file", help="The output JSON file.")],
    as_json: JsonOpt = False,
) -> None:
    """Submit a task's output; it is validated and refused with reasons when it breaks the contract."""
    try:
        output = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"Cannot read JSON from {file}: {exc}.") from exc
    try:
        result = _pipeline(vault).submit(task_id, output)
    except SubmissionRefused as exc:
        typer.echo(f"kh: {exc.message}", err=True)
        for reason in (exc.detail or {}).get("reasons", []):
            typer.echo(f"  {reason['code']} {reason['path']}: {reason['message']}", err=True)
        raise typer.Exit(exc.exit_code) from exc
    if as_json:
        _print_json(result)
    else:
        rec = result["record"]
        typer.echo(f"Accepted: {rec['operation']} {rec['result']} -> {rec['state_after']}. {rec['summary_ja']}")


def register(app: typer.Typer) -> None:
    app.add_typer(pipeline_app, name="pipeline")
