"""The ReDoS check `make lint` runs (tests/architecture/redos.py) tells linear patterns from
super-linear ones: checked here on textbook cases and on the patterns it was written for."""

from __future__ import annotations

import re

import pytest

from knowledge_harness.index import commonmark, parse
from knowledge_harness.vault import yamlsafe

from .redos import exponential_witness, verdict

# vault/yamlsafe.py's key pattern before commit 4d3bd10: a 30-character Japanese alias took 32 s
ENTRY_BEFORE_4D3BD10 = r"((?:[A-Za-z_]|[^\x00-\xbf\U00010000-\U0010ffff])(?:[\w .\-/]|[^\x00-\xbf\U00010000-\U0010ffff]){0,127}?) *:(?: +|$)"
# index/commonmark.py's HTML tag pattern before: an unquoted value and `\s+` both took U+00A0
HTML_TAG_BEFORE = (
    r"^(?:<[A-Za-z][A-Za-z0-9\-]*(?:\s+[a-zA-Z_:][a-zA-Z0-9:._-]*(?:\s*=\s*(?:[^\"'=<>`\x00-\x20]+|'[^']*'|\"[^\"]*\"))?)*"
    r"\s*\/?>|<\/[A-Za-z][A-Za-z0-9\-]*\s*>)\s*$"
)


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        (r"(a|a)*b", "exponential"),
        (r"(\w+)+x", "exponential"),
        (r"(?:a*)*b", "exponential"),
        (r"(\w+\s?)+\w+x", "exponential"),
        (r"(?:\d\d|٣٣)+x", "exponential"),  # \d is Unicode: ARABIC-INDIC THREE is a digit too
        (ENTRY_BEFORE_4D3BD10, "exponential"),
        (HTML_TAG_BEFORE, "exponential"),
        (r"\s*\s*x", "polynomial"),
        (r"a+b?a+x", "polynomial"),
        (r"(a|b)*c", None),
        (r"a*b*c", None),
        (r"\w+\s+\w+x", None),
        (r"(?:\d|x)+y", None),
        (r"(?a:(?:\d\d|٣٣)+x)", None),  # ASCII \d: the two branches are apart
        (r"^\d{4}-\d{2}-\d{2}([T ].*)?$", None),
        (r"(?:(?!\[)[^\n]*\n?)*", None),  # nothing after the loop can fail: it never backtracks
        (r"(?:\d{1,4}+|-\d{1,4}+)*x", None),  # possessive runs are never split
        (r"(?:\d{1,4}|-\d{1,4})*x", "exponential"),
        (r"(?:[\w ]|(?=[^a-z])[a-z])*:", None),  # a look-ahead that keeps two branches apart
    ],
)
def test_the_checker_tells_super_linear_patterns(pattern: str, expected: str | None) -> None:
    assert verdict(pattern) == expected


def test_the_checked_patterns_are_the_ones_in_use_now() -> None:
    assert verdict(yamlsafe._ENTRY) is None
    assert verdict(commonmark.HTML_SEQUENCES[-1][0]) is None


def test_a_witness_is_a_real_input_of_the_ambiguous_loop() -> None:
    witness = exponential_witness(re.compile(ENTRY_BEFORE_4D3BD10))
    assert witness is not None
    prefix, pump = witness
    # the old pattern takes the whole pumped text as a key candidate (it then needs a colon)
    assert re.compile(ENTRY_BEFORE_4D3BD10).match(prefix + pump * 3 + ":") is not None


def test_an_html_line_with_many_unicode_spaces_is_read_in_linear_time() -> None:
    """12 such attributes took 0.45 s with the old pattern, each one more three times longer:
    40 would run for years if it came back."""
    line = "<a x=" + "y\xa0z=" * 40 + "w>"
    assert commonmark.HTML_SEQUENCES[-1][0].search(line + "<") is None
    assert commonmark.HTML_SEQUENCES[-1][0].search(line) is not None
    assert parse._HTML_STARTS[-1][0].search("<a href=x title=y>") is not None
