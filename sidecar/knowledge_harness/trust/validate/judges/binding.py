"""Binding a claim to the sentences that are to state it: pure, no I/O, no state.

A claim is stated by evidence sentences only when each of its facts — a number (with its unit or counter),
an English day of a month, a name (an English capitalized word, a Japanese katakana or Latin word), a
Japanese word of a sibling group (男性/女性, 白い/黒い, 座って/立って, 左/右 …) — is written in a sentence
that also holds the words around it in the claim (its role: "the longest river … is the ___"), and the
claim's polarity agrees with that sentence's, and that sentence writes no rival of the claim's other
facts. A word found elsewhere on the page does not count; three narrow readings of the page do:
- another sentence of the page that holds the fact with the words around it states it as well (a rival
  value in the aligned sentence then yields to it: a page naming a person's two prizes, each with its year);
- the name a page opens with (its title, heading or first sentence: "Marie Curie", "Odessa Jackalopes")
  may be said as "he", "it" or "the album" in the sentence holding its role;
- a year or date of the claim may be the page's dateline ("May 20, 2019" over "announced on Monday")
  where the sentence holding its role writes no other year.
A negative comparative that restates a superlative ("no lake is deeper than Baikal" / "Baikal is the
deepest lake"; 日本に富士山より高い山はない / 富士山は日本で最も高い山である) is no negation on one side only.
A name of several capitalized words in a clause that says little besides it ("…, Best Show Album! Records and …")
is stated only where each of its words is written (a family name the page's subject carries may be left unsaid).
A claim whose text runs over several lines is not one claim and is never stated: a note's claims are its
sentences (a paragraph's lines joined, a Japanese line break a boundary), so a line break in a claim is a
heading or another sentence pasted into it.

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
from dataclasses import dataclass, replace
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
# an opening curly quote's span stops at the next opening one: each character is scanned at most twice, so
# thousands of unclosed “ cost linear time (a span running to the text's end from each would be quadratic)
QUOTED = re.compile(r'"[^"]*"|\u201c[^\u201c\u201d]*\u201d')
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


_EN_NONE = re.compile(r"\b(?:no|nothing|none|nobody|no one|neither)\b")
_EN_COMPARATIVE = re.compile(r"\b(?:[a-z]+er|more|less|better|worse)\s+(?:[a-z]+\s+)?than\b")


def _en_none_comparative(text: str) -> bool:
    """ "No … is deeper than …": a clause with a "no" word and, after it, a comparative with "than"."""
    for clause in re.split(r"[.;]", text):
        m = _EN_NONE.search(clause)
        if m and _EN_COMPARATIVE.search(clause, m.end()):
            return True
    return False


_EN_SUPERLATIVE = re.compile(r"\b(?:[a-z]{2,}est|most|least|best|worst)\b")
_JA_THAN = re.compile(r"より|ほど")
_JA_NONE = re.compile(r"ない|無い|ありません|いない|いません|なし")
_JA_SUPERLATIVE = re.compile(r"最も|もっとも|一番|いちばん|最[高大長深古]|随一|唯一")


def _ja_none_comparative(text: str) -> bool:
    """ "富士山より高い山はない": a clause with より or ほど and, after it, a "none" word. Only a clause's first
    より is looked from (a span from each to the clause's end would be quadratic in a clause of many)."""
    for clause in re.split(r"[。、]", text):
        m = _JA_THAN.search(clause)
        if m and _JA_NONE.search(clause, m.end()):
            return True
    return False


def _superlative_reading(claim: str, evidence: str) -> bool | None:
    """A negative comparative claim read against the evidence's superlative ("no lake is deeper than
    Baikal" / "Baikal is the deepest lake"): whether the evidence negates it, or None when the claim is
    no negative comparative or the evidence writes no superlative."""
    c, e = nfkc(claim).lower(), nfkc(evidence).lower()
    if has_cjk(c):
        if not (_ja_none_comparative(c) and _JA_SUPERLATIVE.search(e)):
            return None
        return bool(JA_NEG.search(e))
    if not (_en_none_comparative(c) and _EN_SUPERLATIVE.search(e)):
        return None
    return bool(EN_NEG.search(e))


def superlative_restated(claim: str, evidence: str) -> bool:
    """Is a negative comparative claim the evidence's superlative said the other way round? "No lake is
    deeper than Baikal" is what "Baikal is the deepest lake" says (日本に富士山より高い山はない / 富士山は日本で
    最も高い山である): the claim's negation is no contradiction of it."""
    return _superlative_reading(claim, evidence) is False


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
    (
        ("男性", "男の人", "男の子", "男子", "男児", "少年", "青年", "男"),
        ("女性", "女の人", "女の子", "女子", "女児", "少女", "女"),
    ),
    # a boy or a girl is a child as well as male or female: these words are in both classes
    (("大人",), ("子供", "子ども", "こども", "男の子", "女の子", "男児", "女児", "少年", "少女")),
    (("白",), ("黒",), ("赤",), ("青",), ("緑",), ("黄",), ("茶",), ("灰",), ("紫",), ("ピンク",), ("オレンジ",)),
    (("座っ", "座り", "座る", "座ら"), ("立っ", "立ち", "立つ", "立た"), ("寝", "横たわ", "横にな")),
    (("歩い", "歩き", "歩く"), ("走っ", "走り", "走る")),
    (("左",), ("右",)),
    (("上",), ("下",)),
    (("前",), ("後ろ",)),
    (("内",), ("外",)),
    (("朝",), ("昼",), ("夜",)),
    (("大きな", "大きい"), ("小さな", "小さい")),
    (("犬", "いぬ", "イヌ"), ("猫", "ねこ", "ネコ")),
    (("晴れ",), ("雨",), ("雪",)),
    (
        ("バス",),
        ("電車", "列車", "汽車", "機関車"),
        ("トラック",),
        ("自転車",),
        ("バイク", "オートバイ", "単車"),
        ("飛行機", "旅客機", "ジェット機"),
    ),
)


