"""Fuzzing the frontmatter span detector and the metadata-only writer with unstructured input.

tests/vault/test_frontmatter_write_property.py assembles notes from known pieces; here the
input is soup (bytes, YAML-ish characters, line endings, BOMs) and the properties are the ones
that must hold for ANY input: the detector never raises and its span is consistent; the writer
either refuses with a clear `Refused` error (and the caller keeps the original bytes) or
returns bytes whose other properties and body are unchanged and whose blocks read back exactly.
Short under `make test` (the "ci" hypothesis profile), long under `make fuzz`.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from knowledge_harness.errors import HarnessError
from knowledge_harness.vault.frontmatter import BOM, find_frontmatter
from knowledge_harness.vault.note import parse_note
from knowledge_harness.vault.trust_splice import replace_trust_blocks

pytestmark = pytest.mark.fuzz

YAMLISH = "-:#'\"[]{}|>&*!%@`,?\t \n\r\\abcxyz019日本ー\u2028\x85"
LINES = [
    "---",
    "--- ",
    "---\r",
    "...",
    "title: x",
    "verification:",
    "  status: verified",
    "  level: 2",
    "evidence:",
    "  sources:",
    "    - url: https://e.org/a",
    "evidence: {status: grounded}",
    "verification: &a {x: 1}",
    "other: *a",
    "tags: [a, b]",
    "  - item",
    "# comment",
    "key: |",
    "  literal",
    "key: >+",
    "\tkey: tab",
    "a: 'quoted",
    "日本語: 値",
    "",
    " ",
    "verification: null",
    "body text",
]


def _soup() -> st.SearchStrategy[bytes]:
    line = st.one_of(st.sampled_from(LINES), st.text(alphabet=YAMLISH, max_size=20))
    text = st.tuples(
        st.booleans(),
        st.lists(line, max_size=14),
        st.sampled_from(["\n", "\r\n", "\r"]),
        st.booleans(),
    ).map(lambda t: ("\ufeff" if t[0] else "") + t[2].join(t[1]) + (t[2] if t[3] else ""))
    return st.one_of(text.map(lambda s: s.encode("utf-8", "surrogatepass")), st.binary(max_size=200))


VERIFICATION: dict[str, Any] = {
    "status": "verified",
    "level": 2,
    "validator": "lexical-1",
    "last_validated": dt.date(2026, 9, 1),
    "revalidate_after": dt.date(2026, 11, 30),
    "content_sha256": "0" * 64,
}
EVIDENCE: dict[str, Any] = {
    "status": "grounded",
    "source_count": 1,
    "sources": [{"url": "https://e.org/a", "snapshot_sha256": "1" * 64, "verdict": "supported"}],
}


def _first_closing_fence(raw: bytes) -> tuple[int, int] | None:
    """The plain reading of the rule, line by line: (body start, closing line) or None."""
    lines = raw.removeprefix(BOM).split(b"\n")
    if len(lines) < 2 or lines[0].rstrip(b"\r").rstrip(b" \t") != b"---":
        return None
    offset = len(raw) - len(raw.removeprefix(BOM)) + len(lines[0]) + 1
    for number, line in enumerate(lines[1:], start=2):
        end = offset + len(line) + (1 if offset + len(line) < len(raw) else 0)
        if line.rstrip(b"\r").rstrip(b" \t") == b"---":
            return end, number
        offset = end
    return None


@given(_soup())
@example(b"---\n---\n")
@example(b"---\n--- \r\nx\n---\n")
@example(b"---\na\n----\n---")
@example(b"\xef\xbb\xbf---\r\n---\r\n")
@example(b"---")
@example(b"---\n")
@example(b"---\r---\r")
def test_the_span_detector_never_raises_and_its_span_is_consistent(raw: bytes) -> None:
    span = find_frontmatter(raw)
    assert ((span.body_start, span.close_line) if span else None) == _first_closing_fence(raw)
    if span is None:
        return
    start = len(BOM) if raw.startswith(BOM) else 0
    assert start < span.yaml_start <= span.yaml_end < span.body_start <= len(raw)
    assert raw[start : span.yaml_start].rstrip(b"\r\n").rstrip(b" \t") == b"---"
    assert raw[span.yaml_end : span.body_start].rstrip(b"\r\n").rstrip(b" \t") == b"---"
    assert raw[span.yaml_start - 1 : span.yaml_start] == b"\n"
    assert raw[: span.yaml_end].count(b"\n") + 1 == span.close_line
    assert span.newline in (b"\n", b"\r\n")


@given(_soup(), st.booleans(), st.booleans())
@example(b"---\nverification: &a {x: 1}\nother: *a\n---\n", True, True)
@example(b"---\nevidence: {status: grounded}\n---\n", True, True)
@example(b"---\ntitle: x\n---", True, False)
@example(b"\xef\xbb\xbfbody only", True, True)
@example(b"---\r\ntitle: x\r\n---\r\nbody", True, True)
def test_the_writer_refuses_clearly_or_changes_only_the_two_blocks(raw: bytes, write_v: bool, write_e: bool) -> None:
    verification = VERIFICATION if write_v else None
    evidence = EVIDENCE if write_e else None
    try:
        new = replace_trust_blocks(raw, verification, evidence, path="fuzz.md")
    except HarnessError as exc:
        assert exc.message.startswith("fuzz.md"), exc.message  # a clear sentence naming the note
        return
    if verification is None and evidence is None:
        assert new == raw
        return
    before, after = parse_note("fuzz.md", raw), parse_note("fuzz.md", new)
    assert after.problem is None, after.problem
    written = {k: v for k, v in (("verification", verification), ("evidence", evidence)) if v is not None}
    for key in written:
        assert key in after.properties
    others_before = {k: v for k, v in before.properties.items() if k not in written}
    others_after = {k: v for k, v in after.properties.items() if k not in written}
    assert others_after == others_before
    old_span, new_span = find_frontmatter(raw), find_frontmatter(new)
    assert new_span is not None
    old_body = raw[old_span.body_start :] if old_span else raw.removeprefix(BOM)
    assert new[new_span.body_start :] == old_body
    # writing the same blocks again changes nothing (idempotent)
    assert replace_trust_blocks(new, verification, evidence, path="fuzz.md") == new
