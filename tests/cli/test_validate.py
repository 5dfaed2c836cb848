"""`kh validate`: a note whose cited pages hold more text than one validation may judge is one line on
stderr (exit 2), never a traceback."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from ..conftest import KH
from ..support.evidence_site import EvidenceSite
from ..support.hostile_evidence import BIG, machine_config_env, write_hostile_vault


@pytest.fixture
def hostile_vault(tmp_path: Path) -> Iterator[Path]:
    site = EvidenceSite().start()
    try:
        yield write_hostile_vault(tmp_path / "vault", site)
    finally:
        site.stop()


def test_kh_validate_prints_one_line_and_no_traceback(hostile_vault: Path) -> None:
    result = subprocess.run(
        [str(KH), "validate", str(hostile_vault), BIG, "--dry-run"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, **machine_config_env(hostile_vault)},
    )
    assert result.returncode == 2, result.stdout
    assert "Traceback" not in result.stderr and "ValidationError" not in result.stderr
    [line] = result.stderr.strip().splitlines()
    assert line.startswith("kh: The note's 6 cited pages hold ") and "(evidence_too_large)" in line
