"""Safe, bounded YAML loading of note properties (YAML 1.2 core-schema semantics).

PyYAML's C loader is ~10x faster than ruamel for reading, but it speaks YAML 1.1, where
`yes`, `on`, `no`, `off` are booleans and `12:30` is a base-60 integer. Obsidian and ruamel
(our writer) read those as strings, so the resolvers are reset to the 1.2 core schema.
Dates stay dates, as ruamel reads them.
"""

from __future__ import annotations

import re
from typing import Any

from .yaml_core import CORE_RESOLVERS, YamlProblem, YamlRejected

MAX_YAML_BYTES = 64 * 1024
MAX_ALIASES = 16
MAX_DEPTH = 32
_ANCHOR_OR_ALIAS = re.compile(r"(?:^|[\s\[{,:-])[&*][^\s\[\]{},]+", re.MULTILINE)


def load_mapping(text: str) -> dict[str, Any]:
    """Parse frontmatter YAML into a mapping, or raise YamlRejected with a position."""
    if len(text) * 4 > MAX_YAML_BYTES and len(text.encode("utf-8")) > MAX_YAML_BYTES:  # UTF-8: <= 4 bytes a char
        raise YamlRejected(YamlProblem(f"Frontmatter is larger than {MAX_YAML_BYTES // 1024} KiB.", None, None))
    if ("&" in text or "*" in text) and len(_ANCHOR_OR_ALIAS.findall(text)) > MAX_ALIASES:
        raise YamlRejected(YamlProblem(f"Frontmatter uses more than {MAX_ALIASES} anchors or aliases.", None, None))
    fast = _fast_mapping(text)
    if fast is not None:
        return fast
    from .yaml_loader import load_with_pyyaml  # PyYAML: only for frontmatter the fast path declines

    data = load_with_pyyaml(text)
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise YamlRejected(YamlProblem("Frontmatter is not a mapping of properties.", 0, 0))
    _check_depth(data, 0)
    result = {str(k): v for k, v in data.items()}
    if len(result) < len(data):  # e.g. `1:` and `'1':`, one property name once converted
        raise YamlRejected(YamlProblem("Two top-level keys name the same property.", None, None))
    return result


