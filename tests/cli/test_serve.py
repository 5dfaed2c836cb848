"""`kh serve`: loopback only, the token from KH_TOKEN or a private --token-file, the ways it stops
(SIGTERM, stdin closing), and `--log-level`, which sets the package's own loggers (knowledge_harness.*)
as well as uvicorn's: the plugin's "Sidecar log level" setting passes it, and the lines land on the
sidecar's stderr."""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from knowledge_harness.cli.serve import LogLevel, configure_package_logging

from ..conftest import KH, start_sidecar, stop_sidecar


def _stderr_of_a_served_vault(vault: Path, *extra: str) -> str:
    running = start_sidecar(vault, "t" * 32, *extra)
    try:
        with running.client() as client:
            assert client.get("/health").status_code == 200
    finally:
        stop_sidecar(running)
    assert running.process.stderr is not None
    return running.process.stderr.read().decode("utf-8", "replace")


def test_info_shows_the_package_lines_and_the_default_does_not(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    info = _stderr_of_a_served_vault(vault, "--log-level", "info")
    assert "kh: knowledge_harness.cli.serve: serving" in info
    assert "Uvicorn running on" in info  # uvicorn's own INFO lines follow the same option
    quiet = _stderr_of_a_served_vault(vault)
    assert "knowledge_harness" not in quiet and "Uvicorn running on" not in quiet


def test_an_unknown_level_is_a_usage_error(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from knowledge_harness.cli.root import app

    result = CliRunner().invoke(app, ["serve", "--vault", str(tmp_path), "--log-level", "loud"])
    assert result.exit_code == 2


@pytest.fixture
def package_logger() -> Iterator[logging.Logger]:
    logger = logging.getLogger("knowledge_harness")
    saved = logger.level, logging.getLogger("httpx").level
    try:
        yield logger
    finally:
        logger.setLevel(saved[0])
        logging.getLogger("httpx").setLevel(saved[1])


@pytest.mark.parametrize(
    ("level", "enabled", "disabled"),
    [
        (LogLevel.DEBUG, logging.DEBUG, None),
        (LogLevel.TRACE, logging.DEBUG, None),
        (LogLevel.INFO, logging.INFO, logging.DEBUG),
        (LogLevel.ERROR, logging.ERROR, logging.WARNING),
    ],
)
def test_every_module_logger_follows_the_level(
    package_logger: logging.Logger, level: LogLevel, enabled: int, disabled: int | None
) -> None:
    package_logger.setLevel(logging.NOTSET)
    root = logging.getLogger()
    saved_root = root.level
    root.setLevel(logging.CRITICAL)  # nothing from -v: the option alone decides
    try:
        configure_package_logging(level)
        module = logging.getLogger("knowledge_harness.trust.batch")
        assert module.isEnabledFor(enabled)
        if disabled is not None:
            assert not module.isEnabledFor(disabled)
    finally:
        root.setLevel(saved_root)


def test_v_and_the_option_together_keep_the_more_verbose(package_logger: logging.Logger) -> None:
    package_logger.setLevel(logging.DEBUG)  # as `kh -vv serve` leaves it
    configure_package_logging(LogLevel.WARNING)
    assert logging.getLogger("knowledge_harness.api.mcp").isEnabledFor(logging.DEBUG)


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.10", "example.com"])
def test_non_loopback_bind_is_refused_before_listening(small_vault: Path, host: str) -> None:
    env = {**os.environ, "KH_TOKEN": "test-token-0123456789abcdef"}
    result = subprocess.run(
        [str(KH), "serve", "--vault", str(small_vault), "--host", host, "--port", "0"],
        capture_output=True,
        env=env,
        timeout=30,
    )
    assert result.returncode == 2
    assert b"listening" not in result.stdout
    assert b"only loopback" in result.stderr or b"only 127.0.0.1" in result.stderr


def test_a_taken_port_is_named_at_once_for_the_plugin_and_the_person(small_vault: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {**os.environ, "KH_TOKEN": "test-token-0123456789abcdef"}
        result = subprocess.run(
            [str(KH), "serve", "--vault", str(small_vault), "--port", str(port)],
            capture_output=True,
            env=env,
            timeout=30,
        )
    assert result.returncode == 1
    assert json.loads(result.stdout) == {"event": "port_in_use", "host": "127.0.0.1", "port": port}
    assert f"port {port} on 127.0.0.1 is taken".encode() in result.stderr and b"--port" in result.stderr


def test_missing_token_is_a_usage_error(small_vault: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "KH_TOKEN"}
    result = subprocess.run(
        [str(KH), "serve", "--vault", str(small_vault), "--port", "0"], capture_output=True, env=env, timeout=30
    )
    assert result.returncode == 2
    assert b"KH_TOKEN" in result.stderr


def test_token_file_is_created_private_and_used(small_vault: Path, tmp_path: Path) -> None:
    token_file = tmp_path / "secrets" / "token"
    env = {k: v for k, v in os.environ.items() if k != "KH_TOKEN"}
    proc = subprocess.Popen(
        [str(KH), "serve", "--vault", str(small_vault), "--port", "0", "--token-file", str(token_file)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    try:
        assert proc.stdout is not None
        event = json.loads(proc.stdout.readline())
        assert token_file.stat().st_mode & 0o777 == 0o600
        token = token_file.read_text().strip()
        assert len(token) >= 32
        url = f"http://127.0.0.1:{event['port']}/v1/notes"
        assert httpx.get(url, headers={"Authorization": f"Bearer {token}"}).status_code == 200
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_a_token_file_readable_by_others_is_refused(small_vault: Path, tmp_path: Path) -> None:
    token_file = tmp_path / "token"
    token_file.write_text("a-long-enough-token-value-123456\n")
    token_file.chmod(0o644)
    env = {k: v for k, v in os.environ.items() if k != "KH_TOKEN"}
    result = subprocess.run(
        [str(KH), "serve", "--vault", str(small_vault), "--port", "0", "--token-file", str(token_file)],
        capture_output=True,
        env=env,
        timeout=30,
    )
    assert result.returncode == 2
    assert b"chmod 600" in result.stderr


def test_sigterm_stops_the_server_gracefully(small_vault: Path) -> None:
    running = start_sidecar(small_vault)
    running.process.send_signal(signal.SIGTERM)
    # uvicorn shuts down gracefully, then re-raises SIGTERM so the exit status says why.
    assert running.process.wait(timeout=15) in (0, -signal.SIGTERM)
    assert running.process.stderr is not None
    assert b"Traceback" not in running.process.stderr.read()


def test_closing_stdin_stops_the_server(small_vault: Path) -> None:
    running = start_sidecar(small_vault)
    assert running.process.stdin is not None
    running.process.stdin.close()
    assert running.process.wait(timeout=15) == 0


def test_the_vault_is_given_as_an_argument_as_in_every_other_command(small_vault: Path) -> None:
    env = {**os.environ, "KH_TOKEN": "p" * 40, "KH_AGENT_TOKEN": "a" * 40}
    proc = subprocess.Popen(
        [str(KH), "serve", str(small_vault), "--port", "0", "--exit-on-stdin-close"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    try:
        assert proc.stdout is not None
        event = json.loads(proc.stdout.readline())
        assert event["event"] == "listening"
        base = f"http://127.0.0.1:{event['port']}"
        assert httpx.get(f"{base}/health", timeout=10).status_code == 200
        # the vault served is the one named: its notes are listed
        notes = httpx.get(f"{base}/v1/notes", headers={"Authorization": f"Bearer {'p' * 40}"}, timeout=10)
        assert notes.status_code == 200, notes.text
        assert sorted(n["path"] for n in notes.json()["notes"]) == ["a.md", "フォルダ/日本語.md"]
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait(timeout=15)
    neither = subprocess.run([str(KH), "serve"], capture_output=True, text=True, env=env, timeout=30)
    assert neither.returncode == 2 and "kh serve VAULT" in neither.stderr
    both = subprocess.run(
        [str(KH), "serve", str(small_vault), "--vault", str(small_vault / "other")],
        capture_output=True,
        text=True,
        env=env,
        timeout=30,
    )
    assert both.returncode == 2 and "two vaults" in both.stderr
