"""Structure of one note: document-level headings, code regions, links and tags.

The reference for block structure is markdown-it-py's CommonMark parser with the
front_matter plugin, run on the decoded text with the BOM removed (`oracle_structure`).
It runs at 1-3 MB/s, so `scan_structure` is a line scanner that follows the CommonMark
block algorithm (containers: block quotes and list items; leaves: paragraphs, ATX and
setext headings, fenced and indented code, HTML blocks of the 7 kinds) and decides real
Obsidian Markdown itself: tabs by CommonMark's tab stops (partial tabs after list markers and
'>'), lazy continuation lines in list items and block quotes, link reference definitions
(read as markdown-it's `reference` rule reads them; their labels decide heading text). It
gives up (returns None) only where markdown-it's container rules differ from CommonMark's and
the line could go either way, on definitions that would make markdown-it re-parse part of a
paragraph, on bare carriage returns and on very deep nesting; `parse_structure` then asks
markdown-it for the block structure only (inline parsing only for heading text).

Only document-level headings are note structure: a heading inside a block quote, a
callout or a list item is content of that block, not a section of the note.
"""

from __future__ import annotations

import importlib
import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any, NamedTuple

from ..vault.note import markdown_lines
from .commonmark import HTML_SEQUENCES, HTML_TAG_RE, md_trim, normalize_reference

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

# Headings kept per note; those past it are counted (Structure.more_headings), not kept: a 20 MB
# heading bomb (1.5 M headings) held 1.3 GB in its heading tree (record.MAX_NOTE_HEADINGS says more)
MAX_HEADINGS = 1 << 16
MAX_CONTAINER_DEPTH = 6  # markdown-it stops parsing at nesting level 20 (two levels per list item)


class FlatHeading(NamedTuple):
    level: int
    title: str
    line: int  # 1-based first line (the paragraph's first line for a setext heading)


# a FlatHeading made without its __new__ (a Python function): the scanner makes one per heading
_flat_heading = tuple.__new__


class Structure(NamedTuple):
    """Block structure of a note in 1-based file lines."""

    line_count: int
    body_start_line: int  # first line after the frontmatter (1 when there is none)
    headings: list[FlatHeading]
    code_lines: list[tuple[int, int]]  # inclusive ranges of code lines
    scanner: str = "scan"  # "scan" or "markdown-it"
    more_headings: int = 0  # document-level headings past MAX_HEADINGS, not kept
    first_more_line: int = 0  # the line of the first of them (0: none)


@lru_cache(maxsize=1)
def markdown_it_parsers() -> tuple[MarkdownIt, MarkdownIt]:
    """markdown-it-py (CommonMark + front_matter), and the same parser without the inline pass
    (block structure only; inline tokens keep their content). Made on first use: most notes
    never need it, and a one-note rebuild in a new process should not import it."""
    from markdown_it import MarkdownIt
    from mdit_py_plugins.front_matter import front_matter_plugin

    # the packages export functions of the same names as these modules
    html_block = importlib.import_module("markdown_it.rules_block.html_block")
    html_inline = importlib.import_module("markdown_it.rules_inline.html_inline")
    # markdown-it-py's HTML tag patterns backtrack exponentially on attributes separated by
    # Unicode spaces (commonmark.py): its rules read the module globals, which get ours
    setattr(html_block, "HTML_SEQUENCES", [*html_block.__dict__["HTML_SEQUENCES"][:-1], HTML_SEQUENCES[-1]])  # noqa: B010
    setattr(html_inline, "HTML_TAG_RE", HTML_TAG_RE)  # noqa: B010
    full = MarkdownIt("commonmark").use(front_matter_plugin)
    blocks = MarkdownIt("commonmark").use(front_matter_plugin).disable(["inline", "text_join"])
    return full, blocks


def _md() -> MarkdownIt:
    return markdown_it_parsers()[0]


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
    text = _code_spans_only(content)
    if text is not None:
        return text
    tokens = _md().parseInline(content)
    return reduce_inline(tokens[0].children if tokens else None)


_BACKTICK_RUN = re.compile(r"`+")
_MARKUP = re.compile(r"[\\&*_\[\]!<]")  # _INLINE_SPECIAL without the backtick and the line break


