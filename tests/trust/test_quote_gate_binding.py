"""The quote gate's second half: for a model's `supported`, the found quotes must state the claim's
specifics (judges/binding.py)."""

from __future__ import annotations

import pytest

from knowledge_harness.trust.validate.validation_models import ClaimIn, EvidenceIn, Finding, ValidationRequest
from knowledge_harness.trust.validate.validator import validate

from .test_quote_gate import PAGE_EN, ScriptedJudge, _run


@pytest.mark.parametrize(
    ("claim", "page", "quote"),
    [
        # the example: a real quote that names another river
        (
            "世界で最も長い川はミシシッピ川です。",
            "世界で最も長い川はナイル川です。",
            "世界で最も長い川はナイル川です。",
        ),
        ("The Eiffel Tower was completed in 1887.", PAGE_EN, "The Eiffel Tower was completed in 1889."),
        ("The Eiffel Tower is 330 metres tall.", PAGE_EN, "Its designer's firm was led by Gustave Eiffel"),
    ],
)
def test_a_real_quote_that_does_not_state_the_claim_is_refused(claim: str, page: str, quote: str) -> None:
    request = ValidationRequest(claims=[ClaimIn(id="c1", text=claim)], evidence=[EvidenceIn(source_id="s1", text=page)])
    finding = Finding(claim_id="c1", verdict="supported", source_id="s1", quote=quote)
    result = validate(request, ScriptedJudge([finding]))
    assert result.verdict == "unverifiable"
    got = result.findings[0]
    assert (got.verdict, got.reason_code, got.judged) == ("unsupported", "quote_does_not_state_claim", "supported")
    assert got.quotes and page[got.quotes[0].start : got.quotes[0].end] == got.quotes[0].text  # kept as the proof


def test_quotes_apart_that_together_state_the_claim_pass() -> None:
    claim = "The Eiffel Tower, completed in 1889, is 330 metres tall."
    result = _run(
        "The Eiffel Tower was completed in 1889 \u2026 It is 330 metres tall", claim=claim, judge="openai_compat"
    )
    assert result.verdict == "pass", result.findings[0].reason


def test_the_embedded_judge_is_not_bound_twice() -> None:
    request = ValidationRequest(
        claims=[ClaimIn(id="c1", text="The Eiffel Tower was completed in 1887.")],
        evidence=[EvidenceIn(source_id="s1", text=PAGE_EN)],
    )
    finding = Finding(
        claim_id="c1", verdict="supported", source_id="s1", quote="The Eiffel Tower was completed in 1889."
    )
    assert validate(request, ScriptedJudge([finding], name="lexical")).verdict == "pass"


def test_the_quote_gate_bench_imports() -> None:
    # bench/judge_gate.py measures this gate; it once imported a name the validator no longer has
    import importlib

    assert importlib.import_module("bench.judge_gate").validate is validate


def _gate(claim: str, page: str, quote: str) -> str:
    request = ValidationRequest(claims=[ClaimIn(id="c1", text=claim)], evidence=[EvidenceIn(source_id="s1", text=page)])
    finding = Finding(claim_id="c1", verdict="supported", source_id="s1", quote=quote)
    got = validate(request, ScriptedJudge([finding])).findings[0]
    return got.verdict if got.verdict == "supported" else f"{got.verdict}:{got.reason_code}"


REFUSED = "unsupported:quote_does_not_state_claim"

BAKIR_PAGE = (
    "(meta data) TITLE: Ron Bakir - Wikipedia\n"
    "May 20, 2013\n"
    "Ron Bakir is an Australian businessman.\n"
    "He was named Young Entrepreneur of the Year on Monday.\n"
    "A rival, Tom Hale, was named runner-up in 2012."
)


