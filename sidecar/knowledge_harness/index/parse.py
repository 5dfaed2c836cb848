"""Structure of one note: document-level headings, code regions, links and tags.

The reference for block structure is markdown-it-py's CommonMark parser with the
front_matter plugin, run on the decoded text with the BOM removed (`oracle_structure`).
It runs at 1-3 MB/s, so `scan_structure` is a line scanner that follows the CommonMark
block algorithm (containers: block quotes and list items; leaves: paragraphs, ATX and
setext headings, fenced and indented code) and gives up (returns None) on constructs it
does not model: HTML blocks, link reference definitions, tabs in block positions, bare
carriage returns and very deep nesting. `parse_structure` falls back to the oracle then.

Only document-level headings are note structure: a heading inside a block quote, a
callout or a list item is content of that block, not a section of the note.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, NamedTuple

from markdown_it import MarkdownIt
from markdown_it.common.utils import mdTrim
from markdown_it.token import Token
from mdit_py_plugins.front_matter import front_matter_plugin

from ..vault.note import markdown_lines

MAX_CONTAINER_DEPTH = 6  # markdown-it stops parsing at nesting level 20 (two levels per list item)


class FlatHeading(NamedTuple):
    level: int
    title: str
    line: int  # 1-based first line (the paragraph's first line for a setext heading)


@dataclass(slots=True)
class Structure:
    """Block structure of a note in 1-based file lines."""

    line_count: int
    body_start_line: int  # first line after the frontmatter (1 when there is none)
    headings: list[FlatHeading]
    code_lines: list[tuple[int, int]] = field(default_factory=list)  # inclusive ranges of code lines
    scanner: str = "scan"  # "scan" or "markdown-it"


def _md() -> MarkdownIt:
    return MarkdownIt("commonmark").use(front_matter_plugin)


_MD = _md()


def decode_text(raw: bytes) -> str | None:
    """The text markdown-it sees: UTF-8, BOM removed. None when not UTF-8 or binary."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if "\x00" in text:
        return None
    return text.removeprefix("\ufeff")


# -- inline text of a heading ---------------------------------------------------------------

_INLINE_SPECIAL = re.compile(r"[\\&*_`\[\]!<\n]")


def reduce_inline(children: list[Token] | None) -> str:
    parts: list[str] = []
    for tok in children or []:
        if tok.type in ("text", "code_inline"):
            parts.append(tok.content)
        elif tok.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif tok.type == "image":
            parts.append(reduce_inline(tok.children))
    return "".join(parts).strip()


@lru_cache(maxsize=65536)
def inline_text(content: str) -> str:
    """A heading's inline markup reduced to its text (emphasis, code, links and escapes removed)."""
    if not _INLINE_SPECIAL.search(content):
        return content.strip()
    tokens = _MD.parseInline(content)
    return reduce_inline(tokens[0].children if tokens else None)


# -- front matter, exactly as mdit_py_plugins.front_matter decides -------------------------


def frontmatter_line_count(lines: list[str]) -> int:
    """Number of lines the front_matter plugin consumes at the top (0 when none)."""
    if not lines or not lines[0].startswith("---"):
        return 0
    first = lines[0]
    count = len(first) - len(first.lstrip("-"))
    for i in range(1, len(lines)):
        line = lines[i]
        if line.startswith("...") and line[3:].strip(" \t") == "":
            return i + 1
        stripped = line.lstrip(" \t")
        if not stripped.startswith("-"):
            continue
        indent = _columns(line[: len(line) - len(stripped)])
        if indent >= 4:
            continue
        dashes = len(stripped) - len(stripped.lstrip("-"))
        if dashes < count:
            continue
        if stripped[dashes:].strip(" \t") == "":
            return i + 1
    return 0


def _columns(prefix: str) -> int:
    col = 0
    for ch in prefix:
        col = col + 4 - col % 4 if ch == "\t" else col + 1
    return col


# -- the scanner ------------------------------------------------------------------------------

_ATX = re.compile(r"#{1,6}(?:[ \t]|$)")
_FENCE_OPEN = re.compile(r"(`{3,})(?!.*`)|(~{3,})")
_SETEXT = re.compile(r"(?:=+|-+)[ \t]*$")
_THEMATIC = re.compile(r"(?:(?:\*[ \t]*){3,}|(?:_[ \t]*){3,}|(?:-[ \t]*){3,})$")
_BULLET = re.compile(r"[-+*](?= |$)")
_ORDERED = re.compile(r"([0-9]{1,9})[.)](?= |$)")
_MAYBE_SPECIAL = frozenset("#`~*+_=<>-0123456789")
# first characters after which a line is plain paragraph text: none may start a block or be part
# of the leading run that the tab check below looks at
_NOT_TEXT = _MAYBE_SPECIAL | frozenset(" \t.)")

