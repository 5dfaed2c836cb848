"""Discovery's next-step hint names the vault it ran on, ready to paste into a shell."""

from __future__ import annotations

import shlex
from pathlib import Path

from knowledge_harness.trust.approve.discovery import discover
from knowledge_harness.vault.paths import Vault

from ..conftest import copy_example_vault


def test_the_next_step_names_the_real_vault_path(tmp_path: Path) -> None:
    vault_dir = copy_example_vault(tmp_path / "私の vault")
    report = discover(Vault.open(vault_dir))
    assert f"kh batch plan {shlex.quote(str(vault_dir))} --stage" in report["next_step"]
    assert "VAULT" not in report["next_step"]
