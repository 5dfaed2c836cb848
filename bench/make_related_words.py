"""Writes the lexical judge's table of related English words (trust/validate/judges/related_words.txt.gz).

The words are SCOWL's American English list (Debian package `wamerican`, /usr/share/dict/american-english):
lower-case alphabetic words of three letters or more that the judge reads as one content term (no
stopwords) — a list that has nothing to do with the pairs the judge is measured on. Two of them are
related (--source wordnet, the shipped table) when one of the first's base forms shares a WordNet 3.0
synset with one of the second's (synonyms), or is linked to it by WordNet's "derivationally related form"
pointer (elect / electorate), read from Debian's `wordnet-base` (/usr/share/wordnet); base forms by
WordNet's own rules (its exception lists and suffix rules). Antonyms, kept by another pointer, are never
read. --source embeddings relates two words whose WordLlama vectors (the mean of their token rows, as the
optional lexical_embeddings judge reads them) have a cosine of at least --cosine: measured, not shipped
(docs/validator.md; it needs the `embeddings` extra). Either way, two words the judge already reads as one
term are left out. The table's first lines name its sources and carry their notices. Build time only:
the judge reads the table in plain Python. The output is byte-for-byte reproducible.

    python bench/make_related_words.py                                     # writes the shipped table
    python bench/make_related_words.py --senses 1 --out /tmp/related-1.txt.gz   # most frequent sense only
    python bench/make_related_words.py --source embeddings --cosine 0.6 --out /tmp/related-emb.txt.gz
    python bench/judge_train.py --splits 8 --lang en --related /tmp/related-1.txt.gz   # measure another table
"""

from __future__ import annotations

import argparse
import gzip
import re
from pathlib import Path

from knowledge_harness.trust.validate.judges.related_words import TABLE_FILE, term_of

REPO = Path(__file__).resolve().parents[1]
TABLE_PATH = REPO / "sidecar" / "knowledge_harness" / "trust" / "validate" / "judges" / TABLE_FILE
WORD_LIST = Path("/usr/share/dict/american-english")
BLOCK = 1024  # rows of the similarity matrix computed at once


def vocabulary(path: Path) -> list[str]:
    """The list's lower-case alphabetic words of three letters or more that are one content term."""
    words = {w for w in path.read_text(encoding="utf-8").split() if re.fullmatch(r"[a-z]{3,}", w)}
    return sorted(w for w in words if term_of(w) is not None)


def embedding_pairs(words: list[str], cosine: float) -> dict[str, list[str]]:
    """Each word's related words: cosine ≥ `cosine` between word vectors, and another term."""
    import numpy as np

    from knowledge_harness.trust.validate.judges.embedded import _model

    tokenizer, matrix = _model()
    rows = [e.ids or [0] for e in tokenizer.encode_batch(words, add_special_tokens=False)]
    vectors = np.stack([matrix[ids].sum(axis=0) for ids in rows])
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)  # the mean's direction is the sum's
    word_terms = [term_of(w) for w in words]
    related: dict[str, list[str]] = {}
    for start in range(0, len(words), BLOCK):
        similar = vectors[start : start + BLOCK] @ vectors.T
        for row, column in zip(*np.nonzero(similar >= cosine), strict=True):
            a, b = start + int(row), int(column)
            if word_terms[a] != word_terms[b]:
                related.setdefault(words[a], []).append(words[b])
    return related