def _plain_outside_code(content: str, start: int, end: int) -> bool:
    """Is `content[start:end]` (outside code spans) text to markdown-it's inline rules? Only
    where no rule can fire: an "&" that starts no entity, a "_" between letters or digits (it
    can neither open nor close emphasis), brackets when no "](" can make a link (inline_text
    has no reference definitions)."""
    for m in _MARKUP.finditer(content, start, end):
        c, i = m.group(), m.start()
        if c == "&":
            after = content[i + 1 : i + 2]
            if after == "#" or (after.isascii() and after.isalpha()):
                return False
        elif c == "_":
            if not (i > 0 and content[i - 1].isalnum() and content[i + 1 : i + 2].isalnum()):
                return False
        elif c in "[]":
            if "](" in content:
                return False
        else:
            return False
    return True


def _code_spans_only(content: str) -> str | None:
    """inline_text of a heading whose only markup is code spans (markdown-it's backtick rule:
    a run of n backticks opens a span closed by the next run of exactly n; an unmatched run is
    text), or None when markdown-it must decide. Headings with `code` are common in real
    vaults, and markdown-it costs its import (~30 ms) to every process that needs it."""
    if "\n" in content or "\r" in content or "\x00" in content:
        return None  # a line break in a span becomes a space: left to markdown-it
    runs = [(m.start(), m.end()) for m in _BACKTICK_RUN.finditer(content)]
    following: dict[int, int] = {}  # run length -> index of the next run of that length
    closer = [-1] * len(runs)
    for k in range(len(runs) - 1, -1, -1):
        length = runs[k][1] - runs[k][0]
        closer[k] = following.get(length, -1)
        following[length] = k
    parts: list[str] = []
    at = 0  # the text before `at` is decided
    k = 0
    while k < len(runs):
        start, end = runs[k]
        close = closer[k]
        if close < 0:
            k += 1  # an unmatched run is text
            continue
        if not _plain_outside_code(content, at, start):
            return None
        parts.append(content[at:start])
        code = content[end : runs[close][0]]
        if code.startswith(" ") and code.endswith(" ") and any(c != " " for c in code):
            code = code[1:-1]
        parts.append(code)
        at = runs[close][1]
        k = close + 1
    if not _plain_outside_code(content, at, len(content)):
        return None
    parts.append(content[at:])
    return "".join(parts).strip()


# -- front matter, exactly as mdit_py_plugins.front_matter decides -------------------------


_FENCE_LINE_FIRST = frozenset(". \t-")  # what a line that can close front matter starts with


def frontmatter_line_count(lines: list[str]) -> int:
    """Number of lines the front_matter plugin consumes at the top (0 when none)."""
    if not lines or not lines[0].startswith("---"):
        return 0
    first = lines[0]
    count = len(first) - len(first.lstrip("-"))
    for i in range(1, len(lines)):
        line = lines[i]
        first_char = line[:1]
        if first_char not in _FENCE_LINE_FIRST:
            continue  # neither "..." nor a run of "-" after spaces: no copy of the line stripped
        if line.startswith("...") and line[3:].strip(" \t") == "":
            return i + 1
        stripped = line.lstrip(" \t")
        if not stripped.startswith("---"):
            continue  # fewer dashes than the opening line's three or more
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
_BULLET = re.compile(r"[-+*](?=[ \t]|$)")
_ORDERED = re.compile(r"([0-9]{1,9})[.)](?=[ \t]|$)")
_MAYBE_SPECIAL = frozenset("#`~*+_=<>-0123456789")
# first characters after which a line is plain paragraph text: none may start a block or be part
# of the leading run that the tab check below looks at
_NOT_TEXT = _MAYBE_SPECIAL | frozenset(" \t.)")

_BQ = 0
_LI = 1
_LIST_FIRST = frozenset("-+*0123456789")
_LAZY_STOP = _MAYBE_SPECIAL - {"="}  # no block starts with "=": such a line can be lazy
_RAW = (2, 4)  # leaves that take any line their containers match: fenced code, an HTML block


class _GiveUp(Exception):
    pass


def _expand(s: str, pos: int) -> str:
    """`s` with the run of spaces and tabs at `pos` as spaces, tabs to CommonMark's tab stops of 4.

    The scanner calls it where it is about to skip whitespace that defines block structure; the
    part of `s` before `pos` never holds a tab then, so column = index.
    """
    end = pos
    n = len(s)
    while end < n and s[end] in " \t":
        end += 1
    if "\t" not in s[pos:end]:
        return s
    col = pos
    for ch in s[pos:end]:
        col = col + 4 - col % 4 if ch == "\t" else col + 1
    return s[:pos] + " " * (col - pos) + s[end:]


_NO_MARKS: list[int] = []
_EMPTY_IN_CONTAINER = re.compile(r"[ \t>*+\-0-9.)]*\Z")


