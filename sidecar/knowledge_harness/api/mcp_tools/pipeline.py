"""MCP tools of the harness pipeline: the external-agent door and run status.

An agent (Claude Code, Codex) loops: harness_next_task → do the work → harness_submit_result.
A refused submission comes back with `accepted: false` and the reasons; fix and submit again.
"""

from __future__ import annotations

import json
from typing import Any

from mcp.server.mcpserver import MCPServer

from ...errors import InputError
from ...pipeline.engine import Pipeline, SubmissionRefused
from ..context import AppContext

AGENT_GUIDE = (
    "Knowledge Harness pipeline tasks. Call harness_next_task to get the oldest open task: it carries the "
    "operation, its inputs, the JSON Schema of the expected output and instructions in Japanese and English. "
    "Do the work from the inputs only, then call harness_submit_result with the task_id and the output object. "
    "The output is validated against the schema and the program rules; a refusal lists the reasons."
)


def register(mcp: MCPServer, ctx: AppContext) -> None:
    def pipeline() -> Pipeline:
        return Pipeline(ctx.vault, ctx.catalog)

    @mcp.tool(
        description=f"{AGENT_GUIDE} Returns {{'task': null}} when nothing waits. Optional filter: operation (e.g. 'O-05')."
    )
    def harness_next_task(operation: str | None = None) -> dict[str, Any]:
        task = pipeline().next_task(operation=operation)
        return {"task": task.model_dump(mode="json") if task else None}

    @mcp.tool(
        description=(
            "Submit the output object for a pipeline task (see harness_next_task). Returns accepted: true with the "
            "operation record and the run status, or accepted: false with the reasons for the refusal."
        )
    )
    def harness_submit_result(task_id: str, output: dict[str, Any] | str) -> dict[str, Any]:
        if isinstance(output, str):
            try:
                output = json.loads(output)
            except json.JSONDecodeError as exc:
                raise InputError(f"The output is not JSON: {exc}.") from exc
        try:
            return pipeline().submit(task_id, output)
        except SubmissionRefused as exc:
            return {
                "accepted": False,
                "error": exc.code,
                "message": exc.message,
                "reasons": (exc.detail or {}).get("reasons", []),
            }

    @mcp.tool(description="Status of a pipeline run: state, waiting_for and every operation record.")
    def harness_run_status(run_id: str) -> dict[str, Any]:
        return pipeline().status(run_id).model_dump(mode="json")

    @mcp.tool(description="List pipeline runs with their states and what they wait for.")
    def harness_list_runs() -> dict[str, Any]:
        return {"runs": [r.model_dump(mode="json") for r in pipeline().list_runs()]}

    @mcp.tool(
        description=(
            "The Review Packet of a pipeline run waiting for the person's publication decision (read-only). "
            "Publication decisions are the person's: they go through REST, `kh pipeline decide` or the plugin, not MCP."
        )
    )
    def harness_review_packet(run_id: str) -> dict[str, Any]:
        return pipeline().review(run_id)

    @mcp.tool(description="Advance an authorized pipeline run until it waits (an agent, a person, a retry) or ends.")
    def harness_advance_run(run_id: str) -> dict[str, Any]:
        return pipeline().advance(run_id).model_dump(mode="json")
