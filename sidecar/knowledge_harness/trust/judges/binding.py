"""Binding a claim to the sentences that are to state it: pure, no I/O, no state.

A claim is stated by evidence sentences only when each of its facts — a number (with its unit or counter),
an English day of a month, a name (an English capitalized word, a Japanese katakana or Latin word), a
Japanese word of a sibling group (男性/女性, 白い/黒い, 座って/立って, 左/右 …) — is written in a sentence
that also holds the words around it in the claim (its role: "the longest river … is the ___"), and the
claim's polarity agrees with that sentence's. A word found elsewhere on the page does not count.

A claim is contradicted by the sentences when, in the sentence that holds the words around one of its
facts, another value of the same kind fills that fact's place (the Nile where the claim says the
Mississippi, 3人 where it says 2人, 女性 where it says 男性), or when only one side is negative. Each
`Binding.reason` names the values involved.

Every judge uses this: the embedded lexical judge asks it before it answers `supported` (and reports its
contradictions), and a model judge's quote is bound to its claim the same way.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from ..english_forms import MONTH_NAMES, calendar_dates, ordinal_word
from ..text import EN_STOPWORDS, has_cjk, nfkc, terms
from .lexical_features import normalize, subclaims


class Binding(NamedTuple):
    states: bool  # every number, date and name of the claim is stated in the same role, and polarity agrees
    contradicts: bool  # a different value fills the claim's slot, or negation on one side only
    reason: str  # English; names the values involved when it fails


# -- numbers -----------------------------------------------------------------------------------------

UNIT_ALIASES = {
    "metre": "m",
    "meter": "m",
    "metres": "m",
    "meters": "m",
    "メートル": "m",
    "km": "km",
    "kilometer": "km",
    "kilometre": "km",
    "キロメートル": "km",
    "キロ": "km",
    "%": "%",
    "％": "%",
    "percent": "%",
    "パーセント": "%",
    "year": "年",
    "years": "年",
    "ton": "t",
    "tonne": "t",
    "トン": "t",
    "kg": "kg",
    "キログラム": "kg",
    "people": "人",
    "person": "人",
    "名": "人",
    "dollar": "ドル",
    "dollars": "ドル",
    "yen": "円",
    "歳": "歳",
    "才": "歳",
}


@functools.lru_cache(maxsize=65536)
def unit_of(number: str) -> tuple[str, str]:
    """A number term of text.terms ("12|metres") as (value, unit) with the unit's aliases folded."""
    value, _, unit = number.partition("|")
    return value, UNIT_ALIASES.get(unit, unit)


_YEAR = re.compile(r"1\d{3}|20\d{2}")


def same_kind(a: str, b: str) -> bool:
    """Bare numbers of different kinds never clash: a year against a day or a two-digit year part
    (27 July 2018 against 2018; 2018–19 against 2018-2019)."""
    return not any(_YEAR.fullmatch(year) and len(other) <= 2 for year, other in ((a, b), (b, a)))


# -- polarity --------------------------------------------------------------------------------------

# "not only … but" adds a fact, it denies none
EN_NEG = re.compile(r"\b(?:not(?! only\b)|never|no longer|no|none|neither|nor|cannot)\b|n't\b")
QUOTED = re.compile(r'"[^"]*"|\u201c[^\u201d]*\u201d')
JA_NEG = re.compile(
    r"(?<![少危幼汚])(?:ない|なかった|なく|ません|ず[、。にとも]|ず$|ぬ|無い|無く|無し|なし|非[^常]|未[^来満]"
    r"|(?:対象|範囲|想定|適用|対応|保証|規格|管轄)外)"
)
# a Japanese sentence's last predicate, negative (the punctuation and final particles stripped first)
_JA_FINAL_NEG = re.compile(
    r"(?:ない|なかった|ません|ませんでした|ず|ぬ|無い|なし|無し)(?:です|でした|のです|んです|だろう|でしょう)?$"
)
# a run of trailing marks is tried from its first character only (linear on a long run that does not end the text)
_JA_TRAILER = re.compile(
    r"(?<![\s。．.!！?？」』）)…、])[\s。．.!！?？」』）)…、]+$|(?<=[すたいるうくぐつぬぶむ])(?:よ|ね|よね|か)$"
)