def _expand_at(s: str, pos: int, marks: list[int]) -> str:
    """_expand, giving up where markdown-it's tab columns drift: marks = [containers the line has
    entered so far, whether one of them is a block quote]. markdown-it measures a tab inside
    nested containers, one of them a block quote, from that quote's content rather than from the
    line start, so it can land on other columns than CommonMark's ("> \t> > \tx",
    "- > 1. > \t> \tx", fuzz-found). One container, or list items only, are exact."""
    expanded = _expand(s, pos)
    if expanded is not s and marks[0] >= 2 and marks[1]:
        raise _GiveUp
    return expanded


def _past_quote_mark(s: str, pos: int, marks: list[int], tabs: bool) -> tuple[str, int]:
    """The line (tabs expanded from `pos` when it has any) and the position after a block quote's
    '>' at pos - 1 and the one optional space that follows it."""
    if tabs:
        marks[0] += 1
        marks[1] = 1
        s = _expand_at(s, pos, marks)
    if pos < len(s) and s[pos] == " ":
        pos += 1
    return s, pos


# markdown-it's own table of HTML block start and end conditions (CommonMark's 7 kinds):
# (start pattern, end pattern, can interrupt a paragraph)
_HTML_STARTS = [(start, end, interrupts, end.search("") is not None) for start, end, interrupts in HTML_SEQUENCES]


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
    return level, md_trim(rest[level:end])


# -- link reference definitions, exactly as markdown-it's `reference` block rule reads them ----
#
# A paragraph that starts with "[" may begin with link reference definitions. The scanner first
# takes it as a paragraph; when the paragraph ends it reads the definitions off its lines as
# markdown-it does (markdown-it tries them first and reads the same lines: those up to a blank
# line or a block that can interrupt a paragraph; the one difference, list items, is given up
# on). Definitions change no structure unless they take some of the paragraph's lines but not
# all (the rest is then parsed again, as a new block: the scanner checks it can only be a
# paragraph) or a setext underline follows (given up on). Their labels decide whether a "[x]"
# in a heading is a link, i.e. the heading's text.


def _listish(text: str) -> bool:
    """A paragraph's continuation line (its content) that would end a definition's lines in
    markdown-it: a list item that cannot interrupt a paragraph ("2. x", an empty "-")."""
    content = text.lstrip(" ")
    if len(text) - len(content) >= 4 or content[:1] not in _LIST_FIRST:
        return False
    return bool(_BULLET.match(content) or _ORDERED.match(content))


class _PlainHref(str):
    """A definition's destination not yet normalized (markdown-it's normalizeLink): only a
    heading's inline parse reads it (_scan normalizes it first), and most notes have none."""


# a destination of these characters alone is one markdown-it reads as it stands: no escapes,
# entities, parentheses, brackets or angle brackets (and its scheme is checked below)
_PLAIN_DEST = re.compile(r"[^\x00-\x20\x7f\\&()<>\[\]]*")
_UNSAFE_SCHEMES = ("vbscript:", "javascript:", "file:", "data:")


def _plain_destination(string: str, pos: int, maximum: int) -> str | None:
    """The destination at `pos` when markdown-it's parseLinkDestination, normalizeLink and
    validateLink would accept it unchanged ("" when there is none); None when they decide."""
    if pos < maximum and string[pos] == "<":
        return None
    m = _PLAIN_DEST.match(string, pos, maximum)
    assert m is not None  # the pattern matches the empty string
    end = m.end()
    if end < maximum and string[end] not in " \n\t\r\x0b\x0c":
        return None  # stopped at a character markdown-it reads differently (or a control character)
    found = m.group()
    if found.lower().startswith(_UNSAFE_SCHEMES):
        return None
    return found


def _plain_title(string: str, pos: int, maximum: int) -> tuple[bool, str, int]:
    """(ok, title, end) of a link title at `pos` as markdown-it's parseLinkTitle reads it, when
    that is plain: none there, or quoted without escapes or entities and closed; end -1 otherwise."""
    if pos >= maximum or string[pos] not in "\"'(":
        return False, "", 0
    if string[pos] == "(":
        return False, "", -1
    close = string.find(string[pos], pos + 1, maximum)
    if close < 0:
        return False, "", -1
    title = string[pos + 1 : close]
    if "\\" in title or "&" in title:
        return False, "", -1
    return True, title, close + 1


