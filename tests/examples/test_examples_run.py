"""Every script under examples/ runs: `--help` exits 0 (an example that cannot even start is a trap)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from ..conftest import REPO

SCRIPTS = sorted((REPO / "examples").glob("*.py"))


def test_there_are_example_scripts() -> None:
    assert SCRIPTS


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_example_script_starts_and_prints_its_help(script: object) -> None:
    done = subprocess.run([sys.executable, str(script), "--help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "usage" in done.stdout.lower()
