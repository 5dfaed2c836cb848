"""`kh serve --log-level` sets the package's own loggers (knowledge_harness.*) as well as uvicorn's:
the plugin's "Sidecar log level" setting passes it, and the lines land on the sidecar's stderr."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from knowledge_harness.cli.serve import LogLevel, configure_package_logging

from ..conftest import start_sidecar, stop_sidecar


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

    from knowledge_harness.cli import app

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