@functools.cache
def _sibling_index() -> tuple[tuple[str, int, int], ...]:
    """(word, class, group) longest words first, so that 男の子 is found before 男."""
    entries = [(word, c, g) for c, groups in enumerate(JA_SIBLINGS) for g, group in enumerate(groups) for word in group]
    return tuple(sorted(entries, key=lambda e: -len(e[0])))


# a sibling word a sentence may leave unsaid: の上に is often just "on" (ベンチに座っている)
_UNMARKED = frozenset({"上"})


def _inside_katakana(text: str, word: str, start: int) -> bool:
    """A katakana sibling word that is part of a longer katakana word (バス in バスルーム, パスタ) is not that word."""
    if not _KATAKANA.fullmatch(word):
        return False
    end = start + len(word)
    return bool(
        (start and _KATAKANA_CHAR.match(text[start - 1])) or (end < len(text) and _KATAKANA_CHAR.match(text[end]))
    )


def _sibling_hits(text: str) -> list[tuple[str, int, int, int]]:
    """The sibling words of a normalized Japanese text: (word, class, group, position), not overlapping."""
    taken: dict[int, list[bool]] = {}  # per class: a word may be of two classes (少年: male, and a child)
    found: list[tuple[str, int, int, int]] = []
    for word, c, g in _sibling_index():
        start = text.find(word)
        while start != -1:
            mask = taken.setdefault(c, [False] * len(text))
            if not any(mask[start : start + len(word)]) and not _inside_katakana(text, word, start):
                for i in range(start, start + len(word)):
                    mask[i] = True
                found.append((word, c, g, start))
            start = text.find(word, start + 1)
    return sorted(found, key=lambda f: f[3])


# -- facts ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Fact:
    kind: str  # "number" | "date" | "name" | "sibling"
    shown: str  # as the reason names it
    clause: str  # the part of the claim that gives it its role
    key: tuple[str, ...]  # number: (value, unit[, month of its date]); date: (month, day); name: its terms;
    # sibling: (class, group)
    whole: frozenset[str] = frozenset()  # name: the terms of its whole name, where they must be written too


_EN_CAPITALIZED = re.compile(r"(?<![\w'])[A-Z][\w'\-]*")
_KATAKANA = re.compile(r"[\u30a1-\u30fa\u30fc]{2,}")
_KATAKANA_CHAR = re.compile(r"[\u30a1-\u30fa\u30fc]")
_LATIN_IN_JA = re.compile(r"[a-z][a-z0-9\-]+")