def _definition(lines: list[str], first: int, newline_at_end: bool, open_end: bool) -> tuple[int, str, Any] | None:
    """(index of the line after it, label, reference) of a link reference definition at
    `lines[first]`, None when there is none. `lines`: a paragraph's lines from their first
    non-blank character; open_end: reading past the last line gives up (markdown-it would read
    on, a setext underline follows)."""
    last = len(lines) - 1

    def text(k: int) -> str:
        return lines[k].lstrip(" \t") + ("\n" if k < last or newline_at_end else "")

    def next_line(k: int) -> str | None:
        if k <= last:
            return text(k)
        if open_end:
            raise _GiveUp
        return None

    string = text(first)
    next_index = first + 1
    maximum = len(string)
    label_end = -1
    pos = 1
    while pos < maximum:
        ch = string[pos]
        if ch == "[":
            return None
        if ch == "]":
            label_end = pos
            break
        if ch == "\n" or (ch == "\\" and pos + 1 < maximum and string[pos + 1] == "\n"):
            if ch == "\\":
                pos += 1
            more = next_line(next_index)
            if more is not None:
                string += more
                maximum = len(string)
                next_index += 1
        elif ch == "\\":
            pos += 1
        pos += 1
    if label_end < 0 or string[label_end + 1 : label_end + 2] != ":":
        return None

    def skip_space(pos: int) -> int:
        nonlocal string, maximum, next_index
        while pos < maximum:
            ch = string[pos]
            if ch == "\n":
                more = next_line(next_index)
                if more is not None:
                    string += more
                    maximum = len(string)
                    next_index += 1
            elif ch not in " \t":
                break
            pos += 1
        return pos

    pos = skip_space(label_end + 2)
    plain = _plain_destination(string, pos, maximum)
    href: str | _PlainHref
    if plain is not None:  # decided without markdown-it (its import: ~30 ms per process)
        if not plain:
            return None
        href = _PlainHref(plain)
        pos = dest_end = pos + len(plain)
    else:
        dest = _md().helpers.parseLinkDestination(string, pos, maximum)
        if not dest.ok:
            return None
        href = _md().normalizeLink(dest.str)
        if not _md().validateLink(href):
            return None
        pos = dest_end = dest.pos
    dest_end_index = next_index
    start = pos
    pos = skip_space(pos)
    title_ok, title_str, title_end = _plain_title(string, pos, maximum)
    if title_end < 0:
        title_res = _md().helpers.parseLinkTitle(string, pos, maximum, None)
        while title_res.can_continue:
            more = next_line(next_index)
            if more is None:
                break
            string += more
            pos = maximum
            maximum = len(string)
            next_index += 1
            title_res = _md().helpers.parseLinkTitle(string, pos, maximum, title_res)
        title_ok, title_str, title_end = title_res.ok, title_res.str, title_res.pos
    if pos < maximum and start != pos and title_ok:
        title = title_str
        pos = title_end
    else:
        title = ""
        pos = dest_end
        next_index = dest_end_index
    while pos < maximum and string[pos] in " \t":
        pos += 1
    if pos < maximum and string[pos] != "\n" and title:
        title = ""
        pos = dest_end
        next_index = dest_end_index
        while pos < maximum and string[pos] in " \t":
            pos += 1
    if pos < maximum and string[pos] != "\n":
        return None
    label = normalize_reference(string[1:label_end])
    if not label:
        return None
    return next_index, label, {"title": title, "href": href, "map": None}


def _settle_definitions(
    lines: list[str], lazy: list[int], newline_at_end: bool, open_end: bool, refs: dict[str, Any]
) -> int:
    """Read the definitions at the start of a paragraph that starts with "[" into `refs`; the
    number of its lines they take. Gives up where the rest would not be the paragraph's rest."""
    taken = 0
    while taken < len(lines):
        content = lines[taken].lstrip(" \t")
        if taken and (
            # markdown-it parses on from this line as a new block: it must be a paragraph's start
            open_end
            or taken in lazy
            or _columns(lines[taken][: len(lines[taken]) - len(content)]) >= 4
            or content[0] in _MAYBE_SPECIAL  # e.g. an HTML block of kind 7, "2." or "-" would start
        ):
            raise _GiveUp
        if not content.startswith("[") or content.startswith("[["):
            break  # "[[" (a wikilink) holds no label: _definition would say None at once
        found = _definition(lines, taken, newline_at_end, open_end)
        if found is None:
            break
        taken, label, ref = found
        refs.setdefault(label, ref)
    return taken


