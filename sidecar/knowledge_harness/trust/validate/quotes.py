"""Finding a judge's quote in the fetched text of the source it names: the first half of the quote gate.

A model's reading is an opinion; the quote is its proof, and only a quote that is word for word
in the page counts. "Word for word" forgives what a copy changes without changing the words: both
sides are compared after the same normalization, character by character —

- NFKC (fullwidth letters and digits, compatibility forms; a page or quote in NFD, as macOS writes
  it, reads as its NFC form), then case folding;
- every quotation mark and Japanese quote bracket dropped (“ ” " ' ‘ ’ 「 」 『 』 « » …), so a
  model that adds or straightens quotes still matches;
- every dash and minus made "-", the wave dash made "~";
- every space, line break, tab, zero-width character and soft hyphen dropped, so a quote may
  cross a sentence or line break of the extracted text, and Japanese (written without spaces)
  is compared the same way as English.

An ellipsis inside a quote ("… ", "...") splits it into pieces, each of which must be found on its
own. A piece shorter than `MIN_QUOTE_CHARS` normalized characters proves nothing (a few common
words are on every page) and is not accepted. A found quote is recorded with its character
offsets [start, end) in the source's text, which is the evidence snapshot's text, so the record
points at the page's own words.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass
from typing import Annotated

from pydantic import AfterValidator, Field

MIN_QUOTE_CHARS = 8
MAX_QUOTES = 8
MAX_QUOTE_CHARS = 2000  # a model's answer is refused past this (it is asked for at most 300)

_DROP = frozenset(
    "\"'`\u00ab\u00bb\u2018\u2019\u201a\u201b\u201c\u201d\u201e\u201f\u2039\u203a\u300c\u300d\u300e\u300f\u301d\u301e\u301f"
    "\u00ad\u200b\u200c\u200d\u2060\ufeff"
)
_DASHES = frozenset("\u2010\u2011\u2012\u2013\u2014\u2015\u2212\u2e3a\u2e3b\ufe58\ufe63\uff0d")
_WAVES = frozenset("\u301c\u3030\uff5e")
_ELLIPSIS = re.compile(r"\u2026|\.{3,}|\u22ef")


@functools.lru_cache(maxsize=8192)
def _fold(ch: str) -> str:
    """One original character as the normalized characters it stands for (possibly none)."""
    if ch in _DROP or ch.isspace():
        return ""
    if ch in _DASHES:
        return "-"
    if ch in _WAVES:
        return "~"
    out = []
    for c in unicodedata.normalize("NFKC", ch).casefold():
        if c in _DROP or c.isspace():
            continue
        out.append("-" if c in _DASHES else "~" if c in _WAVES else c)
    return "".join(out)


def _clusters(text: str) -> list[tuple[int, str]]:
    """The text as (offset, characters) of each base character with the combining marks after it, so
    that a page in NFD (か + U+3099, e + U+0301, as macOS writes) folds like one in NFC (が, é)."""
    if text.isascii() or not any(unicodedata.combining(c) for c in set(text)):
        return list(enumerate(text))  # no mark to join: each character is its own (most pages)
    out: list[tuple[int, str]] = []
    for i, ch in enumerate(text):
        if out and unicodedata.combining(ch) and out[-1][0] + len(out[-1][1]) == i:
            out[-1] = (out[-1][0], out[-1][1] + ch)
        else:
            out.append((i, ch))
    return out


def _fold_cluster(cluster: str) -> str:
    return _fold(cluster) if len(cluster) == 1 else _fold(unicodedata.normalize("NFC", cluster))


def normalize(text: str) -> str:
    return "".join(_fold_cluster(cluster) for _, cluster in _clusters(text))


@dataclass(frozen=True, slots=True)
class Located:
    start: int
    end: int
    text: str  # the source's own characters at [start, end)


class SourceText:
    """A source's text, normalized once, with the way back from each normalized character to
    its offset in the original."""

    def __init__(self, text: str) -> None:
        self.text = text
        chars: list[str] = []
        where: list[int] = []
        for i, cluster in _clusters(text):
            folded = _fold(cluster) if len(cluster) == 1 else _fold_cluster(cluster)
            if folded:
                chars.append(folded)
                where.extend([i] * len(folded))
        self.normalized = "".join(chars)
        self._where = where

    def find(self, piece: str) -> Located | None:
        wanted = normalize(piece)
        if len(wanted) < MIN_QUOTE_CHARS:
            return None
        at = self.normalized.find(wanted)
        if at < 0:
            return None
        start = self._where[at]
        end = self._where[at + len(wanted) - 1] + 1
        while end < len(self.text) and unicodedata.combining(self.text[end]):
            end += 1  # past the last letter's combining marks
        return Located(start, end, self.text[start:end])


def pieces(quote: str) -> list[str]:
    """A quote's pieces: the parts between ellipses, stripped, empty parts left out."""
    return [p.strip() for p in _ELLIPSIS.split(quote) if normalize(p)]


def join_quotes(quotes: list[str]) -> str:
    """Several passages of one page as one quote the gate splits again."""
    return " \u2026 ".join(q.strip() for q in quotes if q.strip())


def too_short(piece: str) -> bool:
    return len(normalize(piece)) < MIN_QUOTE_CHARS


def _each_bounded(quotes: list[str]) -> list[str]:
    if any(len(q) > MAX_QUOTE_CHARS for q in quotes):
        raise ValueError(f"a quote is longer than {MAX_QUOTE_CHARS} characters")
    return quotes


# a model judge's quotes, as its answer schema takes them (agent and openai_compat)
Quotes = Annotated[list[str], Field(max_length=MAX_QUOTES), AfterValidator(_each_bounded)]