def negated(text: str) -> bool:
    """Does the text hold a negation (English words, Japanese forms)?"""
    lowered = nfkc(text).lower()
    if has_cjk(lowered) and JA_NEG.search(lowered):
        return True
    return bool(EN_NEG.search(lowered))


def claim_negated(claim: str) -> bool:
    """Is the claim itself negative? Words it quotes are someone's words: "he said that 'it hasn't done
    anything'" states what was said, and the page must hold the quote."""
    return negated(claim if has_cjk(claim) else QUOTED.sub(" ", claim))


def ja_final_negative(text: str) -> bool:
    """Is a Japanese sentence's last predicate negative (使いません, いない, ではありません)?"""
    s = nfkc(text).strip()
    for _ in range(3):
        stripped = _JA_TRAILER.sub("", s)
        if stripped == s:
            break
        s = stripped
    return bool(_JA_FINAL_NEG.search(s))


# an English sentence's clauses; a run of spaces is tried from its first one only (linear on a long run)
EN_CLAUSE = re.compile(r"[,;:]\s+|(?<!\s)\s+(?:and|but|while|because|which|who)\s+")


# -- Japanese sibling words --------------------------------------------------------------------------

# Each class holds groups of words that fill the same place and exclude one another; a word of one group
# where the evidence has only a word of another group of the same class is a different value.
JA_SIBLINGS: tuple[tuple[tuple[str, ...], ...], ...] = (
    (("男性", "男の人", "男の子", "男子", "少年", "男"), ("女性", "女の人", "女の子", "女子", "少女", "女")),
    (("大人",), ("子供", "子ども", "こども")),
    (("白",), ("黒",), ("赤",), ("青",), ("緑",), ("黄",), ("茶",), ("灰",), ("紫",), ("ピンク",), ("オレンジ",)),
    (("座っ", "座り", "座る", "座ら"), ("立っ", "立ち", "立つ", "立た"), ("寝", "横たわ", "横にな")),
    (("歩い", "歩き", "歩く"), ("走っ", "走り", "走る")),
    (("左",), ("右",)),
    (("上",), ("下",)),
    (("前",), ("後ろ",)),
    (("内",), ("外",)),
    (("朝",), ("昼",), ("夜",)),
    (("大きな", "大きい"), ("小さな", "小さい")),
    (("犬",), ("猫",)),
    (("晴れ",), ("雨",), ("雪",)),
)


@functools.cache
def _sibling_index() -> tuple[tuple[str, int, int], ...]:
    """(word, class, group) longest words first, so that 男の子 is found before 男."""
    entries = [(word, c, g) for c, groups in enumerate(JA_SIBLINGS) for g, group in enumerate(groups) for word in group]
    return tuple(sorted(entries, key=lambda e: -len(e[0])))


# a sibling word a sentence may leave unsaid: の上に is often just "on" (ベンチに座っている)
_UNMARKED = frozenset({"上"})


def _sibling_hits(text: str) -> list[tuple[str, int, int, int]]:
    """The sibling words of a normalized Japanese text: (word, class, group, position), not overlapping."""
    taken = [False] * len(text)
    found: list[tuple[str, int, int, int]] = []
    for word, c, g in _sibling_index():
        start = text.find(word)
        while start != -1:
            if not any(taken[start : start + len(word)]):
                for i in range(start, start + len(word)):
                    taken[i] = True
                found.append((word, c, g, start))
            start = text.find(word, start + 1)
    return sorted(found, key=lambda f: f[3])


# -- facts ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Fact:
    kind: str  # "number" | "date" | "name" | "sibling"
    shown: str  # as the reason names it
    clause: str  # the part of the claim that gives it its role
    key: tuple[str, ...]  # number: (value, unit); date: (month, day); name: its terms; sibling: (class, group)


_EN_CAPITALIZED = re.compile(r"(?<![\w'])[A-Z][\w'\-]*")
_KATAKANA = re.compile(r"[\u30a1-\u30fa\u30fc]{2,}")
_LATIN_IN_JA = re.compile(r"[a-z][a-z0-9\-]+")


