"""`kh pipeline …`: the harness pipeline (docs/pipeline.md) from the command line.

Commands of part 1: capture, authorize, advance, status, list, answer, task next, task submit.
Part 2: `decide` (O-11, the person's decision), `review` (the Review Packet), `check-draft`
(O-09's program checks on any draft) and `policy list|accept|decline` (the person's answer to the
pipeline's policy proposals).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Annotated, Any

import click
import typer

from ..actors import agent
from ..core.clock import now_utc_z
from ..errors import InputError, NotFound, PersonRequired, SubmissionRefused
from ..pipeline.blog_repo import PastPost, first_title
from ..pipeline.config import PipelineConfig, load_config
from ..pipeline.contract import DECISION_CHOICES, RunStatus, choice_code
from ..pipeline.draft_checks import CheckInputs, blog_rules, check_draft
from ..pipeline.engine import Pipeline
from ..pipeline.proposals import Proposal, ProposalBook
from ..vault.paths import Vault
from ..vault.safe_git import run_git
from .terminal import ask, confirm, person_at_terminal, person_if_at_terminal

pipeline_app = typer.Typer(
    help="The harness pipeline: capture, authorize, advance, status, tasks.", no_args_is_help=True
)
task_app = typer.Typer(help="The external-agent door: read the next task, submit its output.", no_args_is_help=True)
pipeline_app.add_typer(task_app, name="task")
policy_app = typer.Typer(
    help="Policy proposals of the pipeline: list them; a person accepts or declines them.", no_args_is_help=True
)
pipeline_app.add_typer(policy_app, name="policy")

VaultArg = Annotated[Path, typer.Argument(help="The vault folder.")]
RunArg = Annotated[str, typer.Argument(help="The run id.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON.")]


def _pipeline(vault: Path) -> Pipeline:
    return Pipeline(Vault.open(vault))


def _print_json(data: Any) -> None:
    typer.echo(json.dumps(data, ensure_ascii=False, indent=2, sort_keys=True))


def _print_budget(pipeline: Pipeline, run_id: str) -> None:
    budget = pipeline.detail(run_id)["human_budget"]
    final = budget["final_decision"]
    typer.echo(
        f"  人間への確認: {budget['total_asked']}回（最終公開判断 {final['asked']}/{final['limit']}"
        + "".join(f"、{k} {n}" for k, n in budget["exceptions"].items())
        + "）"
    )
    for asked in budget["asked"]:
        state = "回答済み" if asked["answered"] else "未回答"
        typer.echo(f"    {asked['question_id']} {asked['kind']} ({asked['operation']}, {state}): {asked['why_ja']}")


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
    # at an interactive terminal the person captures (a changed `publishable` is their answer);
    # from a script or an agent's shell the caller is no person
    status = _pipeline(vault).capture_note(note, actor=person_if_at_terminal() or agent("terminal", "kh-cli"))
    if as_json:
        _print_json({"run_id": status.run_id, "state": status.state})
    else:
        _print_status(status)


@pipeline_app.command("authorize")
def authorize(
    vault: VaultArg,
    run_id: RunArg,
    as_json: JsonOpt = False,
) -> None:
    """O-02: the person's run label (asks at an interactive terminal; refused without one)."""
    person = person_at_terminal("kh pipeline authorize")
    pipeline = _pipeline(vault)
    shown = pipeline.authorization_request(run_id)
    typer.echo(
        f"Run {run_id} ({shown['state']})\n"
        f"  依頼 / request: {shown['title']}  [{shown['source']}]\n"
        f"  抜粋 / excerpt: {shown['excerpt']}\n"
        f"  公開可否: {shown['publishability_ja']}\n"
        f"  publishability: {shown['publishability_en']}",
        err=True,
    )
    if not confirm(f"Authorize run {run_id} ({shown['state']}) as {person.name}?"):
        raise PersonRequired("Not authorized: the answer was not yes; nothing was changed.")
    status = pipeline.authorize(run_id, actor=person)
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
    """A run: state, what it waits for, its records, and how often the person was asked and why."""
    pipeline = _pipeline(vault)
    result = pipeline.status(run_id)
    if as_json:
        _print_json(result.model_dump(mode="json"))
    else:
        _print_status(result)
        _print_budget(pipeline, run_id)


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
    as_json: JsonOpt = False,
) -> None:
    """The person's answer to a pipeline question (publishability, screening), typed at the terminal."""
    person = person_at_terminal("kh pipeline answer")
    pipeline = _pipeline(vault)
    question = next((q for q in pipeline.detail(run_id)["questions"] if q["question_id"] == question_id), None)
    if question is None:
        raise NotFound(f"Run {run_id} has no question {question_id}.")
    typer.echo(f"{question['question_ja']}\n{question['question_en']}", err=True)
    choices = question.get("choices") or []
    value = ask(f"Answer ({' / '.join(choices)}): " if choices else "Answer: ")
    result = pipeline.answer(run_id, question_id, value, actor=person)
    if as_json:
        _print_json(result.model_dump(mode="json"))
    else:
        _print_status(result)


