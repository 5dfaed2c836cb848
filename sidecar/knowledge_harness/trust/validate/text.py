"""Pure text helpers shared by the claims extractor and the judges: NFKC, sentences, terms.

Nothing here reads or writes files. Sentence splitting handles Japanese (。！？ and their ASCII
forms, never inside 「」『』（）【】 brackets) and English (abbreviations, initials, decimals).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass

from .english_forms import BRITISH_ROOTS, SAME_TERMS, canonical_word, ordinal_word, written_forms

OPEN_BRACKETS = "「『（(【［[〈《\u201c"
CLOSE_BRACKETS = "」』）)】］]〉》\u201d"
JA_TERMINATORS = "。！？"
EN_TERMINATORS = ".!?"

# Words after which a period does not end an English sentence.
ABBREVIATIONS = frozenset(
    [
        "mr",
        "mrs",
        "ms",
        "dr",
        "prof",
        "sr",
        "jr",
        "st",
        "mt",
        "ft",
        "vs",
        "etc",
        "e.g",
        "i.e",
        "cf",
        "fig",
        "figs",
        "no",
        "nos",
        "vol",
        "vols",
        "approx",
        "est",
        "inc",
        "ltd",
        "co",
        "corp",
        "jan",
        "feb",
        "mar",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
        "dept",
        "univ",
        "gen",
        "col",
        "lt",
        "sgt",
        "rev",
        "ed",
        "eds",
        "pp",
        "ch",
        "sec",
        "al",
        "u.s",
        "u.k",
        "u.n",
        "a.m",
        "p.m",
        "ph.d",
    ]
)

_CJK_RE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\uff66-\uff9f]")


def nfkc(text: str) -> str:
    return unicodedata.normalize("NFKC", text)


def is_cjk(ch: str) -> bool:
    return bool(_CJK_RE.match(ch))


def has_cjk(text: str) -> bool:
    return bool(_CJK_RE.search(text))


@dataclass(frozen=True, slots=True)
class Span:
    """A sentence and its [start, end) character offsets in the text it was cut from."""

    text: str
    start: int
    end: int


def _word_before(text: str, index: int) -> str:
    start = index
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] == "."):
        start -= 1
    return text[start:index].lower()


def _english_boundary(text: str, index: int) -> bool:
    """Is the '.', '!' or '?' at index the end of an English sentence?"""
    ch = text[index]
    after = index + 1
    while after < len(text) and text[after] in "\"')]\u201d\u2019":
        after += 1
    if after >= len(text):
        return True
    if not text[after].isspace():
        return False  # 3.14, e.g.x, example.com
    if ch in "!?":
        return True
    word = _word_before(text, index)
    if word.rstrip(".") in ABBREVIATIONS or word in ABBREVIATIONS:
        return False
    if len(word) == 1 and word.isalpha():
        return False  # an initial: J. Smith
    nxt = after
    while nxt < len(text) and text[nxt].isspace():
        nxt += 1
    if nxt >= len(text):
        return True
    follower = text[nxt]
    return follower.isupper() or follower.isdigit() or follower in "\"'(\u201c[" or is_cjk(follower)


# The only characters at which split_sentences has anything to do; it jumps over the others.
_SPLIT_CHARS = frozenset("\n" + OPEN_BRACKETS + CLOSE_BRACKETS + JA_TERMINATORS + EN_TERMINATORS)
_SPLIT_AT = re.compile("[" + re.escape("".join(sorted(_SPLIT_CHARS))) + "]")


def split_sentences(text: str) -> list[Span]:
    """Split a paragraph into sentences with their offsets; newlines are boundaries."""
    spans: list[Span] = []
    depth = 0
    start = 0
    i = 0
    n = len(text)

    def emit(end: int) -> None:
        raw = text[start:end]
        stripped = raw.strip()
        if stripped:
            lead = len(raw) - len(raw.lstrip())
            spans.append(Span(stripped, start + lead, start + lead + len(stripped)))

    while i < n:
        ch = text[i]
        if ch not in _SPLIT_CHARS:
            found = _SPLIT_AT.search(text, i)
            if found is None:
                break
            i = found.start()
            ch = text[i]
        if ch == "\n":
            emit(i)
            depth = 0
            start = i + 1
        elif ch in OPEN_BRACKETS:
            depth += 1
        elif ch in CLOSE_BRACKETS:
            depth = max(0, depth - 1)
        elif (depth == 0 and ch in JA_TERMINATORS) or (depth == 0 and ch in "!?" and i > 0 and is_cjk(text[i - 1])):
            end = i + 1
            while end < n and (text[end] in JA_TERMINATORS or text[end] in CLOSE_BRACKETS):
                end += 1
            emit(end)
            start = end
            i = end
            continue
        elif depth == 0 and ch in EN_TERMINATORS and _english_boundary(text, i):
            end = i + 1
            while end < n and text[end] in "\"')]\u201d\u2019":
                end += 1
            emit(end)
            start = end
            i = end
            continue
        i += 1
    emit(n)
    return spans


def sentence_texts(text: str) -> list[str]:
    """The texts of split_sentences(text), faster: a newline always ends a sentence, and a line with
    no bracket or terminator before its last character is one sentence (most lines of a web page)."""
    out: list[str] = []
    for line in text.split("\n"):
        stripped = line.strip()
        if not stripped:
            continue
        if _SPLIT_AT.search(stripped, 0, len(stripped) - 1) is None and stripped[-1] not in OPEN_BRACKETS:
            out.append(stripped)
        else:
            out.extend(span.text for span in split_sentences(line))
    return out


# -- terms for alignment -------------------------------------------------------------------------

_TOKEN_RE = re.compile(
    r"(?P<num>\d+(?:[.,]\d+)*)(?:(?P<ord>st|nd|rd|th)(?![a-z]))?"
    r"|(?P<latin>[a-z][a-z0-9'\-]*)"
    r"|(?P<kanji>[\u3400-\u9fff\uf900-\ufaff々〆ヶ]+)"
    r"|(?P<kata>[\u30a0-\u30ffー]+)"
    r"|(?P<hira>[\u3040-\u309f]+)"
)

_EN_GRAMMAR_WORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "of",
        "to",
        "in",
        "on",
        "at",
        "by",
        "for",
        "with",
        "from",
        "as",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "there",
        "their",
        "they",
        "them",
        "he",
        "she",
        "his",
        "her",
        "we",
        "our",
        "you",
        "your",
        "i",
        "which",
        "who",
        "whom",
        "whose",
        "what",
        "when",
        "where",
        "how",
        "than",
        "then",
        "so",
        "such",
        "also",
        "into",
        "onto",
        "over",
        "about",
        "after",
        "before",
        "between",
        "during",
        "under",
        "more",
        "most",
        "very",
        "can",
        "could",
        "may",
        "might",
        "will",
        "would",
        "shall",
        "should",
        "do",
        "does",
        "did",
        "has",
        "have",
        "had",
        "having",
        "not",
        "no",
        "nor",
        "only",
        "own",
        "same",
        "just",
        "up",
        "down",
        "out",
        "off",
        "s",
        "t",
        "one",
        "some",
        "any",
        "each",
        "other",
        "both",
        "all",
        "many",
        "much",
    ]
)
# Words that state no fact of their own in a claim about a page (adverbs of time and manner,
# connectives): "he later joined", "it was again", "reportedly grew close" are supported by a page that
# states the fact without them, and a page that lacks them is not evidence against the claim.
EN_LIGHT_WORDS = frozenset(
    [
        "again",
        "later",
        "latter",
        "already",
        "currently",
        "previously",
        "reportedly",
        "ultimately",
        "originally",
        "initially",
        "eventually",
        "subsequently",
        "recently",
        "finally",
        "formerly",
        "still",
        "well",
        "every",
        "due",
        "within",
        "prior",
        "since",
        "often",
        "further",
        "altogether",
        "highly",
        "slightly",
        "even",
        "yet",
        "however",
        "thus",
        "while",
        "through",
        "throughout",
        "among",
        "via",
        "upon",
        "including",
    ]
)
EN_STOPWORDS = _EN_GRAMMAR_WORDS | EN_LIGHT_WORDS
# Irregular past forms read as their verb ("began" meets "begin", "led" meets "lead").
EN_IRREGULAR = {
    form: verb
    for verb, forms in (
        ("begin", "began begun"),
        ("lead", "led"),
        ("make", "made"),
        ("win", "won"),
        ("take", "took taken"),
        ("leave", "left"),
        ("grow", "grew grown"),
        ("become", "became"),
        ("come", "came"),
        ("go", "went gone"),
        ("give", "gave given"),
        ("write", "wrote written"),
        ("hold", "held"),
        ("tell", "told"),
        ("say", "said"),
        ("find", "found"),
        ("bring", "brought"),
        ("buy", "bought"),
        ("build", "built"),
        ("sell", "sold"),
        ("send", "sent"),
        ("spend", "spent"),
        ("meet", "met"),
        ("run", "ran"),
        ("see", "saw seen"),
        ("know", "knew known"),
        ("fall", "fell fallen"),
        ("rise", "rose risen"),
        ("choose", "chose chosen"),
        ("draw", "drew drawn"),
        ("drive", "drove driven"),
        ("fly", "flew flown"),
        ("break", "broke broken"),
        ("speak", "spoke spoken"),
        ("stand", "stood"),
        ("sing", "sang sung"),
        ("think", "thought"),
        ("teach", "taught"),
        ("catch", "caught"),
        ("fight", "fought"),
        ("lose", "lost"),
        ("pay", "paid"),
        ("keep", "kept"),
        ("feel", "felt"),
        ("hear", "heard"),
        ("strike", "struck"),
        ("shoot", "shot"),
        ("wear", "wore worn"),
        ("swim", "swam swum"),
        ("sit", "sat"),
        ("forget", "forgot forgotten"),
        ("get", "got gotten"),
    )
    for form in forms.split()
}

# Hiragana runs that carry no content (particles, auxiliaries, copulas).
JA_FUNCTION = frozenset(
    [
        "は",
        "が",
        "を",
        "に",
        "で",
        "と",
        "の",
        "へ",
        "も",
        "や",
        "か",
        "な",
        "ね",
        "よ",
        "から",
        "まで",
        "より",
        "ので",
        "のは",
        "には",
        "では",
        "とは",
        "でも",
        "にも",
        "へと",
        "として",
        "による",
        "により",
        "において",
        "について",
        "における",
        "にて",
        "ため",
        "ために",
        "である",
        "であり",
        "であった",
        "です",
        "でした",
        "ます",
        "ました",
        "する",
        "した",
        "して",
        "され",
        "される",
        "された",
        "れる",
        "られる",
        "いる",
        "いた",
        "ある",
        "あった",
        "あり",
        "おり",
        "こと",
        "もの",
        "よう",
        "など",
        "ない",
        "という",
        "といった",
        "これ",
        "それ",
        "あれ",
        "この",
        "その",
        "あの",
        "また",
        "および",
        "ならびに",
        "かつ",
        "さらに",
    ]
)

# Counter words / units that travel with numbers (3人, 20 km, 1998年).
UNIT_RE = re.compile(
    r"^(?:年|月|日|時|分|秒|人|名|個|件|回|台|頭|匹|本|枚|冊|歳|才|円|ドル|万|億|兆|倍|度|%|％|パーセント|"
    r"メートル|キロメートル|キロ|センチ|ミリ|トン|グラム|キログラム|リットル|階|位|番|号|社|校|国|都市|"
    r"km|m|cm|mm|kg|g|t|mb|gb|tb|kb|ms|s|h|hz|mhz|ghz|w|kw|mw|v|mph|percent|years?|days?|months?|"
    r"hours?|minutes?|seconds?|people|persons?|km2|meters?|metres?|kilometers?|kilometres?|miles?|feet|"
    r"tons?|tonnes?|dollars?|yen|euros?|million|billion|trillion|thousand|times|degrees?)"
    r"(?![a-z])"  # a whole word: "2017 to" has no unit "t", "2016 with" no "w"
)


_PARTICLE_STARTS = frozenset("はがをにでとのへもやかよ")


@dataclass(frozen=True, slots=True)
class Terms:
    content: tuple[str, ...]  # content terms (words, CJK bigrams) — order kept, may repeat
    numbers: tuple[str, ...]  # normalized numbers with their unit, e.g. "3776|メートル", "1998|年"
    hiragana: tuple[str, ...]  # hiragana content words (small separate tolerance)


@functools.lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    word = word.removesuffix("'s").removesuffix("s'")
    word = canonical_word(EN_IRREGULAR.get(word, word))
    stem = _stem_suffix(word)
    stem = stem[:-1] if len(stem) > 3 and stem.endswith("e") else stem
    stem = SAME_TERMS.get(stem, stem)
    return _derivation_root(stem) if len(stem) > 7 else stem


# Nouns made of a verb read as it (the root keeps five letters at least): "appearance" = "appear",
# "announcement" = "announce", "election" = "elect", "discussion" = "discuss". A few nouns whose root is
# another word are kept whole.
_DERIVED_NOUN = re.compile(r"(?<=[a-z]{5})(?:ment|anc|enc|(?<=t)ion|(?<=s)ion)$")
_NOT_DERIVED = frozenset(
    ["department", "apartment", "compartment", "importanc", "question", "convention", "exception", "production"]
)


def _derivation_root(stem: str) -> str:
    if not stem.endswith(("ment", "anc", "enc", "ion")) or stem in _NOT_DERIVED:
        return stem
    root = _DERIVED_NOUN.sub("", stem)
    if root == stem:
        return stem
    root = root[:-1] if root.endswith("e") else root
    return _undoubled(root)


def _undoubled(stem: str) -> str:
    """A consonant doubled before -ing/-ed is one ("winning" = "win", "stopped" = "stop")."""
    return stem[:-1] if len(stem) > 2 and stem[-1] == stem[-2] and stem[-1] in "bgmnprt" else stem


def _stem_suffix(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 5 and word.endswith("ing"):
        return _undoubled(word[:-3])
    if len(word) > 4 and word.endswith("ed"):
        return _undoubled(word[:-2])
    if len(word) > 3 and word.endswith("es") and word[-3] in "sxz":
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def _irregular_forms() -> dict[str, tuple[str, ...]]:
    by_term: dict[str, list[str]] = {}
    for form, verb in EN_IRREGULAR.items():
        by_term.setdefault(_stem(verb), []).append(form)
    return {term: tuple(forms) for term, forms in by_term.items()}


# term -> the irregular forms it is also read from ("begin" <- "began", "begun"): a page holds the term
# where it holds one of these words, or a word starting with the term's text
IRREGULAR_FORMS = _irregular_forms()


@functools.lru_cache(maxsize=65536)
def search_forms(term: str) -> tuple[str, ...]:
    """Texts other than the term's own that a page may hold a Latin term in, each the start of a word it is
    read from: irregular forms ("began" for "begin"), abbreviated months ("nov" for "november"),
    nationalities ("french" for "franc"), British spellings ("metre" for "meter"), ordinals in digits ("15th"
    for "fifteenth"). A sentence holding none of them nor the term's text never holds the term."""
    forms = set(IRREGULAR_FORMS.get(term, ()))
    forms.update(written_forms(term))
    for canonical in _CANONICAL_OF_TERM.get(term, ()):
        forms.update(written_forms(canonical))
    forms.discard(term)
    return tuple(sorted(forms))


