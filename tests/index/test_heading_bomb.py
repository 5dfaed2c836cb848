"""A note with more headings than the index keeps (a heading bomb: 20 MB, 1.5 M headings held
1.3 GB): the first MAX_HEADINGS are its sections, the rest is the last section's text, and a
finding says so. Memory is measured in bench/index_bench.py (the heading-bomb case)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.support.index_vaults import write_note

from knowledge_harness.index import parse, query
from knowledge_harness.index.build import build_index
from knowledge_harness.index.record import parse_record
from knowledge_harness.index.search import note_document
from knowledge_harness.vault.paths import Vault


def test_the_first_max_headings_are_kept_and_a_finding_names_the_rest() -> None:
    count = parse.MAX_HEADINGS + 7
    raw = "".join(f"# Part {i}\nsee [[Other {i}]]\n" for i in range(count)).encode()
    rec = parse_record("bomb.md", raw)
    assert rec["heading_count"] == parse.MAX_HEADINGS == len(rec["headings"])
    last = rec["headings"][-1]
    assert last["title"] == f"Part {parse.MAX_HEADINGS - 1}"
    assert last["end_line"] == rec["line_count"] == 2 * count  # the dropped headings are its text
    first_dropped = 2 * parse.MAX_HEADINGS + 1
    assert rec["error"] == {
        "message": f"The note has {count} headings; the first {parse.MAX_HEADINGS} are its sections, "
        f"the headings from line {first_dropped} on are read as the last section's text.",
        "line": first_dropped,
        "column": None,
    }
    assert len(rec["links"]) == count  # the text past the cap is still read: its links count


@pytest.fixture
def small_cap(monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(parse, "MAX_HEADINGS", 3)
    return 3


def test_setext_headings_and_a_yaml_error_keep_both_findings(small_cap: int) -> None:
    raw = b"---\nwhen: {{date}}\n---\nA\n=\n\nB\n-\n\n# C\n\n# D\ntext\n\nE\n=\n"
    rec = parse_record("n.md", raw)
    assert rec["heading_titles"] == ["A", "B", "C"]
    assert rec["error"]["message"].startswith("Malformed YAML")
    assert rec["error"]["message"].endswith(
        "The note has 5 headings; the first 3 are its sections, the headings from line 12 on are read as the last section's text."
    )


def test_the_markdown_it_fallback_keeps_as_many(small_cap: int) -> None:
    raw = b"# A\r# B\r# C\r# D\rtext\r"  # bare carriage returns: markdown-it decides the structure
    rec = parse_record("n.md", raw)
    assert rec["parser"] == "markdown-it"
    assert [h["title"] for h in rec["headings"]] == ["A", "B", "C"]
    assert rec["error"]["line"] == 4


def test_a_capped_note_builds_answers_and_searches_within_the_cap(tmp_path: Path, small_cap: int) -> None:
    write_note(tmp_path, "bomb.md", "".join(f"# Part {i}\nword{i}\n" for i in range(6)))
    write_note(tmp_path, "plain.md", "# Plain\nword0\n")
    handle = Vault.open(tmp_path)
    outcome = build_index(handle)
    assert [(e["path"], e["line"]) for e in outcome.errors] == [("bomb.md", 7)]
    answer = query.note_headings(handle, "bomb.md")
    assert answer.heading_count == 3 and answer.headings[-1]["end_line"] == 12
    doc = note_document("bomb.md", (tmp_path / "bomb.md").read_bytes(), "", "bomb", [], [])
    assert [s.heading for s in doc.sections] == ["Part 0", "Part 1", "Part 2"]
    assert "word5" in doc.sections[-1].text  # the text past the cap is searchable in the last section
