"""index/commonmark.py holds copies of markdown-it-py's tables and helpers (so the scanner does
not import the parser): they must stay equal to the installed markdown-it-py's."""

from __future__ import annotations

import subprocess
import sys

from hypothesis import given
from hypothesis import strategies as st
from markdown_it.common import html_re
from markdown_it.common import utils as mdit_utils
from markdown_it.common.html_blocks import block_names
from markdown_it.common.html_re import HTML_OPEN_CLOSE_TAG_STR
from markdown_it.rules_block.html_block import HTML_SEQUENCES

from knowledge_harness.index import commonmark

# labels with CommonMark whitespace, the characters str.strip() alone would also remove, and
# letters whose lower/upper folding differs
_LABEL_CHARS = st.sampled_from(
    [
        " ",
        "\t",
        "\n",
        "\u00a0",
        "\u2000",
        "\u2028",
        "\u3000",
        "\u001c",
        "\u0085",
        "\ufeff",
        "ẞ",
        "ϴ",
        "K",
        "a",
        "B",
        "見",
    ]
)


# the one change: an unquoted attribute value also stops at Unicode whitespace (commonmark.py)
_THEIR_UNQUOTED, _OUR_UNQUOTED = html_re.unquoted, html_re.unquoted[:-2] + "\\s]+"


def test_tables_equal_markdown_its() -> None:
    assert block_names == commonmark.BLOCK_NAMES
    assert HTML_OPEN_CLOSE_TAG_STR.replace(_THEIR_UNQUOTED, _OUR_UNQUOTED) == commonmark.HTML_OPEN_CLOSE_TAG_STR
    assert commonmark.HTML_TAG_RE.pattern == html_re.HTML_TAG_RE.pattern.replace(_THEIR_UNQUOTED, _OUR_UNQUOTED)
    assert commonmark.MD_TRIM_CHARS == mdit_utils.MD_TRIM_CHARS
    ours = [(a.pattern, a.flags, b.pattern, b.flags, c) for a, b, c in commonmark.HTML_SEQUENCES]
    theirs = [
        (a.pattern.replace(_THEIR_UNQUOTED, _OUR_UNQUOTED), a.flags, b.pattern, b.flags, c)
        for a, b, c in HTML_SEQUENCES
    ]
    assert ours == theirs


def test_markdown_it_reads_html_with_our_linear_tag_patterns() -> None:
    """The parser the scanner falls back on gets the same fix: 40 attributes separated by
    no-break spaces in a block or inline tag would otherwise run for years."""
    from knowledge_harness.index.parse import oracle_structure

    tag = "<a x=" + "y\xa0z=" * 40 + "w"
    text = f"# Title\n\n{tag}\n<\n\n## Next {tag} `\n"
    assert next(h.title for h in oracle_structure(text).headings) == "Title"


@given(st.lists(_LABEL_CHARS | st.text(max_size=3), max_size=12).map("".join))
def test_helpers_agree_with_markdown_its(label: str) -> None:
    assert commonmark.md_trim(label) == mdit_utils.mdTrim(label)
    assert commonmark.normalize_reference(label) == mdit_utils.normalizeReference(label)


def test_scanning_a_plain_note_does_not_import_markdown_it() -> None:
    code = (
        "import sys\n"
        "from knowledge_harness.index.build import parse_record\n"
        "rec = parse_record('a.md', b'---\\ntags: [x]\\n---\\n# Title\\n\\ntext [[b]] and <div>x</div>\\n')\n"
        "assert rec['headings'][0]['title'] == 'Title', rec\n"
        "print('markdown_it' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