# the notices each source's licence asks to keep on every copy of what is made from it
WORDNET_NOTICE = [
    "WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved.",
    "Permission to use, copy, modify and distribute this software and database and its documentation for",
    "any purpose and without fee or royalty is hereby granted, provided that you agree to comply with the",
    "following copyright notice and statements, including the disclaimer, and that the same appear on ALL",
    "copies of the software, database and documentation, including modifications that you make for",
    "internal use or for distribution.",
    'THIS SOFTWARE AND DATABASE IS PROVIDED "AS IS" AND PRINCETON UNIVERSITY MAKES NO REPRESENTATIONS OR',
    "WARRANTIES, EXPRESS OR IMPLIED. BY WAY OF EXAMPLE, BUT NOT LIMITATION, PRINCETON UNIVERSITY MAKES NO",
    "REPRESENTATIONS OR WARRANTIES OF MERCHANTABILITY OR FITNESS FOR ANY PARTICULAR PURPOSE OR THAT THE USE",
    "OF THE LICENSED SOFTWARE, DATABASE OR DOCUMENTATION WILL NOT INFRINGE ANY THIRD PARTY PATENTS,",
    "COPYRIGHTS, TRADEMARKS OR OTHER RIGHTS.",
    "The name of Princeton University or Princeton may not be used in advertising or publicity pertaining",
    "to distribution of the software and/or database. Title to copyright in this software, database and",
    "any associated documentation shall at all times remain with Princeton University and LICENSEE agrees",
    "to preserve same.",
]
SCOWL_NOTICE = [
    "words: SCOWL (Spell Checker Oriented Word Lists), American English (Debian wamerican).",
    "Copyright 2000-2011 by Kevin Atkinson. Permission to use, copy, modify, distribute and sell these word",
    "lists, the associated scripts, the output created from the scripts, and its documentation for any",
    "purpose is hereby granted without fee, provided that the above copyright notice appears in all copies",
    "and that both that copyright notice and this permission notice appear in supporting documentation.",
    "Kevin Atkinson makes no representations about the suitability of this array for any purpose. It is",
    'provided "as is" without express or implied warranty.',
]
WORDNET = Path("/usr/share/wordnet")
WORDNET_POS = {"noun": "n", "verb": "v", "adj": "a", "adv": "r"}
# WordNet's own rules for an inflected form's base form ("morphy"), per part of speech
DETACH = {
    "n": (
        ("s", ""),
        ("ses", "s"),
        ("xes", "x"),
        ("zes", "z"),
        ("ches", "ch"),
        ("shes", "sh"),
        ("men", "man"),
        ("ies", "y"),
    ),
    "v": (("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""), ("ing", "e"), ("ing", "")),
    "a": (("er", ""), ("est", ""), ("er", "e"), ("est", "e")),
    "r": (),
}


def _senses(folder: Path, most: int) -> dict[tuple[str, str], set[str]]:
    """Each lemma's `most` most frequent synsets per part of speech (WordNet's index lists them in order)."""
    found: dict[tuple[str, str], set[str]] = {}
    for name, pos in WORDNET_POS.items():
        for line in (folder / f"index.{name}").read_text(encoding="utf-8").splitlines():
            if line.startswith("  "):
                continue
            fields = line.split()
            count = int(fields[2])
            found[pos, fields[0]] = {f"{pos}:{offset}" for offset in fields[len(fields) - count :][:most]}
    return found


def _wordnet_synsets(folder: Path) -> tuple[dict[str, list[str]], set[tuple[str, str, str]]]:
    """The one-word lemmas of every synset (by "pos:offset") and the derivationally related pairs (with the
    synset of the first word)."""
    synsets: dict[str, list[str]] = {}
    pointers: list[tuple[str, int, str, int]] = []
    for name, pos in WORDNET_POS.items():
        for line in (folder / f"data.{name}").read_text(encoding="utf-8").splitlines():
            if line.startswith("  "):
                continue  # the licence header
            fields = line.split(" | ")[0].split()
            key = f"{pos}:{fields[0]}"
            count = int(fields[3], 16)
            lemmas = [re.sub(r"\(.*\)$", "", fields[4 + 2 * i]).lower() for i in range(count)]
            synsets[key] = lemmas
            at = 4 + 2 * count
            for p in range(int(fields[at])):
                symbol, offset, target_pos, source_target = fields[at + 1 + 4 * p : at + 5 + 4 * p]
                if symbol == "+":  # derivationally related form (a lexical pointer: word to word)
                    source, target = int(source_target[:2], 16), int(source_target[2:], 16)
                    pointers.append((key, source, f"{target_pos.replace('s', 'a')}:{offset}", target))
    derived = set()
    for key, source, target_key, target in pointers:
        a, b = synsets[key][source - 1], synsets[target_key][target - 1]
        derived |= {(a, b, key), (b, a, target_key)}
    return synsets, derived


def _exceptions(folder: Path) -> dict[str, dict[str, set[str]]]:
    found: dict[str, dict[str, set[str]]] = {}
    for name, pos in WORDNET_POS.items():
        for line in (folder / f"{name}.exc").read_text(encoding="utf-8").splitlines():
            form, *bases = line.split()
            found.setdefault(pos, {}).setdefault(form, set()).update(bases)
    return found


def wordnet_pairs(words: list[str], senses: int, folder: Path = WORDNET) -> dict[str, list[str]]:
    """Each word's related words by WordNet 3.0: the words whose base forms are synonyms of one of the
    word's base forms (one synset among its `senses` most frequent) or derivationally related to one
    (elect/election), and another term."""
    synsets, derived = _wordnet_synsets(folder)
    frequent = _senses(folder, senses)
    lemmas_by_pos: dict[str, set[str]] = {}
    related_lemmas: dict[tuple[str, str], set[str]] = {}
    for key, lemmas in synsets.items():
        pos = key[0]
        lemmas_by_pos.setdefault(pos, set()).update(lemmas)
        for lemma in lemmas:
            if key in frequent.get((pos, lemma), ()):
                related_lemmas.setdefault((pos, lemma), set()).update(x for x in lemmas if x != lemma)
    by_lemma: dict[str, set[str]] = {}
    for a, b, key in derived:
        if key in frequent.get((key[0], a), ()):
            by_lemma.setdefault(a, set()).add(b)
    exceptions = _exceptions(folder)

    def bases(word: str) -> set[tuple[str, str]]:
        found = set()
        for pos, known in lemmas_by_pos.items():
            candidates = {word} | exceptions.get(pos, {}).get(word, set())
            candidates |= {word[: -len(end)] + new for end, new in DETACH[pos] if word.endswith(end)}
            found |= {(pos, c) for c in candidates if c in known}
        return found

    word_bases = {w: bases(w) for w in words}
    words_of_lemma: dict[str, set[str]] = {}
    for word, found in word_bases.items():
        for _, lemma in found:
            words_of_lemma.setdefault(lemma, set()).add(word)
    word_terms = {w: term_of(w) for w in words}
    related: dict[str, list[str]] = {}
    for word, found in word_bases.items():
        near_lemmas: set[str] = set()
        for pos, lemma in found:
            near_lemmas |= related_lemmas.get((pos, lemma), set()) | by_lemma.get(lemma, set())
        others = {v for lemma in near_lemmas for v in words_of_lemma.get(lemma, set())}
        others = {v for v in others if word_terms[v] != word_terms[word]}
        if others:
            related[word] = sorted(others)
    return related


def table_text(related: dict[str, list[str]], header: list[str]) -> str:
    lines = [f"# {line}" for line in header]
    lines += [" ".join([word, *sorted(others)]) for word, others in sorted(related.items())]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--source", choices=("wordnet", "embeddings"), default="wordnet")
    parser.add_argument("--senses", type=int, default=99, help="wordnet: a word's most frequent synsets read")
    parser.add_argument("--cosine", type=float, default=0.6, help="embeddings: the least cosine of two related words")
    parser.add_argument("--words", type=Path, default=WORD_LIST, help="the word list (one word a line)")
    parser.add_argument("--out", type=Path, default=TABLE_PATH)
    args = parser.parse_args()
    words = vocabulary(args.words)
    words_line = SCOWL_NOTICE
    if args.source == "embeddings":
        related = embedding_pairs(words, args.cosine)
        header = [
            f"related English words: cosine >= {args.cosine} between WordLlama l2_supercat_256 word vectors",
            "(MIT; trained from Llama 2 family token embeddings, see docs/validator.md)",
        ]
    else:
        related = wordnet_pairs(words, args.senses)
        header = [
            "related English words: synonyms and derivationally related forms in WordNet 3.0",
            f"(a word's {args.senses} most frequent senses)" if args.senses < 99 else "(every sense of a word)",
            *WORDNET_NOTICE,
        ]
    header += [*words_line, f"written by bench/make_related_words.py --source {args.source}"]
    data = gzip.compress(table_text(related, header).encode("utf-8"), compresslevel=9, mtime=0)
    args.out.write_bytes(data)
    pairs = sum(len(v) for v in related.values())
    print(f"{len(words)} words, {len(related)} with related words, {pairs} pairs, {len(data):,} bytes: {args.out}")


if __name__ == "__main__":
    main()
