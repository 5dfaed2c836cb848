"""Property tests of the metadata-only writer: every byte outside the two blocks is kept.

Random notes are assembled from known pieces (so the test knows where the old `verification` and
`evidence` blocks are): other properties with comments, quotes, flow and block lists, Japanese,
blank lines, CRLF or LF, a BOM or not, random bodies with or without a final newline, and no
frontmatter at all. After the splice the bytes must equal the original with exactly those two
blocks replaced by the emitted ones (or appended at the end of the frontmatter), and reading
the note must give exactly the new mappings and the old other properties and body.
"""

from __future__ import annotations

import datetime as dt
import string
from typing import Any

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from knowledge_harness.vault.frontmatter import BOM, find_frontmatter
from knowledge_harness.vault.note import parse_note
from knowledge_harness.vault.trust_splice import emit_block, replace_trust_blocks
from tests.support.examples import examples

WORDS = ["alpha", "beta", "日本語", "知識", "ノート", "yes", "on", "12:30", "2026-01-01", "v1.2", "a b", "x-y"]
KEYS = ["title", "tags", "aliases", "created", "source", "type", "status", "rating", "概要", "provenance", "references"]
TRICKY = [
    "yes",
    "No",
    "on",
    "OFF",
    "y",
    "12:30",
    "1:20:30",
    "2026-09-01",
    "2026-09-01T10:00:00Z",
    "null",
    "~",
    "true",
    "0o17",
    "0x1F",
    "1_000",
    "1e3",
    ".5",
    "#hash",
    "a: b",
    "- item",
    "[x]",
    "{y}",
    "'q'",
    '"dq"',
    " lead",
    "trail ",
    "",
    "多言語 テキスト",
    "line\nbreak",
    "tab\there",
    "*star",
    "&amp",
    "!bang",
    "%pc",
    "@at",
    "`bt`",
]

word = st.sampled_from(WORDS)
comment = st.sampled_from(["", "  # note", " # コメント", "  #x"])


@st.composite
def scalar_entry(draw: st.DrawFn, key: str) -> list[str]:
    value = draw(
        st.one_of(
            word.filter(lambda w: w not in ("yes", "on", "12:30", "2026-01-01")),
            word.map(lambda w: f"'{w}'"),
            word.map(lambda w: f'"{w}"'),
            st.integers(-1000, 1000).map(str),
            st.just("2026-09-01"),
            st.just(""),
        )
    )
    return [f"{key}: {value}{draw(comment) if value else ''}"]


@st.composite
def list_entry(draw: st.DrawFn, key: str) -> list[str]:
    items = draw(
        st.lists(st.one_of(word.map(lambda w: f'"{w}"'), st.sampled_from(["a", "b", "知識"])), min_size=0, max_size=4)
    )
    if draw(st.booleans()):
        return [f"{key}: [{', '.join(items)}]{draw(comment)}"]
    indent = draw(st.sampled_from(["", "  ", "    "]))
    return [f"{key}:"] + [f"{indent}- {item}" for item in items]


@st.composite
def mapping_entry(draw: st.DrawFn, key: str) -> list[str]:
    indent = draw(st.sampled_from(["  ", "    "]))
    lines = [f"{key}:{draw(comment)}"]
    for sub in draw(
        st.lists(st.sampled_from(["origin", "generator", "model", "名前"]), min_size=1, max_size=3, unique=True)
    ):
        lines.append(f"{indent}{sub}: {draw(word.filter(lambda w: ':' not in w and w not in ('yes', 'on')))}")
    return lines


@st.composite
def old_trust_block(draw: st.DrawFn, key: str) -> list[str]:
    if draw(st.integers(0, 5)) == 0:
        return [f"{key}:{draw(st.sampled_from(['', ' ~', ' null']))}"]
    indent = draw(st.sampled_from(["  ", "    "]))
    lines = [f"{key}:{draw(comment)}", f"{indent}status: {draw(st.sampled_from(['reviewed', 'verified', 'great']))}"]
    if draw(st.booleans()):
        lines.append(f"{indent}# inside the block")
    lines.append(f"{indent}level: {draw(st.integers(0, 9))}{draw(comment)}")
    if draw(st.booleans()):
        lines += [f"{indent}sources:", f"{indent}  - url: https://e.org/a", f"{indent}    verdict: supported"]
    if draw(st.booleans()):
        lines.append(f"{indent}note: |")
        lines += [f"{indent}  literal line {i}" for i in range(draw(st.integers(1, 2)))]
    return lines


text_value = st.one_of(st.sampled_from(TRICKY), st.text(alphabet=string.ascii_letters + "日本 :#-'\"", max_size=12))
json_scalar = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    text_value,
    st.dates(dt.date(1990, 1, 1), dt.date(2100, 1, 1)),
)


@st.composite
def new_verification(draw: st.DrawFn) -> dict[str, Any]:
    mapping: dict[str, Any] = {
        "status": draw(st.sampled_from(["unverified", "reviewed", "verified", "disputed"])),
        "level": draw(st.integers(0, 3)),
        "validator": draw(text_value),
        "last_validated": draw(st.dates(dt.date(2020, 1, 1), dt.date(2030, 1, 1))),
        "revalidate_after": draw(st.dates(dt.date(2020, 1, 1), dt.date(2030, 1, 1))),
        "content_sha256": draw(st.text(alphabet="0123456789abcdef", min_size=64, max_size=64)),
    }
    if draw(st.booleans()):
        mapping["extra"] = draw(json_scalar)
    return mapping


