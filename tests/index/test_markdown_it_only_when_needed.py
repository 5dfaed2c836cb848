"""Headings with code spans and plain link reference definitions are decided without markdown-it,
exactly as markdown-it-py decides them; a build whose notes need nothing more never imports it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.support.examples import examples

from knowledge_harness.index.parse import (
    _code_spans_only,
    heading_key,
    inline_text,
    markdown_it_parsers,
    oracle_structure,
    parse_structure,
    reduce_inline,
)

HEADINGS = [
    "Use `setHeading` instead of a `<h1>`, `<h2>`",
    "`registerDomEvent(el, event, handler)`",
    "Listening to `vault.on('create')`",
    "The protocol (what bench/retrieval_eval.py should measure)",
    "日期 & 时间",
    "[[属性]]",
    "a `` b ` c `` d",  # a run closes only at a run of the same length
    "` unmatched and `` also",
    "`  ` and ` x `",  # one space is stripped from each side unless all are spaces
    "`a_b` x_y _z_",  # emphasis outside the span: markdown-it decides
    "&amp; and &#35; and & alone",
    "[a](b) `c`",
    "*em* `c`",
    "x\\_y `c`",
    "![img] `c`",
    "<b> `c`",
]


def _markdown_it_text(content: str) -> str:
    tokens = markdown_it_parsers()[0].parseInline(content)
    return reduce_inline(tokens[0].children if tokens else None)


@pytest.mark.parametrize("content", HEADINGS)
def test_a_heading_title_is_the_text_markdown_it_gives(content: str) -> None:
    assert inline_text(content) == _markdown_it_text(content)


def test_code_spans_and_literal_markup_are_decided_without_markdown_it() -> None:
    assert _code_spans_only("Use `setHeading` instead of a `<h1>`") == "Use setHeading instead of a <h1>"
    assert _code_spans_only("retrieval_eval.py & [[x]]") == "retrieval_eval.py & [[x]]"
    assert _code_spans_only("*em* `c`") is None
    assert _code_spans_only("&amp; `c`") is None


_PIECES = ["`", "``", " ", "a", "_", "*", "日", "\\", "[", "]", "(", ")", "<", "&", "&amp;", "&#", "!", "x_y", "。"]


@settings(max_examples=examples(1), deadline=None)
@given(st.lists(st.sampled_from(_PIECES), min_size=1, max_size=12))
def test_headings_of_code_spans_and_markup_get_markdown_its_text(pieces: list[str]) -> None:
    content = "".join(pieces).strip() or "`"
    assert inline_text.__wrapped__(content) == _markdown_it_text(content), repr(content)


DEFINITIONS = [
    '[ref4]: https://example.org/review "heading"\n# [ref4] `x`\n',
    "[^4]: An agent narrows candidates\n# H\n",
    "[^1]: 这是一个脚注。\n# [^1]\n",
    "[a]: javascript:alert(1)\n# [a]\n",  # an unsafe scheme is no definition
    "[a]: JavaScript:x\n# [a]\n",
    "[a]: data:image/png;base64,x\n# [a]\n",
    "[a]: /u 'title'\n# [a]\n",
    "[a]: /u (title)\n# [a]\n",
    '[a]: /u "multi\nline"\n# [a]\n',
    '[a]: /u "t" trailing\n# [a]\n',
    '[a]: /u "a\\"b"\n# [a]\n',
    "[a]: a(b)c\n# [a]\n",
    "[a]: <a b>\n# [a]\n",
    "[a]: x&amp;y\n# [a]\n",
    "[a]:\n/next-line\n# [a]\n",
    "[a]: http://[::1]/\n# [a]\n",
]


@pytest.mark.parametrize("text", DEFINITIONS)
def test_link_reference_definitions_are_read_as_markdown_it_reads_them(text: str) -> None:
    got, expected = parse_structure(text), oracle_structure(text)
    assert (heading_key(got), got.line_count) == (heading_key(expected), expected.line_count)


def test_a_build_of_notes_that_need_no_markdown_it_does_not_import_it(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "a.md").write_text('# Use `code` here\n\n[ref]: https://example.org "t"\n[^1]: a note\n')
    (vault / "b.md").write_text("# retrieval_eval & [[a]]\n\nSee [[a]].\n")
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from knowledge_harness.index.build import build_index\n"
        "from knowledge_harness.vault.paths import Vault\n"
        f"build_index(Vault.open(Path({str(vault)!r})), full=True, workers=1)\n"
        "print(sorted(m for m in sys.modules if m.startswith('markdown_it')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
    assert (vault / ".harness" / "index" / "manifest.json").is_file()


def test_a_large_build_freezes_what_it_keeps_before_the_collector_runs_again(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    for i in range(3):
        (vault / f"n{i}.md").write_text(f"# Note {i}\n\nSee [[n{(i + 1) % 3}]].\n")
    code = (
        "import gc, sys\n"
        "from pathlib import Path\n"
        "from knowledge_harness.index import build\n"
        "from knowledge_harness.vault.paths import Vault\n"
        "build.FREEZE_AFTER_PARSED = 3\n"
        "frozen = gc.get_freeze_count()\n"
        "collections = []\n"
        "gc.callbacks.append(lambda phase, info: collections.append(info['generation']) if phase == 'start' else None)\n"
        f"outcome = build.build_index(Vault.open(Path({str(vault)!r})), full=True, workers=1)\n"
        "print(outcome.reparsed, gc.get_freeze_count() > frozen, collections)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["3", "True", "[]"]
