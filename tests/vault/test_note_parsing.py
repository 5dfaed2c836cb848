"""Reading notes: frontmatter spans on raw bytes, safe YAML 1.2 properties, problems with positions, hashes."""

from __future__ import annotations

import hashlib

import pytest

from knowledge_harness.vault.note import parse_note
from knowledge_harness.vault.references import references_sha256


def test_frontmatter_properties_and_body_are_separated() -> None:
    note = parse_note("a.md", b"---\ntitle: Alpha\ntags: [x, y]\n---\n# Alpha\n")
    assert note.properties == {"title": "Alpha", "tags": ["x", "y"]}
    assert note.body_bytes == b"# Alpha\n"
    assert note.body_start_line == 5
    assert note.title == "Alpha"


def test_bom_is_kept_in_raw_bytes_and_frontmatter_still_found() -> None:
    note = parse_note("b.md", b"\xef\xbb\xbf---\ntitle: BOM\n---\nbody\n")
    assert note.has_bom
    assert note.properties["title"] == "BOM"
    assert note.body_bytes == b"body\n"


def test_crlf_frontmatter_is_found_and_body_keeps_crlf() -> None:
    note = parse_note("c.md", b"---\r\ntitle: CRLF\r\n---\r\nline one\r\nline two\r\n")
    assert note.properties["title"] == "CRLF"
    assert note.span is not None and note.span.newline == b"\r\n"
    assert note.body_bytes == b"line one\r\nline two\r\n"


def test_closing_fence_without_final_newline() -> None:
    note = parse_note("d.md", b"---\ntitle: x\n---")
    assert note.properties == {"title": "x"}
    assert note.body_bytes == b""


def test_unclosed_opening_fence_is_not_frontmatter() -> None:
    raw = b"---\ntitle: x\nno closing line\n"
    note = parse_note("e.md", raw)
    assert not note.has_frontmatter
    assert note.body_bytes == raw


def test_triple_dash_in_the_body_is_not_a_second_frontmatter() -> None:
    note = parse_note("f.md", b"---\na: 1\n---\ntext\n---\nmore: 2\n---\n")
    assert note.properties == {"a": 1}
    assert note.body_bytes == b"text\n---\nmore: 2\n---\n"


def test_frontmatter_must_start_on_the_first_line() -> None:
    note = parse_note("g.md", b"\n---\na: 1\n---\n")
    assert not note.has_frontmatter


@pytest.mark.parametrize("word", ["yes", "no", "on", "off", "y", "n"])
def test_yaml_1_1_booleans_stay_strings(word: str) -> None:
    note = parse_note("h.md", f"---\nflag: {word}\n---\n".encode())
    assert note.properties["flag"] == word


def test_sexagesimal_looking_values_stay_strings_and_dates_are_dates() -> None:
    note = parse_note("i.md", b"---\ntime: 12:30\nday: 2026-09-01\nn: 0o17\n---\n")
    assert note.properties["time"] == "12:30"
    assert str(note.properties["day"]) == "2026-09-01"
    assert note.properties["n"] == 15


def test_malformed_yaml_is_a_problem_with_file_line_and_column() -> None:
    raw = b"---\ntitle: ok\ntags: [a, b\nnext: 1\n---\nbody\n"
    note = parse_note("j.md", raw)
    assert note.problem is not None
    assert note.problem.message.startswith("Malformed YAML")
    assert note.problem.line is not None and 2 <= note.problem.line <= 5
    assert note.problem.column is not None
    assert note.properties == {}
    assert note.body_bytes == b"body\n"


def test_frontmatter_that_is_not_a_mapping_is_a_problem() -> None:
    note = parse_note("k.md", b"---\n- a\n- b\n---\n")
    assert note.problem is not None and "mapping" in note.problem.message


def test_alias_bombs_are_refused() -> None:
    lines = ["a: &a [x, x]"] + [f"b{i}: &b{i} [*a, *a]" for i in range(20)]
    raw = ("---\n" + "\n".join(lines) + "\n---\n").encode()
    note = parse_note("l.md", raw)
    assert note.problem is not None and "aliases" in note.problem.message


def test_oversized_frontmatter_is_refused() -> None:
    raw = b"---\n" + b"k: " + b"v" * (70 * 1024) + b"\n---\n"
    note = parse_note("m.md", raw)
    assert note.problem is not None and "KiB" in note.problem.message


def test_deep_nesting_is_refused() -> None:
    raw = b"---\na: " + b"[" * 60 + b"]" * 60 + b"\n---\n"
    note = parse_note("n.md", raw)
    assert note.problem is not None and "nested" in note.problem.message


def test_non_utf8_and_binary_notes_are_problems_not_crashes() -> None:
    sjis = parse_note("o.md", "# 日本語".encode("shift_jis"))
    assert sjis.problem is not None and "UTF-8" in sjis.problem.message
    binary = parse_note("p.md", b"\x00\x01\x02")
    assert binary.problem is not None


def test_content_hash_is_sha256_of_the_bytes_after_the_closing_line() -> None:
    raw = b"---\r\ntitle: x\r\n---\r\nBody\r\n"
    assert parse_note("q.md", raw).content_sha256 == hashlib.sha256(b"Body\r\n").hexdigest()
    plain = b"# no frontmatter\n"
    assert parse_note("r.md", plain).content_sha256 == hashlib.sha256(plain).hexdigest()


def test_references_come_from_the_property_and_the_references_section() -> None:
    raw = (
        "---\nreferences:\n  - https://a.example/x\n  - {url: https://b.example/y, title: B}\n---\n"
        "Intro https://not-a-reference.example/\n\n"
        "## 参考資料\n\n- [A](https://a.example/x)\n- https://c.example/z。\n"
        "```\nhttps://in-code.example/\n```\n"
        "## Next\n\nhttps://after.example/\n"
    ).encode()
    note = parse_note("s.md", raw)
    assert note.references == ["https://a.example/x", "https://b.example/y", "https://c.example/z"]
    expected = hashlib.sha256(
        "\n".join(sorted(["https://a.example/x", "https://b.example/y", "https://c.example/z"])).encode()
    ).hexdigest()
    assert note.references_sha256 == expected == references_sha256(reversed(note.references))
