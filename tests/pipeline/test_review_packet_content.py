"""The Review Packet is enough to decide from: the article as a reader sees it (text and an HTML
file), the diff from the previous round, every uncertainty in words with its effect, the
independence warnings, duplicate candidates with their scores and the checks' results; the
commands it shows use the choices' labels; `kh pipeline review` prints it and the HTML's path."""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

import pytest

from knowledge_harness import actors
from knowledge_harness.errors import Conflict, SubmissionRefused
from knowledge_harness.pipeline.contract import State

from ..conftest import KH
from ..support.part2_support import (
    B1,
    B2,
    draft_output,
    make_blog,
    make_vault,
    pipeline,
    review_output,
    task_of,
    to_plan_ready,
    validate_output,
)
from ..support.people import PERSON

SAME = actors.agent("mcp-http", "same-agent", token="agent")
REWRITE = "YAML 1.2 の core schema が真偽値として読むのは true と false の二つだけです。対象バージョンは未確認です。"


def test_the_packet_carries_the_article_the_diff_and_every_warning_in_words(tmp_path: Path) -> None:
    vault = make_vault(tmp_path, blog=make_blog(tmp_path))
    p = pipeline(vault)
    run_id = to_plan_ready(p, vault)
    p.submit(task_of(p, "O-08").task_id, draft_output(), actor=SAME)
    p.submit(task_of(p, "O-09").task_id, validate_output(), actor=SAME)  # the author judges its own draft
    p.submit(task_of(p, "O-10").task_id, review_output())
    assert p.status(run_id).state == State.REVIEW_READY

    packet = p.review(run_id)["review_packet"]
    md = packet["markdown"]
    # the article as a reader reads it: title, the block texts, no reST markers or block comments
    assert "Obsidian のプロパティで true/false を使う理由" in packet["article_text"]
    assert B1.split("\n")[0] in packet["article_text"] and B2.split("\n")[0] in packet["article_text"]
    assert ".. kh-block" not in packet["article_text"] and ".. post::" not in packet["article_text"]
    assert packet["article_text"].strip() in md
    html = (vault / ".harness/runs/pipeline" / run_id / packet["article_html_file"]).read_text(encoding="utf-8")
    assert B2.split("\n")[0] in html and "<script" not in html and "<h2>YAML の真偽値</h2>" in html
    assert packet["diff"] is None and "初回の確認です" in md
    # every uncertainty in words, with its effect and how the article treats it
    assert "`X1`" in md and "対象バージョンが未確認" in md and "影響: 記事では版を限定する" in md
    assert "扱い: DISCLOSE — 本文で明示する" in md and "扱い: LIMIT_CLAIM — 主張をこの範囲に限定する" in md
    assert "`U1` 対象バージョンは未確認。" in md
    # the same client wrote the draft and judged it
    assert len(packet["independence_warnings"]) == 1 and "same-agent" in packet["independence_warnings"][0]
    assert "## 独立性の警告" in md and "⚠ O-09" in md
    assert "## 重複候補" in md and "## 検証結果" in md
    # the commands shown use the labels the person reads
    assert "--choice 公開を承認する --commit" in md and "--choice 今後の方針として検討する" in md
    assert "--choice approve" not in md

    # a revision that replaces a block with 「変更」 shows in the next round's diff
    p.decide(
        run_id,
        "今回だけ修正を求める",
        instructions="B1 を言い換えてください。",
        blocks=["B1"],
        review_packet_sha256=p.review(run_id)["review_packet_sha256"],
        actor=PERSON,
    )
    revise = task_of(p, "O-12")
    # 「変更」 for the whole block drops its content: refused at submit, the agent rewrites instead
    with pytest.raises(SubmissionRefused) as dropped:
        p.submit(
            revise.task_id,
            {
                "revisions": [
                    {"block_id": "B1", "rst": "変更", "packet_refs": ["F1", "X1"], "change_summary_ja": "変更"}
                ]
            },
        )
    assert [r["code"] for r in dropped.value.detail["reasons"]] == ["REVISION_DROPS_CONTENT"]
    p.submit(
        revise.task_id,
        {
            "revisions": [
                {"block_id": "B1", "rst": REWRITE, "packet_refs": ["F1", "X1"], "change_summary_ja": "言い換え"}
            ]
        },
    )
    p.submit(task_of(p, "O-09").task_id, validate_output())
    p.submit(task_of(p, "O-10").task_id, review_output())
    second = p.review(run_id)["review_packet"]
    assert second["diff"] and f"-{B1.split(chr(10))[0]}" in second["diff"] and f"+{REWRITE}" in second["diff"]
    assert "```diff" in second["markdown"] and second["previous_commit"] == packet["commit"]

    # the CLI prints the packet (no terminal: no pager) and the HTML file's path
    shown = subprocess.run(
        [str(KH), "pipeline", "review", str(vault), run_id], capture_output=True, text=True, timeout=60
    )
    assert shown.returncode == 0 and f"+{REWRITE}" in shown.stdout and "Review Packet SHA-256:" in shown.stdout
    path = subprocess.run(
        [str(KH), "pipeline", "review", str(vault), run_id, "--html"], capture_output=True, text=True, timeout=60
    )
    assert REWRITE in Path(path.stdout.strip()).read_text(encoding="utf-8")

    # the HTML is served only with the bytes the packet recorded (#44 follow-up: a file changed in the
    # run folder afterwards was shown to the person as the article under review)
    html_file = Path(path.stdout.strip())
    recorded = html_file.read_bytes()
    assert hashlib.sha256(recorded).hexdigest() == second["article_html_sha256"]
    assert p.article_html(run_id).encode("utf-8") == recorded
    html_file.write_bytes(recorded.replace(b"</body>", "<p>安全です</p></body>".encode()))
    with pytest.raises(Conflict) as changed:
        p.article_html(run_id)
    assert changed.value.detail["recorded_sha256"] == second["article_html_sha256"]
    refused = subprocess.run(
        [str(KH), "pipeline", "review", str(vault), run_id, "--html"], capture_output=True, text=True, timeout=60
    )
    assert refused.returncode != 0 and refused.stdout == ""
    assert "not the one its Review Packet recorded" in refused.stderr
    html_file.write_bytes(recorded)
    assert p.article_html(run_id).encode("utf-8") == recorded
