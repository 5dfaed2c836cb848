"""Adversarial frontmatter and Markdown: long runs of one kind of character without the character a
pattern waits for (a colon, a closing quote or bracket, a `>`), and deep nesting. The fast paths
must give PyYAML's and markdown-it-py's answers on them; a pattern that backtracks super-linearly
on such a run (tests/architecture/redos.py finds those statically) would hang these tests.

Runs are 40 to 300 characters: 30 CJK characters once took the frontmatter key pattern 32 s.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.support.examples import examples
from tests.vault.test_yaml_fast import _check

from knowledge_harness.index.parse import heading_key, oracle_structure, parse_structure

# one kind of character each: CJK, kana, Latin, digits, ASCII and Unicode spaces, quotes, marks
_KINDS = [
    "日本語",
    "ｶﾀｶﾅ",
    "かな",
    "Ünïcödé",
    "abc",
    "0123",
    " ",
    "\u00a0",
    "\u3000",
    "'",
    '"',
    "-",
    "=",
    "*",
    "`",
    "é ",
]


@st.composite
def _run(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(_KINDS))
    length = draw(st.integers(40, 300))
    return (kind * (length // len(kind) + 1))[:length]


@st.composite
def _adversarial_frontmatter(draw: st.DrawFn) -> str:
    run = draw(_run())
    shape = draw(
        st.sampled_from(
            [
                "aliases:\n  - {r}\n",  # a list item with no colon
                "aliases:\n  - {r}\n  - {r} x\ntitle: {r}\n",
                "{r}\n",  # a key line that never gets its colon
                "{r}: x\n",
                "title: '{r}\n",  # a quote never closed
                'title: "{r}\n',
                "tags: [{r}\n",  # a flow list never closed
                "tags: [{r}, {r}]\n",
                "description: {r}\n  {r}\n",  # a multi-line plain scalar
                "a:\n  b: {r}\n  c:\n    - {r}\n",
            ]
        )
    )
    return shape.replace("{r}", run)


@st.composite
def _deep_frontmatter(draw: st.DrawFn) -> str:
    depth = draw(st.integers(1, 60))
    if draw(st.booleans()):
        return "".join(f"{'  ' * i}k{i}:\n" for i in range(depth)) + f"{'  ' * depth}leaf: {draw(_run())}\n"
    return "a: " + "[" * depth + draw(_run()) + "]" * draw(st.integers(0, depth)) + "\n"


@settings(max_examples=examples(0.3), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_adversarial_frontmatter() | _deep_frontmatter())
def test_adversarial_frontmatter_reads_as_pyyaml_reads_it(text: str) -> None:
    _check(text)


@st.composite
def _adversarial_markdown(draw: st.DrawFn) -> str:
    run = draw(_run())
    lines = draw(
        st.lists(
            st.sampled_from(
                [
                    "# {r}",
                    "## {r} ##",
                    "{r}",
                    "{r}\n===",
                    "<a x={r}",  # an HTML tag never closed
                    "<a" + " x=y\u00a0z=" * 8 + "{r}",  # attributes split by Unicode spaces
                    "<div {r}",
                    "```{r}",
                    "[{r}",  # a link label never closed
                    "[x]: <{r}",
                    "> " * 20 + "{r}",  # deep block quotes
                    "- " * 20 + "{r}",  # deep lists
                    "    {r}",
                    "*{r}",
                ]
            ),
            min_size=1,
            max_size=6,
        )
    )
    return "\n\n".join(lines).replace("{r}", run) + "\n"


@settings(max_examples=examples(0.3), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_adversarial_markdown())
def test_adversarial_markdown_gets_markdown_its_headings(text: str) -> None:
    expected = oracle_structure(text)
    got = parse_structure(text)
    assert heading_key(got) == heading_key(expected), text
    assert got.line_count == expected.line_count