@st.composite
def new_evidence(draw: st.DrawFn) -> dict[str, Any]:
    sources = draw(
        st.lists(
            st.fixed_dictionaries(
                {
                    "url": st.sampled_from(
                        ["https://e.org/a", "http://127.0.0.1:8731/x?y=1#z", "https://例え.jp/ページ"]
                    ),
                    "snapshot_sha256": st.one_of(
                        st.none(), st.text(alphabet="0123456789abcdef", min_size=64, max_size=64)
                    ),
                    "fetched_at": st.one_of(st.none(), st.just("2026-09-01T10:00:00Z")),
                    "verdict": st.sampled_from(["supported", "unsupported", "contradicted", "no_evidence"]),
                }
            ),
            max_size=3,
        )
    )
    return {
        "status": draw(st.sampled_from(["grounded", "partial", "insufficient", "unreachable"])),
        "source_count": len(sources),
        "sources": sources,
    }


body_line = st.one_of(
    st.sampled_from(["# Heading", "---", "text with 日本語", "", "- [ ] task", "verification: no", "  indented"]),
    st.text(
        alphabet=string.printable.replace("\r", "").replace("\n", "").replace("\x0b", "").replace("\x0c", "") + "日本",
        max_size=30,
    ),
)


@st.composite
def note_case(draw: st.DrawFn) -> dict[str, Any]:
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    bom = draw(st.booleans())
    body_lines = draw(st.lists(body_line, max_size=6))
    body = newline.join(body_lines) + (newline if draw(st.booleans()) else "")
    has_frontmatter = draw(st.integers(0, 9)) > 0
    if not has_frontmatter and find_frontmatter(body.encode()) is not None:
        body = "plain first line" + newline + body  # a body that is itself frontmatter is not this case
    entries: list[tuple[str, list[str]]] = []  # (kind, lines) where kind is "other" / "verification" / "evidence"
    if has_frontmatter:
        keys = draw(st.lists(st.sampled_from(KEYS), max_size=6, unique=True))
        for key in keys:
            maker = draw(st.sampled_from([scalar_entry, list_entry, mapping_entry]))
            entries.append(("other", draw(maker(key))))
            for _ in range(draw(st.integers(0, 1))):
                entries.append(("other", [draw(st.sampled_from(["", "# top comment", "#", "# ---"]))]))
        for block in ("verification", "evidence"):
            if draw(st.booleans()):
                entries.insert(draw(st.integers(0, len(entries))), (block, draw(old_trust_block(block))))
    return {
        "newline": newline,
        "bom": bom,
        "body": body,
        "has_frontmatter": has_frontmatter,
        "entries": entries,
        "verification": draw(new_verification()),
        "evidence": draw(new_evidence()),
    }


def assemble(case: dict[str, Any], replace: dict[str, bytes] | None = None) -> bytes:
    nl = case["newline"].encode()
    out = BOM if case["bom"] else b""
    if not case["has_frontmatter"] and replace is None:
        return out + case["body"].encode()
    out += b"---" + nl
    present = set()
    for kind, lines in case["entries"]:
        if replace is not None and kind in replace:
            present.add(kind)
            out += replace[kind]
        else:
            out += b"".join(line.encode() + nl for line in lines)
    if replace is not None:
        for kind in ("verification", "evidence"):
            if kind not in present:
                out += replace[kind]
    return out + b"---" + nl + case["body"].encode()


@pytest.mark.fuzz
@settings(
    max_examples=examples(3), deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]
)
@given(note_case())
def test_splice_changes_only_the_two_blocks_and_reads_back_exactly(case: dict[str, Any]) -> None:
    old = assemble(case)
    old_note = parse_note("n.md", old)
    new = replace_trust_blocks(old, case["verification"], case["evidence"])
    nl = case["newline"].encode()
    if not case["has_frontmatter"] and nl not in case["body"].encode():
        nl = b"\n"  # a note without frontmatter and without line breaks gets LF
        case = {**case, "newline": "\n"}
    expected = assemble(
        case,
        {
            "verification": emit_block("verification", case["verification"], nl),
            "evidence": emit_block("evidence", case["evidence"], nl),
        },
    )
    note(f"old={old!r}\nnew={new!r}\nexpected={expected!r}")
    assert new == expected
    new_note = parse_note("n.md", new)
    assert new_note.problem is None
    assert new_note.properties["verification"] == case["verification"]
    assert new_note.properties["evidence"] == case["evidence"]
    others_old = {k: v for k, v in old_note.properties.items() if k not in ("verification", "evidence")}
    others_new = {k: v for k, v in new_note.properties.items() if k not in ("verification", "evidence")}
    assert others_new == others_old
    assert new_note.body_bytes == old_note.body_bytes.removeprefix(BOM)
    if b"\r\n" not in old and case["has_frontmatter"]:
        assert b"\r" not in new.replace(b"\r\n", b"")
    if case["newline"] == "\r\n" and (case["has_frontmatter"] or "\r\n" in case["body"]):
        assert b"\n" not in new.replace(b"\r\n", b"")  # CRLF stays CRLF, no stray LF or \r\r\n


@pytest.mark.fuzz
@settings(max_examples=examples(1), deadline=None)
@given(note_case())
def test_writing_the_same_blocks_twice_is_idempotent(case: dict[str, Any]) -> None:
    once = replace_trust_blocks(assemble(case), case["verification"], case["evidence"])
    assert replace_trust_blocks(once, case["verification"], case["evidence"]) == once