def _facts(claim: str, japanese: bool) -> list[_Fact]:
    facts: list[_Fact] = []
    parts = [claim] if japanese else subclaims(claim)
    for part in parts:
        normal = _ordinals_as_words(normalize(part))
        t = terms(normal)
        for n in dict.fromkeys(t.numbers):
            value, unit = unit_of(n)
            facts.append(_Fact("number", value + unit, part, (value, unit)))
        if japanese:
            # a katakana word right after a number is its unit or counter (3776メートル), read with the number
            names = [
                m.group() for m in _KATAKANA.finditer(normal) if not (m.start() and normal[m.start() - 1].isdigit())
            ]
            for m in dict.fromkeys(names + _LATIN_IN_JA.findall(normal)):
                key = tuple(terms(m).content)
                if key:
                    facts.append(_Fact("name", m, part, key))
            for word, c, g, _ in _sibling_hits(normal):
                facts.append(_Fact("sibling", word, part, (str(c), str(g))))
            continue
        for month, day in sorted(calendar_dates(part, claim=True)):
            facts.append(_Fact("date", f"{MONTH_NAMES[month - 1]} {day}", part, (str(month), str(day))))
        words = _EN_CAPITALIZED.findall(part)
        first = part.lstrip(" \"'(").split(" ", 1)[0]
        for word in dict.fromkeys(words):
            bare = word.removesuffix("'s").strip("'-")
            if len(bare) < 2 or bare.lower() in EN_STOPWORDS or bare.lower() in _MONTH_WORDS:
                continue
            if word == first and part is parts[0] and bare.lower() in _EN_OPENERS:
                continue
            key = tuple(terms(normalize(bare)).content)
            if key:
                facts.append(_Fact("name", bare, part, key))
    return facts


# words that open an English sentence capitalized without being names, beyond EN_STOPWORDS (checked first:
# "In", "After", "This", "His", "However" … are among them)
_EN_OPENERS = frozenset(["although", "another", "following", "my", "several", "though", "today", "until"])


# -- sentences ---------------------------------------------------------------------------------------


_ORDINAL = re.compile(r"(?<![\d.,])(\d{1,2})(?:st|nd|rd|th)\b")


def _ordinals_as_words(text: str) -> str:
    """ "35th" is a rank, not the number 35 that a claim's "in 35" states: read as its word."""
    if not text.isascii():
        return text
    return _ORDINAL.sub(lambda m: ordinal_word(int(m.group(1))) or m.group(), text)


@dataclass(frozen=True, slots=True)
class _Sentence:
    text: str  # NFKC, case kept
    normal: str  # normalized (lexical_features.normalize)
    content: frozenset[str]
    numbers: frozenset[tuple[str, str]]

    @staticmethod
    def of(text: str) -> _Sentence:
        normal = _ordinals_as_words(normalize(text))
        t = terms(normal)
        return _Sentence(nfkc(text), normal, frozenset(t.content), frozenset(unit_of(n) for n in t.numbers))


# A page's sentences are bound to each of its claims in turn, and a claim's text to each of its facts:
# each is read once.
_parsed = functools.lru_cache(maxsize=4096)(_Sentence.of)


@functools.lru_cache(maxsize=4096)
def _content(text: str) -> frozenset[str]:
    """The content terms of a text (normalized first)."""
    return frozenset(terms(normalize(text)).content)


def _states(fact: _Fact, s: _Sentence) -> bool:
    if fact.kind == "number":
        return (fact.key[0], fact.key[1]) in s.numbers
    if fact.kind == "date":
        return (int(fact.key[0]), int(fact.key[1])) in calendar_dates(s.text)
    if fact.kind == "name":
        return all(k in s.content for k in fact.key)
    c, g = int(fact.key[0]), int(fact.key[1])
    return any(hc == c and hg == g for _, hc, hg, _ in _sibling_hits(s.normal))


MIN_CONTEXT_TERMS = 3  # a clause with fewer words around the fact is read with the whole claim's


def _context(fact: _Fact, claim: str) -> frozenset[str]:
    """The clause's content terms other than the fact's own: the words that give the fact its role (the
    whole claim's when the clause holds few: "(1616)" or "Part 2" alone say nothing of their role)."""
    own: set[str] = set()
    if fact.kind == "name":
        own = set(fact.key)
    elif fact.kind == "sibling":
        own = set(terms(fact.shown).content)
    elif fact.kind == "number":
        # the words of its unit, and a month beside a day ("19 May"), are the number's own
        own = set(terms(fact.shown).content) | _MONTH_TERMS
    context = _content(fact.clause) - own
    if len(context) < MIN_CONTEXT_TERMS and fact.clause != claim:
        context = _content(claim) - own
    return context