_BQ = 0
_LI = 1


class _GiveUp(Exception):
    pass


def _atx_title(rest: str) -> tuple[int, str]:
    """Level and raw inline content of an ATX heading line starting at the '#'s."""
    level = len(rest) - len(rest.lstrip("#"))
    end = len(rest.rstrip(" \t"))
    tmp = end
    while tmp > level and rest[tmp - 1] == "#":
        tmp -= 1
    if tmp > level and rest[tmp - 1] in " \t":
        end = tmp
    elif tmp == level:  # only closing '#'s after the marker, e.g. "## ##"
        end = level
    return level, mdTrim(rest[level:end])


def scan_structure(lines: list[str], body_start: int) -> Structure | None:
    """Headings and code ranges of `lines` from index `body_start`; None when undecidable."""
    try:
        return _scan(lines, body_start)
    except _GiveUp:
        return None


def _scan(lines: list[str], body_start: int) -> Structure:
    headings: list[FlatHeading] = []
    code: list[tuple[int, int]] = []
    # containers: [kind, width, has_content]
    containers: list[list[int]] = []
    leaf = 0  # 0 none, 1 paragraph, 2 fenced code, 3 indented code
    para_start = 0
    para_depth = 0
    para_lines: list[str] = []
    fence_char = ""
    fence_len = 0
    code_start = 0
    n = len(lines)
    for idx in range(body_start, n):
        s = lines[idx]
        # fast paths for the commonest lines; each makes the decision the general code below
        # would make (the differential tests compare both with markdown-it)
        if not s:
            if not containers:
                if leaf == 1:
                    leaf = 0
                continue
            if leaf <= 1 and all(c[0] == _LI and c[2] for c in containers):
                # a blank line inside list items that have content: the items stay open
                leaf = 0
                continue
        else:
            if leaf == 2 and not containers and fence_char not in s[:4]:
                continue  # inside a fence at document level, and the line cannot close it
            c0 = s[0]
            if c0 not in _NOT_TEXT:
                # text at column 0: no container can match it (they need indentation or '>')
                if leaf == 1:
                    if containers:
                        # a lazy continuation inside a container: markdown-it's container
                        # termination rules are subtle here (fuzz-found), let it decide
                        raise _GiveUp
                    para_lines.append(s)  # continuation of a document-level paragraph
                    continue
                if (containers or leaf != 2) and (c0 != "[" or "]:" not in s):
                    # every container closes, and so does code; a paragraph opens
                    if leaf >= 2:
                        _close_leaf_code(code, leaf, code_start, idx, lines)
                    if containers:
                        containers = []
                    leaf = 1
                    para_start = idx
                    para_depth = 0
                    para_lines = [s]
                    continue
            elif c0 == "#" and (containers or leaf != 2) and "\t" not in s and _ATX.match(s):
                # an ATX heading at column 0 closes every container and leaf: a note heading
                if leaf >= 2:
                    _close_leaf_code(code, leaf, code_start, idx, lines)
                if containers:
                    containers = []
                level, content = _atx_title(s)
                headings.append(FlatHeading(level, inline_text(content), idx + 1))
                leaf = 0
                continue
            elif (
                c0 == "-"
                and len(s) > 2
                and s[1] == " "
                and s[2] not in _NOT_TEXT
                and (containers or leaf != 2)
                and (s[2] != "[" or "]:" not in s)
            ):
                # "- text" at column 0 (the commonest list line): every open container closes
                # (none can match a line starting with "-"), an item of width 2 opens with a paragraph
                if leaf >= 2:
                    _close_leaf_code(code, leaf, code_start, idx, lines)
                containers = [[_LI, 2, 1]]
                leaf = 1
                para_start = idx
                para_depth = 1
                para_lines = [s[2:]]
                continue
        if "\t" in s:
            lead = len(s) - len(s.lstrip(" >-+*.)0123456789#`~=_\t"))
            if "\t" in s[: lead + 1]:
                raise _GiveUp
        length = len(s)
        pos = 0
        matched = 0
        ncont = len(containers)
        for c in containers:
            nxt = pos
            while nxt < length and s[nxt] == " ":
                nxt += 1
            if c[0] == _BQ:
                if nxt - pos <= 3 and nxt < length and s[nxt] == ">":
                    pos = nxt + 1
                    if pos < length and s[pos] == " ":
                        pos += 1
                    matched += 1
                    continue
                break
            if nxt >= length:  # blank line
                if not c[2]:
                    break
                pos = nxt
                matched += 1
                continue
            if nxt - pos >= c[1]:
                pos += c[1]
                matched += 1
                continue
            break
        all_matched = matched == ncont
        nxt = pos
        while nxt < length and s[nxt] == " ":
            nxt += 1
        blank = nxt >= length
        indent = nxt - pos
        # leaves that consume the line when their container matched
        if all_matched and leaf == 2:
            if indent <= 3 and not blank and s[nxt] == fence_char:
                run = len(s) - len(s[nxt:].lstrip(fence_char)) - nxt
                if run >= fence_len and s[nxt + run :].strip(" ") == "":
                    code.append((code_start, idx + 1))
                    leaf = 0
            continue
        if all_matched and leaf == 3:
            if indent >= 4 or blank:
                continue
            code.append((code_start, _last_nonblank(lines, code_start - 1, idx - 1) + 1))
            leaf = 0
        tip_para = leaf == 1
        container_para = tip_para and all_matched and not blank
        started = False  # a new block closed the unmatched containers
        consumed = False  # a heading or a thematic break took the line
        depth = matched
        # block starts
        while True:
            nxt = pos
            while nxt < length and s[nxt] == " ":
                nxt += 1
            indent = nxt - pos
            blank = nxt >= length
            if blank:
                break
            ch = s[nxt]
            if indent >= 4:
                if tip_para:
                    break  # lazy or paragraph continuation
                # indented code
                _close_leaf_code(code, leaf, code_start, idx, lines)
                del containers[depth:]
                leaf = 3
                code_start = idx + 1
                started = True
                break
            if ch not in _MAYBE_SPECIAL:
                break
            rest = s[nxt:]
            if ch == ">":
                del containers[depth:]
                leaf = _close_leaf_code(code, leaf, code_start, idx, lines)
                if containers:
                    containers[-1][2] = 1
                containers.append([_BQ, 0, 1])
                depth += 1
                if len(containers) > MAX_CONTAINER_DEPTH:
                    raise _GiveUp
                pos = nxt + 1
                if pos < length and s[pos] == " ":
                    pos += 1
                started = True
                container_para = tip_para = False
                continue
            if ch == "<":
                raise _GiveUp  # possible HTML block
            if ch == "#" and _ATX.match(rest):
                del containers[depth:]
                leaf = _close_leaf_code(code, leaf, code_start, idx, lines)
                if containers:
                    containers[-1][2] = 1
                elif depth == 0:
                    level, content = _atx_title(rest)
                    headings.append(FlatHeading(level, inline_text(content), idx + 1))
                leaf = 0
                started = True
                consumed = True
                break
            if ch in "`~":
                m = _FENCE_OPEN.match(rest)
                if m:
                    del containers[depth:]
                    _close_leaf_code(code, leaf, code_start, idx, lines)
                    if containers:
                        containers[-1][2] = 1
                    fence = m.group(1) or m.group(2)
                    fence_char, fence_len = fence[0], len(fence)
                    leaf = 2
                    code_start = idx + 1
                    started = True
                    break
            if container_para and ch in "=-" and _SETEXT.match(rest):
                if para_lines and para_lines[0].lstrip(" ").startswith("[") and any("]:" in t for t in para_lines):
                    # a link reference definition whose label spans lines ("[1" / "]: /u") may
                    # consume the paragraph, and then there is no setext heading (fuzz-found)
                    raise _GiveUp
                if para_depth == 0:
                    content = mdTrim("\n".join(para_lines))
                    headings.append(FlatHeading(2 if ch == "-" else 1, inline_text(content), para_start + 1))
                leaf = 0
                started = True
                consumed = True
                break
            if ch in "*-_" and _THEMATIC.match(rest):
                del containers[depth:]
                leaf = _close_leaf_code(code, leaf, code_start, idx, lines)
                if containers:
                    containers[-1][2] = 1
                leaf = 0
                started = True
                consumed = True
                break
            m2 = _BULLET.match(rest) if ch in "-+*" else _ORDERED.match(rest)
            if m2:
                marker_end = m2.end()
                after = rest[marker_end:]
                content_blank = after.strip(" ") == ""
                if container_para and (content_blank or (m2.lastindex == 1 and int(m2.group(1)) != 1)):
                    break
                spaces = len(after) - len(after.lstrip(" "))
                if content_blank:
                    width = marker_end + 1
                elif spaces >= 5:
                    raise _GiveUp  # item starting with indented code
                else:
                    width = marker_end + spaces
                del containers[depth:]
                leaf = _close_leaf_code(code, leaf, code_start, idx, lines)
                leaf = 0
                if containers:
                    containers[-1][2] = 1
                containers.append([_LI, indent + width, 0 if content_blank else 1])
                depth += 1
                if len(containers) > MAX_CONTAINER_DEPTH:
                    raise _GiveUp
                pos = nxt + min(width, len(rest))
                started = True
                container_para = tip_para = False
                continue
            break
        if consumed or (started and leaf in (2, 3)):
            continue
        # text remains (or a blank line)
        if not started and not all_matched and not blank and leaf == 1:
            raise _GiveUp  # a lazy continuation line inside a container (see above)
        if not started and not all_matched:
            del containers[matched:]
            leaf = _close_leaf_code(code, leaf, code_start, idx, lines)
        if blank:
            if leaf == 1:
                leaf = 0
            continue
        if leaf == 1:
            para_lines.append(s[pos:])
            continue
        # open a paragraph
        if s[nxt] == "[" and "]:" in s:
            raise _GiveUp  # possible link reference definition
        if containers:
            containers[-1][2] = 1
        leaf = 1
        para_start = idx
        para_depth = len(containers)
        para_lines = [s[pos:]]
    if leaf == 2:
        code.append((code_start, n))
    elif leaf == 3:
        code.append((code_start, _last_nonblank(lines, code_start - 1, n - 1) + 1))
    return Structure(n, body_start + 1, headings, code)


