"""The judge's fast paths give the same answers as the plain ones: a sentence's term sets equal those of
`terms`, and an evidence text that tokenizes sentences only when asked indexes a term in exactly the
sentences whose full term sets hold it."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from knowledge_harness.trust.validate.judges.binding import unit_of
from knowledge_harness.trust.validate.judges.lexical import prepare
from knowledge_harness.trust.validate.text import sentence_terms, sentence_texts, split_sentences, terms
from knowledge_harness.trust.validate.validation_models import EvidenceIn
from tests.support.examples import examples

# pieces that exercise the tokenizer's corners: stems (studies/study), irregular verbs (began/begin), light words, hyphens, units after numbers, grouped
# digits, words holding digits, apostrophes and hyphens, full-width forms, Japanese runs and okurigana
PIECES = [
    "studies",
    "study",
    "Studying",
    "made",
    "make",
    "began",
    "happy",
    "sensibility",
    "vying",
    "skies",
    "relating",
    "Begun",
    "begin",
    "led",
    "won",
    "win",
    "again",
    "later",
    "The",
    "it's",
    "-abc",
    "African-American",
    "five-round",
    "co-",
    "-'",
    "x-1",
    "AES-256",
    "3rd",
    "1,999",
    "1999",
    "0.50",
    "20 km",
    "20km",
    "3 years",
    "1.234,5",
    "people",
    "million",
    "Ｆｕｊｉ",
    "１２３",
    "富士山",
    "高い",
    "反映できません",
    "イヌ",
    "3776メートル",
    "二匹",
    "々",
    "café",
    "ﬁle",
    "İstanbul",
    ".",
    ",",
    " ",
    "\n",
    "(",
    "'",
    "Mr.",
    "e.g.",
    "J. Smith",
    "3.14",
    "。",
    "！",
    "?",
    "「",
    "」",
    "\u201c",
    "A.",
    " \r\n",
    # one fact written several ways: ordinals, short year ranges, months, nationalities, British spellings,
    # co-, derived nouns, doubled consonants, terms that say the same
    "9th-grade",
    "15th",
    "fifteenth",
    "2nd",
    "21st",
    "1.2th",
    "2018–19",
    "1990-95",
    "2018-05-05",
    "Nov",
    "November",
    "Sept",
    "Canadians",
    "Canada",
    "French",
    "France",
    "colour",
    "colorful",
    "metres",
    "organised",
    "organization",
    "co-operation",
    "cooperation",
    "co-studies",
    "co-organised",
    "tyres",
    "programmes",
    "13rd",
    "co-colour",
    "appearance",
    "appear",
    "winning",
    "started",
    "death",
    "born",
]
TEXT = st.lists(st.sampled_from(PIECES) | st.text(max_size=6), max_size=24).map("".join)


@given(TEXT)
@settings(max_examples=examples(4), deadline=None)
def test_sentence_terms_are_the_sets_of_terms(text: str) -> None:
    full = terms(text)
    assert sentence_terms(text) == (set(full.content), set(full.numbers), set(full.hiragana))


@given(st.lists(TEXT, min_size=1, max_size=8), st.lists(TEXT, min_size=1, max_size=3))
@settings(max_examples=examples(2), deadline=None)
def test_a_term_is_indexed_in_exactly_the_sentences_that_hold_it(lines: list[str], claims: list[str]) -> None:
    doc = prepare(EvidenceIn(source_id="e", text="\n".join(lines)))
    every = [sentence_terms(n) for n in doc._normalized]
    asked = {t for claim in claims for t in sentence_terms(claim)[0]} | {t for c, _, _ in every for t in c}
    for term in sorted(asked):
        assert doc.postings(term) == [i for i, (content, _, _) in enumerate(every) if term in content]
    numbers = {unit_of(n) for claim in claims for n in terms(claim).numbers} | {
        unit_of(n) for _, ns, _ in every for n in ns
    }
    for number in sorted(numbers):
        holding = [i for i, (_, ns, _) in enumerate(every) if number in {unit_of(n) for n in ns}]
        assert doc.sentences_with({number}) == holding
        assert doc.absent_numbers({number}) == (set() if holding else {number})


@given(st.lists(TEXT, max_size=6).map("\n".join))
@settings(max_examples=examples(4), deadline=None)
def test_sentence_texts_are_the_texts_of_split_sentences(text: str) -> None:
    assert sentence_texts(text) == [span.text for span in split_sentences(text)]