@pytest.mark.parametrize(
    ("claim", "quote", "expected"),
    [
        # "he" in the quote is the page's subject, named in its title and first sentence; the year is its dateline
        (
            "Bakir was named Young Entrepreneur of the Year in 2013.",
            "He was named Young Entrepreneur of the Year on Monday.",
            "supported",
        ),
        # the quote must still hold the sentence that says it: the subject's name alone is no proof
        ("Bakir was named Young Entrepreneur of the Year in 2013.", "Ron Bakir is an Australian businessman.", REFUSED),
        # another person, another year: "he" is not Hale, and the dateline is not 2012's
        (
            "Hale was named Young Entrepreneur of the Year in 2013.",
            "He was named Young Entrepreneur of the Year",
            REFUSED,
        ),
        (
            "Bakir was named Young Entrepreneur of the Year in 2012.",
            "He was named Young Entrepreneur of the Year",
            REFUSED,
        ),
    ],
)
def test_a_quote_saying_he_stands_for_the_pages_subject_and_its_year_for_the_dateline(
    claim: str, quote: str, expected: str
) -> None:
    got = _gate(claim, BAKIR_PAGE, quote)
    assert got == expected


@pytest.mark.parametrize(
    ("claim", "quote", "expected"),
    [
        # a katakana common word in other words is the reader's paraphrase (バイク / オートバイ, スノボー / スノーボード)
        ("バイクに乗って通行している人がいます。", "オートバイに乗った人が道を走っています。", "supported"),
        ("雪山でスノボーをしている人がいます。", "雪山でスノーボードをしている人がいます。", "supported"),
        # a sibling word, a vehicle or a count is checked: 女性 / 男性, 電車 / バス, 3人 / 2人
        ("海で女性がサーフィンをしています。", "海で男性がサーフィンをしています。", REFUSED),
        ("雪が降った街を電車が走行しています。", "雪の残る街中に路線バスが走っています。", REFUSED),
        ("三人の男性がベンチに座っています。", "二人の男性がベンチに座っています。", REFUSED),
    ],
)
def test_a_japanese_quote_may_paraphrase_common_words_not_values(claim: str, quote: str, expected: str) -> None:
    got = _gate(claim, quote, quote)
    assert got == expected, got


def test_a_quote_naming_the_claims_name_in_another_role_does_not_state_it() -> None:
    page = (
        "Concentra was bought by Dignity Health in 2010.\n"
        "Since its acquisition by Dignity Health, the firm has acquired dozens of urgent care centers.\n"
        "Select Medical announced on Monday that it had signed an agreement to combine Concentra with U.S. HealthWorks."
    )
    claim = "Since its acquisition by Select Medical, the firm has acquired dozens of urgent care centers."
    # the careless reader's quote names Select Medical, as the party to another deal
    assert _gate(claim, page, page.splitlines()[2]) == "unsupported:quote_does_not_state_claim"
    assert _gate(claim.replace("Select Medical", "Dignity Health"), page, page.splitlines()[1]) == "supported"


def test_the_fabricating_stand_in_never_quotes_the_pages_own_sentence() -> None:
    # a claim the page writes word for word is a true quote, not a made-up one: the stand-in adds words
    from bench.judge_gate import answer

    page = "海で男性がサーフィンをしています。空は青い。"
    for claim, on_page in (("海で男性がサーフィンをしています。", True), ("海で女性が泳いでいます。", False)):
        quote = answer("fabricating", {"id": "p", "claim": claim, "lang": "ja"}, page)["quotes"][0]
        assert (quote != claim) == on_page
        assert _gate(claim, page, quote) == "unsupported:quote_not_found"


CHROME = "".join(f"Menu item {n}\n" for n in range(14))  # a site's navigation, before the article's own lines
GAMES_PAGE = (
    "(meta data) TITLE: Olympic news | Example Association\n"
    + CHROME
    + "The association chose its leaders for the coming Games this spring.\n"
    "## Mark England appointed as Chef de Mission\n"
    "25 Oct 2016\n"
    "He was appointed to lead the team at the Rio Games by the board.\n"
    "## Other news\n"
    "She was appointed to lead the swimming team by the board.\n"
)


