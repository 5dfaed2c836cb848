"""docs/tutorial.md, walked as a reader would: every `sh` block runs, in order, on a vault of plain
notes that cite a page of a local evidence site, and the note ends at L2, approved at a terminal.

The reader's two substitutions are made the way a reader makes them: `<plan-id>` is copied from
the plan the previous block printed, and the digest is typed at the approval prompt."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from knowledge_harness.vault.frontmatter import find_frontmatter
from knowledge_harness.vault.yamlsafe import load_mapping
from tests.conftest import use_machine_config
from tests.support.plain_vault import NOTE, local_site, write_plain_vault
from tests.support.terminal import run_at_terminal

REPO = Path(__file__).resolve().parents[2]
TUTORIAL = REPO / "docs" / "tutorial.md"
BLOCK = re.compile(r"^```sh\n(.*?)^```", re.S | re.M)


@pytest.fixture
def site(tmp_path: Path) -> Iterator[str]:
    with local_site(tmp_path / "site") as host:
        yield host


@pytest.fixture
def own_vault(tmp_path: Path, site: str) -> Path:
    return write_plain_vault(tmp_path / "MyVault", site)


def test_the_tutorial_takes_a_plain_vault_to_its_first_l2_note(
    own_vault: Path, site: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_machine_config(monkeypatch, tmp_path, f'[evidence]\nallow_private_hosts = ["{site}"]\n')
    blocks = BLOCK.findall(TUTORIAL.read_text(encoding="utf-8"))
    assert len(blocks) >= 8
    body_before = (own_vault / NOTE).read_bytes()
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "VAULT": str(own_vault),
        "NOTE": NOTE,
    }
    env.pop("KH_TOKEN", None)
    outputs: list[str] = []
    for block in blocks:
        if "<plan-id>" in block:
            plan = re.search(r"^Plan (plan-\S+)", outputs[-1], re.M)
            digest = re.search(r"^Digest: ([0-9a-f]{12})$", outputs[-1], re.M)
            assert plan and digest, outputs[-1]
            script = block.replace("<plan-id>", plan.group(1))
            run = run_at_terminal(
                ["/bin/bash", "-c", f"cd {REPO} && {script}"], [f"APPROVE_PRODUCTION {digest.group(1)}"], env=env
            )
            assert run.exit_code == 0, run.screen
            assert run.record["run_status"] == "SUCCEEDED" and run.record["result"] == "APPLIED"
            outputs.append(run.screen)
            continue
        if "--write" in block:  # kh init --write: the person's action, at a terminal
            typed = run_at_terminal(["/bin/bash", "-euo", "pipefail", "-c", f"cd {REPO} && {block}"], [], env=env)
            assert typed.exit_code == 0, (block, typed.screen)
            outputs.append(typed.screen)
            continue
        done = subprocess.run(
            ["/bin/bash", "-euo", "pipefail", "-c", block],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, (block, done.stdout, done.stderr)
        outputs.append(done.stdout + done.stderr)

    by_command = dict(zip(blocks, outputs, strict=True))
    init_then_audit = next(out for block, out in by_command.items() if "--write" in block)
    assert "Evidence-capable: 1" in init_then_audit
    assert "Fresh L2: 0" in init_then_audit
    final_audit = next(out for block, out in by_command.items() if block.strip() == 'kh audit "$VAULT"')
    assert "Fresh L2: 1" in final_audit
    assert "Next batch (due in 0-7 days): 1" in outputs[-1]  # 85 days on, the note is due within the week

    raw = (own_vault / NOTE).read_bytes()
    span = find_frontmatter(raw)
    assert span is not None
    verification = load_mapping(raw[span.yaml_start : span.yaml_end].decode("utf-8"))["verification"]
    assert verification["level"] == 2 and verification["status"] == "verified"
    assert raw.endswith(body_before)  # the note's own text is untouched; only the frontmatter is new
