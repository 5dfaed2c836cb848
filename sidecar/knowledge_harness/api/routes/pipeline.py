"""REST door of the harness pipeline: runs, the run label, advance, answers, agent tasks,
the Review Packet and the person's decision (O-11), O-09's program checks on a draft, and the
policy proposals a person accepts or declines.

Every answer is typed (pipeline/rest_models.py); operation records sent here carry `reasons`
(their reason codes explained in Japanese and English) after the contract's keys."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body, Query, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, Field

from ... import actors
from ...actors import Actor
from ...core.clock import now_utc_z
from ...errors import InputError
from ...pipeline.agents import AgentTask
from ...pipeline.contract import DECISION_CHOICES, RunSummary
from ...pipeline.draft_checks import CheckInputs, check_draft
from ...pipeline.engine import Pipeline
from ...pipeline.proposals import Proposal, ProposalBook, ProposalStatus
from ...pipeline.rest_models import (
    DecisionChoices,
    DecisionView,
    DraftCheckReport,
    ReviewView,
    RunDetail,
    RunStatusView,
    SubmitView,
    detail_view,
    outcome_view,
    status_view,
)
from ..context import AppContext
from ..deps import AnyActor, Ctx, PersonActor

router = APIRouter(prefix="/v1/pipeline", tags=["pipeline"])


def pipeline_for(ctx: AppContext) -> Pipeline:
    return Pipeline(ctx.vault, ctx.catalog)


class CaptureRequest(BaseModel):
    """Either a request note (`note`) or the question itself (`question`, `title`, `publishable`)."""

    note: str | None = Field(default=None, max_length=1024)
    question: str | None = Field(default=None, max_length=20_000)
    title: str = Field(default="", max_length=300)
    publishable: bool | None = None  # the person's answer: refused (403) with the agent token
    via: Literal["api", "plugin"] = "api"


class RunList(BaseModel):
    runs: list[RunSummary]


def _as_seen(person: Actor, via: str) -> Actor:
    """The person as recorded: the plugin's calls are "… via Obsidian". Who acted comes from the token."""
    return actors.person("plugin") if via == "plugin" else person


class AuthorizeBody(BaseModel):
    via: Literal["api", "plugin"] = "api"


class AnswerBody(BaseModel):
    question_id: str = Field(max_length=20)
    # the engine's own limit (an author's free-text answer, after masking): the door refuses no more
    answer: str = Field(
        max_length=4000, description="A choice's code, or a free-text answer of at most 4000 characters."
    )
    via: Literal["api", "plugin"] = "api"


class NextTask(BaseModel):
    task: AgentTask | None


class SubmitBody(BaseModel):
    output: Any


@router.post("/runs", response_model=RunStatusView, status_code=201)
def create_run(ctx: Ctx, caller: AnyActor, body: CaptureRequest) -> RunStatusView:
    """O-01: capture a request note or a question. Capturing never starts processing. Publishability
    is the person's: with the agent token `publishable` is refused (403), and a note whose
    `publishable` changed after capture is refused while the run waits for the person's answer."""
    pipeline = pipeline_for(ctx)
    actor = _as_seen(caller, body.via) if caller.is_person else caller
    if body.note:
        return status_view(pipeline.capture_note(body.note, actor=actor))
    if body.question:
        return status_view(
            pipeline.capture_text(body.question, title=body.title, publishable=body.publishable, actor=actor)
        )
    raise InputError("Give either `note` (a request note) or `question`.")


@router.get("/runs", response_model=RunList)
def list_runs(ctx: Ctx) -> RunList:
    return RunList(runs=pipeline_for(ctx).list_runs())


@router.get("/runs/{run_id}", response_model=RunStatusView)
def get_run(ctx: Ctx, run_id: str) -> RunStatusView:
    return status_view(pipeline_for(ctx).status(run_id))


@router.get("/runs/{run_id}/detail", response_model=RunDetail)
def get_run_detail(ctx: Ctx, run_id: str) -> RunDetail:
    """Status plus questions to the person, tasks, artifacts (SHA-256) and metrics."""
    return detail_view(pipeline_for(ctx).detail(run_id))


