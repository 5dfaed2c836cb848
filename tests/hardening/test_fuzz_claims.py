"""Fuzzing the claim splitter (trust/validate/claims.py, trust/validate/text.py).

Properties for any body: it never raises; every claim's lines lie within the note (counted in the
original file); ids are stable (the same body gives the same ids) and unique within the note;
at most MAX_CLAIMS claims; sentence spans lie within their text. Short under `make test`, long
under `make fuzz`.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from knowledge_harness.trust.validate.claims import MAX_CLAIMS, extract_claims, extract_claims_from_body
from knowledge_harness.trust.validate.text import split_sentences
from knowledge_harness.vault.note import markdown_lines, parse_note

pytestmark = pytest.mark.fuzz

PIECES = [
    "富士山は日本で最も高い山である。",
    "「引用。」と彼は言った。",
    "Dr. Smith paid $3.50 at the U.S. store. Then he left.",
    "It is 3,776.24 m high.",
    "- 箇条書きの主張である",
    "- [ ] a task item here",
    "1. Ordered item with words",
    "> a quote is not a claim",
    "```",
    "code line.",
    "| a | b |",
    "# Heading",
    "Setext",
    "===",
    "[^1]: https://e.org/a",
    "See [site](https://e.org/b) and [[Wiki|alias]] text[^1].",
    "<https://e.org/c> autolink sentence here.",
    "## 参考資料",
    "- https://e.org/d",
    "<div>html block</div>",
    "**bold** _em_ ~~del~~ ==mark== `code` words.",
    "...",
    "?!？！。．",
    "",
]


@given(
    st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=40)), max_size=25),
    st.sampled_from(["\n", "\r\n"]),
    st.integers(1, 50),
)
@example(["a.", "b."], "\n", 1)
@example(["「", "」"], "\n", 3)
def test_claims_never_crash_stay_in_the_note_and_have_stable_ids(pieces: list[str], newline: str, first: int) -> None:
    body = newline.join(pieces)
    claims = extract_claims_from_body(body, first_line=first, references=["https://e.org/x"])
    last = first + max(len(body.splitlines()), 1) - 1
    assert len(claims) <= MAX_CLAIMS
    ids = [c.id for c in claims]
    assert len(ids) == len(set(ids))
    for c in claims:
        assert first <= c.line <= c.end_line <= last, (c, first, last)
        assert c.text.strip()
    again = extract_claims_from_body(body, first_line=first, references=["https://e.org/x"])
    assert [c.id for c in again] == ids


@given(st.text(max_size=200))
def test_sentence_spans_lie_within_their_text(text: str) -> None:
    for span in split_sentences(text):
        assert 0 <= span.start <= span.end <= len(text)


@given(st.binary(max_size=300))
def test_claims_of_any_file_bytes_never_crash(raw: bytes) -> None:
    note = parse_note("fuzz.md", raw)
    if note.problem is not None and note.span is None and not note.text:
        return
    line_count = max(len(markdown_lines(note.text)), 1)
    for c in extract_claims(note):
        assert 1 <= c.line <= c.end_line <= line_count + 1
