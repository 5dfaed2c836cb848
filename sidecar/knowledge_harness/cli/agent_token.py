"""`kh agent-token VAULT`: the agent's credential and the lines that connect Claude Code or Codex."""

from __future__ import annotations

import json
import shlex
import shutil
import sys
from pathlib import Path
from typing import Annotated

import typer

from ..errors import InputError
from ..machine_config import agent_connection, agent_token_path, ensure_token_file
from ..settings import AGENT_TOKEN_ENV, TOKEN_ENV, token_from_env


def stdio_connection(vault: Path) -> dict[str, str]:
    """The stdio form (`kh mcp VAULT`, launched by the client): no sidecar, no token.

    Claude Desktop does not see your shell's PATH, so its entry names the full path of `kh`."""
    folder = str(vault.resolve())
    running = Path(sys.argv[0])
    kh = str(running.absolute()) if running.name == "kh" else (shutil.which("kh") or "kh")
    desktop = {"mcpServers": {"kh": {"command": kh, "args": ["mcp", folder]}}}
    quoted = shlex.quote(folder)
    return {
        "claude_command": f"claude mcp add kh -- kh mcp {quoted}",
        "codex_command": f"codex mcp add kh -- kh mcp {quoted}",
        "claude_desktop_config": json.dumps(desktop, ensure_ascii=False, indent=2),
    }


def agent_token(
    vault: Annotated[Path, typer.Argument(help="The vault folder.")],
    port: Annotated[int, typer.Option(help="The port `kh serve` (or the plugin) listens on.")] = 8765,
    as_json: Annotated[bool, typer.Option("--json", help="Print the connection as JSON.")] = False,
) -> None:
    """Create or show the vault's agent token and print the MCP connection lines.

    The token is kept 0600 in your config directory, never in the vault; the lines connect Claude Code,
    Codex and Claude Desktop (HTTP and stdio). The agent token cannot approve, authorize, answer or
    decide: those stay with you."""
    if not vault.is_dir():
        raise InputError(f"{vault} is not a folder.")
    path = agent_token_path(vault)
    token = token_from_env(AGENT_TOKEN_ENV) or ensure_token_file(path)
    if token == token_from_env(TOKEN_ENV):
        raise InputError("The agent token must differ from the person token (KH_TOKEN).")
    connection = agent_connection(
        token, f"http://127.0.0.1:{port}/mcp", None if token_from_env(AGENT_TOKEN_ENV) else path
    )
    stdio = stdio_connection(vault)
    if as_json:
        typer.echo(json.dumps(connection.model_dump() | {"stdio": stdio}, ensure_ascii=False, indent=2))
        return
    typer.echo(
        f"Agent token for {vault.resolve()}"
        + (f" (in {path})" if connection.token_file else f" (from {AGENT_TOKEN_ENV})")
    )
    typer.echo("\nClaude Code:\n  " + connection.claude_command)
    typer.echo("\nCodex:\n  " + connection.codex_command.replace("\n", "\n  "))
    typer.echo("\nor in ~/.codex/config.toml (with KH_AGENT_TOKEN exported):\n" + connection.codex_config)
    typer.echo("\nOr over stdio, launched by the client itself (no sidecar, no token needed):")
    typer.echo("  " + stdio["claude_command"])
    typer.echo("  " + stdio["codex_command"])
    typer.echo("Claude Desktop (claude_desktop_config.json):\n" + stdio["claude_desktop_config"])
    typer.echo("\nThe agent can read, validate, plan and do pipeline tasks; approving, authorizing,")
    typer.echo("answering and deciding stay with you (the plugin or `kh` at a terminal).")
    typer.echo("It can also be your judge: `kh validate VAULT NOTE --dry-run --judge agent` (or [judge] backend =")
    typer.echo('"agent" in the policy) posts the claims as a judge task; ask the agent to take it (judge_next_task).')


def register(app: typer.Typer) -> None:
    app.command("agent-token")(agent_token)