@router.get("/runs/{run_id}/artifacts/{name}")
def get_artifact(ctx: Ctx, run_id: str, name: str) -> Any:
    return pipeline_for(ctx).artifact(run_id, name)


class AuthorizationRequest(BaseModel):
    """What the person sees before authorizing a run (the CLI prompt and the plugin's dialog)."""

    run_id: str
    state: str | None
    title: str
    excerpt: str
    source: str
    publishable: bool | None
    publishability: dict[str, Any] | None
    publishability_ja: str
    publishability_en: str


@router.get("/runs/{run_id}/authorization", response_model=AuthorizationRequest)
def get_authorization(ctx: Ctx, run_id: str) -> dict[str, Any]:
    """The request's title, an excerpt, the publishability answer and who gave it."""
    return pipeline_for(ctx).authorization_request(run_id)


@router.post("/runs/{run_id}/authorize", response_model=RunStatusView)
def authorize(
    ctx: Ctx, person: PersonActor, run_id: str, body: Annotated[AuthorizeBody | None, Body()] = None
) -> RunStatusView:
    """O-02: the person's run label (also the plugin's command). Person token only."""
    b = body or AuthorizeBody()
    return status_view(pipeline_for(ctx).authorize(run_id, actor=_as_seen(person, b.via)))


@router.post("/runs/{run_id}/advance", response_model=RunStatusView)
def advance(ctx: Ctx, run_id: str) -> RunStatusView:
    return status_view(pipeline_for(ctx).advance(run_id))


@router.post("/runs/{run_id}/answers", response_model=RunStatusView)
def answer(ctx: Ctx, person: PersonActor, run_id: str, body: AnswerBody) -> RunStatusView:
    """The person's answer to a run's question. Person token only."""
    actor = _as_seen(person, body.via)
    return status_view(pipeline_for(ctx).answer(run_id, body.question_id, body.answer, actor=actor))


@router.get("/tasks/next", response_model=NextTask)
def next_task(
    ctx: Ctx,
    operation: Annotated[str | None, Query(max_length=8)] = None,
    run_id: Annotated[str | None, Query(max_length=80)] = None,
) -> NextTask:
    """The oldest open task, of any run or of `run_id`."""
    return NextTask(task=pipeline_for(ctx).next_task(operation=operation, run_id=run_id))


@router.get("/tasks/{task_id}", response_model=AgentTask)
def get_task(ctx: Ctx, task_id: str) -> AgentTask:
    return pipeline_for(ctx).get_task(task_id)


@router.post("/tasks/{task_id}/submit", response_model=SubmitView)
def submit(ctx: Ctx, caller: AnyActor, request: Request, task_id: str, body: SubmitBody) -> dict[str, Any]:
    """Validate and accept an external agent's output; 422 `submission_refused` with reasons otherwise.
    The record names who submitted: the token kind and the client's declared User-Agent."""
    actor = caller.model_copy(
        update={
            "client": request.headers.get("user-agent", "")[:80] or None,
            "token": "person" if caller.is_person else "agent",
        }
    )
    return outcome_view(pipeline_for(ctx).submit(task_id, body.output, actor=actor))


class DecisionBody(BaseModel):
    """The person's decision. `choice`: approve (公開を承認する), revise (今回だけ修正を求める),
    reject (公開しない), policy (今後の方針として検討する) — the code or the Japanese label. Every decision
    names `review_packet_sha256`; an approval also `commit`. A decision that cannot be accepted as given
    is refused (422 `decision_refused`, the reason in the detail) and the run stays REVIEW_READY."""

    choice: str = Field(max_length=40)
    instructions: str | None = Field(default=None, max_length=8000)
    blocks: list[str] = Field(default_factory=list, max_length=100)
    commit: str | None = Field(default=None, max_length=64)
    review_packet_sha256: str | None = Field(default=None, max_length=64)
    via: Literal["api", "plugin"] = "api"
    comment_ref: str | None = Field(default=None, max_length=500)
    policy_options: list[str] = Field(default_factory=list, max_length=3)
    pr_url: str | None = Field(default=None, max_length=500)


class CheckDraftBody(BaseModel):
    rst: str = Field(max_length=2_000_000)
    manifest: dict[str, Any] | None = None
    packet: dict[str, Any] | None = None


