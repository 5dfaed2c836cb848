"""A verbatim copy of a published post is a duplicate candidate: bodies are compared without the
metadata fields (the post directive's tags, category, author, language; the draft's 公開日 …)."""

from __future__ import annotations

from dataclasses import dataclass

from knowledge_harness.pipeline.draft_checks import CheckInputs, check_draft

from ..support.part2_support import GOOD, OLD_POST


@dataclass
class Post:
    path: str
    title: str
    text: str


def _published(draft: str) -> str:
    """The draft as O-10 publishes it and a reader finds it on the blog's main branch."""
    body = draft.replace(":公開日: 未確定", ":公開日: 2026-03-05").replace(":記事状態: 下書き", ":記事状態: 公開")
    return (
        ".. post:: 2026-03-05\n   :tags: obsidian, yaml, properties\n   :category: 技術メモ\n"
        "   :author: Knowledge Harness\n   :language: ja\n\n" + body
    )


def test_a_copy_of_a_published_post_is_a_duplicate_candidate() -> None:
    published = Post("docs/blog/posts/2026-03-05-yaml.rst", "YAML の真偽値", _published(GOOD))
    other = Post("docs/blog/posts/2026-03-02-curry.rst", "カレーの作り方", OLD_POST)
    copy = GOOD.replace("YAML の真偽値\n=============", "YAML 1.2 の真偽値\n=================")

    report = check_draft(copy, CheckInputs(past_posts=[published, other], draft_language=None))

    assert [d["path"] for d in report.duplicates] == [published.path]
    assert report.duplicates[0]["similarity"] >= 0.85
    assert any(w.code == "DUPLICATE_CANDIDATE" and published.path in w.message for w in report.warnings)
