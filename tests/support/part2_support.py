"""Support for the part-2 tests: a real blog git repository, a tmp vault, and the external agent's outputs."""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import subprocess
from pathlib import Path
from typing import Any

from knowledge_harness.pipeline.agents import AgentTask
from knowledge_harness.pipeline.contract import State
from knowledge_harness.pipeline.engine import Pipeline
from knowledge_harness.vault.paths import Vault

from .people import PERSON
from .pipeline_helpers import packet_for, request_note, write_note

QUESTION = "Obsidian のプロパティ（frontmatter）は YAML 1.2 として読まれるのか。yes/no の真偽値の扱いを知りたい。"
# 2026-03-01 10:00 in Asia/Tokyo
CLOCK = dt.datetime(2026, 3, 1, 1, 0, tzinfo=dt.UTC)
OLD_POST = """\
.. post:: 2026-03-02
   :tags: cooking
   :language: ja

カレーの作り方
==============

玉ねぎをよく炒めてから、スパイスを加えて煮込みます。
"""

# A draft O-09's program checks pass when other.rst exists (pipeline/draft_checks.py, `kh pipeline check-draft`).
GOOD = """\
YAML の真偽値
=============

:公開日: 未確定
:情報基準日: 2026-03-01
:対象バージョン: 未確認
:記事状態: 下書き

.. note::

   AI が下書きを作成し、人間が事実と公開を確認します。

はじめに
--------

YAML 1.2 では *true* と *false* だけが真偽値です。詳しくは :doc:`other` を参照。
"""


