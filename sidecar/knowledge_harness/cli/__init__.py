"""The `kh` command line: a thin door onto the same services as REST and MCP.

Command groups live in sibling modules exposing `register(app)`; add one to GROUPS.
Exit codes: 0 ok, 1 the check failed or was refused, 2 usage or input error.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import typer

from ..errors import HarnessError
from . import agent_token, audit, batch, index, init, mcp_stdio, pipeline, runs, serve, validate

app = typer.Typer(
    name="kh",
    help="Knowledge Harness: trust, reasoning index and harness pipeline for Obsidian vaults.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

GROUPS: list[Callable[[typer.Typer], None]] = [
    init.register,
    serve.register,
    audit.register,
    validate.register,
    index.register,
    pipeline.register,
    batch.register,
    runs.register,
    agent_token.register,
    mcp_stdio.register,
]
for _register in GROUPS:
    _register(app)


@app.callback()
def _root() -> None:
    """Knowledge Harness: trust, reasoning index and harness pipeline for Obsidian vaults."""


def main() -> None:
    try:
        app()  # click handles its own usage errors (exit 2)
    except HarnessError as exc:
        print(f"kh: {exc.message}", file=sys.stderr)
        sys.exit(exc.exit_code)
    except OSError as exc:  # the file system refused (read-only vault, permissions, disk full)
        where = f" ({exc.filename})" if exc.filename else ""
        print(f"kh: {exc.strerror or type(exc).__name__}{where}.", file=sys.stderr)
        sys.exit(1)
