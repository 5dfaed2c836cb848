"""MCP tools of the agent judge: a connected agent takes judge tasks and answers them.

A validation with the `agent` judge (`kh validate V NOTE --judge agent`, `kh batch plan --judge
agent`) posts a task and waits; the agent loops judge_next_task → judge_evidence (as many pages
as it needs) → judge_submit. Judging writes nothing but the task's file: the program checks every
quote, and the person approves any change.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.context import Context

from ...errors import InputError, SubmissionRefused
from ...trust.validate import judge_queue
from ..context import AppContext
from .pipeline import mcp_actor, refusal

SESSION_HEADER = "mcp-session-id"


def mcp_session(context: Context[Any, Any] | None) -> str | None:
    """The HTTP MCP session a tool call came in (the SDK answered 404 to an unknown one); None over stdio."""
    try:
        headers = context.headers if context is not None else None
    except (AttributeError, LookupError, ValueError):
        return None
    return headers.get(SESSION_HEADER) if headers else None


def register(mcp: MCPServer, ctx: AppContext) -> None:
    @mcp.tool(
        description=(
            "Take the oldest judge task (null when none; wait_seconds ≤ 60): claims with ids, sources with page "
            "counts, instructions (en, ja), answer_schema. Then judge_evidence, judge_submit."
        )
    )
    async def judge_next_task(wait_seconds: float = 0.0, context: Context | None = None) -> dict[str, Any]:
        actor, session = mcp_actor(context, ctx), mcp_session(context)
        return await anyio.to_thread.run_sync(
            lambda: judge_queue.next_task(ctx.vault, actor, wait_seconds=wait_seconds, session=session)
        )

    @mcp.tool(description=("A page of a judge task's source text, with its offsets. Quote only from it."))
    def judge_evidence(task_id: str, source_id: str, page: int = 1, context: Context | None = None) -> dict[str, Any]:
        actor, session = mcp_actor(context, ctx), mcp_session(context)
        return judge_queue.evidence_page(ctx.vault, actor, task_id, source_id, page, session=session)

    @mcp.tool(description=("Answer a judge task (answer_schema); accepted: false lists what to fix."))
    def judge_submit(task_id: str, answer: dict[str, Any] | str, context: Context | None = None) -> dict[str, Any]:
        if isinstance(answer, str):
            try:
                answer = json.loads(answer)
            except json.JSONDecodeError as exc:
                raise InputError(f"The answer is not JSON: {exc}.") from exc
            if not isinstance(answer, dict):
                raise InputError("The answer must be a JSON object.")
        try:
            actor, session = mcp_actor(context, ctx), mcp_session(context)
            return judge_queue.submit(ctx.vault, actor, task_id, answer, session=session)
        except SubmissionRefused as exc:
            return refusal(exc)
