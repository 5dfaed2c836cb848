"""`kh serve`: the HTTP API and /mcp on loopback."""

from __future__ import annotations

import json
import logging
import os
import threading
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ..settings import (
    AGENT_TOKEN_ENV,
    TOKEN_ENV,
    Settings,
    agent_token_source,
    load_agent_token,
    load_token,
    require_loopback,
    token_from_env,
)

if TYPE_CHECKING:
    import uvicorn

log = logging.getLogger(__name__)


class LogLevel(StrEnum):
    """uvicorn's level names; `trace` is below DEBUG (uvicorn's own detail)."""

    CRITICAL = "critical"
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"
    DEBUG = "debug"
    TRACE = "trace"


_STDLIB_LEVEL = {
    LogLevel.CRITICAL: logging.CRITICAL,
    LogLevel.ERROR: logging.ERROR,
    LogLevel.WARNING: logging.WARNING,
    LogLevel.INFO: logging.INFO,
    LogLevel.DEBUG: logging.DEBUG,
    LogLevel.TRACE: logging.DEBUG,
}


def configure_package_logging(level: LogLevel) -> None:
    """The package's own loggers (knowledge_harness.*) follow `--log-level` too, not only uvicorn's.

    `kh -v serve` and `--log-level` together: the more verbose of the two wins. The HTTP client's
    request lines (httpx) stay at WARNING below debug, as with `kh -vv`."""
    package = logging.getLogger("knowledge_harness")
    wanted = min(_STDLIB_LEVEL[level], package.getEffectiveLevel())
    package.setLevel(wanted)
    if wanted > logging.DEBUG:
        logging.getLogger("httpx").setLevel(max(wanted, logging.WARNING))


# uvicorn, the app and /mcp are imported when `kh serve` runs: every other `kh` command would
# otherwise pay for them at start-up (about half of `kh index build`'s import time)


def _server(config: uvicorn.Config, on_started: Any) -> uvicorn.Server:
    import uvicorn

    class _Server(uvicorn.Server):
        async def startup(self, sockets: Any = None) -> None:
            await super().startup(sockets)
            if self.started:
                on_started(self)

    return _Server(config)


def _watch_stdin(server: uvicorn.Server) -> None:
    # os.read on the raw descriptor: a daemon thread blocked in sys.stdin's buffered reader
    # would abort the interpreter at exit (it holds the buffer's lock).
    try:
        while os.read(0, 4096):
            pass
    except OSError:
        pass
    server.should_exit = True


def _require_free_port(bind: str, port: int) -> None:
    """A taken port fails at once with a line the plugin reads and a sentence for a person, before the
    vault is read (uvicorn would say it only in a log line after the whole start-up)."""
    if port == 0:
        return
    import errno
    import socket

    family = socket.AF_INET6 if ":" in bind else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        if os.name != "nt":  # as uvicorn binds: a port the last run left in TIME_WAIT is free
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((bind, port))
        except OSError as exc:
            if exc.errno not in (errno.EADDRINUSE, errno.EACCES):
                raise
            print(json.dumps({"event": "port_in_use", "host": bind, "port": port}), flush=True)
            typer.echo(
                f"kh: port {port} on {bind} is taken (another kh serve, perhaps for another vault, or another "
                "program): choose another with --port N (0 picks a free one).",
                err=True,
            )
            raise typer.Exit(1) from None


