"""Long CLI work shows its progress on stderr (a bar at a terminal, plain lines otherwise), and
`-v` / `-vv` turn on the per-module log lines; stdout stays the command's answer."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import use_machine_config
from tests.support.plain_vault import NOTE, local_site, write_plain_vault
from tests.support.terminal import run_at_terminal

KH = str(Path(sys.executable).with_name("kh"))


@pytest.fixture
def vault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    with local_site(tmp_path / "site") as site:
        use_machine_config(monkeypatch, tmp_path, f'[evidence]\nallow_private_hosts = ["{site}"]\n')
        root = write_plain_vault(tmp_path / "vault", site)
        assert run_at_terminal([KH, "init", str(root), "--write"], [], env=dict(os.environ)).exit_code == 0
        yield root


def _plan(*flags: str, vault: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [KH, *flags, "batch", "plan", str(vault), "--stage", "canary"], capture_output=True, text=True, check=True
    )


def test_without_a_terminal_each_step_is_one_plain_line_on_stderr(vault: Path) -> None:
    done = _plan(vault=vault)
    assert f"Validating 1/1: {NOTE}" in done.stderr
    assert "Validating" not in done.stdout and done.stdout.startswith("Plan plan-")
    assert "knowledge_harness" not in done.stderr  # no log lines without -v


def test_v_shows_what_the_command_does_and_vv_every_detail(vault: Path) -> None:
    info = _plan("-v", vault=vault)
    assert f"kh: knowledge_harness.trust.batch: dry run 1/1: {NOTE}" in info.stderr
    assert "DEBUG" not in info.stderr
    debug = _plan("-vv", vault=vault)
    assert debug.stderr.count("kh: ") > info.stderr.count("kh: ")


def test_at_a_terminal_the_progress_is_a_bar_that_leaves_the_plan_readable(vault: Path) -> None:
    run = run_at_terminal([KH, "batch", "plan", str(vault), "--stage", "canary"], [], env=dict(os.environ))
    assert run.exit_code == 0, run.screen
    assert "Validating 1/1:" not in run.screen  # not the plain lines
    assert "Digest: " in run.screen and NOTE in run.screen


def test_a_large_index_build_reports_its_steps_and_a_one_note_update_says_nothing(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    for n in range(1000):
        folder = vault / f"f{n % 10}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"ノート{n}.md").write_text(f"# N{n}\n\n[[ノート{(n + 1) % 1000}]]\n", encoding="utf-8")
    built = subprocess.run([KH, "index", "build", str(vault)], capture_output=True, text=True, check=True)
    assert built.stderr.splitlines() == [
        "Indexing 1/3: parsing 1,000 notes",
        "Indexing 2/3: resolving links",
        "Indexing 3/3: writing the index",
    ]
    assert built.stdout.startswith("Indexed 1000 notes")
    with (vault / "f0" / "ノート0.md").open("a", encoding="utf-8") as note:
        note.write("one more line\n")
    again = subprocess.run([KH, "index", "build", str(vault)], capture_output=True, text=True, check=True)
    assert again.stderr == "" and "1 parsed" in again.stdout