def scan_structure(lines: list[str], body_start: int, *, final_newline: bool = True) -> Structure | None:
    """Headings and code ranges of `lines` from index `body_start`; None when undecidable.

    final_newline: whether the text ends with a line break (markdown-it ignores a last line of
    only spaces and tabs that has none).
    """
    if not body_start and lines and lines[0][:1] == "-" and not lines[0].startswith("---") and "--" in lines[0][2:]:
        # "- ---…", "- x--…": the front_matter plugin also fires inside a list item on the first
        # line when the document's first character is "-" (fuzz-found); markdown-it decides
        return None
    if not final_newline and lines and _EMPTY_IN_CONTAINER.match(lines[-1]) and lines[-1].strip(" \t"):
        # a last line without a line break that is only container markers (">"): markdown-it-py's
        # rules read one character past the text there and stop early (fuzz-found)
        return None
    try:
        return _scan(lines, body_start, final_newline)
    except _GiveUp:
        return None


def _scan(lines: list[str], body_start: int, final_newline: bool) -> Structure:
    """One pass over the lines as a state machine in local variables (see scan_structure).

    It stays one long function on purpose: every line passes through it, and moving its steps into
    functions (state in an object, or a call per line) measured slower on real vaults; the
    differential tests against markdown-it are what keeps it right, not its shape.
    """
    headings: list[FlatHeading] = []
    more_headings = first_more_line = 0
    code: list[tuple[int, int]] = []
    # containers: [kind, width, has_content]
    containers: list[list[int]] = []
    leaf = 0  # 0 none, 1 paragraph, 2 fenced code, 3 indented code, 4 HTML block
    para_start = 0
    para_depth = 0
    para_lines: list[str] = []
    para_ref = False  # the paragraph starts with "[": link reference definitions may take its lines
    para_lazy: list[int] = []  # indexes in para_lines of lazy continuation lines
    refs: dict[str, Any] = {}  # link reference definitions: normalized label -> reference
    raw_titles: list[tuple[int, str]] = []  # (index in headings, inline content) of headings with "["
    fence_char = ""
    fence_len = 0
    code_start = 0
    code_last = 0  # the last line of indented code with content (1-based)
    html_end: re.Pattern[str] | None = None  # the end condition of an HTML block of kind 1-5
    n = len(lines)
    if n and not final_newline and lines[-1] and not lines[-1].strip(" \t"):
        n -= 1  # markdown-it's block parser does not see such a last line
    for idx in range(body_start, n):
        s = lines[idx]
        # fast paths for the commonest lines; each makes the decision the general code below
        # would make (the differential tests compare both with markdown-it)
        if not s:
            if not containers:
                if leaf == 1 or (leaf == 4 and html_end is None):
                    leaf = 0
                continue
            first = containers[0]
            if leaf <= 1 and (
                # one container (the commonest case) without all()'s generator
                all(c[0] == _LI and c[2] for c in containers) if len(containers) > 1 else first[0] == _LI and first[2]
            ):
                # a blank line inside list items that have content: the items stay open
                leaf = 0
                continue
        else:
            if leaf == 2 and not containers and fence_char not in s[:4]:
                continue  # inside a fence at document level, and the line cannot close it
            c0 = s[0]
            if c0 not in _NOT_TEXT or (c0 == "*" and s[1:2] == "*" and not containers and s.strip("* \t")):
                # text at column 0: no container can match it (they need indentation or '>'); "**"
                # followed by text (bold) starts no block either: not a list item, nor a thematic break
                if leaf == 1:
                    # a paragraph continues (lazily when it is in a container): no block starts
                    # with this character, so no container ends here in markdown-it either
                    if containers:
                        para_lazy.append(len(para_lines))
                    para_lines.append(s)
                    continue
                if containers or leaf not in _RAW:
                    # every container closes, and so does code; a paragraph opens
                    if leaf >= 2:
                        _close_leaf_code(code, leaf, code_start, idx, code_last)
                    if containers:
                        containers = []
                    leaf = 1
                    para_start = idx
                    para_depth = 0
                    if para_ref:
                        _settle_definitions(para_lines, para_lazy, True, False, refs)
                    para_lines = [s]
                    para_lazy = []
                    para_ref = c0 == "["
                    continue
            elif c0 == "#" and (containers or leaf not in _RAW) and "\t" not in s and _ATX.match(s):
                # an ATX heading at column 0 closes every container and leaf: a note heading
                if leaf >= 2:
                    _close_leaf_code(code, leaf, code_start, idx, code_last)
                if containers:
                    containers = []
                if len(headings) < MAX_HEADINGS:
                    level, content = _atx_title(s)
                    if "[" in content:
                        raw_titles.append((len(headings), content))
                    headings.append(_flat_heading(FlatHeading, (level, inline_text(content), idx + 1)))
                else:
                    more_headings += 1
                    first_more_line = first_more_line or idx + 1
                leaf = 0
                continue
            elif (
                c0 == "-" and len(s) > 2 and s[1] == " " and s[2] not in _NOT_TEXT and (containers or leaf not in _RAW)
            ):
                # "- text" at column 0 (the commonest list line): every open container closes
                # (none can match a line starting with "-"), an item of width 2 opens with a paragraph
                if leaf >= 2:
                    _close_leaf_code(code, leaf, code_start, idx, code_last)
                containers = [[_LI, 2, 1]]
                leaf = 1
                para_start = idx
                para_depth = 1
                if para_ref:
                    _settle_definitions(para_lines, para_lazy, True, False, refs)
                para_lines = [s[2:]]
                para_lazy = []
                para_ref = s[2] == "["
                continue
            elif c0 == ">" and leaf == 1 and len(containers) == 1 and containers[0][0] == _BQ and "\t" not in s:
                # a paragraph in a block quote (a callout's body) goes on unless a block starts after
                # the '>' and its one optional space
                text = s[2:] if s[1:2] == " " else s[1:]
                content = text.lstrip(" ")
                if content and (len(text) - len(content) >= 4 or content[0] not in _MAYBE_SPECIAL):
                    para_lines.append(text)
                    continue
            elif c0 == "`" and (containers or leaf not in _RAW) and (m := _FENCE_OPEN.match(s)):
                # a fence at column 0 closes every container (none can match it) and the open leaf
                if leaf >= 2:
                    _close_leaf_code(code, leaf, code_start, idx, code_last)
                if containers:
                    containers = []
                fence = m.group(1) or m.group(2)
                fence_char, fence_len = fence[0], len(fence)
                leaf = 2
                code_start = idx + 1
                continue
        tabs = "\t" in s  # tabs in block positions are expanded where the scanner meets them
        marks = [0, 0] if tabs else _NO_MARKS  # see _expand_at
        length = len(s)
        pos = 0
        matched = 0
        ncont = len(containers)
        # "expand tabs, skip spaces" is written out here and twice below on purpose: a helper
        # function for it made the scanner 6-7 % slower on real vaults (bench/index_bench.py)
        for c in containers:
            if tabs:
                s = _expand_at(s, pos, marks)
                length = len(s)
            nxt = pos
            while nxt < length and s[nxt] == " ":
                nxt += 1
            if c[0] == _BQ:
                if nxt < length and s[nxt] == ">":
                    if nxt - pos > 3:
                        # markdown-it continues a block quote at a '>' after any indentation
                        raise _GiveUp
                    s, pos = _past_quote_mark(s, nxt + 1, marks, tabs)
                    length = len(s)
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
                if tabs:
                    marks[0] += 1
                continue
            break
        all_matched = matched == ncont
        if tabs:
            s = _expand_at(s, pos, marks)
            length = len(s)
        nxt = pos
        while nxt < length and s[nxt] == " ":
            nxt += 1
        blank = nxt >= length
        indent = nxt - pos
        # leaves that consume the line when their container matched
        if all_matched and leaf == 2:
            if indent <= 3 and not blank and s[nxt] == fence_char:
                run = len(s) - len(s[nxt:].lstrip(fence_char)) - nxt
                if run >= fence_len and s[nxt + run :].strip(" \t") == "":
                    code.append((code_start, idx + 1))
                    leaf = 0
            continue
        if all_matched and leaf == 3:
            if indent >= 4 or blank:
                if not blank:
                    code_last = idx + 1
                continue
            code.append((code_start, code_last))
            leaf = 0
        if all_matched and leaf == 4:
            if html_end is None:
                if blank:
                    leaf = 0  # the blank line ends it and is not part of it
                continue
            if html_end.search(s, nxt):
                leaf = 0
            continue
        tip_para = leaf == 1
        container_para = tip_para and all_matched and not blank
        started = False  # a new block closed the unmatched containers
        consumed = False  # a heading, a thematic break or a one-line HTML block took the line
        depth = matched
        # block starts
        while True:
            if tabs:
                s = _expand_at(s, pos, marks)
                length = len(s)
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
                _close_leaf_code(code, leaf, code_start, idx, code_last)
                del containers[depth:]
                if containers:
                    containers[-1][2] = 1
                leaf = 3
                code_start = code_last = idx + 1
                started = True
                break
            if ch not in _MAYBE_SPECIAL:
                break
            rest = s[nxt:]
            if ch == ">":
                del containers[depth:]
                leaf = _close_leaf_code(code, leaf, code_start, idx, code_last)
                if containers:
                    containers[-1][2] = 1
                containers.append([_BQ, 0, 1])
                depth += 1
                if len(containers) > MAX_CONTAINER_DEPTH:
                    raise _GiveUp
                s, pos = _past_quote_mark(s, nxt + 1, marks, tabs)
                length = len(s)
                started = True
                container_para = tip_para = False
                continue
            if ch == "<":
                kind = None
                for start_re, end_re, interrupts, ends_blank in _HTML_STARTS:
                    if start_re.search(rest):
                        kind = (end_re, interrupts, ends_blank)
                        break
                if kind is None or (tip_para and not kind[1]):
                    break  # text (an HTML block of kind 7 cannot interrupt a paragraph)
                del containers[depth:]
                _close_leaf_code(code, leaf, code_start, idx, code_last)
                if containers:
                    containers[-1][2] = 1
                started = True
                if kind[2]:
                    leaf, html_end = 4, None
                elif kind[0].search(rest):
                    leaf = 0  # it ends on its first line
                    consumed = True
                else:
                    leaf, html_end = 4, kind[0]
                break
            if ch == "#" and _ATX.match(rest):
                del containers[depth:]
                leaf = _close_leaf_code(code, leaf, code_start, idx, code_last)
                if containers:
                    containers[-1][2] = 1
                elif depth == 0 and len(headings) < MAX_HEADINGS:
                    level, content = _atx_title(rest)
                    if "[" in content:
                        raw_titles.append((len(headings), content))
                    headings.append(FlatHeading(level, inline_text(content), idx + 1))
                elif depth == 0:
                    more_headings += 1
                    first_more_line = first_more_line or idx + 1
                leaf = 0
                started = True
                consumed = True
                break
            if ch in "`~":
                m = _FENCE_OPEN.match(rest)
                if m:
                    del containers[depth:]
                    _close_leaf_code(code, leaf, code_start, idx, code_last)
                    if containers:
                        containers[-1][2] = 1
                    fence = m.group(1) or m.group(2)
                    fence_char, fence_len = fence[0], len(fence)
                    leaf = 2
                    code_start = idx + 1
                    started = True
                    break
            if container_para and ch in "=-" and _SETEXT.match(rest):
                if para_ref and _settle_definitions(para_lines, para_lazy, True, True, refs):
                    raise _GiveUp  # definitions take lines: markdown-it parses the rest again
                para_ref = False
                if para_depth == 0 and len(headings) < MAX_HEADINGS:
                    content = md_trim("\n".join(para_lines))
                    if "[" in content:
                        raw_titles.append((len(headings), content))
                    headings.append(FlatHeading(2 if ch == "-" else 1, inline_text(content), para_start + 1))
                elif para_depth == 0:
                    more_headings += 1
                    first_more_line = first_more_line or para_start + 1
                leaf = 0
                started = True
                consumed = True
                break
            if ch in "*-_" and _THEMATIC.match(rest):
                del containers[depth:]
                leaf = _close_leaf_code(code, leaf, code_start, idx, code_last)
                if containers:
                    containers[-1][2] = 1
                leaf = 0
                started = True
                consumed = True
                break
            m2 = _BULLET.match(rest) if ch in "-+*" else _ORDERED.match(rest)
            if m2:
                marker_end = m2.end()
                if tabs:
                    marks[0] += 1
                    s = _expand_at(s, nxt + marker_end, marks)
                    length = len(s)
                    rest = s[nxt:]
                after = rest[marker_end:]
                content_blank = after.strip(" ") == ""
                if container_para and (content_blank or (m2.lastindex == 1 and int(m2.group(1)) != 1)):
                    break
                spaces = len(after) - len(after.lstrip(" "))
                # after 5 or more spaces the item starts with indented code, one space after the marker
                width = marker_end + 1 if content_blank or spaces >= 5 else marker_end + spaces
                del containers[depth:]
                leaf = _close_leaf_code(code, leaf, code_start, idx, code_last)
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
        if consumed or (started and leaf >= 2):
            continue
        # text remains (or a blank line)
        if not started and not all_matched and not blank and leaf == 1:
            if s[nxt] in _LAZY_STOP:
                # a lazy continuation line that might start a block somewhere: markdown-it's
                # container termination rules differ from CommonMark's here (fuzz-found)
                raise _GiveUp
            para_lazy.append(len(para_lines))
            para_lines.append(s[nxt:])  # a lazy continuation line: the containers stay open
            continue
        if not started and not all_matched:
            del containers[matched:]
            leaf = _close_leaf_code(code, leaf, code_start, idx, code_last)
        if blank:
            if leaf == 1:
                leaf = 0
            continue
        if leaf == 1:
            if para_ref and _listish(s[pos:]):
                raise _GiveUp  # it would end the definitions' lines, not the paragraph's
            # a document-level paragraph's line as written: a tab expanded above may be in a code span
            para_lines.append(s[pos:] if containers else lines[idx])
            continue
        # open a paragraph
        if para_ref:
            _settle_definitions(para_lines, para_lazy, True, False, refs)
        if containers:
            containers[-1][2] = 1
        leaf = 1
        para_start = idx
        para_depth = len(containers)
        para_lines = [s[pos:]]
        para_lazy = []
        para_ref = s[nxt] == "["
    if leaf == 2:
        code.append((code_start, n))
    elif leaf == 3:
        code.append((code_start, code_last))
    if para_ref:
        _settle_definitions(para_lines, para_lazy, leaf != 1 or final_newline, False, refs)
    if refs and raw_titles:
        for ref in refs.values():
            if isinstance(ref["href"], _PlainHref):
                ref["href"] = _md().normalizeLink(str(ref["href"]))
        env = {"references": refs}
        for i, content in raw_titles:
            tokens = _md().parseInline(content, env)
            headings[i] = headings[i]._replace(title=reduce_inline(tokens[0].children if tokens else None))
    return Structure(len(lines), body_start + 1, headings, code, "scan", more_headings, first_more_line)


