"""Past articles (issue 18, item 4): O-05 reads the blog's existing posts (ablog metadata) into
`past_articles`; O-06 judges novelty against them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from knowledge_harness.errors import SubmissionRefused
from knowledge_harness.pipeline.contract import State

from ..support.part2_support import QUESTION, git, judge_output, make_blog, make_vault, pipeline, task_of
from ..support.people import PERSON
from ..support.pipeline_helpers import packet_for, request_note, write_note

YAML_POST = """\
.. post:: 2025-11-20
   :tags: obsidian, yaml
   :category: ツール
   :language: ja

YAML 1.1 の真偽値の落とし穴
===========================

YAML 1.1 では yes/no/on/off が真偽値として読まれる。
設定ファイルで思わぬ値になることがある。

詳細は次の節で説明する。
"""


def test_o05_and_o06_see_the_blog_posts_and_novelty_must_cite_them(tmp_path: Path) -> None:
    blog = make_blog(tmp_path)
    (blog / "docs" / "blog" / "posts" / "2025-11-20-yaml-booleans.rst").write_text(YAML_POST, encoding="utf-8")
    git(blog, "add", "-A")
    git(blog, "commit", "-q", "-m", "yaml post")
    vault = make_vault(tmp_path, blog=blog)
    p = pipeline(vault)
    write_note(vault, "Requests/q.md", request_note(QUESTION))
    run_id = p.capture_note("Requests/q.md").run_id
    p.authorize(run_id, actor=PERSON)
    assert p.advance(run_id).state == State.EVIDENCE_READY
    task = task_of(p, "O-05")
    past = task.inputs["past_articles"]
    assert [(a["ref_id"], a["slug"], a["date"]) for a in past] == [
        ("P1", "curry", "2026-03-02"),
        ("P2", "yaml-booleans", "2025-11-20"),
    ]
    yaml_ref = past[1]
    assert yaml_ref["title"] == "YAML 1.1 の真偽値の落とし穴"
    assert yaml_ref["tags"] == ["obsidian", "yaml"] and yaml_ref["category"] == "ツール"
    assert yaml_ref["summary"].startswith("YAML 1.1 では yes/no/on/off が真偽値として読まれる。")
    assert yaml_ref["path"] == "docs/blog/posts/2025-11-20-yaml-booleans.rst" and len(yaml_ref["sha256"]) == 64

    packet = packet_for(task.inputs["sources"])
    sid = packet["issues"][0]["facts"][0]["source_ids"][0]

    def refused(past_articles: dict[str, object]) -> set[str]:
        with pytest.raises(SubmissionRefused) as exc:
            p.submit(task.task_id, {**packet, "past_articles": past_articles})
        return {r["code"] for r in exc.value.detail["reasons"]}

    item = {"id": "K1", "statement": "YAML 1.1 の真偽値は既に書いた。", "source_ids": [sid]}
    assert refused({"known": [item]}) == {"PAST_ARTICLE_DIFF_WITHOUT_REFERENCE"}
    assert refused({"known": [{**item, "source_ids": ["P2", "P9"]}]}) == {"UNKNOWN_SOURCE_ID"}
    p.submit(
        task.task_id,
        {
            **packet,
            "past_articles": {
                "known": [{**item, "source_ids": ["P2"]}],
                "diff_candidates": [
                    {"id": "D1", "statement": "YAML 1.2 と Obsidian の扱いは未記事。", "source_ids": ["P2", sid]}
                ],
            },
        },
    )
    judge = task_of(p, "O-06")
    assert [a["ref_id"] for a in judge.inputs["past_articles"]] == ["P1", "P2"]
    assert judge.inputs["past_articles"][1]["excerpt"].startswith(".. post:: 2025-11-20")
    assert {"P1", "P2", "K1", "D1"} <= set(judge.inputs["packet_refs"])
    assert judge.inputs["packet"]["past_article_refs"][1]["slug"] == "yaml-booleans"
    uncited = judge_output(novelty="PASS")
    uncited["axes"]["novelty"]["packet_refs"] = ["F1"]
    with pytest.raises(SubmissionRefused) as exc:
        p.submit(judge.task_id, uncited)
    assert [r["code"] for r in exc.value.detail["reasons"]] == ["NOVELTY_WITHOUT_PAST_ARTICLES"]
    cited = judge_output(novelty="PASS")
    cited["axes"]["novelty"]["packet_refs"] = ["D1", "P2"]
    p.submit(judge.task_id, cited)
    assert p.status(run_id).state == State.CANDIDATE_ACCEPTED
    decision = p.artifact(run_id, "candidate_decision")
    assert decision["past_articles"] == [a["path"] for a in past]
    assert json.dumps(decision, ensure_ascii=False).count("P2") >= 1
