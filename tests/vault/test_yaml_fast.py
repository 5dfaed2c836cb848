"""The YAML fast path (vault/yamlsafe._fast_mapping) against PyYAML with the core-schema loader.

Whenever the fast path answers, its answer must be exactly what PyYAML gives (values and types:
True is not 1, a date is not a string); when it declines, load_mapping falls back to PyYAML.
Checked on hypothesis-generated frontmatter, every note of examples/vault and a generated vault.
"""

from __future__ import annotations

import datetime
import math
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from knowledge_harness.vault import yaml_loader, yamlsafe
from knowledge_harness.vault.frontmatter import find_frontmatter
from knowledge_harness.vault.yamlsafe import YamlRejected, _fast_mapping, load_mapping
from tests.support.examples import examples

ROOT = Path(__file__).resolve().parents[2]


def _canon(value: Any) -> Any:
    """A comparable form that keeps types apart (bool vs int vs float, date vs datetime vs str)."""
    if isinstance(value, dict):
        return ("dict", [(_canon(k), _canon(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("list", [_canon(v) for v in value])
    if isinstance(value, float):
        return ("float", "nan" if math.isnan(value) else repr(value))
    if isinstance(value, datetime.datetime):
        return ("datetime", value.isoformat(), repr(value.tzinfo))
    return (type(value).__name__, value)


def _reference(text: str) -> tuple[str, Any]:
    """load_mapping's answer without the fast path: ("ok", mapping) or ("error", message)."""
    original = yamlsafe._fast_mapping
    yamlsafe._fast_mapping = lambda _text: None
    try:
        return ("ok", _canon(load_mapping(text)))
    except YamlRejected as exc:
        return ("error", (exc.problem.message, exc.problem.line, exc.problem.column))
    except Exception as exc:  # e.g. ValueError for 2026-13-45, as before the fast path
        return ("raised", type(exc).__name__)
    finally:
        yamlsafe._fast_mapping = original


def _check(text: str) -> bool:
    """Assert the fast path agrees with PyYAML when it answers; True when it answered."""
    fast = _fast_mapping(text)
    ref = _reference(text)
    try:
        actual: tuple[str, Any] = ("ok", _canon(load_mapping(text)))
    except YamlRejected as exc:
        actual = ("error", (exc.problem.message, exc.problem.line, exc.problem.column))
    except Exception as exc:
        actual = ("raised", type(exc).__name__)
    assert actual == ref, text
    if fast is not None:
        assert ref == ("ok", _canon(fast)), text
        # the loader itself, without load_mapping's post-processing
        raw = yaml.load(text, Loader=yaml_loader._CoreSchemaLoader)
        assert _canon({str(k): v for k, v in raw.items()}) == _canon(fast), text
    return fast is not None


def _frontmatter_texts(folder: Path) -> list[str]:
    out = []
    for path in sorted(folder.rglob("*.md")):
        if ".harness" in path.parts:
            continue
        raw = path.read_bytes()
        span = find_frontmatter(raw)
        if span is not None:
            out.append(raw[span.yaml_start : span.yaml_end].decode("utf-8", errors="replace"))
    return out


def test_example_vault_frontmatter_agrees() -> None:
    texts = _frontmatter_texts(ROOT / "examples" / "vault")
    assert texts
    for text in texts:
        _check(text)


def test_generated_vault_frontmatter_agrees_and_takes_the_fast_path(tmp_path: Path) -> None:
    from bench.make_vault import make_vault

    make_vault(tmp_path / "v", 400, seed=0)
    texts = _frontmatter_texts(tmp_path / "v")
    assert len(texts) > 300
    fast = sum(_check(text) for text in texts)
    assert fast >= 0.95 * len(texts)  # the bench's frontmatter is the simple kind


TRICKY_SCALARS = [
    "plain",
    "two words",
    "日本語のテキスト",
    "C#",
    "a,b",
    "x]",
    "a:b",
    "http://x.org:80/y?q=1",
    "1",
    "-1",
    "+1",
    "0",
    "007",
    "1_000",
    "0o17",
    "0x1F",
    "0x1g",
    "0b101",
    "1.5",
    "-0.0",
    "1.",
    ".5",
    "1e3",
    "1E-3",
    "1e",
    ".inf",
    "-.inf",
    "+.INF",
    ".nan",
    ".NaN",
    "12:30",
    "1:2:3",
    "2026-01-02",
    "2026-1-2",
    "2026-01-02 10:00:00",
    "2026-01-02T10:00:00Z",
    "2026-01-02t10:00:00.5+09:00",
    "2026-13-45",
    "true",
    "True",
    "TRUE",
    "tRue",
    "false",
    "yes",
    "no",
    "on",
    "off",
    "y",
    "n",
    "~",
    "null",
    "Null",
    "NULL",
    "nUll",
    "-",
    "-a",
    "- a",
    "?a",
    "? a",
    ":a",
    ": a",
    "a:",
    "a: b",
    "a #b",
    "#x",
    "&x",
    "*x",
    "!x",
    "!!str 1",
    "|",
    ">",
    "%x",
    "@x",
    "`x`",
    ",x",
    "{a: 1}",
    "{}",
    "[a, b]",
    "[a,b,]",
    "[]",
    "[ ]",
    "[a, [b]]",
    "[1, true, null, 2026-01-02]",
    "[a b, c]",
    "[-1, -a]",
    "[- a]",
    "[a: b]",
    "['q']",
    "'single'",
    "'it''s'",
    "''",
    "'a'b'",
    '"double"',
    '""',
    '"a\\nb"',
    '"a"b"',
    "\u00a0nbsp",
    "zero\u200bwidth",
    "emoji 🎉",
    "a\\b",
    "x  y",
    "tab\tin",
]
SIMPLE_SCALARS = [
    "plain",
    "two words",
    "日本語",
    "C#",
    "1",
    "-7",
    "0x1F",
    "0o17",
    "1.5",
    "1e3",
    ".inf",
    "2026-01-02",
    "2026-01-02 10:00:00",
    "true",
    "False",
    "yes",
    "on",
    "~",
    "null",
    "'quoted'",
    '"dq"',
    "[a, b]",
    "[1, 2.5, true, null]",
    "[]",
    "http://x.org/y",
    "-a",
    "a,b",
    "12:30",
    "v1.2",
    "[ノート1, x y]",
]
KEYS = [
    "title",
    "tags",
    "aliases",
    "type",
    "status",
    "a b",
    "キー",
    "x_y",
    "x-y",
    "a.b",
    "a/b",
    "true",
    "null",
    "on",
    "yes",
    "1",
    "k1",
    "_",
    "e",
    "nan",
    "NULL",
    "日付",
]


@st.composite
def _node(draw: st.DrawFn, depth: int) -> list[str]:
    """Lines (relative to column 0) of a block node or a scalar written after `key:`."""
    kind = draw(st.sampled_from(["scalar", "scalar", "map", "seq", "seq_same"] if depth < 3 else ["scalar"]))
    if kind == "scalar":
        value = draw(
            st.one_of(
                st.sampled_from(SIMPLE_SCALARS),
                st.sampled_from(SIMPLE_SCALARS),
                st.sampled_from(TRICKY_SCALARS),
                st.text(min_size=0, max_size=12),
            )
        )
        return [" " + value if value else ""]
    step = draw(st.sampled_from([1, 2, 4]))
    pad = " " * step
    lines: list[str] = []
    if kind == "map":
        for _ in range(draw(st.integers(1, 3))):
            key = draw(st.sampled_from(KEYS))
            sub = draw(_node(depth + 1))
            lines.append(pad + key + ":" + sub[0])
            lines.extend(pad + line for line in sub[1:])
        return ["", *lines]
    same = kind == "seq_same"
    for _ in range(draw(st.integers(1, 3))):
        item_kind = draw(st.sampled_from(["scalar", "scalar", "map"]))
        prefix = "" if same else pad
        if item_kind == "scalar":
            value = draw(st.one_of(st.sampled_from(SIMPLE_SCALARS), st.sampled_from(TRICKY_SCALARS)))
            lines.append(prefix + "- " + value)
        else:
            gap = draw(st.sampled_from([" ", "  "]))
            first = True
            for _ in range(draw(st.integers(1, 2))):
                key = draw(st.sampled_from(KEYS))
                sub = draw(_node(depth + 2))
                lead = prefix + "-" + gap if first else prefix + " " * (1 + len(gap))
                lines.append(lead + key + ":" + sub[0])
                lines.extend(prefix + " " * (1 + len(gap)) + line for line in sub[1:])
                first = False
    return ["", *lines]


@st.composite
def _frontmatter(draw: st.DrawFn) -> str:
    lines: list[str] = []
    for _ in range(draw(st.integers(0, 5))):
        key = draw(st.sampled_from(KEYS))
        sub = draw(_node(0))
        lines.append(key + ":" + sub[0])
        lines.extend(sub[1:])
        if draw(st.integers(0, 5)) == 0:
            lines.append(draw(st.sampled_from(["", "   ", "# comment", "key2: x # c", "  ", "---"])))
    trailing = draw(st.sampled_from(["", "", " "]))
    return "\n".join(line + trailing for line in lines) + draw(st.sampled_from(["\n", "", "\n\n"]))


@pytest.mark.fuzz
@settings(max_examples=examples(3), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_frontmatter())
def test_generated_frontmatter_agrees(text: str) -> None:
    _check(text)


@pytest.mark.fuzz
@settings(max_examples=examples(2), deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab1-: \n'\"[],#.~&*!|>{}?\t\u3042")), max_size=40))
def test_random_text_agrees(text: str) -> None:
    _check(text)


@pytest.mark.parametrize(
    "text",
    [
        "tags:\n- a\n- b\nother: 1\n",
        "tags:\n  - a\n  -  b\n",
        "a:\n  b:\n    c: 1\n  d: [x, y]\n",
        "s:\n  - url: u\n    ok: true\n  - url: v\n",
        "s:\n- a: 1\n  b: 2\n- c\n",
        "a: 1\na: 2\n",
        "a:\n-\n- x\n",
        "a:\n  -\n    b: 1\n",
        "",
        "\n\n",
        "a: |\n  text\n",
        "a: b\n  c\n",
        "-1: x\n",
        "a: -1\n-1\n",
    ],
)
def test_cases_agree(text: str) -> None:
    _check(text)


def test_unicode_spaces_are_read_in_the_fast_path_as_pyyaml_reads_them() -> None:
    """U+3000 (common in Japanese titles) and the other Zs spaces are ordinary characters to YAML;
    str.isprintable() said no, and such a note paid for PyYAML."""
    import unicodedata

    zs = "".join(chr(c) for c in range(0x110000) if unicodedata.category(chr(c)) == "Zs" and chr(c) != " ")
    assert zs == yamlsafe.UNICODE_SPACES
    for space in zs:
        text = f"title: 同期{space}競合{space}\naliases:\n  - 別名{space}です\n  - {space}lead\ntags: [a{space}b, c]\n"
        assert _fast_mapping(text) is not None, hex(ord(space))
        _check(text)
        _check(f"k{space}ey: v\n")  # a key with one: the fast path may decline, never disagree
    for breaker in ("\u0085", "\u2028", "\u2029", "\ufeff"):
        assert _fast_mapping(f"title: a{breaker}b\n") is None
        assert _fast_mapping(f"title: 同期\u3000a{breaker}b\n") is None  # beside U+3000 too
    _check("title: 同期\u3000競合\u00a0と\u2003解決\n")  # U+3000 with other Zs spaces on one line
    assert _fast_mapping("title: 同期\u3000競合\u00a0と\u2003解決\n") is not None


def test_fast_path_answers_the_common_shapes() -> None:
    assert _fast_mapping("tags: [a, b]\nn: 1\nd: 2026-01-02\n") == {
        "tags": ["a", "b"],
        "n": 1,
        "d": datetime.date(2026, 1, 2),
    }
    assert _fast_mapping("v:\n  level: 2\n  status: verified\nlist:\n- x\n") == {
        "v": {"level": 2, "status": "verified"},
        "list": ["x"],
    }


def test_the_fast_path_resolves_with_the_loaders_own_table() -> None:
    """yamlsafe builds its resolver table without PyYAML: the same tags and patterns, per first
    character and in the same order, as the loader PyYAML reads with."""
    ours = {ch: [(tag, rx.pattern) for tag, rx in rules] for ch, rules in yamlsafe._RESOLVERS.items()}
    theirs = {
        ch: [(tag, rx.pattern) for tag, rx in rules]
        for ch, rules in yaml_loader._CoreSchemaLoader.yaml_implicit_resolvers.items()
    }
    assert ours == theirs


def test_common_frontmatter_is_read_without_importing_pyyaml() -> None:
    """A new process that reads frontmatter in the fast path's subset (what `kh index build`
    does after a one-line edit) never imports PyYAML."""
    code = (
        "import sys\n"
        "from knowledge_harness.vault.yamlsafe import load_mapping\n"
        "assert load_mapping('title: A\\ntags: [a, b]\\ndate: 2024-01-02\\nn: 3\\nok: true\\n')['n'] == 3\n"
        "print('yaml' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


_ENTRY_AS_WRITTEN_BEFORE = re.compile(r"([A-Za-z_\u00c0-\uffff][\w .\-/\u00c0-\uffff]{0,127}?) *:(?: +|$)")


def test_the_key_pattern_is_the_one_written_with_the_range() -> None:
    """yamlsafe's key pattern avoids compiling the range \\u00c0-\\uffff (slow) by naming the same
    set: every character of the BMP, and astral ones, starts and continues a key alike."""
    chars = [chr(c) for c in (*range(0x10000), *range(0x10000, 0x110000, 97), 0x10FFFF)]
    for ch in chars:
        for text in (ch + ": x", "a" + ch + ":"):
            ours, before = yamlsafe._ENTRY.match(text), _ENTRY_AS_WRITTEN_BEFORE.match(text)
            assert (ours and ours.group(0, 1)) == (before and before.group(0, 1)), hex(ord(ch))


@pytest.mark.parametrize(
    "alias",
    [
        "日本語の長い別名" * 5,  # CJK: matched by \w and by the U+00C0.. range alike
        "ｶﾀｶﾅ と 漢字 " * 8,  # spaces between, no colon anywhere
        "Ünïcödé ñame " * 8,
        "é" * 300,  # longer than a key may be
    ],
)
def test_a_long_alias_without_a_colon_is_read_in_linear_time(alias: str) -> None:
    """A list item with no colon once made the key pattern try 2^n splits of its n characters
    (a 30-character Japanese alias: 32 s); 40 characters would now run for days if it came back."""
    text = f"aliases:\n  - {alias}\n  - {alias} x\ntitle: {alias}\n"
    assert yamlsafe._ENTRY.match(alias) is None
    assert _check(text)
    assert load_mapping(text)["aliases"] == [alias.strip(), f"{alias} x"]