def _check_depth(value: Any, depth: int) -> None:
    if depth > MAX_DEPTH:
        raise YamlRejected(YamlProblem(f"Frontmatter is nested deeper than {MAX_DEPTH} levels.", None, None))
    if isinstance(value, dict):
        for item in value.values():
            _check_depth(item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            _check_depth(item, depth + 1)


# -- a fast path for the frontmatter most notes have -------------------------------------------
#
# PyYAML builds a node graph and runs a Python constructor per node (~45 us for a typical
# frontmatter). Most frontmatter is block mappings and sequences of single-line scalars: plain,
# simply quoted, or flow lists of plain scalars. `_fast_mapping` parses exactly that subset and
# resolves and constructs scalars with the loader's own resolvers and constructors; on anything
# else (comments, anchors, tags, multi-line scalars, escapes, flow mappings, tabs, CR, unusual
# characters, odd indentation) it returns None and PyYAML decides. tests/vault/test_yaml_fast.py
# compares it with PyYAML on generated and real frontmatter.


class _NotSimple(Exception):
    pass


_RESOLVERS: dict[Any, list[tuple[str, re.Pattern[str]]]] = {}
for _tag, _pattern, _first in CORE_RESOLVERS:
    for _char in _first:
        _RESOLVERS.setdefault(_char, []).append((_tag, re.compile(_pattern)))
# every two levels of nesting take at least one more column, so this keeps the fast path well
# inside MAX_DEPTH; deeper YAML goes to PyYAML and _check_depth
_MAX_FAST_INDENT = 12
_BOOL, _NULL, _INT, _TIMESTAMP = (f"tag:yaml.org,2002:{t}" for t in ("bool", "null", "int", "timestamp"))
# a mapping key: a plain scalar without indicators, then ':' and a space or the line's end
# ([A-Za-z_\u00c0-\uffff][\w .\-/\u00c0-\uffff]{0,127}?) written without the range \u00c0-\uffff, whose
# compilation alone costs a new process ~6 ms: [^\x00-\xbf\U00010000-\U0010ffff] is the same set.
# The two branches of the repeated group must never match the same character: where they did
# (\w is Unicode, so a CJK character matched both), a line without a colon backtracked through
# 2^n ways of splitting n characters (a 30-character Japanese alias took seconds to minutes).
# Here the first branch takes U+00C0..U+FFFF and the second only characters outside that range.
_BMP_FROM_C0 = r"[^\x00-\xbf\U00010000-\U0010ffff]"
_OUTSIDE_BMP_FROM_C0 = r"(?=[\x00-\xbf\U00010000-\U0010ffff])"
_ENTRY = re.compile(
    rf"((?:[A-Za-z_]|{_BMP_FROM_C0})(?:{_BMP_FROM_C0}|{_OUTSIDE_BMP_FROM_C0}[\w .\-/]){{0,127}}?) *:(?: +|$)"
)
_ASCII_KEY = re.compile(r"[A-Za-z_][\w .\-/]{0,127}", re.ASCII)


def _entry(content: str) -> tuple[str, int] | None:
    """(key, end) of the mapping entry `content` (a line, no line break) starts with, as
    `_ENTRY.match` reads it, or None. A key holds no ":": it is the text before the first one
    without its final spaces, and that ":" must end the line or be followed by a space. An ASCII
    key is checked by a plain pattern: the lazy one costs ~0.5 us a line."""
    colon = content.find(":")
    end = colon + 1
    if colon < 1 or (end < len(content) and content[end] != " "):
        return None
    key = content[:colon].rstrip(" ")
    if not key.isascii():
        m = _ENTRY.match(content)
        return None if m is None else (m.group(1), m.end())
    if _ASCII_KEY.fullmatch(key) is None:
        return None
    while end < len(content) and content[end] == " ":
        end += 1
    return key, end


_PLAIN_BAD_FIRST = frozenset("[]{}#&*!|>'\"%@`,")
_FLOW_ITEM_BAD = re.compile(r"[\[\]{}#&*!|>'\"%@`:?]")


def _resolve_plain(value: str) -> Any:
    for tag, regexp in _RESOLVERS.get(value[0] if value else "", ()):
        if regexp.match(value):
            # the constructors' results for the commonest shapes, else the constructor itself
            if tag == _BOOL:
                return value[0] in "tT"
            if tag == _NULL:
                return None
            if tag == _INT and value[1:2] not in ("o", "x"):
                return int(value, 10)
            if tag == _TIMESTAMP and len(value) == 10:
                import datetime  # here: most frontmatter holds no date, and a new `kh index build` saves ~2 ms

                return datetime.date(int(value[:4]), int(value[5:7]), int(value[8:]))
            from .yaml_loader import construct_scalar  # the rarer shapes: PyYAML's constructor decides

            return construct_scalar(tag, value)
    return value


def _plain(value: str) -> Any:
    """A single-line plain scalar in block context (already right-stripped), resolved."""
    first = value[0]
    if (
        first in _PLAIN_BAD_FIRST
        or (first in "-?:" and (len(value) == 1 or value[1] == " "))
        or ": " in value
        or value[-1] == ":"
        or " #" in value
    ):
        raise _NotSimple
    return _resolve_plain(value)


def _scalar(value: str) -> Any:
    """A value on the line of its key or dash: quoted, a flow list of plain scalars, or plain."""
    first = value[0]
    if first == "'":
        if len(value) < 2 or value[-1] != "'" or "'" in value[1:-1].replace("''", ""):
            raise _NotSimple
        return value[1:-1].replace("''", "'")
    if first == '"':
        inner = value[1:-1]
        if len(value) < 2 or value[-1] != '"' or '"' in inner or "\\" in inner:
            raise _NotSimple
        return inner
    if first == "[":
        if value[-1] != "]":
            raise _NotSimple
        inner = value[1:-1]
        if not inner.strip(" "):
            return []
        out = []
        for item in inner.split(","):
            item = item.strip(" ")
            if not item or _FLOW_ITEM_BAD.search(item) or (item[0] == "-" and item[1:2] in ("", " ")):
                raise _NotSimple
            out.append(_resolve_plain(item))
        return out
    return _plain(value)


def _block(lines: list[tuple[int, str]], i: int, indent: int) -> tuple[Any, int]:
    """The block node (mapping or sequence) whose first line is lines[i], at `indent`."""
    content = lines[i][1]
    if content[0] == "-" and (len(content) == 1 or content[1] == " "):
        return _sequence(lines, i, indent)
    return _mapping(lines, i, indent)


def _value_after(lines: list[tuple[int, str]], i: int, indent: int, in_map: bool) -> tuple[Any, int]:
    """The node below an empty `key:` or `-` at lines[i - 1] of `indent`; (None, i) when none."""
    if i < len(lines):
        nind, ncontent = lines[i]
        if nind > indent:
            return _block(lines, i, nind)
        if in_map and nind == indent and ncontent[0] == "-" and (len(ncontent) == 1 or ncontent[1] == " "):
            return _sequence(lines, i, indent)
    return None, i


def _mapping(lines: list[tuple[int, str]], i: int, indent: int) -> tuple[dict[Any, Any], int]:
    out: dict[Any, Any] = {}
    n = len(lines)
    while i < n:
        ind, content = lines[i]
        if ind < indent:
            break
        if ind > indent:
            raise _NotSimple
        entry = _entry(content)
        if entry is None:
            raise _NotSimple
        key = _resolve_plain(entry[0])
        if not isinstance(key, str) or key in out:
            raise _NotSimple  # a duplicate key: PyYAML reports it with its line
        rest = content[entry[1] :]
        i += 1
        if rest:
            out[key] = _scalar(rest)
            if i < n and lines[i][0] > indent:
                raise _NotSimple  # a multi-line scalar
        else:
            out[key], i = _value_after(lines, i, indent, True)
    return out, i


def _sequence(lines: list[tuple[int, str]], i: int, indent: int) -> tuple[list[Any], int]:
    out: list[Any] = []
    n = len(lines)
    while i < n:
        ind, content = lines[i]
        if ind != indent or content[0] != "-":
            if ind > indent:
                raise _NotSimple
            break
        if len(content) > 1 and content[1] != " ":
            break  # a plain scalar such as -1 ends the sequence (and is an error in a mapping)
        rest = content[1:].lstrip(" ")
        if not rest:
            i += 1
            value, i = _value_after(lines, i, indent, False)
            out.append(value)
            continue
        if rest[0] == "-" and (len(rest) == 1 or rest[1] == " "):
            raise _NotSimple  # a sequence inside an item on the same line
        if _entry(rest) is not None:
            # a mapping starting on the dash's line: its keys sit at the column of the first one
            col = indent + len(content) - len(rest)
            lines[i] = (col, rest)
            value, i = _mapping(lines, i, col)
            out.append(value)
            continue
        out.append(_scalar(rest))
        i += 1
        if i < n and lines[i][0] > indent:
            raise _NotSimple
    return out, i


# The Unicode spaces (category Zs) other than " ": str.isprintable() says False, YAML reads them as
# ordinary printable characters (only " " and tab separate; U+0085, U+2028 and U+2029, which break
# lines, stay refused). Japanese frontmatter often holds U+3000: it no longer sends a note to PyYAML.
UNICODE_SPACES = "\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000"
_SPACES_AS_SPACE = str.maketrans(UNICODE_SPACES, " " * len(UNICODE_SPACES))


def _printable_but_spaces(content: str) -> bool:
    """Is `content` printable once its Unicode spaces are " "? U+3000 (the commonest, in Japanese
    values) goes first by str.replace: translate looks each character up, ~8 % of parsing a
    vault of long Japanese aliases."""
    if "\u3000" in content:
        content = content.replace("\u3000", " ")
        if content.isprintable():
            return True
    return content.translate(_SPACES_AS_SPACE).isprintable()


def _fast_mapping(text: str) -> dict[str, Any] | None:
    """What the core-schema loader returns for simple block YAML, or None to let PyYAML decide."""
    if "\t" in text or "\r" in text or text.startswith("#") or " #" in text or "\n#" in text:
        return None
    lines: list[tuple[int, str]] = []
    for raw in text.split("\n"):
        stripped = raw.lstrip(" ")
        if not stripped:
            continue
        content = stripped.rstrip(" ")
        if (not content.isprintable() and not _printable_but_spaces(content)) or content.startswith(
            ("#", "---", "...", "%")
        ):
            return None
        indent = len(raw) - len(stripped)
        if indent > _MAX_FAST_INDENT:
            return None
        lines.append((indent, content))
    if not lines:
        return None
    if lines[0][0] != 0:
        return None
    try:
        data, end = _mapping(lines, 0, 0)
    except (_NotSimple, ValueError, KeyError, TypeError, OverflowError):
        return None
    if end != len(lines):
        return None
    return {str(k): v for k, v in data.items()}


__all__ = [
    "CORE_RESOLVERS",
    "MAX_ALIASES",
    "MAX_DEPTH",
    "MAX_YAML_BYTES",
    "YamlProblem",
    "YamlRejected",
    "load_mapping",
]
