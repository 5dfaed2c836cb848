"""The few CommonMark tables and helpers the scanner shares with markdown-it-py, in their own module.

Importing any part of markdown-it-py runs its package's `__init__`, which loads the whole parser
(about 30 ms); the scanner decides practically every note itself and needs only these, so a
one-note rebuild in a new `kh` process should not pay for the parser. The values are
markdown-it-py 4.3's (MIT licence); tests/index/test_commonmark_copy.py checks that they are
still the installed markdown-it-py's, so an upgrade that changes them fails there first.
"""

from __future__ import annotations

import re

# CommonMark's whitespace: markdown_it.common.utils.MD_WHITESPACE, plus U+2000..U+200A (Zs)
_WHITESPACE = {0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0xA0, 0x1680, 0x202F, 0x205F, 0x3000}

# What JavaScript's String.prototype.trim removes, minus U+FEFF (markdown_it's MD_TRIM_CHARS)
MD_TRIM_CHARS = "".join(chr(code) for code in sorted(_WHITESPACE | set(range(0x2000, 0x200B)) | {0x2028, 0x2029}))
_MD_TRIM_RE = re.compile("[" + re.escape(MD_TRIM_CHARS) + "]+")


def md_trim(string: str) -> str:
    """markdown_it.common.utils.mdTrim: strip CommonMark whitespace at both ends."""
    return string.strip(MD_TRIM_CHARS)


def normalize_reference(string: str) -> str:
    """markdown_it.common.utils.normalizeReference: trim, collapse whitespace, fold case."""
    return _MD_TRIM_RE.sub(" ", md_trim(string)).lower().upper()


# markdown_it.common.html_blocks.block_names (CommonMark 0.31.2, HTML blocks of kind 6)
BLOCK_NAMES = [
    "address",
    "article",
    "aside",
    "base",
    "basefont",
    "blockquote",
    "body",
    "caption",
    "center",
    "col",
    "colgroup",
    "dd",
    "details",
    "dialog",
    "dir",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "frame",
    "frameset",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "head",
    "header",
    "hr",
    "html",
    "iframe",
    "legend",
    "li",
    "link",
    "main",
    "menu",
    "menuitem",
    "nav",
    "noframes",
    "ol",
    "optgroup",
    "option",
    "p",
    "param",
    "search",
    "section",
    "summary",
    "table",
    "tbody",
    "td",
    "tfoot",
    "th",
    "thead",
    "title",
    "tr",
    "track",
    "ul",
]

# markdown_it.common.html_re.HTML_OPEN_CLOSE_TAG_STR
_ATTR_NAME = "[a-zA-Z_:][a-zA-Z0-9:._-]*"
# An unquoted value stops at any whitespace `\s` takes (markdown-it stops only at ASCII space and
# controls): a Unicode space such as U+00A0 or U+0085 could otherwise end a value or start the next
# attribute's `\s+`, and a line of n such attributes tried 2^n splits (12 took 0.45 s, each more 3x).
# The tag is read the same unless a value holds a Unicode space not followed by an attribute name.
_ATTR_VALUE = "(?:" + "[^\"'=<>`\\x00-\\x20\\s]+" + "|" + "'[^']*'" + "|" + '"[^"]*"' + ")"
_ATTRIBUTE = "(?:\\s+" + _ATTR_NAME + "(?:\\s*=\\s*" + _ATTR_VALUE + ")?)"
_OPEN_TAG = "<[A-Za-z][A-Za-z0-9\\-]*" + _ATTRIBUTE + "*\\s*\\/?>"
_CLOSE_TAG = "<\\/[A-Za-z][A-Za-z0-9\\-]*\\s*>"
HTML_OPEN_CLOSE_TAG_STR = "^(?:" + _OPEN_TAG + "|" + _CLOSE_TAG + ")"
# markdown_it.common.html_re.HTML_TAG_RE (inline HTML) with the same attribute value
HTML_TAG_RE = re.compile(
    "(?:"
    + "|".join(
        (
            _OPEN_TAG,
            _CLOSE_TAG,
            "<!---?>|<!--(?:[^-]|-[^-]|--[^>])*-->",
            "<[?][\\s\\S]*?[?]>",
            "<![A-Za-z][^>]*>",
            "<!\\[CDATA\\[[\\s\\S]*?\\]\\]>",
        )
    )
    + ")"
)

# markdown_it.rules_block.html_block.HTML_SEQUENCES: (opening, closing, can interrupt a paragraph)
HTML_SEQUENCES: list[tuple[re.Pattern[str], re.Pattern[str], bool]] = [
    (
        re.compile(r"^<(?a:(script|pre|style|textarea))(?=(\s|>|$))", re.IGNORECASE),
        re.compile(r"<\/(?a:(script|pre|style|textarea))>", re.IGNORECASE),
        True,
    ),
    (re.compile(r"^<!--"), re.compile(r"-->"), True),
    (re.compile(r"^<\?"), re.compile(r"\?>"), True),
    (re.compile(r"^<![A-Za-z]"), re.compile(r">"), True),
    (re.compile(r"^<!\[CDATA\["), re.compile(r"\]\]>"), True),
    (
        re.compile("^</?(?a:(" + "|".join(BLOCK_NAMES) + "))(?=(\\s|/?>|$))", re.IGNORECASE),
        re.compile(r"^$"),
        True,
    ),
    (re.compile(HTML_OPEN_CLOSE_TAG_STR + "\\s*$"), re.compile(r"^$"), False),
]