_MONTH_TERMS = frozenset(t for month in MONTH_NAMES for t in terms(month.lower()).content)


def _share(context: frozenset[str], s: _Sentence) -> float:
    return len(context & s.content) / len(context) if context else 1.0


STATED_SLACK = 0.25  # a fact may sit in a sentence covering its context nearly as well as the best one
MIN_CONTEXT = 0.5  # … and at least this share of it
SLOT_CONTEXT = 0.6  # a rival value counts only in a sentence holding this share of the fact's context


def _rival(fact: _Fact, claim_normal: str, s: _Sentence) -> str | None:
    """Another value of the fact's kind filling its place in the sentence: a sibling of another group, or
    a number, date or name that the alignment of the two texts puts where the claim has the fact."""
    if fact.kind == "sibling":
        c, g = int(fact.key[0]), int(fact.key[1])
        others = [w for w, hc, hg, _ in _sibling_hits(s.normal) if hc == c and hg != g]
        return others[0] if others else None
    if fact.kind == "number":
        value, unit = fact.key
        clash = sorted(v for v, u in s.numbers if u == unit and v != value and (unit or same_kind(v, value)))
        if not clash:
            return None
        if unit:
            return clash[0] + unit
        # a bare number (a year, a count) clashes only in the claim's place: "in 2010" against "in 2012"
        return _rival_name(fact, claim_normal, s)
    if fact.kind == "date":
        return None  # a page's dates are often ranges and other events: an unstated date is only unstated
    return _rival_name(fact, claim_normal, s)


_TOKEN = re.compile(r"[A-Za-z][\w'\-]*|\d+(?:,\d{3})*(?:\.\d+)?|\S")
_DIGITS = re.compile(r"\d+(?:\.\d+)?")


def _rival_name(fact: _Fact, claim_normal: str, s: _Sentence) -> str | None:
    """The name the sentence writes where the claim writes this one, by aligning the two texts (Japanese
    by characters, English by words)."""
    if has_cjk(claim_normal):
        a, b = claim_normal, s.normal
        at = a.find(fact.shown)
        if at < 0:
            return None
        span = (at, at + len(fact.shown))
        matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
        for op, i1, i2, j1, j2 in matcher.get_opcodes():
            if op == "replace" and i1 <= span[0] and span[1] <= i2:
                # the words on both sides must be the claim's (the place is the same)
                if i1 == 0 or i2 >= len(a):
                    continue
                pattern = _DIGITS if fact.kind == "number" else _KATAKANA
                found: list[str] = pattern.findall(b[j1:j2])
                if not found and fact.kind != "number":
                    found = _LATIN_IN_JA.findall(b[j1:j2])
                if found and fact.shown not in b:
                    return found[0]
        return None
    a_tokens = _TOKEN.findall(fact.clause)
    b_tokens = _TOKEN.findall(s.text)
    matcher = difflib.SequenceMatcher(
        None, [t.lower() for t in a_tokens], [t.lower() for t in b_tokens], autojunk=False
    )
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op != "replace":
            continue
        claimed = [t.removesuffix("'s").replace(",", "") for t in a_tokens[i1:i2]]
        if fact.shown not in claimed:
            continue
        # a word on each side of the place agrees, or two before it
        before = i1 >= 1 and j1 >= 1 and a_tokens[i1 - 1].lower() == b_tokens[j1 - 1].lower()
        after = i2 < len(a_tokens) and j2 < len(b_tokens) and a_tokens[i2].lower() == b_tokens[j2].lower()
        two_before = i1 >= 2 and j1 >= 2 and before and a_tokens[i1 - 2].lower() == b_tokens[j1 - 2].lower()
        if not ((before and after) or two_before) or i2 - i1 > 3 or j2 - j1 > 3:
            continue
        if fact.kind == "number":
            names = [n for t in b_tokens[j1:j2] if (n := t.replace(",", "")).isdigit() and same_kind(n, fact.shown)]
        else:
            names = [t for t in b_tokens[j1:j2] if t[:1].isupper() and t.lower() not in EN_STOPWORDS]
        if names:
            return " ".join(names)
    return None


