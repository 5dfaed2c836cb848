"""Fuzzing the reasoning index's structural scanner against markdown-it-py (the oracle).

tests/index/test_parse_agrees_with_markdown_it.py holds the oracle and curated fragments; this
adds bigger, nastier documents (nesting, containers, HTML blocks, setext runs, tabs, CR, Unicode
whitespace) and checks the full Structure, not only headings. Short under `make test`, long
under `make fuzz`. Every disagreement found becomes an `@example` here.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from knowledge_harness.index.parse import heading_key, oracle_structure, parse_structure

pytestmark = pytest.mark.fuzz

PIECES = [
    "# H",
    "## H2 ##",
    "###### six",
    "####### seven",
    "#\t",
    " ## lead",
    "    # code",
    "Title",
    "=",
    "===",
    "--",
    "---",
    "- - -",
    "* * *",
    "- # in list",
    "1. # in ordered",
    "> # in quote",
    "> ",
    ">> nested",
    "- ",
    "  - ",
    "    - deep",
    "```",
    "```md",
    "~~~",
    "`````",
    "  ```",
    "<div>",
    "</div>",
    "<pre>",
    "</pre>",
    "<!--",
    "-->",
    "<?php",
    "?>",
    "<![CDATA[",
    "]]>",
    "<script>",
    "</script>",
    "<custom-tag>",
    "[ref]: http://x",
    "[ref]:",
    "   http://x 'title'",
    "| a | b |",
    "|---|---|",
    "\t# tab",
    " \t# mixed",
    "\u3000# ideographic space",
    "\u00a0# nbsp",
    "text",
    "日本語の本文",
    "",
    "   ",
    "---",
    "title: fm",
    "...",
    "\\# escaped",
    "#hashtag",
    "# *emph* `code` [[link]]",
]


@given(
    st.lists(
        st.one_of(st.sampled_from(PIECES), st.text(alphabet="#=->*`~ \t<!/[]:|1.)abc日", max_size=12)), max_size=30
    ),
    st.sampled_from(["\n", "\r\n", "\r"]),
    st.booleans(),
)
@example(["---", "title: fm", "---", "# H"], "\n", True)
@example(["<div>", "# not a heading", "", "# heading"], "\n", True)
@example(["- a", "", "  # in list", "Title", "==="], "\r\n", False)
@example(["> Title", "> ---"], "\n", False)
@example(["[1", "]:", "="], "\n", False)  # fuzz-found: a reference definition label spanning lines
@example(["[a", "b]: /url", "---"], "\n", True)
@example([">> nested", "    - deep", "####### seven", "="], "\n", False)  # fuzz-found: lazy lines in a container
def test_the_scanner_agrees_with_markdown_it(pieces: list[str], newline: str, final: bool) -> None:
    text = newline.join(pieces) + (newline if final else "")
    expected = oracle_structure(text)
    got = parse_structure(text)
    assert heading_key(got) == heading_key(expected), repr(text)
    assert got.line_count == expected.line_count, repr(text)
    assert got.body_start_line == expected.body_start_line, repr(text)


@given(st.text(max_size=300))
def test_the_scanner_agrees_with_markdown_it_on_any_unicode(text: str) -> None:
    assert heading_key(parse_structure(text)) == heading_key(oracle_structure(text)), repr(text)
