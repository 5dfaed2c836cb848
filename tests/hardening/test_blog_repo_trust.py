"""Red-team item 1: a vault file picked the git repository the pipeline runs in, and git ran that
repository's hooks, `core.fsmonitor` and `remote.origin.uploadpack` as the user.

Real git repositories on disk: a blog whose `.git` carries hooks and command settings that would
each append a line to a marker file, and a bare remote it fetches from and pushes to."""

from __future__ import annotations

import stat
import subprocess
from pathlib import Path

import pytest

from knowledge_harness.errors import BlogRepoError, InputError
from knowledge_harness.pipeline import blog_repo
from knowledge_harness.pipeline.blog_repo import BlogRepo
from knowledge_harness.pipeline.config import load_config
from knowledge_harness.pipeline.engine import Pipeline
from knowledge_harness.vault.paths import Vault
from knowledge_harness.vault.safe_git import safe_config_env

from ..conftest import use_machine_config
from ..support.part2_support import git, make_blog

HOOKS = ("reference-transaction", "pre-push", "post-checkout", "pre-commit", "post-update", "pre-receive")


def _script(path: Path, line: str, marker: Path) -> None:
    path.write_text(f'#!/bin/sh\necho "{line}" >> "{marker}"\n', encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def booby_trapped_blog(tmp_path: Path) -> tuple[Path, Path]:
    """A blog repository with hooks, fsmonitor and uploadpack/receivepack commands that write to a marker."""
    blog = make_blog(tmp_path)
    marker = tmp_path / "marker"
    remote = tmp_path / "github.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    git(blog, "remote", "add", "origin", str(remote))
    git(blog, "push", "-q", "origin", "main")
    for hook in HOOKS:
        _script(blog / ".git" / "hooks" / hook, hook, marker)
        _script(remote / "hooks" / hook, f"remote {hook}", marker)
    _script(tmp_path / "fsmonitor.sh", "fsmonitor", marker)
    git(blog, "config", "core.fsmonitor", str(tmp_path / "fsmonitor.sh"))
    git(blog, "config", "remote.origin.uploadpack", f'echo uploadpack >> "{marker}"; git-upload-pack')
    git(blog, "config", "remote.origin.receivepack", f'echo receivepack >> "{marker}"; git-receive-pack')
    # the trap works: plain git runs them
    git(blog, "fetch", "-q", "origin")
    git(blog, "status", "--short")
    assert {"uploadpack", "fsmonitor"} <= set(marker.read_text().split())
    marker.unlink()
    return blog, marker


def test_git_runs_no_hook_fsmonitor_or_uploadpack_of_the_blog_repository(tmp_path: Path) -> None:
    blog, marker = booby_trapped_blog(tmp_path)
    repo = BlogRepo(blog, "docs/blog/posts", "main", remote="origin")
    assert repo.fetch() is True
    assert [p.slug for p in repo.posts()] == ["curry"]
    result = repo.commit_post("harness/r1", "docs/blog/posts/2026-03-01-yaml.rst", b"YAML\n====\n", "candidate")
    assert result.created_commit and repo.branch_head("harness/r1") == result.commit  # update-ref ran
    # draft_pr's push (the gh adapter): to a remote on this disk, whose hooks would run as the user
    repo._git(
        "push",
        "--quiet",
        "--no-verify",
        f"--receive-pack={repo._receive_pack('origin')}",
        "origin",
        "refs/heads/harness/r1",
    )
    # the git a child process (gh) starts reads the same settings from the environment
    subprocess.run(
        ["git", "-C", str(blog), "status", "--short"], env=safe_config_env(), check=True, capture_output=True
    )
    assert not marker.exists(), marker.read_text()
    pushed = subprocess.run(
        ["git", "-C", str(tmp_path / "github.git"), "rev-parse", "refs/heads/harness/r1"],
        capture_output=True,
        text=True,
    )
    assert pushed.stdout.strip() == result.commit


@pytest.mark.parametrize(
    "key",
    ["core.sshCommand", "credential.helper", "core.gitProxy", "remote.origin.vcs", "core.alternateRefsCommand"],
)
def test_a_blog_repository_whose_own_config_names_a_command_is_refused(tmp_path: Path, key: str) -> None:
    blog = make_blog(tmp_path)
    git(blog, "config", key, f"touch {tmp_path / 'marker'}")
    with pytest.raises(BlogRepoError, match=key.lower()):
        BlogRepo(blog, "docs/blog/posts", "main")
    assert not (tmp_path / "marker").exists()


def test_a_command_setting_brought_in_by_an_include_is_refused(tmp_path: Path) -> None:
    blog = make_blog(tmp_path)
    (tmp_path / "extra.gitconfig").write_text('[core]\n\tsshCommand = "touch /tmp/x"\n', encoding="utf-8")
    git(blog, "config", "include.path", str(tmp_path / "extra.gitconfig"))
    with pytest.raises(BlogRepoError, match=r"core\.sshcommand"):
        BlogRepo(blog, "docs/blog/posts", "main")


def test_a_git_config_that_hangs_is_a_blog_repo_error_not_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blog = make_blog(tmp_path)

    def hangs(root: Path) -> list[str]:
        raise subprocess.TimeoutExpired(["git", "config"], 30)

    monkeypatch.setattr(blog_repo, "command_settings", hangs)
    with pytest.raises(BlogRepoError, match="git config failed"):
        BlogRepo(blog, "docs/blog/posts", "main")


def _pipeline_toml(vault: Path, text: str) -> None:
    (vault / ".harness").mkdir(parents=True, exist_ok=True)
    (vault / ".harness" / "pipeline.toml").write_text(text, encoding="utf-8")


@pytest.mark.parametrize("key, value", [("remote", '"origin"'), ("pull_request", '"gh"')])
def test_a_vault_may_not_choose_the_remote_or_the_pull_request_tool(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, key: str, value: str
) -> None:
    blog = make_blog(tmp_path)
    use_machine_config(monkeypatch, tmp_path, f'[blogs.main]\nrepo = "{blog.as_posix()}"\n')
    vault = tmp_path / "v"
    _pipeline_toml(vault, f'[blog]\nname = "main"\n{key} = {value}\n')
    with pytest.raises(InputError, match=rf"blog\.{key}.*\[blogs\.NAME\] {key}"):
        load_config(vault / ".harness")


def test_a_vault_names_a_registered_blog_and_gets_the_machines_remote_and_tool(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blog = make_blog(tmp_path)
    use_machine_config(
        monkeypatch, tmp_path, f'[blogs.main]\nrepo = "{blog.as_posix()}"\nremote = "github"\npull_request = "gh"\n'
    )
    vault = tmp_path / "v"
    _pipeline_toml(vault, '[blog]\nname = "main"\nbase_branch = "main"\n')
    cfg = load_config(vault / ".harness").blog
    assert (cfg.repo, cfg.remote, cfg.pull_request) == (str(blog.resolve()), "github", "gh")
    # the registered repository's folder, written relative to the vault, names it too
    _pipeline_toml(vault, '[blog]\nrepo = "../blog"\n')
    assert load_config(vault / ".harness").blog.remote == "github"
    _pipeline_toml(vault, '[blog]\nname = "other"\n')
    with pytest.raises(InputError, match=r"\[blogs\.other\].*defined: main"):
        load_config(vault / ".harness")
    _pipeline_toml(vault, '[blog]\nname = "main"\nrepo = "/tmp"\n')
    with pytest.raises(InputError, match="not the repository of"):
        load_config(vault / ".harness")


def test_a_copy_of_the_example_vault_naming_an_unregistered_repository_runs_no_hook_and_is_refused(
    tmp_path: Path, example_vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blog, marker = booby_trapped_blog(tmp_path)
    config = use_machine_config(monkeypatch, tmp_path, "")
    _pipeline_toml(example_vault, f'[blog]\nrepo = "{blog.as_posix()}"\nremote = "origin"\npull_request = "gh"\n')
    with pytest.raises(InputError, match="machine configuration") as refused:
        Pipeline(Vault.open(example_vault)).capture_note("Requests/メタデータ限定更新の記事.md")
    assert "[blogs.NAME]" in refused.value.message and str(config) in refused.value.message
    _pipeline_toml(example_vault, f'[blog]\nrepo = "{blog.as_posix()}"\n')
    with pytest.raises(InputError, match=r"\[blogs\.NAME\] repo"):
        _ = Pipeline(Vault.open(example_vault)).config
    assert not marker.exists()
    assert git(blog, "branch", "--format=%(refname:short)").split() == ["main"]