def _joined(sentences: Sequence[_Sentence]) -> _Sentence:
    return _Sentence(
        " ".join(s.text for s in sentences),
        " ".join(s.normal for s in sentences),
        frozenset().union(*(s.content for s in sentences)),
        frozenset().union(*(s.numbers for s in sentences)),
    )


def _best(context: frozenset[str], sentences: Sequence[_Sentence]) -> tuple[int, float]:
    scores = [_share(context, s) for s in sentences]
    i = max(range(len(sentences)), key=lambda k: (scores[k], -k))
    return i, scores[i]


def _polarity(claim: str, japanese: bool, sentences: Sequence[_Sentence]) -> Binding | None:
    """A negation on one side only, in the sentence that holds most of the claim (None: they agree)."""
    content = _content(claim)
    if not content:
        return None
    i, share = _best(content, sentences)
    s = sentences[i]
    if japanese:
        ours, theirs = ja_final_negative(claim), ja_final_negative(s.text)
        if ours == theirs:
            return None
        contradicts = share >= 0.6
        side = "the claim is negative, the evidence is not" if ours else "only the evidence is negative"
        return Binding(False, contradicts, f"Negation differs: {side} ({_tail(claim)!r} against {_tail(s.text)!r}).")
    ours = claim_negated(claim)
    theirs = _en_clause_negated(content, QUOTED.sub(" ", s.text))  # a quoted negation is someone's words
    if ours and not _en_clause_negated(content, s.text):
        return Binding(
            False, share >= 0.75, f"Negation differs: the claim is negative, the evidence is not ({_quote(s.text)!r})."
        )
    if not ours and theirs:
        return Binding(False, share >= 0.75, f"Negation differs: only the evidence is negative ({_quote(s.text)!r}).")
    return None


def _en_clause_negated(content: frozenset[str], sentence: str) -> bool:
    """An English sentence's negated clause carries at least half of the claim's terms (the negation is
    about the claim, not about an aside)."""
    for part in EN_CLAUSE.split(sentence):
        if negated(part):
            shared = content & set(terms(normalize(part)).content)
            if len(shared) * 2 >= len(content):
                return True
    return False


def _tail(text: str) -> str:
    s = nfkc(text).strip()
    return s[-12:] if len(s) > 12 else s


def _quote(text: str) -> str:
    return text if len(text) <= 120 else text[:117] + "..."


def _doubled_sibling(claim_normal: str, sentences: Sequence[_Sentence]) -> Binding | None:
    """A sibling word the claim says more often than the sentence holding the claim, where the sentence
    says its sibling instead (男性と男性 against 男性と女性)."""
    content = frozenset(terms(claim_normal).content)
    i, share = _best(content, sentences)
    if share < SLOT_CONTEXT:
        return None
    ours = [(c, g, w) for w, c, g, _ in _sibling_hits(claim_normal)]
    theirs = [(c, g, w) for w, c, g, _ in _sibling_hits(sentences[i].normal)]
    for c, g, w in dict.fromkeys(ours):
        said = sum(1 for x in ours if x[:2] == (c, g))
        held = sum(1 for x in theirs if x[:2] == (c, g))
        rivals = [x[2] for x in theirs if x[0] == c and x[1] != g]
        if said > held and rivals:
            return Binding(
                False,
                True,
                f"The claim says {w!r} where the evidence says {rivals[0]!r} ({_quote(sentences[i].text)!r}).",
            )
    return None


def _names_another(fact: _Fact, claim: str, s: _Sentence) -> bool:
    """Does the sentence write another value of the fact's kind, one the claim does not hold? (Then it is
    about that value: the claim's own, found elsewhere on the page, is not in its role.)"""
    if fact.kind == "number":
        claimed = {unit_of(n) for n in terms(normalize(claim)).numbers}
        return any(
            u == fact.key[1] and (u or same_kind(v, fact.key[0])) and (v, u) not in claimed for v, u in s.numbers
        )
    if fact.kind == "date":
        return bool(calendar_dates(s.text) - calendar_dates(claim, claim=True))
    if fact.kind == "name":
        claim_terms = _content(claim)
        if has_cjk(s.text):
            return any(not set(terms(m).content) <= claim_terms for m in _KATAKANA.findall(s.normal))
        words = _EN_CAPITALIZED.findall(s.text)[1:]  # the first word of a sentence is capitalized anyway
        return any(
            w.lower() not in EN_STOPWORDS
            and w.lower() not in _MONTH_WORDS
            and not set(terms(normalize(w)).content) <= claim_terms
            for w in words
        )
    return False


