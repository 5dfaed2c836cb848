"""The CI regeneration script against a real local bare remote."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "regenerate-index.sh"
KH = Path(sys.executable).with_name("kh")
ENV = {
    **os.environ,
    "KH": str(KH),
    "PYTHON": sys.executable,
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.org",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.org",
}


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, env=ENV, check=True, capture_output=True, text=True).stdout.strip()


def run_script(cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(SCRIPT), "."], cwd=cwd, env=ENV, capture_output=True, text=True, timeout=120)


def _setup(tmp_path: Path) -> tuple[Path, Path, Path]:
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "--quiet", "--bare", "-b", "main", str(remote))
    a = tmp_path / "a"
    git(tmp_path, "clone", "--quiet", str(remote), str(a))
    git(a, "checkout", "--quiet", "-b", "main")
    (a / "ノート.md").write_text("# 見出し\n\n[[Other]]\n", encoding="utf-8")
    (a / "Other.md").write_text("# Other\n", encoding="utf-8")
    git(a, "add", "-A")
    git(a, "commit", "--quiet", "-m", "notes")
    git(a, "push", "--quiet", "origin", "main")
    b = tmp_path / "b"
    git(tmp_path, "clone", "--quiet", str(remote), str(b))
    return remote, a, b


def test_a_run_commits_and_pushes_the_index_only_when_it_changed(tmp_path: Path) -> None:
    remote, a, _ = _setup(tmp_path)
    first = run_script(a)
    assert first.returncode == 0, first.stderr + first.stdout
    assert "pushed" in first.stdout
    files = git(remote, "ls-tree", "-r", "--name-only", "main")
    assert ".harness/index/manifest.json" in files and ".harness/index/build.json" not in files
    head = git(remote, "rev-parse", "main")
    second = run_script(a)
    assert second.returncode == 0 and "did not change" in second.stdout
    assert git(remote, "rev-parse", "main") == head


def test_a_run_whose_checkout_is_behind_the_remote_does_not_push(tmp_path: Path) -> None:
    remote, a, b = _setup(tmp_path)
    (b / "Newer.md").write_text("# Newer\n", encoding="utf-8")
    git(b, "add", "-A")
    git(b, "commit", "--quiet", "-m", "newer")
    git(b, "push", "--quiet", "origin", "main")
    newer = git(remote, "rev-parse", "main")
    result = run_script(a)  # a still has the older checkout
    assert result.returncode == 0, result.stderr
    assert "not pushing" in result.stdout
    assert git(remote, "rev-parse", "main") == newer
    assert ".harness/index/manifest.json" not in git(remote, "ls-tree", "-r", "--name-only", "main")


def test_two_quick_pushes_never_strand_the_index(tmp_path: Path) -> None:
    """A Markdown push, then at once a push of another file: the first run is behind and does not
    push; the second push has its own run (the workflow has no path filter), which regenerates."""
    remote, a, b = _setup(tmp_path)
    run_for_markdown_push = a  # checked out at the Markdown push
    (b / "picture.png").write_bytes(b"\x89PNG\r\n")
    git(b, "add", "-A")
    git(b, "commit", "--quiet", "-m", "an image, right after")
    git(b, "push", "--quiet", "origin", "main")
    first = run_script(run_for_markdown_push)
    assert first.returncode == 0 and "not pushing" in first.stdout
    second = run_script(b)  # the run of the second push
    assert second.returncode == 0 and "pushed" in second.stdout, second.stdout + second.stderr
    c = tmp_path / "c"
    git(tmp_path, "clone", "--quiet", str(remote), str(c))
    check = subprocess.run([str(KH), "index", "check", str(c)], capture_output=True, text=True, timeout=60)
    assert check.returncode == 0, check.stdout + check.stderr


def test_the_workflow_runs_on_every_push_and_always_checks_the_index() -> None:
    workflow = (REPO / "docs" / "ci" / "reasoning-index.yml").read_text(encoding="utf-8")
    push = workflow.split("push:", 1)[1].split("workflow_dispatch", 1)[0]
    assert "paths" not in push  # a path filter can skip the catch-up run
    assert "kh index check ." in workflow.split("Build the index", 1)[0]
    assert "kh index check ." in workflow.split("Build the index", 1)[1]


def _workflow_step(name_start: str) -> str:
    import yaml

    workflow = yaml.safe_load((REPO / "docs" / "ci" / "reasoning-index.yml").read_text(encoding="utf-8"))
    steps = workflow["jobs"]["regenerate"]["steps"]
    return next(str(step["run"]) for step in steps if str(step.get("name", "")).startswith(name_start))


def _run_step(script: str, cwd: Path, path: str) -> subprocess.CompletedProcess[str]:
    # as GitHub Actions runs a `run:` step: bash -e on a file holding it
    step = cwd.parent / "step.sh"
    step.write_text(script, encoding="utf-8")
    env = {**ENV, "PATH": path, "RUNNER_TEMP": str(cwd.parent)}
    return subprocess.run(["bash", "-e", str(step)], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def test_the_workflows_test_step_fails_when_it_should(tmp_path: Path) -> None:
    """Its test step once ended in `|| echo`: even a missing `kh` passed. A missing or stale index
    passes (the run rebuilds it); a `kh` that cannot run fails the run."""
    script = _workflow_step("Test")
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "a.md").write_text("# A\n", encoding="utf-8")
    # python and kh of this environment first, then the system's (bash, git)
    with_kh = f"{KH.parent}{os.pathsep}{os.environ['PATH']}"
    assert _run_step(script, vault, with_kh).returncode == 0  # no index yet
    subprocess.run([str(KH), "index", "build", str(vault)], check=True, capture_output=True)
    (vault / "b.md").write_text("# B\n", encoding="utf-8")
    assert _run_step(script, vault, with_kh).returncode == 0  # stale
    no_kh = tmp_path / "bin"
    no_kh.mkdir()
    (no_kh / "python").symlink_to(sys.executable)
    broken = _run_step(script, vault, f"{no_kh}{os.pathsep}/usr/bin{os.pathsep}/bin")
    assert broken.returncode != 0, broken.stdout + broken.stderr


def test_the_workflow_installs_from_a_line_in_the_file_itself() -> None:
    import yaml

    text = (REPO / "docs" / "ci" / "reasoning-index.yml").read_text(encoding="utf-8")
    assert "vars." not in text and "secrets." not in text  # nothing to set in the repository's settings
    assert yaml.safe_load(text)["env"]["KH_INSTALL"].startswith("knowledge-harness")
    assert '"$KH_INSTALL"' in _workflow_step("Install")
