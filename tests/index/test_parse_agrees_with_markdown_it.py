"""The fast scanner agrees with markdown-it-py (CommonMark + front_matter) on every heading."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.support.examples import examples

from knowledge_harness.index.parse import (
    decode_text,
    frontmatter_line_count,
    heading_key,
    oracle_structure,
    parse_structure,
    scan_structure,
)
from knowledge_harness.vault.note import markdown_lines

EXAMPLE_VAULT = Path(__file__).resolve().parents[2] / "examples" / "vault"
ADVERSARIAL = Path(__file__).with_name("adversarial.md.txt")


def _agree(text: str) -> None:
    expected = oracle_structure(text)
    got = parse_structure(text)
    assert heading_key(got) == heading_key(expected), text
    assert got.line_count == expected.line_count
    assert got.body_start_line == expected.body_start_line


def _adversarial_cases() -> list[str]:
    raw = ADVERSARIAL.read_text(encoding="utf-8")
    cases = raw.split("\n%%%% case\n")
    return [c.replace("<TAB>", "\t").replace("<CR>", "\r") for c in cases if c.strip()]


def test_every_note_of_the_example_vault_gets_the_same_headings_as_markdown_it() -> None:
    notes = sorted(EXAMPLE_VAULT.rglob("*.md")) if EXAMPLE_VAULT.is_dir() else []
    if not notes:
        pytest.skip("examples/vault has no notes yet")
    for path in notes:
        text = decode_text(path.read_bytes())
        if text is not None:
            _agree(text)


@pytest.mark.parametrize("case", _adversarial_cases())
def test_adversarial_document_gets_the_same_headings_as_markdown_it(case: str) -> None:
    _agree(case)


def test_the_scanner_decides_common_documents_without_falling_back() -> None:
    text = "---\ntags: [a]\n---\n# Title\n\nSome text.\n\n- item\n  - nested\n\n```py\n# comment\n```\n\nSetext\n---\n"
    lines = markdown_lines(text)
    assert scan_structure(lines, frontmatter_line_count(lines)) is not None


_FRAGMENTS = [
    "# Heading",
    "## Sub *em*",
    "### deep ###",
    "#no space",
    "   # indented three",
    "    # indented four",
    "Paragraph text",
    "日本語の段落",
    "more text  ",
    "===",
    "---",
    "- - -",
    "***",
    "___",
    "- item",
    "-",
    "* star item",
    "+ plus",
    "1. one",
    "2) two",
    "  - nested",
    "   continued",
    "     five spaces",
    "> quote",
    "> # quoted heading",
    ">",
    "> [!note] callout",
    "```",
    "```python",
    "~~~",
    "````",
    "``` a`b",
    "",
    "",
    "  ",
    "---",
    "...",
    "title: x",
    "- ```",
    "  ```",
    "Foo\tbar",
    "\t# tab heading",
    "#\ttab",
    "<div>",
    "</div>",
    "<!-- c -->",
    "[ref]: /url",
    "[^1]: note",
    "# closing #",
    "## ",
    "a\\#",
    "  >",
]


@given(st.lists(st.sampled_from(_FRAGMENTS), max_size=14), st.sampled_from(["\n", "\r\n"]), st.booleans())
def test_generated_documents_get_the_same_headings_as_markdown_it(lines: list[str], newline: str, final: bool) -> None:
    text = newline.join(lines) + (newline if final else "")
    _agree(text)


@given(st.text(alphabet="#=-*_>+ 1.)`~\nab\t<[]:", max_size=60))
def test_random_character_soup_gets_the_same_headings_as_markdown_it(text: str) -> None:
    _agree(text)


# lines that take the scanner's fast paths (plain text after a blank line, "- text" at column 0,
# blank lines inside list items) next to lines that must not
_FAST_PATH_FRAGMENTS = [
    "- item text",
    "- [[Note]] linked",
    "- [x]: /url",
    "- .dot",
    "- a\tb",
    "-\ttab item",
    "- a`",
    "- ~~~",
    "- )x",
    "- |table|",
    "plain text",
    ".\ttab after dot",
    ") paren",
    "[[Link]] first",
    "[ref]: /u",
    "x",
    "",
    "",
    "  continued",
    "    indented",
    "```",
    "~~~",
    "- ```",
    "  ```",
    "> quote",
    "1. one",
    "# H",
    "Setext",
    "---",
    "===",
    "  - nested",
    "  ===",
    "  ---",
    "> text",
    "> ===",
    "<div>",
]


@pytest.mark.fuzz
@settings(max_examples=examples(2), deadline=None)
@given(st.lists(st.sampled_from(_FAST_PATH_FRAGMENTS), max_size=16), st.booleans())
def test_fast_path_lines_get_the_same_headings_as_markdown_it(lines: list[str], final: bool) -> None:
    text = "\n".join(lines) + ("\n" if final else "")
    _agree(text)
    got = parse_structure(text)
    if got.scanner == "scan":  # code ranges decide what link and tag extraction skips
        assert got.code_lines == oracle_structure(text).code_lines, text
