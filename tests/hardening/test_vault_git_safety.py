"""After #44 item 1: the approval's scope check ran `git status` in the VAULT with plain git, so a
vault's own `.git/config` (synced with the vault) naming `core.fsmonitor` or a clean filter ran a
command as the user on every approval. Every git of the sidecar now runs through vault/safe_git.py.

Real git repositories on disk whose configuration names programs that append to a marker file."""

from __future__ import annotations

import ast
import stat
import subprocess
from pathlib import Path

from knowledge_harness.vault.paths import Vault
from knowledge_harness.vault.safe_git import command_settings
from knowledge_harness.vault.scope import git_changed_paths, is_git_repository, snapshot, verify_scope

from ..support.batch_support import git

SIDECAR = Path(__file__).resolve().parents[2] / "sidecar" / "knowledge_harness"


def _script(path: Path, line: str, marker: Path) -> Path:
    path.write_text(f'#!/bin/sh\necho "{line}" >> "{marker}"\ncat\n', encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def booby_trapped_vault(tmp_path: Path) -> tuple[Path, Path]:
    """A vault in git whose .git/config names an fsmonitor and a clean filter (for every .md) that
    write to a marker, and hooks that would too."""
    vault = tmp_path / "vault"
    (vault / "ノート").mkdir(parents=True)
    (vault / "ノート" / "日本語.md").write_text("# 日本語\n", encoding="utf-8")
    (vault / "a.md").write_text("# A\n", encoding="utf-8")
    (vault / ".gitattributes").write_text("*.md filter=trap\n", encoding="utf-8")
    git(vault, "init", "-q")
    git(vault, "config", "user.email", "test@example.invalid")
    git(vault, "config", "user.name", "test")
    git(vault, "add", "-A")
    git(vault, "commit", "-qm", "vault")
    marker = tmp_path / "marker"
    git(vault, "config", "core.fsmonitor", str(_script(tmp_path / "fsmonitor.sh", "fsmonitor", marker)))
    git(vault, "config", "filter.trap.clean", str(_script(tmp_path / "clean.sh", "clean", marker)))
    for hook in ("post-index-change", "reference-transaction", "pre-commit"):
        _script(vault / ".git" / "hooks" / hook, hook, marker)
    # the trap works: plain git runs them (a touched file makes git read it through the clean filter)
    (vault / "a.md").touch()
    subprocess.run(["git", "-C", str(vault), "status", "--porcelain"], check=True, capture_output=True)
    assert {"fsmonitor", "clean"} <= set(marker.read_text().split())
    marker.unlink()
    return vault, marker


def test_the_scope_check_runs_no_fsmonitor_filter_or_hook_of_the_vaults_git(tmp_path: Path) -> None:
    root, marker = booby_trapped_vault(tmp_path)
    vault = Vault.open(root)
    assert is_git_repository(root)
    before = snapshot(vault)
    git_before = git_changed_paths(vault)
    (root / "a.md").touch()  # a stat change: git must compare content (a filter would run here)
    (root / "ノート" / "日本語.md").write_text("# 日本語\n\n追記\n", encoding="utf-8")
    report = verify_scope(vault, before, {"ノート/日本語.md", "a.md"}, git_before=git_before)
    assert report.git_checked and report.git_changed == ["ノート/日本語.md"], report
    assert not marker.exists(), marker.read_text()


def test_no_module_of_the_sidecar_starts_git_but_safe_git(tmp_path: Path) -> None:
    """Every `subprocess` call whose command names git lives in vault/safe_git.py (gh, which starts git
    itself, gets safe_git's settings through its environment)."""
    offenders: list[str] = []
    for path in sorted(SIDECAR.rglob("*.py")):
        if path.name == "safe_git.py":
            continue
        source = path.read_text(encoding="utf-8")
        if "subprocess" not in source:
            continue
        for node in ast.walk(ast.parse(source)):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            if not (isinstance(node.func.value, ast.Name) and node.func.value.id == "subprocess"):
                continue
            literals = [n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
            if "git" in literals:
                offenders.append(f"{path.relative_to(SIDECAR)}:{node.lineno}")
    assert offenders == []


def test_a_filter_in_the_vaults_per_worktree_config_runs_neither(tmp_path: Path) -> None:
    """With `extensions.worktreeConfig`, git also reads `.git/config.worktree`, which `git config --local`
    does not list: a clean filter or an ssh command set there is the repository's own too."""
    root, marker = booby_trapped_vault(tmp_path)
    git(root, "config", "--unset", "filter.trap.clean")
    git(root, "config", "extensions.worktreeConfig", "true")
    git(root, "config", "--worktree", "filter.trap.clean", str(tmp_path / "clean.sh"))
    git(root, "config", "--worktree", "core.sshCommand", "ssh-from-the-vault")
    (root / "a.md").touch()
    subprocess.run(["git", "-C", str(root), "status", "--porcelain"], check=True, capture_output=True)
    assert "clean" in marker.read_text().split()  # plain git runs it
    marker.unlink()
    (root / "a.md").touch()
    assert git_changed_paths(Vault.open(root)) == set()
    assert not marker.exists(), marker.read_text()
    assert command_settings(root) == ["core.sshcommand"]