def _close_leaf_code(code: list[tuple[int, int]], leaf: int, code_start: int, idx: int, lines: list[str]) -> int:
    if leaf == 2:
        code.append((code_start, idx))
    elif leaf == 3:
        code.append((code_start, _last_nonblank(lines, code_start - 1, idx - 1) + 1))
    return 0 if leaf in (1, 2, 3) else leaf


def _last_nonblank(lines: list[str], first: int, last: int) -> int:
    while last > first and lines[last].strip(" \t") == "":
        last -= 1
    return last


# -- the oracle -------------------------------------------------------------------------------


def oracle_structure(text: str) -> Structure:
    """markdown-it-py's answer (CommonMark + front_matter) in the same shape as the scanner's."""
    lines = markdown_lines(text)
    tokens = _MD.parse(text)
    headings: list[FlatHeading] = []
    code: list[tuple[int, int]] = []
    body_start = 0
    for i, tok in enumerate(tokens):
        if tok.type == "front_matter" and tok.map:
            body_start = tok.map[1]
        elif tok.type == "heading_open" and tok.level == 0 and tok.map:
            inline = tokens[i + 1]
            headings.append(FlatHeading(int(tok.tag[1]), reduce_inline(inline.children), tok.map[0] + 1))
        elif tok.type in ("fence", "code_block") and tok.map:
            code.append((tok.map[0] + 1, tok.map[1]))
    return Structure(len(lines), body_start + 1, headings, code, "markdown-it")


def parse_structure(text: str, lines: list[str] | None = None) -> Structure:
    """The scanner's answer, or markdown-it-py's when the scanner cannot decide.

    `lines`, when given, must be `markdown_lines(text)` (the caller's copy, to split once).
    """
    if lines is None:
        lines = markdown_lines(text)
    if "\r" in text and "\r" in text.replace("\r\n", ""):
        return oracle_structure(text)
    start = frontmatter_line_count(lines)
    result = scan_structure(lines, start)
    if result is None:
        return oracle_structure(text)
    return result


def heading_key(structure: Structure) -> list[tuple[int, str, int]]:
    return [(h.level, h.title, h.line) for h in structure.headings]


def as_jsonable(structure: Structure) -> dict[str, Any]:
    return {
        "line_count": structure.line_count,
        "body_start_line": structure.body_start_line,
        "headings": heading_key(structure),
    }