@task_app.command("next")
def task_next(
    vault: VaultArg,
    operation: Annotated[str | None, typer.Option(help="Only tasks of this operation, e.g. O-05.")] = None,
    run: Annotated[str | None, typer.Option("--run", help="Only the tasks of this run.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """The oldest open task for an external agent (Claude Code, Codex), of any run or of one run."""
    task = _pipeline(vault).next_task(operation=operation, run_id=run)
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
        # a local process, no token: the record names the CLI as the client that submitted
        result = _pipeline(vault).submit(task_id, output, actor=agent("terminal", "kh-cli"))
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


@pipeline_app.command("decide")
def decide(
    vault: VaultArg,
    run_id: RunArg,
    choice: Annotated[
        str,
        typer.Option(
            "--choice",
            help="The label or the code: 公開を承認する (approve), 今回だけ修正を求める (revise), "
            "公開しない (reject), 今後の方針として検討する (policy).",
        ),
    ],
    instructions: Annotated[
        str | None,
        typer.Option("--instructions", help="Concrete Japanese instructions (revise), a reason or a problem."),
    ] = None,
    blocks: Annotated[str | None, typer.Option("--blocks", help="Target block ids for revise: B1,B2.")] = None,
    commit: Annotated[str | None, typer.Option("--commit", help="The candidate commit you reviewed (approve).")] = None,
    review_sha256: Annotated[
        str | None,
        typer.Option(
            "--review-sha256",
            help="SHA-256 of the Review Packet you reviewed (every decision; kh pipeline review prints it).",
        ),
    ] = None,
    comment_ref: Annotated[
        str | None, typer.Option("--comment-ref", help="A PR comment or review: its id or its URL in the PR.")
    ] = None,
    pr_url: Annotated[
        str | None, typer.Option("--pr-url", help="The pull request you reviewed (default: the prepared one).")
    ] = None,
    options: Annotated[
        list[str] | None,
        typer.Option("--option", help="A policy proposal's option (policy; give it 2 or 3 times)."),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """O-11: the person's publication decision (confirmed at an interactive terminal; refused without one).

    Every decision names the Review Packet's SHA-256 (--review-sha256); an approval also the commit.
    Exit 1, with the reason, when it cannot be accepted as given (a choice no longer offered, a
    missing or mistyped SHA-256, instructions not in Japanese, ...): nothing is recorded and the run
    stays where it was."""
    person = person_at_terminal("kh pipeline decide")
    code = choice_code(choice)
    shown = f"{DECISION_CHOICES[code][0]} ({code})" if code else repr(choice)
    if not confirm(f"Record the decision {shown} on run {run_id} as {person.name}?"):
        raise PersonRequired("No decision recorded: the answer was not yes; nothing was changed.")
    result = _pipeline(vault).decide(
        run_id,
        choice,
        instructions=instructions,
        blocks=[b for b in (blocks or "").split(",") if b.strip()],
        commit=commit,
        review_packet_sha256=review_sha256,
        actor=person,
        comment_ref=comment_ref,
        pr_url=pr_url,
        policy_options=list(options or []) or None,
    )
    if as_json:
        _print_json(result)
    else:
        typer.echo(result["message_ja"])
        rec = result["record"]
        typer.echo(f"  {rec['operation']} {rec['result']} -> {result['status']['state']}. {rec['summary_ja']}")


@pipeline_app.command("review")
def review(
    vault: VaultArg,
    run_id: RunArg,
    as_json: JsonOpt = False,
    html: Annotated[
        bool, typer.Option("--html", help="Print the path of the article's HTML file (open it in a browser).")
    ] = False,
    no_pager: Annotated[bool, typer.Option("--no-pager", help="Print without paging at a terminal.")] = False,
) -> None:
    """The Review Packet of a run (公開候補の確認待ち): the article as a reader sees it, the diff from the
    previous round, uncertainties, warnings, duplicates, checks and the choices, with its SHA-256.
    Paged at an interactive terminal."""
    pipeline = _pipeline(vault)
    result = pipeline.review(run_id)
    if as_json:
        _print_json(result)
        return
    if html:
        typer.echo(str(pipeline.article_html_path(run_id)))
        return
    text = f"{result['review_packet']['markdown']}\nReview Packet SHA-256: {result['review_packet_sha256']}\n"
    if not no_pager and person_if_at_terminal() is not None:
        click.echo_via_pager(text)
    else:
        typer.echo(text, nl=False)


def _read_json_file(path: Path | None, what: str) -> Any:
    if path is None:
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"Cannot read the {what} JSON {path}: {exc}.") from exc


def _git_toplevel(folder: Path) -> Path | None:
    try:
        proc = run_git(folder, "rev-parse", "--show-toplevel", timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    top = proc.stdout.decode("utf-8", "surrogateescape").strip()
    return Path(top).resolve() if proc.returncode == 0 and top else None


@pipeline_app.command("check-draft")
def check_draft_cmd(
    draft: Annotated[Path, typer.Argument(help="The draft .rst file.")],
    manifest: Annotated[Path | None, typer.Option("--manifest", help="draft_manifest.json of the draft.")] = None,
    packet: Annotated[
        Path | None, typer.Option("--packet", help="The evidence packet JSON (allowed URLs, refs).")
    ] = None,
    repo: Annotated[
        Path | None, typer.Option("--repo", help="Repository root for local references (default: git top level).")
    ] = None,
    posts: Annotated[
        Path | None, typer.Option("--posts", help="A folder of existing articles (title duplicates, similarity).")
    ] = None,
    vault: Annotated[
        Path | None,
        typer.Option(
            "--vault", help="Read the blog's rules (directives, roles, draft_language, private words) from this vault."
        ),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """O-09's program checks on a draft; exit 1 when there are errors. Reads only; never fixes."""
    try:
        text = draft.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"Cannot read the draft {draft}: {exc}.") from exc
    draft_dir_abs = draft.resolve().parent
    root = (repo.resolve() if repo else None) or _git_toplevel(draft_dir_abs) or draft_dir_abs
    try:
        draft_dir = draft_dir_abs.relative_to(root).as_posix()
    except ValueError:
        draft_dir = ""
    draft_dir = "" if draft_dir == "." else draft_dir

    def exists(rel: str) -> bool:
        target = (root / rel).resolve()
        return target.is_relative_to(root) and target.exists()

    past: list[PastPost] = []
    if posts is not None:
        if not posts.is_dir():
            # a missing folder would silently skip the title and similarity checks
            raise InputError(f"--posts {posts} is not a folder: give the blog's posts folder, or leave --posts out.")
        for path in sorted(posts.glob("*")):
            if path.suffix in (".rst", ".md") and path.resolve() != draft.resolve() and path.is_file():
                body = path.read_text(encoding="utf-8", errors="replace")
                past.append(PastPost(path.as_posix(), None, path.stem, first_title(body), body, ""))
    report = check_draft(
        text,
        CheckInputs(
            manifest=_read_json_file(manifest, "manifest"),
            packet=_read_json_file(packet, "packet"),
            draft_dir=draft_dir,
            local_exists=exists,
            past_posts=past,
            **blog_rules(load_config(Vault.open(vault).harness_dir) if vault is not None else PipelineConfig()),
        ),
    )
    data = report.as_json()
    if as_json:
        typer.echo(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        for finding in data["errors"]:
            typer.echo(f"{draft}:{finding['line']}: error {finding['code']}: {finding['message']}")
        for finding in data["warnings"]:
            typer.echo(f"{draft}:{finding['line']}: warning {finding['code']}: {finding['message']}")
        typer.echo(f"{len(data['errors'])} error(s), {len(data['warnings'])} warning(s).")
    if data["errors"]:
        raise typer.Exit(1)


ProposalArg = Annotated[str, typer.Argument(help="The proposal id (kh pipeline policy list).")]
NoteOpt = Annotated[str | None, typer.Option("--note", help="Why (stored with the decision).")]


def _print_proposal(proposal: Proposal) -> None:
    decided = f" by {proposal.decided_by} at {proposal.decided_at}" if proposal.decided_by else ""
    typer.echo(f"{proposal.proposal_id}  {proposal.status}{decided}  [{proposal.kind}] {proposal.title_ja}")
    for i, option in enumerate(proposal.options, start=1):
        mark = "*" if proposal.chosen_option == i else " "
        typer.echo(f"  {mark}({i}) {option}")
    if proposal.source_runs:
        typer.echo(f"  runs: {', '.join(proposal.source_runs)}")


@policy_app.command("list")
def policy_list(
    vault: VaultArg,
    show_all: Annotated[bool, typer.Option("--all", help="Also accepted and declined proposals.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Policy proposals waiting for a person (with --all: every proposal and its decision)."""
    proposals = ProposalBook(Vault.open(vault)).list(None if show_all else "open")
    if as_json:
        _print_json({"proposals": [p.model_dump(mode="json") for p in proposals]})
        return
    if not proposals:
        typer.echo("No policy proposal." if show_all else "No open policy proposal.")
    for proposal in proposals:
        _print_proposal(proposal)


def _decide_proposal(vault: Path, proposal_id: str, *, accept: bool, option: int | None, note: str | None) -> Proposal:
    person = person_at_terminal(f"kh pipeline policy {'accept' if accept else 'decline'}")
    book = ProposalBook(Vault.open(vault))
    proposal = book.get(proposal_id)
    typer.echo(proposal.markdown, err=True)
    chosen = (
        f" option ({option}) {proposal.options[option - 1]}" if option and 0 < option <= len(proposal.options) else ""
    )
    verb = "Accept" if accept else "Decline"
    if not confirm(f"{verb} policy proposal {proposal_id}{chosen} as {person.name}?"):
        raise PersonRequired("Nothing recorded: the answer was not yes.")
    now = now_utc_z()
    return book.decide(proposal_id, accept=accept, actor=person, now=now, option=option, note=note)


@policy_app.command("accept")
def policy_accept(
    vault: VaultArg,
    proposal_id: ProposalArg,
    option: Annotated[int | None, typer.Option("--option", help="The option you adopt (1, 2, 3).")] = None,
    note: NoteOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Accept a policy proposal (a person at an interactive terminal). Settings are not changed for you."""
    proposal = _decide_proposal(vault, proposal_id, accept=True, option=option, note=note)
    if as_json:
        _print_json(proposal.model_dump(mode="json"))
    else:
        _print_proposal(proposal)


@policy_app.command("decline")
def policy_decline(vault: VaultArg, proposal_id: ProposalArg, note: NoteOpt = None, as_json: JsonOpt = False) -> None:
    """Decline a policy proposal (a person at an interactive terminal); the current policy stays."""
    proposal = _decide_proposal(vault, proposal_id, accept=False, option=None, note=note)
    if as_json:
        _print_json(proposal.model_dump(mode="json"))
    else:
        _print_proposal(proposal)


def register(app: typer.Typer) -> None:
    app.add_typer(pipeline_app, name="pipeline")
