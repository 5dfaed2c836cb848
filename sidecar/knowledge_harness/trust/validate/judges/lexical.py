"""The lexical judge: offline, deterministic, Japanese and English, and conservative.

For each claim and each evidence text it may use:
1. Align: the evidence is cut into sentences; candidate windows are 1–3 adjacent sentences;
   each is scored by the IDF-weighted share of the claim's content terms it contains (Latin
   words, stemmed, stopwords out; CJK: bigrams inside kanji/katakana runs, unigrams for
   one-character runs, kanji + first okurigana; hiragana content words kept apart; numbers with
   their unit or counter). All text is NFKC-normalized and lower-cased. English claims are also
   cut into sub-claims, each aligned on its own. A sentence is tokenized only when a claim needs
   it (see `_Doc`), with the same result as tokenizing them all.
2. Contradiction cues, on the aligned window only: a number with the same unit but a different
   value (and the claim's value absent; for English, absent from the whole page), negation on one
   side only (ない, ではない, ません, 対象外, not, never, no longer, ...), a Japanese predicate negated
   on one side only, or a pair from the antonym list below on opposite sides. Cues count only when
   the rest of the claim is well covered (the window is about the same thing).
3. Support: no cue, every number of the claim present (in the window; for English on the page);
   then a restatement or version 1's close-match rule, or else the language's fitted logistic
   model (lexical_model.json; English claims reach it only through the model's gate, whose limits
   are fitted with it).
Anything else is `unsupported`: when unsure the judge says unsupported (→ warn), never supported.

Version 4 (against 3): the English gate's limits, each model's threshold target and the English
regularization are chosen by cross-validation inside the fitting rows (bench/judge_train.py); an
English number stated elsewhere on the page is no longer contradicted by the window's number.
Version 5 (against 4): English irregular past forms are read as their verb (also for antonyms), adverbs
and connectives that state no fact are not content words, and a missing name is never a close match.
Version 6 (against 5): one English fact written several ways is read as one (trust/validate/english_forms.py:
abbreviated months, nationalities as their country, British spellings, ordinals in digits and words,
short year ranges, a doubled consonant before -ing/-ed, nouns made of a verb, a few terms that say the
same); "not only" and words a claim quotes do not make it negative.
Version 7 (against 6): an English content word that the page never uses counts as used on the page when
the page holds a related word (judges/related_words.py: WordNet 3.0 synonyms and derivationally related
forms; never for names or words holding a digit); the English model is refitted under that reading.
Version 8 (against 7): an English claim's day of a month ("on May 19, 2016") must be stated on the page as
that date, in any usual writing (english_forms.calendar_dates), not as a month and a number apart; a date
in digits with dots ("19.05.2016") is read as three numbers, as with slashes; both models are refitted.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import math
import re
from collections import defaultdict
from collections.abc import Container
from dataclasses import dataclass
from typing import Protocol

from ..english_forms import MONTH_NAMES, calendar_dates, ordinal_word
from ..text import (
    EN_IRREGULAR,
    Terms,
    expand_year_ranges,
    has_cjk,
    nfkc,
    search_forms,
    sentence_terms,
    sentence_texts,
    terms,
)
from ..validation_models import ClaimIn, EvidenceIn, Finding, ValidatorInfo
from .base import JudgeOutput
from .binding import (
    EN_CLAUSE,
    bind_claim,
    claim_negated,
    negated,
    page_dateline,
    page_subject,
    same_kind,
    superlative_restated,
    unit_of,
)
from .lexical_features import GateMeasures, LogisticModel, WindowMatch, clauses, normalize, pair_features, subclaims
from .lexical_model import fitted_models, language_of
from .related_words import RELATED_WORDS

NAME = "lexical"
VERSION = "8"
MAX_SENTENCES = 5000
QUOTE_CHARS = 400
EN_WEAK_SUBCLAIM = 0.4  # a sub-claim whose best window covers less than this is not found

# Antonym pairs (documented in docs/validator.md). English entries are whole words.
EN_ANTONYMS: tuple[tuple[str, str], ...] = (
    ("highest", "lowest"),
    ("largest", "smallest"),
    ("biggest", "smallest"),
    ("longest", "shortest"),
    ("oldest", "newest"),
    ("oldest", "youngest"),
    ("first", "last"),
    ("increase", "decrease"),
    ("increased", "decreased"),
    ("increases", "decreases"),
    ("rise", "fall"),
    ("rose", "fell"),
    ("more", "less"),
    ("more", "fewer"),
    ("higher", "lower"),
    ("larger", "smaller"),
    ("before", "after"),
    ("north", "south"),
    ("east", "west"),
    ("northern", "southern"),
    ("eastern", "western"),
    ("active", "dormant"),
    ("active", "extinct"),
    ("open", "closed"),
    ("public", "private"),
    ("maximum", "minimum"),
    ("win", "lose"),
    ("won", "lost"),
    ("true", "false"),
    ("allowed", "forbidden"),
    ("allowed", "prohibited"),
    ("legal", "illegal"),
    ("success", "failure"),
    ("succeeded", "failed"),
    ("accepted", "rejected"),
    ("approved", "rejected"),
    ("male", "female"),
    ("internal", "external"),
    ("inside", "outside"),
    ("early", "late"),
    ("earliest", "latest"),
    ("start", "end"),
    ("began", "ended"),
    ("synchronous", "asynchronous"),
    ("encrypted", "unencrypted"),
    ("stable", "unstable"),
    ("supported", "unsupported"),
    ("deprecated", "recommended"),
)
JA_ANTONYMS: tuple[tuple[str, str], ...] = (
    ("最高", "最低"),
    ("最大", "最小"),
    ("最長", "最短"),
    ("最古", "最新"),
    ("最初", "最後"),
    ("増加", "減少"),
    ("上昇", "下降"),
    ("上昇", "低下"),
    ("増え", "減っ"),
    ("増え", "減り"),
    ("以前", "以降"),
    ("高い", "低い"),
    ("大きい", "小さい"),
    ("多い", "少ない"),
    ("長い", "短い"),
    ("古い", "新しい"),
    ("早い", "遅い"),
    ("広い", "狭い"),
    ("重い", "軽い"),
    ("北部", "南部"),
    ("東部", "西部"),
    ("北側", "南側"),
    ("東側", "西側"),
    ("活火山", "休火山"),
    ("活火山", "死火山"),
    ("開始", "終了"),
    ("可能", "不可能"),
    ("賛成", "反対"),
    ("勝利", "敗北"),
    ("成功", "失敗"),
    ("合法", "違法"),
    ("公開", "非公開"),
    ("有効", "無効"),
    ("同期", "非同期"),
    ("男性", "女性"),
    ("内部", "外部"),
    ("上回", "下回"),
    ("黒字", "赤字"),
    ("輸出", "輸入"),
    ("前半", "後半"),
    ("上旬", "下旬"),
)

_NUM_EXPR = re.compile(r"\d")


def _numbers(t: Terms) -> set[tuple[str, str]]:
    return {unit_of(n) for n in t.numbers}


def _with_verbs(words: list[str]) -> set[str]:
    """The words and the verbs of their irregular forms ("lost" is also "lose", against "win")."""
    return set(words) | {EN_IRREGULAR[w] for w in words if w in EN_IRREGULAR}


def _antonym_hit(claim: str, window: str) -> tuple[str, str] | None:
    c = nfkc(claim).lower()
    w = nfkc(window).lower()
    c_words = _with_verbs(re.findall(r"[a-z]+", c))
    w_words = _with_verbs(re.findall(r"[a-z]+", w))
    for a, b in EN_ANTONYMS:
        for x, y in ((a, b), (b, a)):
            if x in c_words and y in w_words and x not in w_words and y not in c_words:
                return x, y
    for a, b in JA_ANTONYMS:
        for x, y in ((a, b), (b, a)):
            if x in c and y in w and x not in w and y not in c.replace(x, ""):
                return x, y
    return None


class _Doc:
    """One evidence text, cut into normalized sentences. A page holds hundreds of sentences and a claim
    shares terms with a few: a sentence is tokenized only when it holds the text of one of the terms
    asked (a term's text minus a final "y" is always inside a word it came from), when it is part of a
    window, or, for numbers, when it holds a digit. The answers equal those of tokenizing every sentence."""

    def __init__(self, source_id: str, sentences: list[str]) -> None:
        self.source_id = source_id
        self.sentences = sentences
        normalized = [normalize(s) for s in sentences]
        self.page_text = "\n".join(normalized)  # the sentences, normalized and joined
        self._normalized = normalized
        self._starts: list[int] = []
        offset = 0
        for sentence in normalized:
            self._starts.append(offset)
            offset += len(sentence) + 1
        # sentences whose tokenizer text is not their normalized text: always tokenized
        self._always = [i for i, n in enumerate(normalized) if not n.isascii() and nfkc(n).lower() != n]
        self._terms: list[tuple[set[str], set[tuple[str, str]], set[str]] | None] = [None] * len(sentences)
        self._content: list[set[str] | None] = [None] * len(sentences)
        self.index: dict[str, list[int]] = {}  # term -> the sentences holding it, for the terms asked
        self.idf: dict[str, float] = {}  # filled on first use, for the claims' terms only
        # a claim's clauses and sub-claims often repeat one another's terms: each set is aligned once
        self.windows: dict[tuple[frozenset[str], frozenset[tuple[str, str]]], tuple[tuple[int, int] | None, float]] = {}
        self._digit_texts: list[tuple[int, str]] | None = None

    @functools.cached_property
    def subject(self) -> str:
        """The text naming the page's subject (binding.page_subject), read once."""
        return page_subject(self.sentences)

    @functools.cached_property
    def dateline(self) -> str:
        """The page's publication date line (binding.page_dateline), read once."""
        return page_dateline(self.sentences)

    def states_date(self, month: int, day: int) -> bool:
        """Whether the page states this day of this month, in any of the ways english_forms reads: the
        dates are read around each place the day's number is written (a page holds it a few times)."""
        text = self.page_text
        for m in re.finditer(rf"(?<!\d)0?{day}(?!\d)", text):
            if (month, day) in calendar_dates(_whole_words_around(text, m.start(), m.end())):
                return True
        return False

    def _tokenized(self, i: int) -> tuple[set[str], set[tuple[str, str]], set[str]]:
        found = self._terms[i]
        if found is None:
            content, numbers, hiragana = sentence_terms(self._normalized[i])
            found = self._terms[i] = (content, {unit_of(n) for n in numbers} if numbers else set(), hiragana)
            self._content[i] = content
        return found

    def terms_at(self, i: int) -> set[str]:
        content = self._content[i]
        return content if content is not None else self._tokenized(i)[0]

    def numbers_at(self, i: int) -> set[tuple[str, str]]:
        return self._tokenized(i)[1]

    def hiragana_at(self, i: int) -> set[str]:
        return self._tokenized(i)[2]

    def window_terms(self, start: int, end: int) -> set[str]:
        if end - start == 1:
            return self.terms_at(start)
        return set().union(*(self.terms_at(i) for i in range(start, end)))

    def _holding(self, key: str) -> set[int]:
        """The sentences whose normalized text holds `key` (for a Latin key, at the start of a word)."""
        text = self.page_text
        starts = self._starts
        word_start = key[0].isascii() and key[0].isalpha()
        found: set[int] = set()
        at = text.find(key)
        while at != -1:
            i = bisect.bisect_right(starts, at) - 1
            if word_start and at > 0 and "a" <= text[at - 1] <= "z":
                at = text.find(key, at + 1)
                continue
            found.add(i)
            at = text.find(key, starts[i + 1]) if i + 1 < len(starts) else -1
        return found

    def ask(self, wanted: set[str]) -> None:
        """Fill the index for these terms."""
        for t in wanted:
            if t in self.index:
                continue
            # a Latin term is the start of a word it came from, but "studies" gave "study": look for "stud"
            holding = set(self._always)
            for form in (t, *search_forms(t)):  # "began" holds "begin", "nov" holds "november"
                holding |= self._holding(form[:-1] if len(form) > 1 and form.isascii() and form.endswith("y") else form)
            candidates = sorted(holding)
            self.index[t] = [i for i in candidates if t in self.terms_at(i)]

    def postings(self, term: str) -> list[int]:
        if term not in self.index:
            self.ask({term})
        return self.index[term]

    def on_page(self, term: str) -> bool:
        return bool(self.postings(term))

    def _holding_number(self, value: str) -> list[int]:
        """The sentences that may hold this number: its integer digits appear once commas are dropped
        (1,999 and 1999 both hold "1999"; leading zeros are never part of a value)."""
        if self._digit_texts is None:
            self._digit_texts = [
                (i, expand_year_ranges(sentence).replace(",", ""))
                for i, sentence in enumerate(self._normalized)
                if _HAS_DIGIT.search(sentence) or i in self._always
            ]
        key = value.split(".")[0] or value
        return [i for i, text in self._digit_texts if key in text]

    def sentences_with(self, numbers: set[tuple[str, str]]) -> list[int]:
        """The sentences holding one of these numbers."""
        candidates = sorted({i for value, _ in numbers for i in self._holding_number(value)})
        return [i for i in candidates if numbers & self.numbers_at(i)]

    def absent_numbers(self, numbers: set[tuple[str, str]]) -> set[tuple[str, str]]:
        """The numbers that no sentence of the page holds."""
        return numbers - self.stated_numbers(numbers)

    def stated_numbers(self, numbers: set[tuple[str, str]]) -> set[tuple[str, str]]:
        """The numbers that some sentence of the page holds."""
        return {n for n in numbers if any(n in self.numbers_at(i) for i in self._holding_number(n[0]))}


_HAS_DIGIT = re.compile(r"\d")


_DATE_REACH = 24  # characters each side of a day's number that its date is written in ("27th of September")
_SPACE = re.compile(r"\s")


def _whole_words_around(text: str, start: int, end: int) -> str:
    """The text within _DATE_REACH characters of text[start:end], cut at spaces so that no word is cut."""
    lo, hi = start - _DATE_REACH, end + _DATE_REACH
    if lo > 0:
        space = _SPACE.search(text, lo, start)
        lo = space.end() if space else lo
    if hi < len(text):
        spaces = [m.start() for m in _SPACE.finditer(text, end, hi)]
        hi = spaces[-1] if spaces else hi
    return text[max(0, lo) : hi]


def prepare(ev: EvidenceIn) -> _Doc:
    text = ev.text or ""
    return _Doc(ev.source_id, sentence_texts(text)[:MAX_SENTENCES])


@dataclass
class _Alignment:
    verdict: str
    source_id: str
    quote: str
    reason: str
    coverage: float
    features: list[float] | None = None  # set when the support model was asked (bench/judge_train.py)
    gate: GateMeasures | None = None  # … and, for an English claim, what its gate looked at


class RelatedWords(Protocol):
    """Which of an English claim's content terms that a page never uses have a near neighbour on it (a
    word of like meaning: "movie" for "film"): the default judge's table (judges/related_words.py) or an
    optional profile's embeddings (judges/embedded.py). With `reads_window`, a term missing from the best
    window also counts as present when the window holds such a word."""

    reads_window: bool

    def near(self, claim: str, absent: set[str], text: str) -> set[str]:
        """The terms of `absent` (read from `claim`) for which `text` holds a word of like meaning."""
        ...


class LexicalJudge:
    """The embedded default judge (see the module docstring)."""

    def __init__(
        self,
        models: dict[str, LogisticModel] | None = None,
        related: RelatedWords | None = RELATED_WORDS,
        info: ValidatorInfo | None = None,
    ) -> None:
        self._info = info or ValidatorInfo(name=NAME, version=VERSION)
        self._models = models if models is not None else fitted_models()
        self._related = related

    @property
    def info(self) -> ValidatorInfo:
        return self._info

    def judge(self, claims: list[ClaimIn], evidence: list[EvidenceIn]) -> JudgeOutput:
        docs = {ev.source_id: prepare(ev) for ev in evidence if ev.text}
        findings: list[Finding] = []
        confidences: list[float] = []
        for claim in claims:
            wanted = claim.source_ids or list(docs)
            candidates = [docs[s] for s in wanted if s in docs]
            best: _Alignment | None = None
            for doc in candidates:
                result = self.align(claim.text, doc)
                if best is None or _rank(result) > _rank(best):
                    best = result
            if best is None:
                findings.append(
                    Finding(claim_id=claim.id, verdict="no_evidence", reason="No cited source has evidence text.")
                )
                confidences.append(0.0)
                continue
            findings.append(
                Finding(
                    claim_id=claim.id,
                    verdict=best.verdict,
                    source_id=best.source_id,
                    quote=best.quote,
                    reason=best.reason,
                )
            )
            confidences.append(best.coverage if best.verdict != "unsupported" else 1.0 - best.coverage)
        confidence = sum(confidences) / len(confidences) if confidences else 0.0
        return JudgeOutput(findings=findings, confidence=round(min(1.0, max(0.0, confidence)) * 0.8, 3))

    def judge_pair(self, claim: str, evidence: str) -> str:
        """One claim against one text: 'supported' | 'unsupported' | 'contradicted' (bench helper)."""
        out = self.judge([ClaimIn(id="c", text=claim)], [EvidenceIn(source_id="e", text=evidence)])
        return out.findings[0].verdict

    # -- alignment ---------------------------------------------------------------------------

    def _clause_coverage(self, claim: str, doc: _Doc) -> float:
        """The coverage of the worst-covered clause, each clause aligned on its own (1.0 for one clause)."""
        parts = clauses(claim)
        if len(parts) < 2:
            return 1.0
        worst = 1.0
        for part in parts:
            content = set(terms(normalize(part)).content)
            if content:
                worst = min(worst, _best_window(content, set(), doc)[1])
        return worst

    def _subclaim_alignment(self, claim: str, doc: _Doc, weight: dict[str, float]) -> tuple[int, float, float]:
        """Sub-claims each aligned on their own: how many are weakly covered, the coverage of the worst
        covered, and the coverage of the claim by the union of their windows (an English claim's facts
        often sit in different sentences)."""
        total = sum(weight.values()) or 1.0
        weak = 0
        weakest = 1.0
        union: set[str] = set()
        for part in subclaims(claim):
            content = set(terms(normalize(part)).content)
            if not content:
                continue
            window, coverage = _best_window(content, set(), doc)
            weak += coverage < EN_WEAK_SUBCLAIM
            weakest = min(weakest, coverage)
            if window is not None:
                union.update(doc.window_terms(window[0], window[1]))
        return weak, weakest, sum(w for t, w in weight.items() if t in union) / total

    def _bound_sentences(self, claim: str, doc: _Doc, window: tuple[int, int]) -> list[str]:
        """The sentences a claim is bound to: its best window, and for English the best window of each of
        its sub-claims (a long English claim gathers facts from several sentences)."""
        chosen = set(range(*window))
        if not has_cjk(claim):
            names = _name_terms(claim)
            for part in subclaims(claim):
                # aligned on the words around its names and numbers: a sentence is not chosen for holding them
                content = set(terms(normalize(part)).content) - names
                if content:
                    found, _ = _best_window(content, set(), doc)
                    if found is not None:
                        chosen.update(range(*found))
        return [doc.sentences[i] for i in sorted(chosen)]

    def align(self, claim: str, doc: _Doc) -> _Alignment:
        ct = terms(normalize(claim))
        content = set(ct.content)
        numbers = _numbers(ct)
        hira = set(ct.hiragana)
        if not doc.sentences:
            return _Alignment("unsupported", doc.source_id, "", "The evidence has no sentences.", 0.0)
        if not content and not numbers:
            return _Alignment("unsupported", doc.source_id, "", "The claim has no content words to match.", 0.0)
        weight = _weights(content, doc)
        total = sum(weight.values()) or 1.0
        window, coverage = _best_window(content, numbers, doc)
        if window is None:
            return _Alignment("unsupported", doc.source_id, "", "No evidence sentence shares a content term.", 0.0)
        start, end = window
        window_terms = doc.window_terms(start, end)
        window_numbers: set[tuple[str, str]] = set().union(*(doc.numbers_at(i) for i in range(start, end)))
        window_hira: set[str] = set().union(*(doc.hiragana_at(i) for i in range(start, end)))
        window_text = " ".join(doc.sentences[start:end])
        quote = window_text[:QUOTE_CHARS]
        missing = content - window_terms
        missing_numbers = numbers - window_numbers
        # the single best sentence inside the window, for the polarity cues
        focus = max(range(start, end), key=lambda i: (len(content & doc.terms_at(i)), -i))
        focus_text = doc.sentences[focus]
        sid = doc.source_id

        # -- contradiction cues (only where the window is about the same thing) ---------------
        if coverage >= 0.5:
            # an English page that states the claim's number elsewhere is not contradicted by another number
            # in the best window (the window may hold another event: "the 76th festival" vs "May 19")
            stated_elsewhere = doc.stated_numbers(missing_numbers) if not has_cjk(claim) else set()
            for value, unit in sorted(missing_numbers - stated_elsewhere):
                clash = sorted(
                    (v, u)
                    for v, u in window_numbers
                    if u == unit and v != value and (value, u) not in window_numbers and (unit or same_kind(v, value))
                )
                if clash and (unit or _coverage_beside_ordinals(content, numbers, window_terms, weight) >= 0.8):
                    v, u = clash[0]
                    return _Alignment(
                        "contradicted",
                        sid,
                        quote,
                        f"The claim says {value}{u}, the evidence says {v}{u}.",
                        coverage,
                    )
            focus_cov = sum(weight[t] for t in content & doc.terms_at(focus)) / total
            # "no lake is deeper than Baikal" says what "Baikal is the deepest lake" says: no negation differs
            claim_neg = claim_negated(claim) and not superlative_restated(claim, window_text)
            if not missing_numbers and claim_neg and coverage >= 0.75 and not negated(window_text):
                return _Alignment(
                    "contradicted",
                    sid,
                    quote,
                    "Negation differs: the claim is negative, the evidence is not.",
                    coverage,
                )
            if (
                focus_cov >= 0.75
                and not missing_numbers
                and not negated(claim)  # a negation the claim quotes is still not the page's alone
                and negated(focus_text)
                and _negation_on_claim(content, focus_text, weight)
            ):
                return _Alignment(
                    "contradicted",
                    sid,
                    focus_text[:QUOTE_CHARS],
                    "Negation differs: only the evidence is negative.",
                    coverage,
                )
            flipped = (
                None
                if superlative_restated(claim, window_text)
                else _flipped_predicate(
                    claim, window_text, content, [doc.terms_at(i) for i in range(start, end)], doc.sentences[start:end]
                )
                if coverage >= 0.7 and not missing_numbers
                else None
            )
            if flipped:
                return _Alignment(
                    "contradicted",
                    sid,
                    quote,
                    f"Negation differs on {flipped!r}: one side says it is, the other that it is not.",
                    coverage,
                )
            hit = _antonym_hit(claim, window_text)
            if hit:
                rest = content - set(terms(hit[0]).content)
                rest_total = sum(weight[t] for t in rest) or 1.0
                rest_cov = sum(weight[t] for t in rest & window_terms) / rest_total
                if rest_cov >= 0.8:
                    return _Alignment(
                        "contradicted",
                        sid,
                        quote,
                        f"The claim says {hit[0]!r} where the evidence says {hit[1]!r}.",
                        coverage,
                    )

        # -- binding: the claim's numbers, dates, names and polarity where the page says it (binding.py) --
        binding = bind_claim(
            claim,
            self._bound_sentences(claim, doc, window),
            "ja" if has_cjk(claim) else "en",
            elsewhere=doc.sentences,
            subject=doc.subject,  # an English page names its subject once, and dates its news once
            dateline=doc.dateline,
        )
        if binding.contradicts:  # the binding weighs the words around each value itself
            return _Alignment("contradicted", sid, quote, binding.reason, coverage)

        # -- support: hard constraints, then the calibrated model ---------------------------------
        n_content = len(content)
        missing_hira = hira - window_hira
        english = not has_cjk(claim)
        related = self._related if english else None
        # a word the page (or, for a profile that reads it, the window) says in other words is used; never a
        # name or a word holding a digit, which bind as they are written
        loose = (
            {t for t in content if not any(ch.isdigit() for ch in t)} - _name_terms(claim)
            if related is not None
            else set()
        )
        if related is not None and related.reads_window:
            missing -= related.near(claim, loose & missing, window_text)
        # every number of the claim must be in the window (Japanese) or somewhere on the page (English,
        # whose claims gather facts from several sentences)
        numbers_found = not doc.absent_numbers(numbers) if english else not missing_numbers
        # a missing word holding a digit is an identifier (W3C, AES-256, RFC 7541): as binding as a number
        identifiers_found = not any(any(ch.isdigit() for ch in t) for t in missing)
        # an English claim's day of a month must be stated as that date, not as a month and a number apart
        claim_dates = calendar_dates(claim, claim=True) if english and numbers else frozenset()
        unstated_dates = {date for date in claim_dates if not doc.states_date(*date)}
        if unstated_dates:
            month, day = min(unstated_dates)
            return _Alignment(
                "unsupported",
                sid,
                quote,
                f"The page does not state the date {MONTH_NAMES[month - 1]} {day}.",
                coverage,
            )
        if numbers_found and identifiers_found and not (claim_negated(claim) and not negated(window_text)):
            # the model was fitted on one-sentence Japanese evidence and on pages in English; on a
            # page of several sentences version 1's close-match rule still decides first
            if (not missing_numbers and _restates(len(missing), len(missing_hira), coverage)) or (
                not missing_numbers
                and len(doc.sentences) > 1
                and _close_match(claim, len(missing), n_content, len(missing_hira), len(hira), coverage)
                and not (english and missing & _name_terms(claim))  # a missing name is an added fact
            ):
                if not binding.states:
                    return _Alignment("unsupported", sid, quote, binding.reason, coverage)
                return _Alignment("supported", sid, quote, "The evidence states the claim's content.", coverage)
            # what only the model reads is measured here, after the rules
            page_terms = {t for t in content if doc.on_page(t)}  # the claim's terms the page uses
            if related is not None:
                page_terms |= related.near(claim, loose - page_terms, doc.page_text)
            weak, weakest, union_coverage = (
                self._subclaim_alignment(claim, doc, weight) if english else (0, 1.0, coverage)
            )
            match = WindowMatch(
                coverage=coverage,
                missing_terms=len(missing),
                content_terms=n_content,
                missing_hiragana=len(missing_hira),
                focus_coverage=sum(weight[t] for t in content & doc.terms_at(focus)) / total,
                subclaim_min_coverage=self._clause_coverage(claim, doc),
                window_sentences=end - start,
                window_text=window_text,
                page_coverage=sum(weight[t] for t in content if t in page_terms) / total,
                subclaims_weak=weak,
                subclaim_union_coverage=union_coverage,
                sentences=len(doc.sentences),
                page_text=doc.page_text,
            )
            # English pages are long and real claims hold several facts: the model is asked only through
            # its gate (lexical_model.json): few content words of the claim missing from its best window,
            # few absent from the whole page and no two in a row, and every sub-claim with its own window
            # (an added detail stays unsupported)
            measures = (
                GateMeasures(
                    missing=len(missing),
                    absent=sum(1 for t in content if t not in page_terms),
                    absent_phrase=_absent_phrase(ct.content, page_terms),
                    weakest_subclaim=weakest,
                )
                if english
                else None
            )
            features = pair_features(claim, match)
            if self._models[language_of(claim)].supports(features, measures) and not binding.states:
                return _Alignment("unsupported", sid, quote, binding.reason, coverage, features, measures)
            if self._models[language_of(claim)].supports(features, measures):
                return _Alignment(
                    "supported",
                    sid,
                    quote,
                    "The evidence states the claim's content (model).",
                    coverage,
                    features,
                    measures,
                )
            return _Alignment(
                "unsupported",
                sid,
                quote,
                _unsupported_reason(missing_numbers, missing, n_content, missing_hira),
                coverage,
                features,
                measures,
            )
        return _Alignment(
            "unsupported", sid, quote, _unsupported_reason(missing_numbers, missing, n_content, missing_hira), coverage
        )


def _unsupported_reason(
    missing_numbers: set[tuple[str, str]], missing: set[str], n_content: int, missing_hira: set[str]
) -> str:
    parts = []
    if missing_numbers:
        parts.append("numbers not found: " + ", ".join(f"{v}{u}" for v, u in sorted(missing_numbers)))
    if missing:
        parts.append(f"{len(missing)} of {n_content} content terms not found")
    if missing_hira:
        parts.append(f"{len(missing_hira)} word(s) not found")
    return "Not enough overlap with the evidence (" + "; ".join(parts or ["low coverage"]) + ")."


_NAME = re.compile(r"(?<=[\s(\"'])[A-Z][A-Za-z]+")


def _name_terms(claim: str) -> set[str]:
    """The content terms of an English claim's capitalized words after its first (names: "OpenAI")."""
    return {t for word in _NAME.findall(claim) for t in terms(normalize(word)).content}


def _absent_phrase(sequence: tuple[str, ...], page_terms: Container[str]) -> bool:
    """Two content words in a row that the page never uses: a detail the page does not state
    ("… in 2013 for its natural beauty"), where one absent word alone is more often a paraphrase."""
    return any(a not in page_terms and b not in page_terms for a, b in itertools.pairwise(sequence))


def _negation_on_claim(content: set[str], sentence: str, weight: dict[str, float]) -> bool:
    """English: the negated clause of the sentence carries at least half of the claim's weight (the
    negation is about the claim, not about an aside: "…, and it never would have happened without …")."""
    if has_cjk(sentence):
        return True
    total = sum(weight.values()) or 1.0
    for part in EN_CLAUSE.split(sentence):
        if negated(part):
            shared = content & set(terms(normalize(part)).content)
            if sum(weight[t] for t in shared) / total >= 0.5:
                return True
    return False


_JA_PREDICATE = re.compile(r"([\u3400-\u9fff々]+)([\u3040-\u309f]*)")
_JA_NEG_TAIL = re.compile(r"ない|なかった|なく|ません|ず")


def _predicates(text: str) -> dict[str, set[bool]]:
    """Kanji stems with the polarity of the hiragana that follows them (反映できません → 反映: negative)."""
    out: dict[str, set[bool]] = defaultdict(set)
    for m in _JA_PREDICATE.finditer(nfkc(text)):
        if m.group(2):
            out[m.group(1)].add(bool(_JA_NEG_TAIL.search(m.group(2))))
    return out


def _flipped_predicate(
    claim: str, window: str, content: set[str], sentence_terms: list[set[str]], sentences: list[str]
) -> str | None:
    """A stem used with one polarity in the claim and only the other in the window (Japanese), or in one
    sentence of the window that shares another content term with the claim (変更できる … 本文は変更しない)."""
    if not has_cjk(claim):
        return None
    ours_all = _predicates(claim)
    theirs = _predicates(window)
    for stem, ours in ours_all.items():
        if len(ours) == 1 and len(theirs.get(stem, ())) == 1 and ours != theirs[stem]:
            return stem
    for sentence, sentence_terms_ in zip(sentences, sentence_terms, strict=True):
        theirs = _predicates(sentence)
        for stem, ours in ours_all.items():
            others = content - set(terms(stem).content)
            if len(ours) == 1 and len(theirs.get(stem, ())) == 1 and ours != theirs[stem] and others & sentence_terms_:
                return stem
    return None


def _coverage_beside_ordinals(
    content: set[str], numbers: set[tuple[str, str]], window_terms: set[str], weight: dict[str, float]
) -> float:
    """The window's coverage of the claim's terms other than the words of its ordinals in digits ("70th" is
    the number 70 and the word "seventieth": against "69th" the word is missing because the number differs)."""
    rest = content - {ordinal_word(int(value)) for value, _ in numbers if value.isdigit()}
    total = sum(weight[t] for t in rest) or 1.0
    return sum(weight[t] for t in rest & window_terms) / total


def _restates(missing_terms: int, missing_hiragana: int, coverage: float) -> bool:
    """Every content term and character of the claim is in the window."""
    return missing_terms == 0 and missing_hiragana == 0 and coverage >= 0.999


def _close_match(claim: str, missing: int, content: int, missing_hira: int, hira: int, coverage: float) -> bool:
    """Version 1's rule: nearly every content term of the claim is in the window (a close restatement)."""
    if has_cjk(claim):
        allowance = 0 if content < 8 else (1 if content < 16 else 2)
    else:
        allowance = 0 if content < 6 else (1 if content < 12 else 2)
    return missing <= allowance and missing_hira <= (1 if hira >= 3 else 0) and coverage >= 0.8


def _weights(content: set[str], doc: _Doc) -> dict[str, float]:
    idf = doc.idf
    missing = [t for t in content if t not in idf]
    if missing:
        doc.ask(set(missing))
        n = max(1, len(doc.sentences))
        for t in missing:
            idf[t] = math.log(1.0 + (n + 1) / (len(doc.postings(t)) + 0.5))
    return {t: idf[t] for t in content}


def _best_window(content: set[str], numbers: set[tuple[str, str]], doc: _Doc) -> tuple[tuple[int, int] | None, float]:
    """The [start, end) window of 1–3 sentences covering most of the claim's weighted terms."""
    key = (frozenset(content), frozenset(numbers))
    found = doc.windows.get(key)
    if found is None:
        found = doc.windows[key] = _find_best_window(content, numbers, doc)
    return found


def _find_best_window(
    content: set[str], numbers: set[tuple[str, str]], doc: _Doc
) -> tuple[tuple[int, int] | None, float]:
    weight = _weights(content, doc)
    total = sum(weight.values()) or 1.0
    scores: dict[int, float] = defaultdict(float)
    # which of the claim's terms each sentence holds, as bits: a window's terms are its sentences' OR
    bit = {t: 1 << j for j, t in enumerate(content)}
    held: dict[int, int] = defaultdict(int)
    for t in content:
        for i in doc.postings(t):
            scores[i] += weight[t]
            held[i] |= bit[t]
    if numbers:
        for i in doc.sentences_with(numbers):
            scores[i] += 0.5 * total / max(1, len(content))
    if not scores:
        return None, 0.0
    anchors = sorted(scores, key=lambda i: (-scores[i], i))[:6]
    coverage_of: dict[int, float] = {}
    best: tuple[int, int] | None = None
    best_key: tuple[float, int, int] = (-1.0, 0, 0)
    for a in anchors:
        for start in range(max(0, a - 2), a + 1):
            for end in range(a + 1, min(len(doc.sentences), start + 3) + 1):
                mask = 0
                for i in range(start, end):
                    mask |= held.get(i, 0)
                cov = coverage_of.get(mask)
                if cov is None:
                    cov = coverage_of[mask] = round(sum(weight[t] for t in content if mask & bit[t]) / total, 6)
                key = (cov, -(end - start), -start)
                if key > best_key:
                    best_key, best = key, (start, end)
    return best, best_key[0]


def _rank(a: _Alignment) -> tuple[int, float]:
    order = {"contradicted": 3, "supported": 2, "unsupported": 1}
    return order.get(a.verdict, 0), a.coverage
