"""The root group of `kh`: lists COMMANDS and imports a command's module only when it runs.

Command groups live in sibling modules exposing `register(app)`; add a line to COMMANDS.
`kh --help` imports none of them: the sidecar's web stack, the MCP SDK and the validator cost
seconds to import.
"""

from __future__ import annotations

import importlib
import sys
from typing import Annotated, Any

import typer
import typer.main
from typer.core import TyperGroup


def configure_logging(verbose: int) -> None:
    """Log lines go to stderr: warnings always, INFO with -v, DEBUG with -vv (per-module loggers).
    The plain `kh index build` never calls it: no module it loads logs, and importing logging
    costs that process ~12 ms."""
    import logging

    level = logging.WARNING if verbose <= 0 else logging.INFO if verbose == 1 else logging.DEBUG
    logging.basicConfig(level=level, format="kh: %(name)s: %(message)s", stream=sys.stderr, force=True)
    if verbose < 2:  # the HTTP client's request lines are detail
        logging.getLogger("httpx").setLevel(max(level, logging.WARNING))


# name -> (module of cli/ that registers it, the one-line help `kh --help` shows).
# tests/cli/test_root.py checks both against the loaded commands.
COMMANDS: dict[str, tuple[str, str]] = {
    "init": (
        "init",
        "Why the audit counts what it counts on this vault, and a [keywords] rule that would count the notes with sources.",
    ),
    "serve": ("serve", "Serve the HTTP API and /mcp for one vault on loopback."),
    "audit": ("audit", "Read-only trust audit: Fresh L2 coverage, stale notes, windows, disputes, metadata errors."),
    "validate": (
        "validate",
        "Collect evidence for one note, run the judge, and show findings and the proposed blocks.",
    ),
    "discover": (
        "runs",
        "Read-only discovery for cron: candidates by window and counts; writes only .harness/discovery.json.",
    ),
    "agent-token": ("agent_token", "Create or show the vault's agent token and print the MCP connection lines."),
    "mcp": ("mcp_stdio", "Serve the MCP tools over stdio for one vault (Claude Desktop, Claude Code, Codex)."),
    "index": ("index", "The reasoning index: build, check, tree, search, headings, read."),
    "pipeline": ("pipeline", "The harness pipeline: capture, authorize, advance, status, tasks."),
    "batch": ("batch", "Batch plans and the typed approval gate."),
    "runs": ("runs", "Records of batch runs (approvals)."),
    "trust": ("trust", "Records behind trust levels: adopt the blocks a person vouches for (at a terminal)."),
    "prov": ("runs", "W3C PROV of batch runs."),
}


class LazyCommands(TyperGroup):
    """The root group: lists COMMANDS without importing them; loads one module on first use."""

    def list_commands(self, ctx: Any) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            self.commands.update(load_commands(COMMANDS[cmd_name][0]))
        return self.commands.get(cmd_name)

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        with formatter.section("Commands"):
            formatter.write_dl([(name, short_help) for name, (_, short_help) in COMMANDS.items()])


def load_commands(module_name: str) -> dict[str, Any]:
    """The click commands that one cli/ module registers, by name."""
    module = importlib.import_module(f"{__package__}.{module_name}")
    holder = typer.Typer()
    module.register(holder)
    return dict(typer.main.get_group(holder).commands)


app = typer.Typer(
    name="kh",
    cls=LazyCommands,
    help="Knowledge Harness: trust, reasoning index and harness pipeline for Obsidian vaults.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _print_version(value: bool) -> None:
    if value:
        from .. import API_LEVEL, __version__

        typer.echo(f"kh {__version__} (API level {API_LEVEL})")
        raise typer.Exit()


@app.callback()
def _root(
    verbose: Annotated[
        int, typer.Option("--verbose", "-v", count=True, help="-v: what the command does; -vv: and every detail.")
    ] = 0,
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="Print the version and API level, then exit."
        ),
    ] = False,
) -> None:
    """Knowledge Harness: trust, reasoning index and harness pipeline for Obsidian vaults."""
    configure_logging(verbose)
