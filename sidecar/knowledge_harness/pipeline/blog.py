"""The configured blog repository, seen from the pipeline (reads through pipeline/blog_repo.py)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..errors import InputError
from .blog_repo import BlogRepo, PastPost
from .config import PipelineConfig
from .ops.base import OpContext


def blog_repo_of(config: PipelineConfig, vault_root: Path) -> BlogRepo | None:
    vault_root = vault_root.resolve()
    path = config.blog.repo_path(vault_root)
    if path is None:
        return None
    if path == vault_root or path.is_relative_to(vault_root):
        raise InputError(f"The blog repository {path} must not be inside the vault.")
    return BlogRepo(path, config.blog.posts_dir, config.blog.base_branch, config.blog.effective_remote())


def blog_repo(ctx: OpContext) -> BlogRepo | None:
    return blog_repo_of(ctx.config, ctx.vault.root)


def past_posts(ctx: OpContext) -> list[PastPost] | None:
    """Articles of the configured posts folder on the base branch; None when no blog is configured."""
    repo = blog_repo(ctx)
    return None if repo is None else repo.posts()


def run_branch(ctx: OpContext) -> str:
    return f"{ctx.config.blog.branch_prefix}{ctx.run.run_id}"


_OPTION = re.compile(r"^\s+:([A-Za-z_-]+):\s*(.*)$")
_MAX_PAST = 200
_SUMMARY_CHARS = 300


def ablog_metadata(text: str) -> dict[str, Any]:
    """The `.. post::` directive of an ablog post: date, tags, category, author, language, and its
    content (an excerpt) when the directive has one."""
    lines = text.splitlines()
    start = next((i for i, ln in enumerate(lines) if ln.startswith(".. post::")), None)
    if start is None:
        return {}
    meta: dict[str, Any] = {"date": lines[start].split("::", 1)[1].strip() or None}
    excerpt: list[str] = []
    for line in lines[start + 1 :]:
        if line.strip() and not line[:1].isspace():
            break
        option = _OPTION.match(line)
        if option and not excerpt:
            meta[option.group(1).lower()] = option.group(2).strip()
        elif line.strip():
            excerpt.append(line.strip())
    if excerpt:
        meta["excerpt"] = " ".join(excerpt)
    return meta


def _first_paragraph(text: str, title: str) -> str:
    """The first paragraph after the title (directives, comments and headings skipped)."""
    lines = text.splitlines()
    after = next((i + 2 for i, ln in enumerate(lines) if title and ln.strip() == title), 0)
    para: list[str] = []
    for line in lines[after:]:
        stripped = line.strip()
        if not stripped:
            if para:
                break
            continue
        if line[:1].isspace() or stripped.startswith(("..", ":")) or set(stripped) <= set("=-~^\"'`#*+<>_"):
            if para:
                break
            continue
        para.append(stripped)
    return " ".join(para)


def past_article_refs(posts: list[PastPost]) -> list[dict[str, Any]]:
    """What O-05 and O-06 see of the blog's existing posts: ids `P1`, `P2`, … (newest first), path,
    slug, date, title, tags, category and a short summary from the ablog metadata (the directive's
    excerpt, else the first paragraph), and the SHA-256 of the file."""
    newest = sorted(posts, key=lambda p: (p.date or "", p.path), reverse=True)[:_MAX_PAST]
    refs: list[dict[str, Any]] = []
    for n, post in enumerate(newest, start=1):
        meta = ablog_metadata(post.text)
        summary = meta.get("excerpt") or _first_paragraph(post.text, post.title)
        tags = [t.strip() for t in str(meta.get("tags", "")).split(",") if t.strip()]
        refs.append(
            {
                "ref_id": f"P{n}",
                "path": post.path,
                "slug": post.slug,
                "date": post.date,
                "title": post.title,
                "tags": tags,
                "category": meta.get("category") or None,
                "summary": summary[:_SUMMARY_CHARS],
                "sha256": post.sha256,
            }
        )
    return refs


def past_articles(ctx: OpContext) -> list[dict[str, Any]] | None:
    """The past-article references of the configured blog; None when no blog is configured."""
    posts = past_posts(ctx)
    return None if posts is None else past_article_refs(posts)
