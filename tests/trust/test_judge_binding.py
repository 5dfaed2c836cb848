"""A claim is supported only where the page says it: each number, date, name and sibling word of the claim
in the sentence that holds the words around it, with the same polarity (judges/binding.py). The design's
examples are pinned here as contradicted, through the binding, the judge and the validator."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from knowledge_harness.trust.validate.judges.binding import (
    QUOTED,
    Binding,
    bind_claim,
    claim_negated,
    page_dateline,
    page_subject,
    superlative_restated,
)
from knowledge_harness.trust.validate.judges.lexical import LexicalJudge
from knowledge_harness.trust.validate.validation_models import ClaimIn, EvidenceIn, ValidationRequest
from knowledge_harness.trust.validate.validator import validate

RIVERS_JA = "世界で最も長い川はナイル川です。ミシシッピ川は北アメリカを流れています。"
RIVERS_EN = "The longest river in the world is the Nile. The Mississippi flows through North America."
COSINE_JA = "検索ではBM25を使います。コサイン類似度は使いません。"
COSINE_EN = "Search uses BM25. Cosine similarity is not used."

# (claim, evidence, the values the reason must name)
CONTRADICTED = [
    ("世界で最も長い川はミシシッピ川です。", RIVERS_JA, ("ミシシッピ", "ナイル")),
    ("The longest river in the world is the Mississippi.", RIVERS_EN, ("Mississippi", "Nile")),
    ("コサイン類似度などで測ります。", COSINE_JA, ("測ります", "使いません")),
    ("Cosine similarity is used.", COSINE_EN, ("not used",)),
    ("海で女性がサーフィンをしています。", "海で男性がサーフィンをしています。", ("女性", "男性")),
    ("二人の男性がベンチに座っています。", "三人の男性がベンチに座っている。", ("2人", "3人")),
    ("男性がベンチに座っています。", "男性がベンチの横に立っています。", ("座っ", "立っ")),
    ("The band released 3 albums in 2004.", "In 2004 the band released 5 albums. It had 3 members.", ("3", "5")),
    ("Smith was elected mayor of the town in 1998.", "Smith was elected mayor of the town in 2002.", ("1998", "2002")),
]


def _sentences(text: str) -> list[str]:
    from knowledge_harness.trust.validate.text import sentence_texts

    return sentence_texts(text)


@pytest.mark.parametrize(("claim", "evidence", "named"), CONTRADICTED)
def test_a_different_value_in_the_claims_place_or_one_sided_negation_is_contradicted(
    claim: str, evidence: str, named: tuple[str, ...]
) -> None:
    found = bind_claim(claim, _sentences(evidence))
    assert found.contradicts and not found.states
    assert all(value in found.reason for value in named), found.reason
    assert LexicalJudge().judge_pair(claim, evidence) == "contradicted"


@pytest.mark.parametrize(("claim", "evidence", "named"), CONTRADICTED)
def test_the_design_examples_fail_through_the_validator(claim: str, evidence: str, named: tuple[str, ...]) -> None:
    request = ValidationRequest(
        claims=[ClaimIn(id="c", text=claim)],
        evidence=[EvidenceIn(source_id="e", url="https://example.org", text=evidence)],
    )
    result = validate(request, LexicalJudge())
    assert result.verdict == "fail"
    assert result.findings[0].verdict == "contradicted"


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("世界で最も長い川はナイル川です。", RIVERS_JA),
        ("ミシシッピ川は北アメリカを流れています。", RIVERS_JA),
        ("The longest river in the world is the Nile.", RIVERS_EN),
        ("The Mississippi flows through North America.", RIVERS_EN),
        ("コサイン類似度は使いません。", COSINE_JA),
        ("Cosine similarity is not used.", COSINE_EN),
        ("海で男性がサーフィンをしています。", "海で男性がサーフィンをしています。"),
        ("2人の男性がベンチに座っています。", "二人の男性がベンチに座っています。"),
        # the subject said once, the number in the sentence that continues it
        ("富士山の標高は3776メートルである。", "富士山は活火山である。標高は3776メートルで、日本で最も高い山である。"),
    ],
)
def test_the_true_forms_are_stated(claim: str, evidence: str) -> None:
    found = bind_claim(claim, _sentences(evidence))
    assert found == Binding(True, False, found.reason)
    assert LexicalJudge().judge_pair(claim, evidence) == "supported"


def test_a_value_stated_in_another_sentence_about_something_else_is_not_stated() -> None:
    # 19 May is on the page, as the day it opened in cinemas, not as the day it premiered
    page = "The film premiered at the Cannes Film Festival in France.\nIt opened in French cinemas on 19 May."
    found = bind_claim("The film premiered at the Cannes Film Festival on 19 May.", _sentences(page))
    assert not found.states and not found.contradicts
    assert "19" in found.reason


def test_no_sentences_state_nothing() -> None:
    assert bind_claim("The Nile is long.", []) == Binding(False, False, "No evidence sentence to bind the claim to.")
    assert not bind_claim("The Nile is long.", ["", "  "]).states


def test_a_value_written_elsewhere_on_the_page_does_not_count_without_its_role() -> None:
    # 3 and 2004 are both on the page, but not in the sentence that says what was released
    page = "The band was formed in 1998 by 3 friends.\nIn 2004 the band released 5 albums."
    found = bind_claim("The band released 3 albums in 2004.", [page.splitlines()[1]], elsewhere=page.splitlines())
    assert found.contradicts and "3" in found.reason and "5" in found.reason
    # "in cinemas on 19 May" is another event than the premiere
    page = "The film premiered at the Cannes Film Festival on 21 May.\nIt opened in cinemas on 19 May."
    found = bind_claim(
        "The film premiered at the Cannes Film Festival on 19 May.", [page.splitlines()[0]], elsewhere=page.splitlines()
    )
    assert found.contradicts and "19" in found.reason and "21" in found.reason


def test_a_contradiction_yields_to_a_sentence_of_the_page_that_states_the_claim() -> None:
    page = "Marie Curie won the Nobel Prize in Physics in 1903. She won the Nobel Prize in Chemistry in 1911."
    claim = "Marie Curie won the Nobel Prize in Chemistry in 1911."
    aligned = _sentences(page)[:1]  # the sentence most like the claim holds the other prize and year
    assert bind_claim(claim, aligned).contradicts
    found = bind_claim(claim, aligned, elsewhere=_sentences(page), subject=page_subject(_sentences(page)))
    assert found.states and not found.contradicts, found.reason
    assert LexicalJudge().judge_pair(claim, page) == "supported"
    # the other prize's year is still the other prize's: each fact is bound with its fellows
    assert not bind_claim("Marie Curie won the Nobel Prize in Chemistry in 1903.", _sentences(page)).states
    assert LexicalJudge().judge_pair("Marie Curie won the Nobel Prize in Chemistry in 1903.", page) != "supported"


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("No lake on Earth is deeper than Lake Baikal.", "Lake Baikal is the deepest lake on Earth."),
        ("日本に富士山より高い山はない。", "富士山は日本で最も高い山である。"),
    ],
)
def test_a_negative_comparative_restating_a_superlative_is_not_contradicted(claim: str, evidence: str) -> None:
    assert not bind_claim(claim, _sentences(evidence)).contradicts
    assert LexicalJudge().judge_pair(claim, evidence) != "contradicted"
    # the superlative denied is still a contradiction
    denied = evidence.replace("is the deepest", "is not the deepest").replace("である", "ではない")
    assert LexicalJudge().judge_pair(claim, denied) != "supported"
    found = bind_claim(claim, _sentences(denied))
    assert found.contradicts and found.reason.startswith("The evidence denies what the claim says")


def test_thousands_of_yori_with_no_none_word_are_read_in_one_pass() -> None:
    # each より used to scan to its clause's end for ない (quadratic: seconds at this size); now the first
    claim = "富士山より" * 20_000 + "高い山がある。"
    assert not superlative_restated(claim, "富士山は日本で最も高い山である。")
    assert superlative_restated(claim + "日本に富士山より高い山はない。", "富士山は日本で最も高い山である。")


def test_the_pages_subject_may_be_said_as_he_or_the_album_in_the_sentence_holding_its_role() -> None:
    page = "Ron Bakir is a businessman.\nHe was named Young Entrepreneur of the Year in 2013."
    lines = page.splitlines()
    claim = "Bakir was named Young Entrepreneur of the Year in 2013."
    assert bind_claim(claim, lines[1:], subject=page_subject(lines)).states
    assert not bind_claim(claim, lines[1:]).states  # without the page's subject, "he" is nobody
    # another person's name is not the subject's: "he" does not stand for it
    assert not bind_claim(
        "Smith was named Young Entrepreneur of the Year in 2013.", lines[1:], subject=page_subject(lines)
    ).states
    # a sentence with no "he"/"it" does not borrow the subject's name
    page = "Ron Bakir is a businessman.\nA local man was named Young Entrepreneur of the Year in 2013."
    lines = page.splitlines()
    assert not bind_claim(claim, lines[1:], subject=page_subject(lines)).states


def test_a_year_of_the_claim_may_be_the_pages_dateline_when_its_sentence_writes_no_other_year() -> None:
    lines = [
        "(meta data) TITLE: Jackalopes hire Todd Watson as new Head Coach",
        "May 20, 2019",
        "The Odessa Jackalopes announced on Monday that they have hired Todd Watson as head coach.",
        "The team was founded in 1997 in Odessa.",
    ]
    assert page_dateline(lines) == "May 20, 2019"
    claim = "The Odessa Jackalopes hired Todd Watson as head coach in 2019."
    assert bind_claim(claim, lines[2:3], dateline=page_dateline(lines)).states
    assert not bind_claim(claim, lines[2:3]).states
    # another year in the sentence is what that sentence dates: the dateline does not override it
    other = ["The Odessa Jackalopes announced in 2015 that they have hired Todd Watson as head coach."]
    assert not bind_claim(claim, other, dateline=page_dateline(lines)).states
    # a year that is not the dateline's is not stated by it
    assert not bind_claim(claim.replace("2019", "2020"), lines[2:3], dateline=page_dateline(lines)).states


def test_a_footer_is_no_dateline_even_among_a_short_pages_first_lines() -> None:
    body = "The Odessa Jackalopes announced on Monday that they have hired Todd Watson as head coach."
    assert page_dateline(["Jackalopes hire a coach", "May 20, 2019", body]) == "May 20, 2019"
    # a date line after the text, closing a page of a few lines: when the page was last touched, not published
    assert page_dateline(["Jackalopes hire a coach", body, "May 20, 2019"]) == ""
    for footer in (
        "© 2019 Odessa Media",
        "Copyright May 20, 2019",
        "Last edited May 20, 2019",
        "Retrieved May 20, 2019",
    ):
        assert page_dateline(["Jackalopes hire a coach", footer, body, "Contact us"]) == "", footer
    claim = "The Odessa Jackalopes hired Todd Watson as head coach in 2019."
    short = ["Jackalopes hire a coach", body, "May 20, 2019"]
    assert not bind_claim(claim, [body], dateline=page_dateline(short)).states


def test_a_number_in_brackets_is_bound_like_the_claims_other_numbers() -> None:
    page = ["Merry Company on a Terrace (c. 1616–17) by Willem Buytewech has entered the Mauritshuis."]
    assert bind_claim('"Merry Company on a Terrace" (1616) is in the Mauritshuis.', page).states
    found = bind_claim('"Merry Company on a Terrace" (1520) is in the Mauritshuis.', page)
    assert not found.states and "1520" in found.reason


def _unquoted_reference(text: str) -> str:
    """QUOTED.sub(" ", text) by its definition, scanned left to right: a straight-quoted span, or a curly one
    holding no other opening curly quote, each replaced by a space."""
    out, i = [], 0
    while i < len(text):
        ch = text[i]
        if ch == '"' and (j := text.find('"', i + 1)) != -1:
            out.append(" ")
            i = j + 1
            continue
        if ch == "\u201c":
            ends = [k for k in (text.find("\u201c", i + 1), text.find("\u201d", i + 1)) if k != -1]
            if ends and text[min(ends)] == "\u201d":
                out.append(" ")
                i = min(ends) + 1
                continue
        out.append(ch)
        i += 1
    return "".join(out)


@given(st.text(alphabet='ab "\u201c\u201d', max_size=60))
def test_quoted_spans_are_the_ones_a_left_to_right_scan_finds(text: str) -> None:
    assert QUOTED.sub(" ", text) == _unquoted_reference(text)


def test_thousands_of_unclosed_curly_quotes_are_read_in_one_pass() -> None:
    # each “ used to scan to the text's end for its ” (quadratic: seconds at this size); now to the next “
    text = "It was \u201c" * 30_000 + " not used."
    assert QUOTED.sub(" ", text) == text
    assert claim_negated(text)
    # a negation inside a closed quote is someone's words, however many unclosed quotes follow
    assert not claim_negated("He said \u201cit is not used\u201d. " + "\u201c" * 30_000)


def test_a_number_written_as_an_identifiers_label_is_not_a_claims_count_or_year() -> None:
    page = ["Michelle Collins began her daily show on SiriusXM's Stars (Ch. 109) in 2018."]
    assert bind_claim("In 2018 Michelle Collins began her daily show on SiriusXM.", page).states
    found = bind_claim("In 109 Michelle Collins began her daily show on SiriusXM.", page)
    assert not found.states and "109" in found.reason
    # the claim that names the channel by its label states it
    assert bind_claim("Michelle Collins began her daily show on SiriusXM channel 109 in 2018.", page).states


def test_a_last_edited_footer_is_no_dateline_of_the_page() -> None:
    lines = [
        "The Odessa Jackalopes announced on Monday that they have hired Todd Watson as head coach.",
        "The team was founded in 1997 in Odessa.",
        "Watson coached in Texas for years before this.",
        *[f"Paragraph {n} of the story says nothing about dates." for n in range(12)],
        "Last edited 3 March 2024.",
        "Retrieved March 3, 2024",
    ]
    assert page_dateline(lines) == ""
    claim = "The Odessa Jackalopes hired Todd Watson as head coach in 2024."
    assert not bind_claim(claim, lines[:1], dateline=page_dateline(lines)).states
    # the same date at the top of the page is its dateline
    assert page_dateline(["March 3, 2024", *lines[:3]]) == "March 3, 2024"


LABEL_PAGE = [
    "Verve Records is once again home to historic imprints including Verve Forecast, Impulse! and Decca Records.",
    "Decca Broadway has won the most awards of any label for Best Show Album.",
]


def test_a_name_of_several_words_in_a_short_clause_is_stated_only_where_each_of_its_words_is() -> None:
    true = (
        "The label is home to historic imprints including Verve Forecast Records, Impulse! Records and Decca Records."
    )
    assert bind_claim(true, LABEL_PAGE[:1], elsewhere=LABEL_PAGE).states
    # an award's name the page writes in another sentence is not an imprint: "Records" is not written there
    for edited in (true.replace("Impulse!", "Best Show Album!"), true.replace("Impulse!", "Best Show Album")):
        binding = bind_claim(edited, LABEL_PAGE[:1], elsewhere=LABEL_PAGE)
        assert not binding.states
        assert "Best" in binding.reason


def test_a_family_name_the_pages_subject_carries_may_be_left_out_of_a_whole_name() -> None:
    lines = ["Lady Amelia Windsor is a British model.", "Lady Amelia has two siblings, Edward, and Lady Marina."]
    claim = "Lady Amelia is the sister of Edward and Lady Marina Windsor."
    assert bind_claim(claim, lines[1:], subject=page_subject(lines)).states
    assert not bind_claim(claim, lines[1:]).states  # the page names no Windsor family
    assert not bind_claim(claim.replace("Marina", "Louise"), lines[1:], subject=page_subject(lines)).states


def test_a_claim_running_over_several_lines_is_not_one_claim_and_is_never_stated() -> None:
    page = [
        "# Jackalopes hire Todd Watson as new Head Coach",
        "May 20, 2019",
        "The Odessa Jackalopes have hired Todd Watson to be the program's head coach.",
    ]
    one_line = "Todd Watson is the head coach of the Odessa Jackalopes."
    assert bind_claim(one_line, page[2:], elsewhere=page).states
    # a heading line pasted into a sentence: each word is on the page, the claim is not
    pasted = "Todd Watson is the head coach of the Head Coach\nMay in the Odessa Jackalopes."
    binding = bind_claim(pasted, page[2:], elsewhere=page)
    assert binding == (False, False, binding.reason)
    assert "2 lines" in binding.reason
    # even a true sentence wrapped over two lines: the caller gives each line, or joins them
    assert not bind_claim("Todd Watson is the head coach\nof the Odessa Jackalopes.", page[2:]).states
    assert bind_claim("Todd Watson is the head coach of the Odessa Jackalopes.\n", page[2:]).states
    finding = (
        LexicalJudge()
        .judge([ClaimIn(id="c", text=pasted)], [EvidenceIn(source_id="e", text="\n".join(page))])
        .findings[0]
    )
    assert finding.verdict == "unsupported"