_MONTH_WORDS = frozenset(m.lower() for m in MONTH_NAMES)


def _on_page(fact: _Fact, page: _Page) -> bool:
    """Is the fact written anywhere in the page (its text as the judge normalizes it)?"""
    if fact.kind == "number":
        value = re.escape(fact.key[0])
        bare = page.without_commas  # 12,000 as 12000; the text around a match is read from the same text
        return any(
            value_unit == (fact.key[0], fact.key[1])
            for m in re.finditer(rf"(?<![\d.,]){value}(?![\d])", bare)
            for value_unit in {unit_of(n) for n in terms(bare[max(0, m.start() - 2) : m.end() + 16]).numbers}
        )
    text = page.normal
    if fact.kind == "date":
        month, day = int(fact.key[0]), int(fact.key[1])
        return any(
            (month, day) in calendar_dates(text[max(0, m.start() - 24) : m.end() + 24])
            for m in re.finditer(rf"(?<!\d)0?{day}(?!\d)", text)
        )
    if fact.kind == "name":
        return all(re.search(rf"(?<![a-z0-9]){re.escape(k[:-1] if len(k) > 3 else k)}", text) for k in fact.key)
    return False


class _Page(NamedTuple):
    normal: str  # normalized (lexical_features.normalize)
    without_commas: str  # the same, its commas dropped (numbers as text.terms reads them)


@functools.lru_cache(maxsize=8)
def _normalized_page(page: str) -> _Page:
    """A note's claims are bound against the same few pages in turn: each is normalized once."""
    normal = normalize(page)
    return _Page(normal, normal.replace(",", ""))


def bind_claim(claim: str, sentences: Sequence[str], lang: str | None = None, *, page: str = "") -> Binding:
    """Whether `sentences` state `claim` with each of its numbers, dates, names and sibling words in its
    role and with the claim's polarity, or contradict it (see the module docstring).

    `page`: the whole evidence text, when the sentences are part of it. A value the sentence holding its
    role does not write counts as stated when that sentence writes no other value of its kind and the page
    writes this one (a page names its subject once and then says "he"; gives a year in a heading)."""
    given = [s for s in sentences if s and s.strip()]
    if not given:
        return Binding(False, False, "No evidence sentence to bind the claim to.")
    japanese = lang == "ja" if lang else has_cjk(claim)
    parsed = [_parsed(s) for s in given]
    claim_normal = normalize(claim)
    page_normal = _normalized_page(page) if page else None
    unstated: list[str] = []
    for fact in _facts(claim, japanese):
        context = _context(fact, claim)
        i, best = _best(context, parsed)
        floor = max(min(MIN_CONTEXT, best), best - STATED_SLACK)
        if any(_states(fact, s) and _share(context, s) >= floor for s in parsed):
            continue
        if best >= SLOT_CONTEXT and len(context) >= 2:
            rival = _rival(fact, claim_normal, parsed[i])
            if rival is not None and rival != fact.shown:
                return Binding(
                    False,
                    True,
                    f"The claim says {fact.shown!r} where the evidence says {rival!r} ({_quote(parsed[i].text)!r}).",
                )
        # a sentence continuing the one before it (its subject left unsaid: 標高は3776メートルで、…)
        if any(
            _states(fact, s)
            and context & s.content
            and _share(context, _joined(parsed[max(0, k - 1) : k + 2])) >= floor
            for k, s in enumerate(parsed)
        ):
            continue
        if fact.kind == "sibling" and fact.shown in _UNMARKED:
            continue
        if page_normal and not _names_another(fact, claim, parsed[i]) and _on_page(fact, page_normal):
            continue
        unstated.append(fact.shown)
    if japanese:
        doubled = _doubled_sibling(claim_normal, parsed)
        if doubled is not None:
            return doubled
    polarity = _polarity(claim, japanese, parsed)
    if polarity is not None and polarity.contradicts:
        return polarity
    if unstated:
        return Binding(False, False, "Not stated where the claim is: " + ", ".join(repr(u) for u in unstated) + ".")
    if polarity is not None:
        return polarity
    return Binding(True, False, "The sentences state the claim's values in their places.")
