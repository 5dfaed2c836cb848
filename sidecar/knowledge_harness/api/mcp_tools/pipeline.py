"""MCP tools of the harness pipeline: the external-agent door and run status.

An agent (Claude Code, Codex) loops: harness_next_task → do the work → harness_submit_result.
A refused submission comes back with `accepted: false` and the reasons; fix and submit again.
"""

from __future__ import annotations

import json
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.context import Context

from ... import actors
from ...actors import Actor, Via
from ...errors import InputError, SubmissionRefused
from ...pipeline.engine import Pipeline
from ..context import AppContext

PERSON_STEPS = (
    "Capturing a request is open to agents (`kh pipeline capture`, POST /v1/pipeline/runs); authorizing a run, "
    "answering its questions and deciding publication are the person's (plugin or `kh pipeline` at a terminal)."
)


def refusal(exc: SubmissionRefused) -> dict[str, Any]:
    """A refused submission as an MCP tool answers it: `accepted: false` and what to fix."""
    return {
        "accepted": False,
        "error": exc.code,
        "message": exc.message,
        "reasons": (exc.detail or {}).get("reasons", []),
    }


def mcp_actor(context: Context[Any, Any] | None, app: AppContext) -> Actor:
    """Who really acts over MCP: the client's declared name and version from the initialize handshake,
    and the credential (the agent token over HTTP; none for `kh mcp` launched over stdio)."""
    name = version = None
    try:
        params = context.session.client_params if context is not None else None
    except (AttributeError, LookupError, ValueError):
        params = None
    if params is not None:
        name, version = params.client_info.name, params.client_info.version
    via: Via = "mcp-stdio" if app.mcp_transport == "stdio" else "mcp-http"
    return actors.agent(via, name, client_version=version)


def register(mcp: MCPServer, ctx: AppContext) -> None:
    def pipeline() -> Pipeline:
        return Pipeline(ctx.vault, ctx.catalog)

    @mcp.tool(
        description=(
            "The oldest open pipeline task ({'task': null} when none; filters: run_id for one run's next task — "
            "pass it when you work on one run, else any run's task comes back, with a note saying so — "
            "operation, e.g. 'O-05'): its inputs, output JSON Schema and instructions. Work from the inputs only, "
            "then call harness_submit_result."
        )
    )
    def harness_next_task(operation: str | None = None, run_id: str | None = None) -> dict[str, Any]:
        task = pipeline().next_task(operation=operation, run_id=run_id)
        answer: dict[str, Any] = {"task": task.model_dump(mode="json") if task else None}
        if task is not None and run_id is None:
            # without run_id any run's oldest task comes back: say so, so an agent asked to work on one
            # run does not silently take another's
            answer["note"] = (
                f"No run_id was given: this is the oldest open task of any run (run {task.run_id}). "
                "Pass run_id to take only the tasks of the run you were asked to work on."
            )
        return answer

    @mcp.tool(
        description=(
            "Submit a task's output object: accepted: true with the record and run status, or accepted: false "
            "with the reasons to fix before submitting again."
        )
    )
    def harness_submit_result(
        task_id: str,
        output: dict[str, Any] | str,
        # the bare class: the SDK injects the request context by a Context annotation, not a subscripted one
        context: Context | None = None,
    ) -> dict[str, Any]:
        if isinstance(output, str):
            try:
                output = json.loads(output)
            except json.JSONDecodeError as exc:
                raise InputError(f"The output is not JSON: {exc}.") from exc
        try:
            return pipeline().submit(task_id, output, actor=mcp_actor(context, ctx))
        except SubmissionRefused as exc:
            return refusal(exc)

    @mcp.tool(description="A pipeline run's state, what it waits for, and its operation records.")
    def harness_run_status(run_id: str) -> dict[str, Any]:
        return pipeline().status(run_id).model_dump(mode="json")

    @mcp.tool(description="Pipeline runs with their states and what they wait for.")
    def harness_list_runs() -> dict[str, Any]:
        return {"runs": [r.model_dump(mode="json") for r in pipeline().list_runs()]}

    @mcp.tool(
        description=(
            "The Review Packet of a run waiting for the publication decision. Deciding is the person's "
            "(plugin or `kh pipeline decide` at a terminal), never an agent's."
        )
    )
    def harness_review_packet(run_id: str) -> dict[str, Any]:
        return pipeline().review(run_id)

    @mcp.tool(
        description=f"Run an authorized run until it waits (an agent task, a person, a retry) or ends. {PERSON_STEPS}"
    )
    def harness_advance_run(run_id: str) -> dict[str, Any]:
        return pipeline().advance(run_id).model_dump(mode="json")