def _close_leaf_code(code: list[tuple[int, int]], leaf: int, code_start: int, idx: int, code_last: int) -> int:
    """Record the code block `leaf` ends before line index `idx`; the leaf that remains (none)."""
    if leaf == 2:
        code.append((code_start, idx))
    elif leaf == 3:
        code.append((code_start, code_last))
    return 0


# -- the oracle -------------------------------------------------------------------------------


def oracle_structure(text: str) -> Structure:
    """markdown-it-py's answer (CommonMark + front_matter) in the same shape as the scanner's."""
    return _structure(text, _md().parse(text), None)


def block_structure(text: str) -> Structure:
    """oracle_structure's answer from markdown-it's block parse, inline-parsing only headings.

    The inline pass of a full parse costs about twice the block pass; a heading's text is its
    inline content parsed with the document's link reference definitions, as the full parse does.
    """
    env: dict[str, Any] = {}
    return _structure(text, markdown_it_parsers()[1].parse(text, env), env)


def _structure(text: str, tokens: list[Token], env: dict[str, Any] | None) -> Structure:
    lines = markdown_lines(text)
    headings: list[FlatHeading] = []
    code: list[tuple[int, int]] = []
    body_start = 0
    for i, tok in enumerate(tokens):
        if tok.type == "front_matter" and tok.map:
            body_start = tok.map[1]
        elif tok.type == "heading_open" and tok.level == 0 and tok.map:
            inline = tokens[i + 1]
            if env is None:
                children = inline.children
            else:
                parsed = _md().parseInline(inline.content, env)
                children = parsed[0].children if parsed else None
            headings.append(FlatHeading(int(tok.tag[1]), reduce_inline(children), tok.map[0] + 1))
        elif tok.type in ("fence", "code_block") and tok.map:
            code.append((tok.map[0] + 1, tok.map[1]))
    if len(headings) > MAX_HEADINGS:
        more = headings[MAX_HEADINGS:]
        del headings[MAX_HEADINGS:]
        return Structure(len(lines), body_start + 1, headings, code, "markdown-it", len(more), more[0].line)
    return Structure(len(lines), body_start + 1, headings, code, "markdown-it")


def parse_structure(text: str, lines: list[str] | None = None) -> Structure:
    """The scanner's answer, or markdown-it-py's when the scanner cannot decide.

    `lines`, when given, must be `markdown_lines(text)` (the caller's copy, to split once).
    """
    if lines is None:
        lines = markdown_lines(text)
    if "\r" in text and "\r" in text.replace("\r\n", ""):
        return block_structure(text)
    start = frontmatter_line_count(lines)
    result = scan_structure(lines, start, final_newline=text.endswith(("\n", "\r")))
    if result is None:
        try:
            return block_structure(text)
        except IndexError:
            # mdit_py_plugins' front_matter rule can index past the text on a first line such as
            # "- >\t-\t---"; there is no oracle answer then: the scanner's, or no structure
            return _scan_regardless(lines, start, text) or Structure(len(lines), start + 1, [], [])
    return result


def _scan_regardless(lines: list[str], start: int, text: str) -> Structure | None:
    try:
        return _scan(lines, start, text.endswith(("\n", "\r")))
    except _GiveUp:
        return None


def heading_key(structure: Structure) -> list[tuple[int, str, int]]:
    return [(h.level, h.title, h.line) for h in structure.headings]
