"""`kh mcp VAULT`: the MCP tools over stdio, for desktop clients that launch their servers.

Claude Desktop, `claude mcp add kh -- kh mcp VAULT` and `codex mcp add kh -- kh mcp VAULT` start
this process and speak MCP on its stdin/stdout. It is always agent scope (no MCP tool is one of
the person's actions), needs no token (the client launched it as you; nothing listens on a port),
logs to stderr only, and exits when stdin closes. It may run beside `kh serve` on the same vault:
writes take the vault's lock either way.
"""

from __future__ import annotations

import logging
import secrets
import sys
from pathlib import Path
from typing import Annotated

import anyio
import typer

from ..api.context import AppContext
from ..api.mcp import build_mcp
from ..settings import Settings


def mcp_stdio(
    vault: Annotated[Path, typer.Argument(help="The vault folder.")],
    log_level: Annotated[str, typer.Option(help="Log level (logs go to stderr).")] = "warning",
) -> None:
    """Serve the MCP tools over stdio for one vault (Claude Desktop, Claude Code, Codex).

    Agent scope, no token, logs on stderr, exits when stdin closes. Approving, authorizing,
    answering and deciding stay with you (the plugin or `kh` at a terminal)."""
    logging.basicConfig(
        stream=sys.stderr, level=log_level.upper(), format="kh mcp: %(levelname)s %(message)s", force=True
    )
    # No HTTP here: Settings wants a person token, so it gets a throwaway one that nothing accepts.
    settings = Settings(vault=vault, token=secrets.token_urlsafe(32))
    app_context = AppContext.create(settings)
    app_context.mcp_transport = "stdio"
    server = build_mcp(app_context)
    try:
        anyio.run(server.run_stdio_async)
    finally:
        app_context.runtime.close()


def register(app: typer.Typer) -> None:
    app.command("mcp")(mcp_stdio)