def _canonical_of_term() -> dict[str, tuple[str, ...]]:
    """term -> the canonical words that stem to it ("franc" <- "france"), for the tables' written forms."""
    from .english_forms import BRITISH_WORDS, DEMONYMS, MONTH_ABBREVIATIONS, ORDINAL_DIGITS

    canonicals = {*MONTH_ABBREVIATIONS.values(), *(p.split()[0] for p in DEMONYMS.values()), *ORDINAL_DIGITS}
    canonicals |= set(BRITISH_ROOTS.values()) | set(BRITISH_WORDS.values())
    by_term: dict[str, set[str]] = {}
    for word in canonicals:
        by_term.setdefault(_stem(word), set()).add(word)
    return {term: tuple(sorted(words)) for term, words in by_term.items()}


_CANONICAL_OF_TERM = _canonical_of_term()


def _bigrams(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def _norm_number(raw: str) -> str:
    value = raw.replace(",", "")
    if "." in value:
        value = value.rstrip("0").rstrip(".") or "0"
    return value.lstrip("0") or "0"


# A year range with its second year cut short ("2018–19", "1990-95") states both years in full.
_YEAR_RANGE = re.compile(r"(?<![\w.,'\-\u2013/])(1\d|20)(\d\d)([\-\u2013])(\d\d)(?![\w'\-\u2013/]|[.,]\d)")


def expand_year_ranges(text: str) -> str:
    """ "2018–19" -> "2018–2019" (a lower-cased text)."""
    return _YEAR_RANGE.sub(r"\1\2\3\1\4", text) if "-" in text or "\u2013" in text else text


def terms(text: str) -> Terms:
    """Content terms of a text: Latin words (stemmed, stopwords out), CJK bigrams, numbers+units; an ordinal
    in digits ("15th") is its number and its word ("fifteenth")."""
    t = expand_year_ranges(nfkc(text).lower())
    content: list[str] = []
    numbers: list[str] = []
    hira: list[str] = []
    matches = list(_TOKEN_RE.finditer(t))
    for idx, m in enumerate(matches):
        kind = "num" if m.lastgroup == "ord" else m.lastgroup  # the ordinal suffix is the number's last group
        tok = m.group()
        if kind == "num":
            tok = m.group("num")
            if m.group("ord") and tok.isdigit() and (m.start() == 0 or t[m.start() - 1] not in ".,"):
                content.append(ordinal_word(int(tok)))
                if not content[-1]:
                    content.pop()
            rest = t[m.end() :].lstrip(" ")
            unit_m = UNIT_RE.match(rest)
            unit = unit_m.group() if unit_m else ""
            unit = unit.rstrip("s") if unit and unit.isascii() and len(unit) > 3 else unit
            numbers.append(f"{_norm_number(tok)}|{unit}")
        elif kind == "latin":
            word = tok.strip("'-")
            term = _stem(word) if word and word not in EN_STOPWORDS and len(word) > 1 else ""
            if term:  # "s''s" is no word
                content.append(term)
        elif kind == "kanji" or kind == "kata":
            content.extend(_bigrams(tok))
            # kanji + first okurigana (高い, 行う) as an extra term keeps verbs/adjectives apart
            if kind == "kanji" and idx + 1 < len(matches):
                nxt = matches[idx + 1]
                if nxt.lastgroup == "hira" and nxt.start() == m.end() and nxt.group()[0] not in _PARTICLE_STARTS:
                    content.append(tok[-1] + nxt.group()[0])
        elif kind == "hira" and tok not in JA_FUNCTION and len(tok) >= 2:
            hira.append(tok)
    return Terms(tuple(content), tuple(numbers), tuple(hira))


# -- the same terms, per evidence sentence, fast -------------------------------------------------
# A page of evidence holds hundreds of sentences and the judge needs only each sentence's *sets* of
# terms: for text with no CJK character (most English pages) the words and numbers are found by two
# C-level scans and stems are looked up in a table instead of walking match objects one by one.
# sentence_terms(x) equals the sets of terms(x) (tests/trust/test_judge_text.py checks it).

# exactly the characters that _TOKEN_RE's kanji, katakana and hiragana groups take
_CJK_TOKEN_CHAR = re.compile(r"[\u3400-\u9fff\uf900-\ufaff々〆ヶ\u30a0-\u30ffー\u3040-\u309f]")
# numbers (with the unit that follows, looked at but not taken: "20 km" still yields the word "km") or words
_ASCII_TOKEN_RE = re.compile(
    r"(\d+(?:[.,]\d+)*)(?:(?:st|nd|rd|th)(?![a-z]))?(?=(?: *("
    + UNIT_RE.pattern.removeprefix("^")
    + r"))?)|([a-z][a-z0-9'\-]*)"
)
# the Latin words _TOKEN_RE finds in such text (a number never starts inside a word, nor a word inside a
# number), and ordinals in digits, whose suffix is no word: a digit-led match is an ordinal
_LATIN_WORD_RE = re.compile(r"(?:(?<![\d.,])(\d+)|\d)(?:st|nd|rd|th)(?![a-z])|([a-z][a-z0-9'\-]*)")
_PLAIN_WORD_RE = re.compile(r"[a-z][a-z0-9'\-]*")  # the same words in a text without a digit
_DIGIT_RE = re.compile(r"\d")
_ORDINAL_RE = re.compile(r"\d(?:st|nd|rd|th)(?![a-z])")  # what any match of _LATIN_WORD_RE's first branch holds
_TERMS_CACHE_MAX = 200_000


class _WordTerms(dict[str, str]):
    """word -> its content term ("" for a stopword or a one-letter word), filled on first use."""

    def __missing__(self, token: str) -> str:
        word = token.strip("'-")
        term = _stem(word) if word and word not in EN_STOPWORDS and len(word) > 1 else ""
        if len(self) < _TERMS_CACHE_MAX:
            self[token] = term
        return term


class _NumberTerms(dict[tuple[str, str], str]):
    """(number, unit as written) -> "number|unit" as terms() writes it, filled on first use."""

    def __missing__(self, key: tuple[str, str]) -> str:
        number, unit = key
        unit = unit.rstrip("s") if unit and unit.isascii() and len(unit) > 3 else unit
        term = f"{_norm_number(number)}|{unit}"
        if len(self) < _TERMS_CACHE_MAX:
            self[key] = term
        return term


_WORD_TERMS = _WordTerms()
_NUMBER_TERMS = _NumberTerms()


def forget_cached_terms() -> None:
    """Empty the word and number tables (a benchmark measures a cold start with it)."""
    _WORD_TERMS.clear()
    _NUMBER_TERMS.clear()


def _ordinal_term(digits: str) -> str:
    return ordinal_word(int(digits)) if digits else ""


def sentence_terms(text: str) -> tuple[set[str], set[str], set[str]]:
    """The sets of terms(text): content terms, numbers with their unit, hiragana words."""
    t = text.lower() if text.isascii() else nfkc(text).lower()
    if _CJK_TOKEN_CHAR.search(t):
        full = terms(text)
        return set(full.content), set(full.numbers), set(full.hiragana)
    words = _WORD_TERMS
    if not _DIGIT_RE.search(t):  # most sentences: no number, no ordinal, no year range
        content = {words[w] for w in _PLAIN_WORD_RE.findall(t)}
        content.discard("")
        return content, set(), set()
    t = expand_year_ranges(t)
    if _ORDINAL_RE.search(t):
        content = {words[word] if word else _ordinal_term(digits) for digits, word in _LATIN_WORD_RE.findall(t)}
    else:  # no ordinal, the first branch of _LATIN_WORD_RE never matches: its words alone, faster
        content = {words[w] for w in _PLAIN_WORD_RE.findall(t)}
    content.discard("")
    numbers = _NUMBER_TERMS
    return content, {numbers[n, u] for n, u, _ in _ASCII_TOKEN_RE.findall(t) if n}, set()