def _facts(claim: str, japanese: bool) -> list[_Fact]:
    facts: list[_Fact] = []
    parts = [claim] if japanese else subclaims(claim)
    for part in parts:
        normal = _ordinals_as_words(normalize(part))
        t = terms(normal)
        # a day of a month the claim states is also stated as that date ("May 19" by "19th of May")
        days: dict[tuple[str, str], str] = (
            {} if japanese else {(str(d), ""): str(mo) for mo, d in calendar_dates(part, claim=True)}
        )
        for n in dict.fromkeys(t.numbers):
            value, unit = unit_of(n)
            of_month = days.get((value, unit))
            facts.append(_Fact("number", value + unit, part, (value, unit, of_month) if of_month else (value, unit)))
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
                facts.append(_Fact("name", bare, part, key, _whole_name(bare, part)))
    if not japanese:
        # a number the sub-claims leave out (one in brackets: "Leading with Intensity" (2019)) is the claim's too
        held = {f.key[:2] for f in facts if f.kind == "number"}
        for n in dict.fromkeys(terms(_ordinals_as_words(normalize(claim))).numbers):
            value, unit = unit_of(n)
            if (value, unit) not in held:
                facts.append(_Fact("number", value + unit, claim, (value, unit)))
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
        if (fact.key[0], fact.key[1]) in s.numbers:
            # "Ch. 109" or "No. 5" is an identifier, not the count or year a claim's bare number is
            return (
                bool(fact.key[1]) or not _labeled_only(fact.key[0], s.text) or _labeled_only(fact.key[0], fact.clause)
            )
        return len(fact.key) == 3 and (int(fact.key[2]), int(fact.key[0])) in calendar_dates(s.text)
    if fact.kind == "date":
        return (int(fact.key[0]), int(fact.key[1])) in calendar_dates(s.text)
    if fact.kind == "name":
        return all(k in s.content for k in fact.key) and fact.whole <= s.content
    c, g = int(fact.key[0]), int(fact.key[1])
    return any(hc == c and hg == g for _, hc, hg, _ in _sibling_hits(s.normal))


_LABEL = r"(?:ch|no|nos|vol|pp?|ep|channel|route|episode|exit|flight|room|platform|gate|highway|interstate|#)\.?\s*"


def _labeled_only(value: str, text: str) -> bool:
    """Is every place the text writes this number right after an identifier's label ("Ch. 109")?"""
    bare = nfkc(text).replace(",", "")
    places = list(re.finditer(rf"(?<![\d.,]){re.escape(value)}(?![\d])", bare))
    return bool(places) and all(
        re.search(rf"(?:^|[^\w]){_LABEL}$", bare[max(0, m.start() - 12) : m.start()], re.I) for m in places
    )


_CAPITAL_RUN = re.compile(r"(?<![\w'])[A-Z][\w'\-!]*(?:[ \t]+[A-Z][\w'\-!]*)*")


@functools.lru_cache(maxsize=1024)
def _name_runs(clause: str) -> tuple[tuple[frozenset[str], frozenset[str]], ...]:
    """The clause's runs of several capitalized words: (their words, their content terms)."""
    return tuple(
        (frozenset(_RUN_WORD.findall(run)), _content(run))
        for run in (m.group() for m in _CAPITAL_RUN.finditer(clause))
        if " " in run
    )


_RUN_WORD = re.compile(r"[\w'\-]+")


def _whole_name(word: str, clause: str) -> frozenset[str]:
    """The terms of the name of several capitalized words that holds this word, where the clause says little
    besides that name ("…, Best Show Album! Records and …"): the name's other words are then all that gives the
    word its place, and a sentence that writes only some of them ("for Best Show Album") names something else.
    Empty when the clause gives the word a place with words of its own."""
    found: set[str] = set()
    for words, content in _name_runs(clause):
        if word in words:
            found |= content
    if not found or len(_content(clause) - found) >= MIN_CONTEXT_TERMS:
        return frozenset()
    return frozenset(found)


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
        value, unit = fact.key[0], fact.key[1]
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
    superlative = _superlative_reading(claim, s.text)
    if superlative is False:  # "no lake is deeper than Baikal" by "Baikal is the deepest lake"
        return None
    if superlative:  # ... against "Baikal is not the deepest lake"
        return Binding(False, share >= 0.6, f"The evidence denies what the claim says: {_quote(s.text)!r}.")
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


_MONTH_WORDS = frozenset(m.lower() for m in MONTH_NAMES)


# -- the page's subject ---------------------------------------------------------------------------------