@router.get("/decision-choices", response_model=DecisionChoices)
def decision_choices() -> dict[str, Any]:
    """The four choices shown to the person, with their effects and the message after each."""
    return {
        "choices": [
            {"code": code, "label_ja": label, "effect_ja": effect, "message_ja": message}
            for code, (label, effect, message) in DECISION_CHOICES.items()
        ]
    }


@router.get("/runs/{run_id}/review/article.html", response_class=HTMLResponse)
def get_review_article(ctx: Ctx, run_id: str) -> HTMLResponse:
    """The candidate article rendered to HTML (no scripts, no outside resources), for the person to read."""
    body = pipeline_for(ctx).article_html(run_id)
    return HTMLResponse(body, headers={"Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'"})


@router.get("/runs/{run_id}/review", response_model=ReviewView)
def get_review(ctx: Ctx, run_id: str) -> dict[str, Any]:
    """The Review Packet (公開候補の確認待ち): markdown, SHA-256, candidate commit, choices."""
    return pipeline_for(ctx).review(run_id)


@router.post("/runs/{run_id}/decision", response_model=DecisionView, response_model_exclude_unset=True)
def decide(ctx: Ctx, person: PersonActor, run_id: str, body: DecisionBody) -> dict[str, Any]:
    """O-11: the person's decision; returns the Japanese message, the decision and the run status.

    Every decision needs `review_packet_sha256` (GET …/review); an approval also `commit` and the merge
    fact (merge, squash or rebase, after fetching the configured remote): before the merge it is refused
    with 409 (`MERGE_NOT_FOUND` in the detail). A second, different decision on the same Review Packet
    holds the run (HOLD, both kept) while it has not ended. Person token only; the decider recorded is
    the person the token proves, never a name in the body."""
    answer = pipeline_for(ctx).decide(
        run_id,
        body.choice,
        instructions=body.instructions,
        blocks=body.blocks,
        commit=body.commit,
        review_packet_sha256=body.review_packet_sha256,
        actor=_as_seen(person, body.via),
        comment_ref=body.comment_ref,
        policy_options=body.policy_options or None,
        pr_url=body.pr_url,
    )
    return outcome_view(answer)


class ProposalList(BaseModel):
    proposals: list[Proposal]


class ProposalDecisionBody(BaseModel):
    option: int | None = Field(default=None, ge=1, le=10, description="The option adopted (accept only).")
    note: str | None = Field(default=None, max_length=4000)
    via: Literal["api", "plugin"] = "api"


@router.get("/policy-proposals", response_model=ProposalList)
def list_policy_proposals(ctx: Ctx, status: ProposalStatus | None = None) -> ProposalList:
    """Policy proposals of the pipeline (open, accepted, declined); never adopted automatically."""
    return ProposalList(proposals=ProposalBook(ctx.vault).list(status))


@router.post("/policy-proposals/{proposal_id}/accept", response_model=Proposal)
def accept_policy_proposal(
    ctx: Ctx, person: PersonActor, proposal_id: str, body: Annotated[ProposalDecisionBody | None, Body()] = None
) -> Proposal:
    """The person accepts a proposal (with `option` when it has numbered options). Person token only."""
    b = body or ProposalDecisionBody()
    return ProposalBook(ctx.vault).decide(
        proposal_id, accept=True, actor=_as_seen(person, b.via), now=now_utc_z(), option=b.option, note=b.note
    )


@router.post("/policy-proposals/{proposal_id}/decline", response_model=Proposal)
def decline_policy_proposal(
    ctx: Ctx, person: PersonActor, proposal_id: str, body: Annotated[ProposalDecisionBody | None, Body()] = None
) -> Proposal:
    """The person declines a proposal; the current policy stays. Person token only."""
    b = body or ProposalDecisionBody()
    return ProposalBook(ctx.vault).decide(
        proposal_id, accept=False, actor=_as_seen(person, b.via), now=now_utc_z(), option=b.option, note=b.note
    )


@router.post("/check-draft", response_model=DraftCheckReport)
def post_check_draft(body: CheckDraftBody) -> dict[str, Any]:
    """O-09's program checks on a draft text (no repository: local references are only warned about)."""
    return check_draft(body.rst, CheckInputs(manifest=body.manifest, packet=body.packet)).as_json()