def git(repo: Path, *args: str) -> str:
    proc = subprocess.run(
        ["git", "-c", "user.name=Test Person", "-c", "user.email=person@example.invalid", "-C", str(repo), *args],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return proc.stdout.strip()


def make_blog(tmp_path: Path) -> Path:
    blog = tmp_path / "blog"
    posts = blog / "docs" / "blog" / "posts"
    posts.mkdir(parents=True)
    git(blog, "init", "-q", "-b", "main")
    (posts / "2026-03-02-curry.rst").write_text(OLD_POST, encoding="utf-8")
    (blog / "docs" / "index.rst").write_text("Blog\n====\n", encoding="utf-8")
    git(blog, "add", "-A")
    git(blog, "commit", "-q", "-m", "initial")
    return blog


def register_blog(blog: Path, settings: str = "") -> str:
    """Register `blog` as `[blogs.NAME]` in a copy of the current machine configuration (KH_CONFIG,
    restored after the test): the pipeline's git runs only in a repository the person registered."""
    name = "blog-" + hashlib.sha256(str(blog.resolve()).encode()).hexdigest()[:8]
    current = Path(os.environ["KH_CONFIG"])
    text = current.read_text(encoding="utf-8") if current.is_file() else ""
    text += f'\n[blogs.{name}]\nrepo = "{blog.resolve().as_posix()}"\n{settings}'
    path = blog.parent / f"machine-config-{name}.toml"
    path.write_text(text, encoding="utf-8")
    os.environ["KH_CONFIG"] = str(path)
    return name


def make_vault(tmp_path: Path, *, blog: Path | None, extra_toml: str = "", machine_blog: str = "") -> Path:
    vault = tmp_path / "v"
    write_note(
        vault,
        "Notes/yaml.md",
        "---\ntitle: YAML 1.1 と 1.2 の違い\n---\n# YAML 1.1 と 1.2\n\nYAML 1.1 では yes/no が真偽値になる。"
        "YAML 1.2 の core schema では true/false だけが真偽値。\nObsidian のプロパティは frontmatter に書かれる。\n",
    )
    toml = '[evidence]\nproviders = ["vault"]\n'
    if blog is not None:
        register_blog(blog, machine_blog)
        toml += f'[blog]\nrepo = "{blog.as_posix()}"\n'
    (vault / ".harness").mkdir(parents=True, exist_ok=True)
    (vault / ".harness" / "pipeline.toml").write_text(toml + extra_toml, encoding="utf-8")
    return vault


def pipeline(vault: Path) -> Pipeline:
    return Pipeline(Vault.open(vault), clock=lambda: CLOCK)


def task_of(p: Pipeline, operation: str) -> AgentTask:
    task = p.next_task()
    assert task is not None, f"no open task (wanted {operation})"
    assert task.operation == operation, (task.operation, operation)
    return task


def axis(verdict: str = "PASS", confidence: float = 0.9, **refs: list[str]) -> dict[str, Any]:
    return {"verdict": verdict, "confidence": confidence, "reasons": "Packetの出典が論点を支えている。", **refs}


def judge_output(
    novelty: str = "PASS", evidence: str = "PASS", confidence: float = 0.9, impact: str = "LOW"
) -> dict[str, Any]:
    reader = axis(packet_refs=["F1"])
    reader["aspects"] = {
        "reproducibility": "手順を再現できる",
        "transferability": "他の設定にも使える",
        "search_motive": "真偽値の扱いで検索される",
    }
    return {
        "axes": {
            "evidence_sufficiency": axis(evidence, confidence, packet_refs=["F1"]),
            # a novelty verdict cites the past article it was compared with (P1: the blog's curry post)
            "novelty": axis(novelty, packet_refs=["F1"] if novelty == "UNCERTAIN" else ["F1", "P1"]),
            "reader_value": reader,
            "author_question": axis(packet_refs=["I1"]),
        },
        "uncertainty_impact": {
            "level": impact,
            "reasons": "対象バージョンは未確認だが核心ではない。",
            "packet_refs": ["X1"],
        },
        "central_claim": "Obsidian のプロパティの真偽値は YAML 1.2 の core schema に従う。",
    }


def plan_output(task: AgentTask) -> dict[str, Any]:
    handling = []
    for unc in task.inputs["uncertainties"]:
        treatment = {"X1": "DISCLOSE", "U1": "LIMIT_CLAIM"}.get(unc["id"], "EXCLUDE")
        handling.append(
            {"uncertainty_id": unc["id"], "treatment": treatment, "reason": "記事の主張の範囲を明確にするため。"}
        )
    return {
        "working_title": "Obsidian のプロパティと YAML 1.2 の真偽値",
        "central_message": "Obsidian のプロパティでは yes/no ではなく true/false を使うのが安全である。",
        "audience": "Obsidian でプロパティを書く人",
        "search_motive": "yes/no が真偽値にならない理由を知りたい",
        "structure_type": "CONCEPT_EXPLANATION",
        "exclusions": [{"what": "YAML 1.1 の全仕様", "reason": "中心メッセージに不要"}],
        "sections": [
            {
                "id": "S1",
                "heading": "YAML の真偽値",
                "purpose": "違いを示す",
                "reader_gain": "違いが分かる",
                "packet_refs": ["F1", "X1"],
            },
            {
                "id": "S2",
                "heading": "まとめ",
                "purpose": "結論",
                "reader_gain": "書き方が分かる",
                "packet_refs": ["N1", "U1"],
            },
        ],
        "uncertainty_handling": handling,
        "author_question": None,
    }


B1 = "YAML 1.2 の core schema では true と false だけが真偽値です。\n\n対象バージョンは未確認のため、版による違いは断定しません。"
B2 = "プロパティでは true/false を使うと安全です。\n\nただし、この結論は確認できた範囲に限ります。"


def draft_output(b1: str = B1, b2: str = B2, **changes: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "ai_scope_ja": "この下書きは AI が Evidence Packet と Article Plan から作成しました。事実の最終確認と公開判断は人間が行います。",
        "target_version": "未確認",
        "blocks": [
            {"block_id": "B1", "section_id": "S1", "rst": b1, "packet_refs": ["F1", "X1"]},
            {"block_id": "B2", "section_id": "S2", "rst": b2, "packet_refs": ["N1", "U1"]},
        ],
    }
    out.update(changes)
    return out


def validate_output(confidence: float = 0.9, verdict: str = "PASS") -> dict[str, Any]:
    axes = {
        name: axis(verdict, confidence, block_refs=["B1"], packet_refs=["F1"])
        for name in ("factual_support", "no_leap", "reader_value", "plan_consistency", "uncertainty_treatment")
    }
    return {"axes": axes}


def review_output(title: str = "Obsidian のプロパティで true/false を使う理由") -> dict[str, Any]:
    return {
        "title": title,
        "slug": "obsidian-yaml12-booleans",
        "tags": ["obsidian", "yaml"],
        "pr_description_ja": "中心メッセージ: true/false を使う。主要根拠: vault のノート。無回答なら公開しません。",
    }


def start_run(p: Pipeline, vault: Path, note: str = "Requests/q.md") -> str:
    write_note(vault, note, request_note(QUESTION))
    run_id = p.capture_note(note).run_id
    p.authorize(run_id, actor=PERSON)
    status = p.advance(run_id)
    assert status.state == State.EVIDENCE_READY, status
    task = task_of(p, "O-05")
    p.submit(task.task_id, packet_for(task.inputs["sources"]))
    return run_id


def to_judged(p: Pipeline, vault: Path, note: str = "Requests/q.md") -> str:
    """A run whose candidate the judge accepted (O-06): it waits for the plan (O-07)."""
    run_id = start_run(p, vault, note)
    p.submit(task_of(p, "O-06").task_id, judge_output())
    return run_id


def to_plan_ready(p: Pipeline, vault: Path, note: str = "Requests/q.md") -> str:
    """A run with an accepted plan (O-07): it waits for the draft (O-08)."""
    run_id = to_judged(p, vault, note)
    plan_task = task_of(p, "O-07")
    p.submit(plan_task.task_id, plan_output(plan_task))
    return run_id


def plan_asking(task: AgentTask, question: str) -> dict[str, Any]:
    """A plan that asks the author one question, essential and not recoverable from the request and packet."""
    return plan_output(task) | {
        "author_question": {
            "essential_to_central_message": True,
            "recoverable_from_request_and_packet": False,
            "questions_ja": [question],
        }
    }


def to_review_ready(p: Pipeline, vault: Path, note: str = "Requests/q.md") -> str:
    run_id = to_plan_ready(p, vault, note)
    p.submit(task_of(p, "O-08").task_id, draft_output())
    p.submit(task_of(p, "O-09").task_id, validate_output())
    p.submit(task_of(p, "O-10").task_id, review_output())
    status = p.status(run_id)
    assert status.state == State.REVIEW_READY, status
    return run_id


def merge(blog: Path, branch: str) -> None:
    git(blog, "checkout", "-q", "main")
    git(blog, "merge", "-q", "--no-ff", "-m", f"Merge {branch}", branch)