def serve(
    vault_arg: Annotated[
        Path | None, typer.Argument(metavar="VAULT", help="The vault folder (as in every other kh command).")
    ] = None,
    vault_opt: Annotated[Path | None, typer.Option("--vault", help="The vault folder (same as VAULT).")] = None,
    host: Annotated[str, typer.Option(help="Loopback address to bind: 127.0.0.1 or ::1.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port; 0 picks a free one.")] = 8765,
    token_file: Annotated[
        Path | None, typer.Option("--token-file", help="The person token file (created 0600 when missing).")
    ] = None,
    agent_token_file: Annotated[
        Path | None,
        typer.Option(
            "--agent-token-file",
            help="The agent token file (created 0600 when missing); default: the vault's `kh agent-token`.",
        ),
    ] = None,
    exit_on_stdin_close: Annotated[
        bool, typer.Option("--exit-on-stdin-close", help="Exit when standard input closes.")
    ] = False,
    log_level: Annotated[
        LogLevel,
        typer.Option(help="Log level of the server (uvicorn) and of the package's own loggers, on stderr."),
    ] = LogLevel.WARNING,
) -> None:
    """Serve the HTTP API and /mcp for one vault on loopback.

    Two credentials: the person token (KH_TOKEN or --token-file; the plugin makes one per launch)
    opens everything but /mcp; the agent token (KH_AGENT_TOKEN or --agent-token-file) opens /mcp
    and every door but the person's actions (approve, authorize, answer, decide, shutdown)."""
    if vault_arg is not None and vault_opt is not None and vault_arg != vault_opt:
        raise typer.BadParameter(f"two vaults given: {vault_arg} and --vault {vault_opt}", param_hint="VAULT")
    vault = vault_arg or vault_opt
    if vault is None:
        raise typer.BadParameter("give the vault folder: kh serve VAULT (or --vault VAULT)", param_hint="VAULT")
    import uvicorn

    from ..api.app import create_app
    from ..api.connections import KEEP_ALIVE_SECONDS, MAX_HEAD_BYTES, bounded_protocol, default_limits
    from ..api.context import AppContext
    from ..trust.approve.batch import recover_quietly

    configure_package_logging(log_level)
    bind = require_loopback(host)
    _require_free_port(bind, port)
    token = load_token(token_file)
    if token_file is not None and token_from_env(TOKEN_ENV):
        typer.echo(f"kh: {TOKEN_ENV} from the environment overrides --token-file {token_file}.", err=True)
    if agent_token_file is not None and token_from_env(AGENT_TOKEN_ENV):
        typer.echo(f"kh: {AGENT_TOKEN_ENV} from the environment overrides --agent-token-file.", err=True)
    agent_token = load_agent_token(agent_token_file, vault, token)
    settings = Settings(
        vault=vault,
        host=bind,
        port=port,
        token=token,
        agent_token=agent_token,
        agent_token_source=agent_token_source(agent_token_file, vault),
    )
    ctx = AppContext.create(settings)
    recover_quietly(ctx.vault)  # close batch runs a crash left IN_PROGRESS as FAILED (trust/approve/batch.py)
    app = create_app(settings, ctx)

    def on_started(server: uvicorn.Server) -> None:
        actual = server.servers[0].sockets[0].getsockname()[1] if server.servers else port
        app.state.port_ref.port = actual
        line = {"event": "listening", "host": bind, "port": actual, "pid": os.getpid()}
        print(json.dumps(line), flush=True)
        log.info("serving %s on %s:%d", vault, bind, actual)

    # loop/http "auto": uvloop and httptools (uvicorn[standard]) when installed, else asyncio and h11.
    # No proxy in front of a loopback sidecar: X-Forwarded-* are never trusted.
    # The HTTP protocol bounds idle and half-sent connections and request heads (api/connections.py).
    config = uvicorn.Config(
        app,
        host=bind,
        port=port,
        log_level=log_level.value,
        lifespan="on",
        access_log=False,
        loop="auto",
        http=bounded_protocol(default_limits()),
        proxy_headers=False,
        timeout_keep_alive=KEEP_ALIVE_SECONDS,
        h11_max_incomplete_event_size=MAX_HEAD_BYTES,
    )
    server = _server(config, on_started)

    def request_shutdown() -> None:
        server.should_exit = True

    ctx.request_shutdown = request_shutdown
    if exit_on_stdin_close:
        threading.Thread(target=_watch_stdin, args=(server,), daemon=True, name="stdin-watch").start()
    server.run()
    if not server.started:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("serve")(serve)