# words that stand for a page's subject in a later sentence ("he", "the album")
_ANAPHOR = re.compile(
    r"\b(?:he|she|it|they|his|her|its|their|him|them|hers"
    r"|(?:the|this|that)\s+(?:album|band|artist|singer|actor|actress|player|writer|author|company|firm|group|team"
    r"|club|film|movie|song|single|book|novel|show|series|episode|station|school|university|college|museum|town"
    r"|city|village|county|state|country|party|organization|organisation|project|building|church|species|game"
    r"|event|festival|award|magazine|newspaper|programme|program|ship|brand|product|couple|duo))\b",
    re.IGNORECASE,
)
_TITLE = re.compile(r"^\(meta data\) TITLE:[ \t]*(\S.*)$")
_META = re.compile(r"^\(meta data\)")
SUBJECT_LINES = 12  # the title, a heading and the first sentence are looked for among a page's first lines


def page_subject(sentences: Sequence[str]) -> str:
    """The text that names a page's subject: its title (a "TITLE:" line), its first heading and its first
    sentence that is neither of them. Only names written there may stand for "he" or "the album" later."""
    title = heading = first = ""
    for line in sentences[:SUBJECT_LINES]:
        text = line.strip()
        if m := _TITLE.match(text):
            title = title or m.group(1)
        elif _META.match(text):
            continue
        elif text.startswith("#"):
            heading = heading or text.lstrip("# ")
        elif not first and len(text.split()) >= 4:
            first = text
    return "\n".join(t for t in (title, heading, first) if t)


_PUBLISHED = re.compile(r"^\(meta data\) PUBLISHED DATETIME:\s*((?:1\d|20)\d{2})-(\d{2})-(\d{2})")
DATELINE_WORDS = 8  # a dateline is a short line: a date, perhaps a time and a word or two


_FOOTER = re.compile(
    r"©|\(c\)|\bcopyright\b|\ball rights reserved\b|\bretrieved\b|\baccessed\b|\blast (?:edited|modified)\b",
    re.IGNORECASE,
)
FOOTER_LINES = 2  # the last lines of a page short enough for its footer to sit among its first lines


def page_dateline(sentences: Sequence[str]) -> str:
    """The date a page was published: its "PUBLISHED DATETIME" line, or a short line holding a date with its
    year ("May 20, 2019", "12 July 2019 at 6:35 PM") among its first lines, where a dateline stands. A
    footer is no publication date: a copyright, "Last edited" or "Retrieved" line, nor a date line closing a
    short page after its text. A page reporting news dates its events by it."""
    for n, line in enumerate(sentences):
        text = line.strip()
        if m := _PUBLISHED.match(text):
            return f"{MONTH_NAMES[int(m.group(2)) - 1]} {int(m.group(3))}, {m.group(1)}"
        if (
            n < SUBJECT_LINES
            and len(text.split()) <= DATELINE_WORDS
            and _YEAR.search(text)
            and calendar_dates(text)
            and not _FOOTER.search(text)
            and not _closes_a_short_page(sentences, n)
        ):
            return text
    return ""


def _closes_a_short_page(sentences: Sequence[str], n: int) -> bool:
    return (
        len(sentences) <= SUBJECT_LINES
        and n >= len(sentences) - FOOTER_LINES
        and any(len(s.split()) > DATELINE_WORDS for s in sentences[:n])
    )


_DATED_LINE = re.compile(r"^(?:published|posted|updated|dated|last updated)\b", re.IGNORECASE)


def quoted_dateline(quoted: Sequence[str]) -> str:
    """A dateline the reader quoted: a quoted line that is a short date line ("25 Oct 2016", "November 20,
    2013 at 6:35 PM") or opens with "Published", "Posted" or "Updated" and holds a date with its year. The
    quote is found on the page, so the page says it; a page's chrome often pushes it below the lines where
    `page_dateline` looks."""
    for line in quoted:
        text = line.strip()
        if (
            (len(text.split()) <= DATELINE_WORDS or _DATED_LINE.match(text))
            and _YEAR.search(text)
            and calendar_dates(text)
        ):
            return text
    return ""


def _dated(fact: _Fact, claim: str, dateline: str, s: _Sentence) -> bool:
    """A year or date of the claim that is the page's publication date, where the sentence holding its role
    writes no other year (an announcement dated May 20, 2019 says "announced on Monday")."""
    if not dateline:
        return False
    years = set(_YEAR.findall(dateline))
    dates = calendar_dates(dateline)
    if fact.kind == "date":
        return (int(fact.key[0]), int(fact.key[1])) in dates
    if fact.kind != "number" or fact.key[1]:
        return False
    other_years = {v for v, u in s.numbers if not u and _YEAR.fullmatch(v) and v != fact.key[0]}
    if fact.key[0] in years:
        return not other_years
    claimed_days = {str(d) for m, d in calendar_dates(claim, claim=True) if (m, d) in dates}
    return fact.key[0] in claimed_days and not other_years - years


