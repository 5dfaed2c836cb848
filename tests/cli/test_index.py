"""`kh index headings` pages like REST. (The other `kh index` door tests are still in tests/index/:
test_build.py, test_doors.py and test_build_memory.py.)"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from ..conftest import KH
from ..support.paged_headings import BIG, SECTIONS, write_paged_vault


@pytest.fixture
def paged_vault(tmp_path: Path) -> Path:
    return write_paged_vault(tmp_path / "vault")


def test_cli_pages_like_rest(paged_vault: Path) -> None:
    result = subprocess.run(
        [str(KH), "index", "headings", str(paged_vault), BIG, "--offset", "11999", "--limit", "10"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert [h["title"] for h in data["headings"]] == [f"Sub {SECTIONS - 1}.b"] and data["next_offset"] is None
