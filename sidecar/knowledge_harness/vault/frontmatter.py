"""Locating the frontmatter of a note in its raw bytes.

The span is found on bytes, not on decoded text, so the writer can splice new blocks into
the original bytes and keep every other byte (BOM, CRLF, no final newline) identical.
"""

from __future__ import annotations

from typing import NamedTuple

BOM = b"\xef\xbb\xbf"


class FrontmatterSpan(NamedTuple):
    """Byte offsets into the raw file.

    raw[yaml_start:yaml_end] is the YAML text; raw[body_start:] is the body.
    `close_line` is the 1-based line number of the closing `---`.
    """

    yaml_start: int
    yaml_end: int
    body_start: int
    close_line: int
    newline: bytes  # b"\n" or b"\r\n", as used by the opening line


def _is_fence(line: bytes) -> bool:
    return line.rstrip(b"\r\n").rstrip(b" \t") == b"---"


def find_frontmatter(raw: bytes) -> FrontmatterSpan | None:
    """Return the frontmatter span, or None when the note has none.

    Frontmatter is a first line `---` (after an optional BOM) closed by a later line `---`;
    without a closing line there is no frontmatter (the `---` is a thematic break).
    """
    start = len(BOM) if raw.startswith(BOM) else 0
    first_end = raw.find(b"\n", start)
    if first_end < 0 or not _is_fence(raw[start : first_end + 1]):
        return None
    newline = b"\r\n" if raw[start:first_end].endswith(b"\r") else b"\n"
    # a closing fence is a line starting with "---": jump from one such line start to the next
    nl = first_end
    while True:
        nl = raw.find(b"\n---", nl)
        if nl < 0:
            return None
        pos = nl + 1
        after = raw.find(b"\n", pos)
        end = len(raw) if after < 0 else after + 1
        if _is_fence(raw[pos:end]):
            return FrontmatterSpan(first_end + 1, pos, end, raw.count(b"\n", 0, pos) + 1, newline)
        nl = pos
