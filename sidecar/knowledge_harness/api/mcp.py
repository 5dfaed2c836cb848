"""The MCP door: one MCPServer whose tools call the same services as the REST routes.

Tool modules expose `register(mcp, ctx)`; add one to TOOLSETS to publish more tools. Every
`HarnessError` a tool or resource raises reaches the client with its code, message and detail
(`HarnessMCP`), whichever transport serves it (streamable HTTP in `kh serve`, stdio in `kh mcp`).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable
from typing import Any

from mcp.server.lowlevel.helper_types import ReadResourceContents
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.context import Context
from mcp.server.mcpserver.exceptions import ResourceError, ToolError, UnexpectedToolError
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, Icon, InputRequiredResult, TextContent, ToolAnnotations
from mcp_types import Tool as MCPTool
from mcp_types.jsonrpc import INVALID_PARAMS
from pydantic import ValidationError
from pydantic.networks import AnyUrl

from .. import __version__
from ..errors import HarnessError, InternalError, InvalidRequest
from .context import AppContext
from .mcp_tools import ANNOTATIONS
from .mcp_tools import index as index_tools
from .mcp_tools import judge as judge_tools
from .mcp_tools import notes as note_tools
from .mcp_tools import pipeline as pipeline_tools
from .mcp_tools import trust as trust_tools
from .mcp_tools import validate as validate_tools

log = logging.getLogger(__name__)

INSTRUCTIONS = (
    "Knowledge Harness exposes an Obsidian vault's trust metadata, a reasoning index of its "
    "structure (links, backlinks, recent changes; notes as harness://note/{path}), a harness "
    "pipeline, and judge tasks (judge_next_task: judge a note's claims against its fetched sources, "
    "quoting them word for word). No tool changes a note. The person's steps are never an agent's: approving a batch "
    "(typing its digest), authorizing a run, answering its questions and deciding publication happen "
    'in the Obsidian plugin or `kh` at a terminal. A refusal\'s text is {"error": {code, message, detail}}.'
)

Registrar = Callable[[MCPServer, AppContext], None]


def harness_cause(exc: BaseException) -> HarnessError | None:
    """The HarnessError behind an SDK wrapper (ToolError / ResourceError chains), if any."""
    seen: BaseException | None = exc
    for _ in range(8):
        if seen is None:
            return None
        if isinstance(seen, HarnessError):
            return seen
        seen = seen.__cause__
    return None


def error_text(error: HarnessError) -> str:
    """The same envelope as REST: {"error": {"code", "message", "detail"}}."""
    return json.dumps(error.to_body(), ensure_ascii=False, default=str)


def _untitled(schema: Any, *, names: bool = False) -> Any:
    """A JSON Schema without the generated `title` annotations ("Limit" for `limit`): they validate
    nothing and cost about a sixth of tools/list. `names` marks a properties/$defs map, whose keys
    are names (a property called "title" stays)."""
    if isinstance(schema, dict):
        return {
            key: _untitled(value, names=key in ("properties", "$defs") and not names)
            for key, value in schema.items()
            if names or not (key == "title" and isinstance(value, str))
        }
    if isinstance(schema, list):
        return [_untitled(item) for item in schema]
    return schema


class HarnessMCP(MCPServer[Any]):
    """MCPServer mapping the error tree once, for every tool and resource.

    The SDK reports an exception it did not anticipate as only "Error executing tool X". Here every
    failed call is a tool result with isError true whose text is REST's error envelope: a
    HarnessError with its code, message and detail; arguments off the input schema as
    `invalid_request` with the fields; a crash as `internal_error` naming only the exception's
    type (the traceback stays in the log). A resource read answers a JSON-RPC error carrying the
    same envelope as data.
    """

    def add_tool(
        self,
        fn: Callable[..., Any],
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        annotations: ToolAnnotations | None = None,
        icons: list[Icon] | None = None,
        meta: dict[str, Any] | None = None,
        structured_output: bool | None = None,
    ) -> None:
        """Every tool is published with its annotations (mcp_tools.ANNOTATIONS); none without."""
        tool_name = name or fn.__name__
        annotations = annotations or ANNOTATIONS.get(tool_name)
        if annotations is None:
            raise ValueError(f"MCP tool {tool_name} has no annotations: add it to mcp_tools.ANNOTATIONS.")
        super().add_tool(fn, tool_name, title, description, annotations, icons, meta, structured_output)

    async def list_tools(self) -> list[MCPTool]:
        tools = await super().list_tools()
        for tool in tools:
            tool.input_schema = _untitled(tool.input_schema)
            if tool.output_schema is not None:
                tool.output_schema = _untitled(tool.output_schema)
        return tools

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            error = harness_cause(exc)
            if error is not None:
                log.info("tool %s refused: %s %r", name, error.code, error.message)
            elif isinstance(exc.__cause__, ValidationError):
                # As REST's 422: field locations and messages, never the rejected values.
                detail = [{"loc": list(e["loc"]), "msg": e["msg"]} for e in exc.__cause__.errors()[:20]]
                error = InvalidRequest("The arguments do not match the tool's input schema.", detail=detail)
            elif isinstance(exc, UnexpectedToolError):
                log.error("tool %s failed", name, exc_info=exc.__cause__)
                error = InternalError(f"Unexpected error: {type(exc.__cause__).__name__}.")
            else:
                raise  # an unknown tool name: the SDK's own answer
            return CallToolResult(content=[TextContent(type="text", text=error_text(error))], is_error=True)

    async def read_resource(
        self, uri: AnyUrl | str, context: Context[Any, Any] | None = None
    ) -> Iterable[ReadResourceContents] | InputRequiredResult:
        try:
            return await super().read_resource(uri, context)
        except ResourceError as exc:
            error = harness_cause(exc)
            if error is None:
                raise
            log.info("resource %s refused: %s %r", uri, error.code, error.message)
            raise MCPError(
                code=INVALID_PARAMS, message=f"{error.code}: {error.message}", data=error.to_body()["error"]
            ) from error


def _register_vault_tools(mcp: MCPServer, ctx: AppContext) -> None:
    @mcp.tool(description="The vault's notes: paths, titles, parse errors; paged by cursor.")
    def list_notes(limit: int = 200, cursor: str | None = None) -> dict[str, object]:
        return ctx.catalog.list_page(limit=max(1, min(limit, 5000)), cursor=cursor).model_dump()


TOOLSETS: list[Registrar] = [
    _register_vault_tools,
    trust_tools.register,
    validate_tools.register,
    index_tools.register,
    note_tools.register,
    pipeline_tools.register,
    judge_tools.register,
]


def build_mcp(ctx: AppContext) -> HarnessMCP:
    mcp = HarnessMCP(name="knowledge-harness", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING")
    for register in TOOLSETS:
        register(mcp, ctx)
    return mcp
