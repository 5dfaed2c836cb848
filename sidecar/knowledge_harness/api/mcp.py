"""The MCP door: one MCPServer whose tools call the same services as the REST routes.

Tool modules expose `register(mcp, ctx)`; add one to TOOLSETS to publish more tools.
"""

from __future__ import annotations

from collections.abc import Callable

from mcp.server.mcpserver import MCPServer

from .. import __version__
from .context import AppContext
from .mcp_tools import index as index_tools
from .mcp_tools import pipeline as pipeline_tools
from .mcp_tools import trust as trust_tools
from .mcp_tools import validate as validate_tools

INSTRUCTIONS = (
    "Knowledge Harness exposes an Obsidian vault's trust metadata, a reasoning index of its "
    "structure and a harness pipeline. Read-only tools never change notes; production writes "
    "always need a person to type an approval digest in Obsidian or the CLI."
)

Registrar = Callable[[MCPServer, AppContext], None]


def _register_vault_tools(mcp: MCPServer, ctx: AppContext) -> None:
    @mcp.tool(description="List the vault's notes (paths, titles, parse errors). Paginate with cursor.")
    def list_notes(limit: int = 200, cursor: str | None = None) -> dict[str, object]:
        return ctx.catalog.list_page(limit=max(1, min(limit, 5000)), cursor=cursor).model_dump()


TOOLSETS: list[Registrar] = [
    _register_vault_tools,
    trust_tools.register,
    validate_tools.register,
    index_tools.register,
    pipeline_tools.register,
]


def build_mcp(ctx: AppContext) -> MCPServer:
    mcp: MCPServer = MCPServer(
        name="knowledge-harness", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING"
    )
    for register in TOOLSETS:
        register(mcp, ctx)
    return mcp
