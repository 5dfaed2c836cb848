"""A table of related English words, read by the lexical judge in plain Python (no numpy, no network).

An English content word of a claim that the page never uses counts as used when the page holds one of
the word's related words (docs/validator.md, "related words"). The table is package data,
`related_words.txt.gz`: one line per word, the word then its related words, separated by spaces; lines
starting with "#" say where the table came from. `bench/make_related_words.py` writes it. It is read
once, on the first English claim that has a word the page lacks, and kept for the process's life.
Only the page is read this way: a word missing from the claim's best window stays missing.
"""

from __future__ import annotations

import functools
import gzip
import re
import threading
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from ..text import terms
from .lexical_features import normalize

TABLE_FILE = "related_words.txt.gz"
WORD = re.compile(r"[a-z][a-z']+")  # the words a claim and a page are read in


@functools.lru_cache(maxsize=65536)
def term_of(word: str) -> str | None:
    """The one content term of a word (None for a stopword or a word read as several terms)."""
    found = terms(word).content
    return found[0] if len(found) == 1 else None


def parse_table(text: str) -> dict[str, str]:
    """Each word's related words, still as one space-separated string (split when a claim asks)."""
    table: dict[str, str] = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            word, _, related = line.partition(" ")
            table[word] = related
    return table


class RelatedTable:
    """`RelatedWords` (judges/lexical.py) from a table of word pairs; see the module docstring."""

    reads_window = False  # the page only: the reading measured best (docs/validator.md)

    def __init__(self, path: Path | None = None) -> None:
        self._path = path  # None: the table shipped in the package
        self._table: dict[str, str] | None = None
        self._entries: dict[str, _Related] = {}  # the words claims asked about, read (at most the table's)
        self._lock = threading.Lock()

    @property
    def loaded(self) -> bool:
        """Whether the table has been read (it is, on the first English claim with a word the page lacks)."""
        return self._table is not None

    def _loaded(self) -> dict[str, str]:
        if self._table is None:
            with self._lock:
                if self._table is None:
                    raw = (
                        self._path.read_bytes()
                        if self._path is not None
                        else resources.files(__package__).joinpath(TABLE_FILE).read_bytes()
                    )
                    self._table = parse_table(gzip.decompress(raw).decode("utf-8"))
        return self._table

    def related(self, word: str) -> list[str]:
        """The words the table lists as related to `word` (lower case)."""
        found = self._loaded().get(word)
        return found.split() if found else []

    def forget_words(self) -> None:
        """Forget the words read so far (the table stays loaded): a benchmark's cold start."""
        self._entries.clear()
        term_of.cache_clear()

    def _entry(self, word: str) -> _Related:
        found = self._entries.get(word)
        if found is None:
            found = self._entries[word] = _Related.of(self.related(word))
        return found

    def near(self, claim: str, absent: set[str], text: str) -> set[str]:
        """The terms of `absent` one of whose words in `claim` has a related word among the words of `text`."""
        if not absent:
            return set()
        table = self._loaded()
        found: set[str] = set()
        for word in WORD.findall(normalize(claim)):
            # a word the table does not list (a name, a rare word) is skipped before it is read as a term
            if word in table and (term := term_of(word)) in absent and term not in found and self._entry(word).on(text):
                found.add(term)
        return found


@dataclass(frozen=True)
class _Related:
    """One word's related words, and the starts to look for them by: one per run of words sharing a
    start (flick, flicked, flicking: "flick")."""

    words: frozenset[str]
    starts: tuple[str, ...]

    @classmethod
    def of(cls, words: list[str]) -> _Related:
        starts: list[str] = []
        for word in sorted(words):  # the words starting with a word follow it at once
            if not (starts and word.startswith(starts[-1])):
                starts.append(word)
        return cls(frozenset(words), tuple(starts))

    def on(self, text: str) -> bool:
        """Whether `text` holds one of the words as a whole word (a possessive "movie's" holds "movie")."""
        for start in self.starts:
            at = text.find(start)
            while at != -1:
                end = at + len(start)
                while end < len(text) and "a" <= text[end] <= "z":
                    end += 1
                if text[at:end] in self.words and not (at and "a" <= text[at - 1] <= "z"):
                    return True
                at = text.find(start, end)
        return False


RELATED_WORDS = RelatedTable()  # the shipped table, loaded on first use