_NAME_RUN = re.compile(r"[A-Z][\w'\-]*(?:\s+(?:of\s+|de\s+|van\s+|von\s+)?[A-Z][\w'\-]*){0,3}")
SUBJECT_NAME_WORDS = 4


@functools.lru_cache(maxsize=64)
def _subject_names(subject: str) -> frozenset[str]:
    """The terms of the name each line of a page's subject text opens with (capitalized words at its start,
    after "The": "Marie Curie", "Odessa Jackalopes"): the name that "he" or "the album" stands for. A line
    opening with a common noun ("The film premiered at Cannes") names no subject; a title's other
    capitalized words are title case, not names."""
    names: set[str] = set()
    for line in subject.splitlines():
        m = _NAME_RUN.match(re.sub(r"^(?:The|A|An)\s+", "", line.strip()))
        if not m:
            continue
        words = [w.removesuffix("'s") for w in m.group().split()]
        for word in words[:SUBJECT_NAME_WORDS]:
            if word.lower() not in EN_STOPWORDS and word.lower() not in _MONTH_WORDS:
                names.update(_content(word))
    return frozenset(names)


def _with_subject(s: _Sentence, names: frozenset[str]) -> _Sentence:
    """A sentence that says "he", "she", "it" or "the album" holds the names of the page's subject."""
    if not names or names <= s.content or not _ANAPHOR.search(s.text):
        return s
    return _Sentence(s.text, s.normal, s.content | names, s.numbers)


def _coreferent(fact: _Fact, subject: str, s: _Sentence) -> bool:
    """A name of the page's subject said in this sentence by the other part of the subject's name (Lady
    Amelia for Lady Amelia Windsor)."""
    if fact.kind != "name" or not subject or not set(fact.key) <= _content(subject):
        return False
    words = [w.removesuffix("'s") for w in _EN_CAPITALIZED.findall(subject)]
    for k, word in enumerate(words):
        if word.lower() == fact.shown.lower():
            beside = [words[j] for j in (k - 1, k + 1) if 0 <= j < len(words)]
            if any(b.lower() not in EN_STOPWORDS and re.search(rf"\b{re.escape(b)}\b", s.text) for b in beside):
                return True
    return False


@functools.lru_cache(maxsize=8)
def _folded(sentences: tuple[str, ...]) -> tuple[str, ...]:
    """A page's sentences in NFKC, lower case, commas dropped: a note's claims look into the same few pages."""
    return tuple(nfkc(s).lower().replace(",", "") for s in sentences)


def _holding(fact: _Fact, sentences: tuple[str, ...]) -> list[_Sentence]:
    """The sentences whose text may hold the fact (a cheap look at the raw text first: a page holds
    hundreds of sentences, and each is read only when it may)."""
    pairs = zip(sentences, _folded(sentences), strict=True)
    if fact.kind in ("number", "date"):
        digits = fact.key[0] if fact.kind == "number" else fact.key[1]
        written = re.compile(rf"(?<![\d.]){re.escape(digits)}(?!\d)")
        return [_parsed(s) for s, folded in pairs if digits in folded and written.search(folded)]
    if fact.kind == "name":  # every stem of the name (a stem is inside each word it came from, but a final y)
        stems = [k[:-1] if k.endswith("y") else k for k in (*fact.key, *sorted(fact.whole))]
        return [_parsed(s) for s, folded in pairs if all(k in folded for k in stems)]
    needle = nfkc(fact.shown).lower()
    return [_parsed(s) for s, folded in pairs if needle in folded]


_COUNTED = frozenset({"人", "個"})  # the units a Japanese counter of people or things folds to


def _one_of_a_kind(fact: _Fact, sentences: Sequence[_Sentence]) -> bool:
    """A count of one (一頭の馬, 1匹, 一人) where the sentences write no count of that kind: Japanese names one
    thing without a count (黒い馬が…), so the count is the reader's to leave unsaid; another count is not."""
    if fact.kind != "number" or fact.key[0] != "1" or fact.key[1] not in _COUNTED:
        return False
    return not any(u == fact.key[1] for s in sentences for _, u in s.numbers)


