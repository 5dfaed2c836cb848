"""The configured blog repository, seen from the pipeline (reads through vault/blog_repo.py)."""

from __future__ import annotations

from pathlib import Path

from ..errors import InputError
from ..vault.blog_repo import BlogRepo, PastPost
from .config import PipelineConfig
from .ops.base import OpContext


def blog_repo_of(config: PipelineConfig, vault_root: Path) -> BlogRepo | None:
    vault_root = vault_root.resolve()
    path = config.blog.repo_path(vault_root)
    if path is None:
        return None
    if path == vault_root or path.is_relative_to(vault_root):
        raise InputError(f"The blog repository {path} must not be inside the vault.")
    return BlogRepo(path, config.blog.posts_dir, config.blog.base_branch)


def blog_repo(ctx: OpContext) -> BlogRepo | None:
    return blog_repo_of(ctx.config, ctx.vault.root)


def past_posts(ctx: OpContext) -> list[PastPost] | None:
    """Articles of the configured posts folder on the base branch; None when no blog is configured."""
    repo = blog_repo(ctx)
    return None if repo is None else repo.posts()


def run_branch(ctx: OpContext) -> str:
    return f"{ctx.config.blog.branch_prefix}{ctx.run.run_id}"