@pytest.mark.parametrize(
    ("claim", "quote", "expected"),
    [
        # "he" is who the section's heading, right above the quote, names
        (
            "Mark England was appointed to lead the team at the Rio Games.",
            "He was appointed to lead the team at the Rio Games",
            "supported",
        ),
        # the heading names nobody else: another person is not "he"
        (
            "Tom Hale was appointed to lead the team at the Rio Games.",
            "He was appointed to lead the team at the Rio Games",
            REFUSED,
        ),
        # a heading of another section, further up, is not the quote's: "she" is not Mark England
        (
            "Mark England was appointed to lead the swimming team.",
            "She was appointed to lead the swimming team",
            REFUSED,
        ),
        # a date line the reader quotes dates the sentence it quotes with it (the page's chrome hides it from the
        # first lines, where the page's own dateline is looked for)
        (
            "In October 2016, Mark England was appointed to lead the team at the Rio Games.",
            "25 Oct 2016 \u2026 He was appointed to lead the team at the Rio Games",
            "supported",
        ),
        (
            "In October 2016, Mark England was appointed to lead the team at the Rio Games.",
            "He was appointed to lead the team at the Rio Games",
            REFUSED,
        ),
        (
            "In October 2015, Mark England was appointed to lead the team at the Rio Games.",
            "25 Oct 2016 \u2026 He was appointed to lead the team at the Rio Games",
            REFUSED,
        ),
    ],
)
def test_a_quote_carries_its_section_heading_and_a_date_line_it_quotes(claim: str, quote: str, expected: str) -> None:
    assert _gate(claim, GAMES_PAGE, quote) == expected


def test_the_sentence_right_before_a_quote_may_say_who_he_is_not_one_further_up() -> None:
    page = (
        "(meta data) TITLE: Band of brothers: the lives of war photographers\n"
        "On the front lines, photographers take great risks every day.\n"
        "Chris Hondros covered the war in Iraq for many years.\n"
        "The two men met in Liberia.\n"
        "Tim Hetherington had spent years in West Africa.\n"
        "He was killed in Misrata in 2011 while covering the front lines.\n"
    )
    quote = "He was killed in Misrata in 2011 while covering the front lines."
    assert _gate("Tim Hetherington was killed in Misrata in 2011.", page, quote) == "supported"
    assert _gate("Chris Hondros was killed in Misrata in 2011.", page, quote) == REFUSED
    # the name must be said right before: the same quote on a page without that sentence proves nothing of him
    assert (
        _gate("Tim Hetherington was killed in Misrata in 2011.", page.replace("Tim Hetherington had", "He had"), quote)
        == REFUSED
    )


@pytest.mark.parametrize(
    ("claim", "quote", "expected"),
    [
        # a count of one the quote leaves unsaid: Japanese names one horse without a count
        (
            "黒色の一頭の馬が草原で草を食べている。",
            "黒い馬が黄色い花の生えた草原で草を食べているところです。",
            "supported",
        ),
        ("黒色の二頭の馬が草原で草を食べている。", "黒い馬が黄色い花の生えた草原で草を食べているところです。", REFUSED),
        ("黒色の一頭の馬が草原で草を食べている。", "黒い馬が二頭、草原で草を食べています。", REFUSED),
        # a boy is a child (and male): 男児 states 子ども, not 大人 nor 女性
        ("広場で凧を揚げている子どもがいます。", "帽子を被った男児が芝生の上で凧を揚げている。", "supported"),
        ("広場で凧を揚げている大人がいます。", "帽子を被った男児が芝生の上で凧を揚げている。", REFUSED),
        ("広場で凧を揚げている女性がいます。", "帽子を被った男児が芝生の上で凧を揚げている。", REFUSED),
        # 二階建て is 2階建て
        ("赤い2階建てバスが道路に停まっています。", "路肩に、赤い二階建てバスが停まっています。", "supported"),
        ("赤い3階建てバスが道路に停まっています。", "路肩に、赤い二階建てバスが停まっています。", REFUSED),
        # バス inside バスルーム is no bus; ねこ in kana is 猫
        ("洗面所付きの茶色を基調としたバスルームです。", "浴室と洗面所の色が茶色で統一されています。", "supported"),
        ("ノートパソコンの上に、ネコがのっています。", "ノートパソコンのうえにねこがのっています。", "supported"),
        ("ノートパソコンの上に、イヌがのっています。", "ノートパソコンのうえにねこがのっています。", REFUSED),
    ],
)
def test_japanese_counts_of_one_children_floors_and_kana_words_bind_as_they_mean(
    claim: str, quote: str, expected: str
) -> None:
    assert _gate(claim, quote, quote) == expected
