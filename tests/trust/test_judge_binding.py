"""A claim is supported only where the page says it: each number, date, name and sibling word of the claim
in the sentence that holds the words around it, with the same polarity (judges/binding.py). The design's
examples are pinned here as contradicted, through the binding, the judge and the validator."""

from __future__ import annotations

import pytest

from knowledge_harness.trust.judges.binding import Binding, bind_claim
from knowledge_harness.trust.judges.lexical import LexicalJudge
from knowledge_harness.trust.validation_models import ClaimIn, EvidenceIn, ValidationRequest
from knowledge_harness.trust.validator import validate

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
    from knowledge_harness.trust.text import sentence_texts

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


def test_a_value_the_page_writes_elsewhere_counts_only_when_its_sentence_names_no_other() -> None:
    claim = "The film premiered at the Cannes Film Festival on 19 May."
    page = "The film premiered at the Cannes Film Festival on 21 May.\nIt opened in cinemas on 19 May."
    # the sentence that says where it premiered writes another day in that place
    found = bind_claim(claim, ["The film premiered at the Cannes Film Festival on 21 May."], page=page)
    assert found.contradicts and "19" in found.reason and "21" in found.reason
    # a page that names its subject once, then says "he"
    page = "Ron Bakir is a businessman.\nHe was named Young Entrepreneur of the Year in 2013."
    found = bind_claim("Bakir was named Young Entrepreneur of the Year in 2013.", [page.splitlines()[1]], page=page)
    assert found.states
    assert not bind_claim("Bakir was named Young Entrepreneur of the Year in 2013.", [page.splitlines()[1]]).states


def test_a_number_the_page_writes_after_many_commas_is_found_on_the_page() -> None:
    # the page is read without its commas (12,000 as 12000): the text around a number found there is
    # read from the same text, not from the page with its commas at offsets shifted by them
    claim = "The river that flows through the city is 346 km long."
    page = "Rivers, " * 40 + "\nThe Thames is 346 km long.\nThe river flows through the city."
    found = bind_claim(claim, ["The river flows through the city."], page=page)
    assert found.states, found.reason
