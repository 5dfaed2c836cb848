"""Mistakes an agent can fix are refused when it submits the draft (O-08), with how to fix them,
instead of being accepted and holding the run at O-09: an English section, a link that is not a
packet source, broken reStructuredText. O-08's instructions state the link rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from knowledge_harness.errors import SubmissionRefused
from knowledge_harness.pipeline.contract import State
from knowledge_harness.pipeline.draft_checks import check_draft

from ..support.part2_support import (
    B1,
    B2,
    draft_output,
    make_blog,
    make_vault,
    pipeline,
    task_of,
    to_plan_ready,
)

ENGLISH = (
    "In YAML 1.2 the core schema only reads true and false as booleans, so yes and no stay strings. "
    "Obsidian properties follow this reading, which is why the checkbox type writes true."
)


def _reasons(p: object, task_id: str, output: dict[str, object]) -> list[dict[str, str]]:
    with pytest.raises(SubmissionRefused) as refused:
        p.submit(task_id, output)  # type: ignore[attr-defined]
    return list((refused.value.detail or {})["reasons"])


def test_fixable_draft_mistakes_are_refused_at_submit_with_how_to_fix(tmp_path: Path) -> None:
    vault = make_vault(tmp_path, blog=make_blog(tmp_path))
    p = pipeline(vault)
    run_id = to_plan_ready(p, vault)
    task = task_of(p, "O-08")
    assert "https://help" not in task.instructions_en
    assert "packet's source URLs" in task.instructions_en and "inputs.packet.sources" in task.instructions_ja

    english = _reasons(p, task.task_id, draft_output(b2=ENGLISH))
    section = [r for r in english if r["code"] == "DRAFT_SECTION_LANGUAGE_MISMATCH"]
    assert section and section[0]["path"] == "$.blocks[1].rst" and "Japanese" in section[0]["message"]

    link = _reasons(p, task.task_id, draft_output(b1=B1 + "\n\n詳しくは https://help.obsidian.md/properties を参照。"))
    url = [r for r in link if r["code"] == "URL_NOT_IN_PACKET"]
    assert url and url[0]["path"] == "$.blocks[0].rst" and "inputs.packet.sources" in url[0]["message"]

    broken = _reasons(p, task.task_id, draft_output(b2="プロパティでは ``true`` と ``false を使うと安全です。"))
    rst = [r for r in broken if r["code"] == "RST_SYNTAX"]
    assert rst and rst[0]["path"] == "$.blocks[1].rst" and "close every" in rst[0]["message"]

    # nothing was recorded; the corrected draft is accepted and O-09 is not held by these
    assert p.status(run_id).state == State.PLAN_READY
    p.submit(task.task_id, draft_output(b1=B1, b2=B2))
    assert p.status(run_id).state == State.DRAFT_READY


def test_a_wholly_english_section_of_a_japanese_draft_is_a_finding() -> None:
    japanese = "YAML 1.2 の core schema では true と false だけが真偽値です。" * 4
    draft = (
        "題名\n====\n\n:公開日: 未確定\n:情報基準日: 2026-03-01\n:対象バージョン: 未確認\n:記事状態: 下書き\n\n"
        ".. note::\n\n   AI が書き、人間が確認します。\n\n"
        f"日本語の節\n----------\n\n{japanese}\n\n{japanese}\n\nEnglish section\n---------------\n\n{ENGLISH}\n"
    )
    report = check_draft(draft)
    assert [f.code for f in report.errors] == ["DRAFT_SECTION_LANGUAGE_MISMATCH"]
    assert report.errors[0].line == draft.split("\n").index("English section") + 1
    # the same section in Japanese is no finding, and a short English section is too short to judge
    assert check_draft(draft.replace(ENGLISH, japanese)).errors == []
    assert check_draft(draft.replace(ENGLISH, "See the release notes.")).errors == []
