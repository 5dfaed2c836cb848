"""Screening that asks (issue: ordinary technical requests were rejected): the labelled corpus's rates,
the thresholds, the figures printed in docs/pipeline.md, and the same reading through a real run."""

from __future__ import annotations

from pathlib import Path

import pytest

from knowledge_harness.pipeline.contract import State
from knowledge_harness.pipeline.engine import Pipeline
from knowledge_harness.pipeline.safety import screen
from knowledge_harness.vault.paths import Vault

from ..support.people import PERSON
from ..support.pipeline_helpers import request_note, write_note
from .screening_corpus import PRIVATE, TECHNICAL, Entry

DOC = Path(__file__).resolve().parents[2] / "docs" / "pipeline.md"
MAX_WRONGLY_REJECTED = 0.05


def outcomes(entries: list[Entry]) -> dict[str, int]:
    counts = {"rejected": 0, "asked": 0, "passed": 0}
    for text, props in entries:
        decision = screen(text, props).decision
        counts[{"private": "rejected", "undecidable": "asked"}.get(decision, "passed")] += 1
    return counts


def _row(label: str, entries: list[Entry]) -> str:
    counts = outcomes(entries)
    n = len(entries)
    cells = " | ".join(f"{counts[k]} ({counts[k] / n:.1%})" for k in ("rejected", "asked", "passed"))
    return f"| {label} | {n} | {cells} |"


def figures_table() -> str:
    return "\n".join(
        [
            "| set | requests | rejected | asked once | passed |",
            "|---|---|---|---|---|",
            _row("private-marker words in a technical sense", TECHNICAL),
            _row("really private", PRIVATE),
        ]
    )


def test_the_corpus_is_large_enough_and_bilingual() -> None:
    for entries in (TECHNICAL, PRIVATE):
        assert len(entries) >= 40
        assert len({text for text, _ in entries}) == len(entries)
        assert any(text.isascii() for text, _ in entries) and any(not text.isascii() for text, _ in entries)


def test_wrongly_rejected_at_most_5_percent_and_wrongly_passed_none() -> None:
    technical, private = outcomes(TECHNICAL), outcomes(PRIVATE)
    wrongly_rejected = [text for text, props in TECHNICAL if screen(text, props).decision == "private"]
    assert technical["rejected"] / len(TECHNICAL) <= MAX_WRONGLY_REJECTED, wrongly_rejected
    wrongly_passed = [text for text, props in PRIVATE if screen(text, props).decision in ("clean", "masked")]
    assert private["passed"] == 0, wrongly_passed


def test_the_figures_in_the_docs_are_the_measured_ones() -> None:
    assert figures_table() in DOC.read_text(encoding="utf-8"), figures_table()


@pytest.mark.parametrize(
    "question",
    [
        "GitHubの非公開リポジトリでActionsのキャッシュを使う方法",
        "機密情報をgitに入れない方法",
        "Confidential computing とは",
    ],
)
def test_the_issue_examples_pass_o03_without_a_question(tmp_path: Path, question: str) -> None:
    vault = tmp_path / "v"
    write_note(vault, "Notes/n.md", "# git\n\ngit と GitHub Actions のメモ。\n")
    write_note(vault, "Requests/q.md", request_note(question))
    (vault / ".harness").mkdir(parents=True, exist_ok=True)
    (vault / ".harness" / "pipeline.toml").write_text('[evidence]\nproviders = ["vault"]\n', encoding="utf-8")
    p = Pipeline(Vault.open(vault))
    run_id = p.capture_note("Requests/q.md").run_id
    p.authorize(run_id, actor=PERSON)
    status = p.advance(run_id)
    o03 = next(r for r in status.records if r["operation"] == "O-03")
    assert o03["result"] == "ADVANCE" and o03["state_after"] == "SCREENED"
    assert "PRIVATE_WORD_TECHNICAL" in o03["reason_codes"]
    assert p.detail(run_id)["questions"] == []


def test_a_label_rejects_and_a_marker_that_is_neither_asks_once(tmp_path: Path) -> None:
    vault = tmp_path / "v"
    write_note(vault, "Requests/a.md", request_note("【社外秘】来期の価格改定案を記事にしたい"))
    write_note(vault, "Requests/b.md", request_note("社外秘ファイルを誤って共有しないための共有設定"))
    p = Pipeline(Vault.open(vault))
    a = p.capture_note("Requests/a.md").run_id
    p.authorize(a, actor=PERSON)
    rejected = p.advance(a)
    assert rejected.state == State.REJECTED
    assert next(r for r in rejected.records if r["operation"] == "O-03")["reason_codes"] == ["PRIVATE_MARKER"]
    b = p.capture_note("Requests/b.md").run_id
    p.authorize(b, actor=PERSON)
    asked = p.advance(b)
    assert asked.state == State.AUTHORIZED and asked.waiting_for == "human:Q-01 screening"


def test_a_publishability_answer_at_o01_settles_o03(tmp_path: Path) -> None:
    vault = tmp_path / "v"
    write_note(vault, "Notes/n.md", "# YAML\n\nYAML 1.2 の真偽値は true と false。\n")
    write_note(
        vault, "Requests/q.md", request_note("社内の勉強会で YAML 1.2 の真偽値の扱いを説明したい。", publishable=None)
    )
    (vault / ".harness").mkdir(parents=True, exist_ok=True)
    (vault / ".harness" / "pipeline.toml").write_text('[evidence]\nproviders = ["vault"]\n', encoding="utf-8")
    p = Pipeline(Vault.open(vault))
    run_id = p.capture_note("Requests/q.md").run_id
    assert p.status(run_id).waiting_for == "human:Q-01 publishability"
    p.answer(run_id, "Q-01", "publishable", actor=PERSON)
    p.authorize(run_id, actor=PERSON)
    status = p.advance(run_id)
    o03 = next(r for r in status.records if r["operation"] == "O-03")
    assert o03["result"] == "ADVANCE", o03
    assert "PUBLISHABILITY_ALREADY_ANSWERED" in o03["reason_codes"]
    detail = p.detail(run_id)
    assert [q["kind"] for q in detail["questions"]] == ["publishability"]
    assert detail["human_budget"]["total_asked"] == 1
    # without the O-01 answer the same text is asked about at O-03
    write_note(vault, "Requests/r.md", request_note("社内の勉強会で YAML 1.2 の真偽値の扱いを説明したい。"))
    other = p.capture_note("Requests/r.md").run_id
    p.authorize(other, actor=PERSON)
    assert p.advance(other).waiting_for == "human:Q-01 screening"
