"""Words of a text for search: one tokenizer for notes and queries, in every layer.

- English (ASCII words): lower case, Snowball-stemmed ("notes" and "note" meet), stopwords dropped.
- Japanese, Chinese and Korean runs: overlapping character bigrams (a run of one character
  stays one token). No dictionary is needed and a query matches inside longer words; a
  morphological analyzer measured no better than bigrams on the shared vaults (docs/reasoning-index.md).
- Every other script: Unicode words, case-folded.

A query's tokens count with weights (query_weights): Korean writes words between spaces, and a
word of n syllables makes n-1 bigrams, so without them a long Korean word outweighed a short one
(and an English word) n-1 to 1; each bigram of a Korean word counts 1/(n-1). Chinese and Japanese
runs are phrases without spaces between words, so their bigrams keep weight 1.

Text is NFKC-normalized first, so full-width Latin letters and half-width katakana meet their
usual forms, and file names in NFD read like those in NFC.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections.abc import Iterator

import Stemmer

# Hiragana, katakana (with the prolonged sound mark), CJK ideographs, compatibility ideographs,
# Hangul syllables and jamo.
_CJK_RANGES = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\u1100-\u11ff\u3130-\u318f"
_TOKEN = re.compile(rf"([{_CJK_RANGES}]+)|([^\W_{_CJK_RANGES}]+)")

ENGLISH_STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "been",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "for",
        "from",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "him",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "me",
        "my",
        "no",
        "nor",
        "not",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
    ]
)
# Hiragana that carry grammar, not meaning: a token made of these alone is a stopword
# (particles such as の, は, を and endings such as です, ます are never what a query looks for).
_KANA_FUNCTION = frozenset("のはがをにでともへやかなてたしだすれるいうえおあこそどまりらんっ")

_STEMMER = Stemmer.Stemmer("english")
_STEMS: dict[str, str] = {}
_MAX_STEMS = 500_000


def _stem(word: str) -> str:
    stem = _STEMS.get(word)
    if stem is None:
        stem = _STEMMER.stemWord(word)
        if len(_STEMS) >= _MAX_STEMS:
            _STEMS.clear()
        _STEMS[word] = stem
    return stem


def normalize(text: str) -> str:
    """NFKC and lower case: the form every token is made from."""
    return unicodedata.normalize("NFKC", text).lower()


def _is_kana_function(token: str) -> bool:
    return all(ch in _KANA_FUNCTION for ch in token)


_HIRAGANA = re.compile("[\u3040-\u309f]")
_HANGUL_START = re.compile("[\uac00-\ud7af\u1100-\u11ff\u3130-\u318f]")


def tokenize(text: str, *, keep_stopwords: bool = False) -> list[str]:
    """The tokens of a text in order: notes and queries are cut the same way (the module's rules)."""
    out: list[str] = []
    append, extend = out.append, out.extend
    stems, stop = _STEMS, ENGLISH_STOPWORDS
    for run, word in _TOKEN.findall(normalize(text)):
        if run:
            if len(run) == 1:
                if keep_stopwords or run not in _KANA_FUNCTION:
                    append(run)
            elif keep_stopwords or _HIRAGANA.search(run) is None:
                extend([a + b for a, b in itertools.pairwise(run)])
            else:
                extend([p for a, b in itertools.pairwise(run) if not _is_kana_function(p := a + b)])
        elif word.isascii():
            if keep_stopwords or word not in stop:
                stem = stems.get(word)
                append(stem if stem is not None else _stem(word))
        else:
            append(word)
    return out


def query_weights(text: str) -> dict[str, float]:
    """Each token of a query with the weight it counts with: 1 for a word, and 1/(n-1) for each of
    the n-1 bigrams of a Korean word of n syllables, so that every written word counts once
    whatever its length (a token made by several words gets its largest weight)."""
    out: dict[str, float] = {}
    for run, word in _TOKEN.findall(normalize(text)):
        tokens = tokenize(run or word)
        # Chinese and Japanese runs are whole phrases (no spaces between words): they keep weight 1
        share = 1.0 / len(tokens) if tokens and _HANGUL_START.match(run) else 1.0
        for t in tokens:
            out[t] = max(out.get(t, 0.0), share)
    return out


def iter_tokens(text: str, *, keep_stopwords: bool = False) -> Iterator[str]:
    """tokenize() one token at a time."""
    return iter(tokenize(text, keep_stopwords=keep_stopwords))


def has_words(text: str) -> bool:
    """Whether a text has any token at all, stopwords included (a query of only stopwords has)."""
    return next(iter_tokens(text, keep_stopwords=True), None) is not None


def name_key(text: str) -> frozenset[str]:
    """The set of a name's tokens: "Create List of Notes" and "create-note-list" have the same key."""
    return frozenset(iter_tokens(text.replace("_", " ")))


__all__ = ["ENGLISH_STOPWORDS", "has_words", "iter_tokens", "name_key", "normalize", "query_weights", "tokenize"]