def bind_claim(
    claim: str,
    sentences: Sequence[str],
    lang: str | None = None,
    *,
    elsewhere: Sequence[str] = (),
    subject: str = "",
    dateline: str = "",
    reader: bool = False,
) -> Binding:
    """Whether `sentences` state `claim` with each of its numbers, dates, names and sibling words in its
    role and with the claim's polarity, or contradict it (see the module docstring).

    `elsewhere`: the page's other sentences. One of them that holds a fact with the words around it in the
    claim states that fact as well as an aligned one does, and a rival value in the aligned sentence then
    yields to it (a page naming a person's two prizes, each with its year).
    `subject`: the text naming the page's subject (`page_subject`): a name of the claim written there may
    be said as "he", "it" or "the album" in the sentence holding its role.
    `dateline`: the page's publication date (`page_dateline`): a year or date of the claim that is this
    date counts where the sentence holding its role writes no other year. No other value of the claim
    counts from anywhere else on the page.
    `reader`: the sentences are a reading judge's quotes. A Japanese katakana common word of the claim that
    they leave unsaid is the reader's paraphrase (バイク for オートバイ), and so is a count of one (一頭の馬 for
    黒い馬) where they write no count of its kind; another value of its kind in its place is still refused.
    Numbers, dates, English names and polarity bind as for the embedded judge. (The quote gate passes as
    `subject` what stands right around the quotes on the page too, and as `dateline` one the reader quoted.)"""
    given = [s for s in sentences if s and s.strip()]
    if not given:
        return Binding(False, False, "No evidence sentence to bind the claim to.")
    lines = [line for line in claim.splitlines() if line.strip()]
    if len(lines) > 1:
        return Binding(
            False,
            False,
            f"The claim runs over {len(lines)} lines: a claim is one sentence (a note's claims never hold a line "
            "break); give each line as a claim of its own, or join them.",
        )
    japanese = lang == "ja" if lang else has_cjk(claim)
    if japanese:
        subject = dateline = ""
    names = _subject_names(subject) if subject else frozenset()
    parsed = [_with_subject(_parsed(s), names) for s in given]
    rest = tuple(s for s in elsewhere if s and s.strip())
    claim_normal = normalize(claim)
    unstated: list[str] = []
    # a family name the page's subject carries may be left unsaid in the whole name (Lady Marina of the Windsors)
    facts = [replace(f, whole=f.whole - names) if f.whole & names else f for f in _facts(claim, japanese)]

    rivalled: dict[tuple[int, str], bool] = {}

    def rivalled_in(k: int, s: _Sentence) -> bool:
        if (k, s.text) not in rivalled:
            g = facts[k]
            rivalled[k, s.text] = (
                g.kind != "date" and not _states(g, s) and _rival(g, claim_normal, s) not in (None, g.shown)
            )
        return rivalled[k, s.text]

    def consistent(fact: _Fact, s: _Sentence) -> bool:
        """The sentence writes no rival of the claim's other facts: a fact is stated with its fellows, not
        in a sentence about another event (1903's prize was in Physics, not in Chemistry)."""
        return not any(g is not fact and rivalled_in(k, s) for k, g in enumerate(facts))

    for fact in facts:
        context = _context(fact, claim)
        i, best = _best(context, parsed)
        floor = max(min(MIN_CONTEXT, best), best - STATED_SLACK)
        if reader and not japanese and fact.kind == "name":
            # a quote is its reader's choice: it holds the words around each name itself (a careless reader
            # quotes a sentence naming the firm in another role)
            floor = max(floor, MIN_CONTEXT)
        if any(_states(fact, s) and _share(context, s) >= floor and consistent(fact, s) for s in parsed):
            continue
        # contradiction yields to a sentence of the page that states the fact in its role
        if any(
            _states(fact, s) and _share(context, s) >= max(floor, MIN_CONTEXT) and consistent(fact, s)
            for s in (_with_subject(h, names) for h in _holding(fact, rest))
        ):
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
        if any(_coreferent(fact, subject, s) and _share(context, s) >= floor for s in parsed):
            continue
        if reader and japanese and fact.kind == "name":
            continue
        if reader and japanese and _one_of_a_kind(fact, parsed):
            continue
        if _dated(fact, claim, dateline, parsed[i]):
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
