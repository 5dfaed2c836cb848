"""The lexical judge: supports what the evidence states, catches changed numbers, negation and antonyms,
and says unsupported when unsure."""

from __future__ import annotations

import pytest

from knowledge_harness.trust.validate.judges import get_judge, judge_names
from knowledge_harness.trust.validate.judges.lexical import LexicalJudge
from knowledge_harness.trust.validate.main_text import extract_main_text
from knowledge_harness.trust.validate.validation_models import ClaimIn, EvidenceIn
from tests.support.evidence_site import EN_FUJI, JA_FUJI
from tests.support.gated_judge import gate_counts

JA = extract_main_text(JA_FUJI, None)[0]
EN = extract_main_text(EN_FUJI, None)[0]


@pytest.mark.parametrize(
    ("claim", "evidence", "expected"),
    [
        ("富士山の標高は3776メートルである。", JA, "supported"),
        ("富士山は日本で最も高い山である。", JA, "supported"),
        ("最後の噴火は1707年の宝永噴火である。", JA, "supported"),
        ("富士山の標高は3777メートルである。", JA, "contradicted"),
        ("最後の噴火は1708年の宝永噴火である。", JA, "contradicted"),
        ("富士山は日本で最も低い山である。", JA, "contradicted"),
        ("富士山は静岡県と山梨県にまたがる活火山ではない。", JA, "contradicted"),
        ("富士山は2013年に世界自然遺産に登録された。", JA, "unsupported"),
        ("富士山には年間30万人が登る。", JA, "unsupported"),
        ("Mount Fuji is 3,776 metres high.", EN, "supported"),
        ("Mount Fuji is 3,776 m high.", EN, "supported"),
        ("Mount Fuji is the highest mountain in Japan.", EN, "supported"),
        ("The last eruption of Mount Fuji occurred in 1707.", EN, "supported"),
        ("Mount Fuji is 3,876 metres high.", EN, "contradicted"),
        ("Mount Fuji is the lowest mountain in Japan.", EN, "contradicted"),
        ("Mount Fuji is not an active stratovolcano.", EN, "contradicted"),
        ("The last eruption of Mount Fuji occurred in 1807.", EN, "contradicted"),
        ("Mount Fuji was added to the World Heritage List in 2013 for its natural beauty.", EN, "unsupported"),
        ("Tokyo Tower is 333 metres tall.", EN, "unsupported"),
    ],
)
def test_lexical_cases(claim: str, evidence: str, expected: str) -> None:
    assert LexicalJudge().judge_pair(claim, evidence) == expected


def test_findings_quote_the_aligned_evidence() -> None:
    out = LexicalJudge().judge(
        [
            ClaimIn(id="a", text="Mount Fuji is 3,876 metres high."),
            ClaimIn(id="b", text="富士山の標高は3776メートルである。"),
        ],
        [EvidenceIn(source_id="en", url="u1", text=EN), EvidenceIn(source_id="ja", url="u2", text=JA)],
    )
    a, b = out.findings
    assert a.verdict == "contradicted" and a.source_id == "en" and "3,776 metres" in a.quote
    assert b.verdict == "supported" and b.source_id == "ja" and "3776メートル" in b.quote
    assert 0.0 <= out.confidence <= 1.0


def test_source_ids_restrict_the_evidence() -> None:
    out = LexicalJudge().judge(
        [ClaimIn(id="a", text="Mount Fuji is the highest mountain in Japan.", source_ids=["ja"])],
        [EvidenceIn(source_id="en", text=EN), EvidenceIn(source_id="ja", text=JA)],
    )
    assert out.findings[0].verdict == "unsupported"


def test_registry() -> None:
    assert {"lexical", "openai_compat"} <= set(judge_names())
    assert get_judge("lexical").info.name == "lexical"
    with pytest.raises(LookupError):
        get_judge("nope")


@pytest.mark.parametrize(
    ("claim", "evidence", "expected"),
    [
        # caption-style pairs written here in the manner of Japanese NLI data (the real pairs stay out of the repo)
        ("机の上に携帯電話が四つ置かれています。", "机の上に携帯電話が４個置かれています。", "supported"),
        ("一匹のイヌが砂浜を歩いています。", "砂浜を一匹の犬がゆっくりと歩いています。", "supported"),
        ("二人の男性がベンチに座っています。", "公園のベンチに男性が二人座っています。", "supported"),
        ("三匹の犬が砂浜を歩いています。", "砂浜を一匹の犬が歩いています。", "contradicted"),
        ("赤い傘を差した女性が駅の前に立っています。", "女性が駅の前に立っています。", "unsupported"),
        # verb negation against the affirmative, both sides otherwise alike
        (
            "このモデルは最新の情報を学習していないが、検索結果を回答に反映できます。",
            "このモデルは最新の情報を学習していないため、検索結果を回答に反映できません。",
            "contradicted",
        ),
        (
            "このモデルは最新の情報を学習していないため、検索結果を回答に反映できません。",
            "このモデルは最新の情報を学習していないため、検索結果を回答に反映できません。",
            "supported",
        ),
        # the predicate negated in one sentence of a window whose other sentence uses it affirmatively
        (
            "反映処理は本文を変更する。",
            "反映処理が変更できるのはverificationとevidenceのプロパティだけである。本文や参考文献は変更しない。",
            "contradicted",
        ),
        (
            "30日を超えるノートも対象になる。",
            "15日から30日は監視とする。30日を超えるノートは対象外である。",
            "contradicted",
        ),
        (
            "30日を超えるノートは対象外である。",
            "15日から30日は監視とする。30日を超えるノートは対象外である。",
            "supported",
        ),
    ],
)
def test_japanese_caption_pairs_and_predicate_negation(claim: str, evidence: str, expected: str) -> None:
    assert LexicalJudge().judge_pair(claim, evidence) == expected


def test_the_shipped_model_matches_the_features_it_is_fed() -> None:
    from knowledge_harness.trust.validate.judges.lexical_features import FEATURE_NAMES, LANGUAGE_FEATURES
    from knowledge_harness.trust.validate.judges.lexical_model import fitted_models

    models = fitted_models()
    assert set(models) == {"ja", "en"}
    for lang, model in models.items():
        assert [FEATURE_NAMES[c] for c in model.columns] == list(LANGUAGE_FEATURES[lang])
        assert len(model.weights) == len(model.mean) == len(model.scale) == len(model.columns)
        assert model.threshold < float("inf")  # both languages have a fitted model (docs/validator.md)


def test_a_model_file_naming_unknown_features_is_refused() -> None:
    from knowledge_harness.trust.validate.judges.lexical_model import model_from_json

    with pytest.raises(RuntimeError, match="unknown features"):
        model_from_json({"features": ["coverage", "gut_feeling"], "mean": [0, 0], "scale": [1, 1], "weights": [1, 1]})
    with pytest.raises(RuntimeError, match="differ in length"):
        model_from_json({"features": ["coverage"], "mean": [0, 0], "scale": [1], "weights": [1], "bias": 0})


def test_a_note_with_the_negated_claim_fails_even_beside_supported_claims() -> None:
    from knowledge_harness.trust.validate.validation_models import ValidationRequest
    from knowledge_harness.trust.validate.validator import validate

    evidence = "このモデルは最新の情報を学習していないため、検索結果を回答に反映できません。回答は日本語で返されます。"
    request = ValidationRequest(
        claims=[
            ClaimIn(id="a", text="回答は日本語で返されます。"),
            ClaimIn(id="b", text="このモデルは最新の情報を学習していないが、検索結果を回答に反映できます。"),
        ],
        evidence=[EvidenceIn(source_id="e", url="https://example.org/model", text=evidence)],
    )
    result = validate(request, LexicalJudge())
    assert [f.verdict for f in result.findings] == ["supported", "contradicted"]
    assert result.verdict == "fail"  # not warn → reviewed / L2


_CANNES = (
    "The film premiered at the 69th Cannes Film Festival in France.\n"
    "The director was born in Lyon.\n"
    "It opened in French cinemas on 19 May."
)


@pytest.mark.parametrize(
    ("claim", "expected"),
    [
        # 19 May is the day it opened in cinemas, not the day it premiered: a value written elsewhere on the
        # page does not state the claim's (judges/binding.py), and the window's "69th" (a rank) is no rival day
        ("The film premiered at the Cannes Film Festival in France on 19 May.", "unsupported"),
        ("The film premiered at the Cannes Film Festival in France on 21 May.", "contradicted"),
        ("The film premiered at the 70th Cannes Film Festival in France.", "contradicted"),
    ],
)
def test_an_english_number_stated_elsewhere_on_the_page_is_not_contradicted_nor_stated(
    claim: str, expected: str
) -> None:
    assert LexicalJudge().judge_pair(claim, _CANNES) == expected


def test_a_gated_model_never_supports_a_claim_outside_its_gate() -> None:
    from knowledge_harness.trust.validate.judges.lexical_features import FEATURE_NAMES, Gate, GateMeasures
    from knowledge_harness.trust.validate.judges.lexical_model import fitted_models

    english = fitted_models()["en"]
    assert english.gate is not None  # the English model is always gated (docs/validator.md)
    eager = english.__class__(
        english.columns, english.mean, english.scale, english.weights, english.bias, -float("inf"), english.gate
    )
    features = [0.0] * len(FEATURE_NAMES)
    inside = GateMeasures(missing=0, absent=0, absent_phrase=False, weakest_subclaim=1.0)
    assert eager.supports(features, inside)
    assert not eager.supports(features, None)
    gate = Gate(max_missing=1, max_absent=1, absent_phrase_allowed=False, min_subclaim=0.5)
    for outside in (
        GateMeasures(missing=2, absent=0, absent_phrase=False, weakest_subclaim=1.0),
        GateMeasures(missing=0, absent=2, absent_phrase=False, weakest_subclaim=1.0),
        GateMeasures(missing=0, absent=0, absent_phrase=True, weakest_subclaim=1.0),
        GateMeasures(missing=0, absent=0, absent_phrase=False, weakest_subclaim=0.4),
    ):
        assert gate.admits(inside) and not gate.admits(outside)


_CLUB = (
    "The club was founded in Leeds in 1901.\n"
    "In 1998 the club managed to win the national cup in Leeds.\n"
    "Its stadium holds 20,000 people."
)


@pytest.mark.parametrize(
    ("claim", "expected"),
    [
        # an irregular past form meets its verb, a light word ("later") is no fact of its own
        ("In 1998 the club won the national cup in Leeds.", "supported"),
        ("In 1998 the club later won the national cup in Leeds.", "supported"),
        # a name the page does not state is an added fact, never a close match
        ("In 1998 the club won the national cup in Leeds together with Arsenal.", "unsupported"),
        # antonyms meet across forms: "lost" (lose) against "win"
        ("In 1998 the club lost the national cup in Leeds.", "contradicted"),
    ],
)
def test_english_verb_forms_and_light_words(claim: str, expected: str) -> None:
    assert LexicalJudge().judge_pair(claim, _CLUB) == expected


_PLANT = (
    "The Blanda Station is an underground plant in northern Iceland.\n"
    "The plant lies 230 meters under ground and opened on Nov. 10, 1991.\n"
    "Its Canadian owners expect the 2018-2019 season to be its best.\n"
    "The station won its 15th safety award in the winter."
)


@pytest.mark.parametrize(
    ("claim", "expected"),
    [
        # British spelling, an abbreviated month, a nationality against its country, a short year range, an
        # ordinal in words against one in digits: the same fact
        ("The plant lies 230 metres under ground.", "supported"),
        ("The plant opened on November 10, 1991.", "supported"),
        ("Its owners from Canada expect the 2018–19 season to be its best.", "supported"),
        ("The station won its fifteenth safety award.", "supported"),
        # the number still decides: another year, another ordinal
        ("The plant opened on November 10, 1992.", "contradicted"),
        ("The station won its 16th safety award.", "contradicted"),
    ],
)
def test_one_english_fact_written_several_ways(claim: str, expected: str) -> None:
    assert LexicalJudge().judge_pair(claim, _PLANT) == expected


def test_not_only_and_quoted_words_do_not_make_an_english_claim_negative() -> None:
    evidence = "The fossil showed that the climate was warm and that the continents were joined."
    claim = "The fossil showed not only that the climate was warm, but that the continents were joined."
    assert LexicalJudge().judge_pair(claim, evidence) != "contradicted"
    assert LexicalJudge().judge_pair("The fossil did not show that the climate was warm.", evidence) == "contradicted"
    quoted = 'In 2018 he said the plan "has not worked" and he regrets it.'
    page = 'In 2018 he said the plan "has not worked" and he regrets it.\nHe voted for it in 2016.'
    assert LexicalJudge().judge_pair(quoted, page) == "supported"


class _Thesaurus:
    """A RelatedWords that knows a few pairs of words of like meaning, and records what it was asked."""

    reads_window = True  # the window too, as the optional embeddings profile reads

    def __init__(self, pairs: dict[str, str]) -> None:
        self.pairs = pairs
        self.asked: set[str] = set()

    def near(self, claim: str, absent: set[str], text: str) -> set[str]:
        self.asked |= absent
        return {t for t in absent if self.pairs.get(t, "\0") in text}


_CLINIC = "The doctor opened a small clinic in Leeds in 1901.\nIt moved to York in 1950."


def test_related_words_count_a_paraphrased_word_as_used() -> None:
    claim = "The physician opened a small clinic in Leeds in 1901."
    assert gate_counts(claim, _CLINIC, None) == (1, 1)
    assert gate_counts(claim, _CLINIC, _Thesaurus({"physician": "doctor"})) == (0, 0)
    assert gate_counts(claim, _CLINIC, _Thesaurus({"physician": "nurse"})) == (1, 1)


def test_related_words_never_stand_in_for_a_name_or_an_identifier() -> None:
    thesaurus = _Thesaurus({"physician": "doctor", "bradford": "leeds", "w3c": "clinic"})
    # (Bradford where the page says Leeds would be a contradiction: judges/binding.py)
    absent, _ = gate_counts("The physician from Bradford opened a small clinic in Leeds in 1901.", _CLINIC, thesaurus)
    assert absent == 1  # Bradford stays absent; physician is read as doctor
    judge = LexicalJudge(related=thesaurus)
    assert judge.judge_pair("The physician opened a small W3C clinic in Leeds in 1901.", _CLINIC) == "unsupported"
    assert "physician" in thesaurus.asked and not thesaurus.asked & {"bradford", "w3c"}


PREMIERE_PAGE = (
    "The 69th Cannes Film Festival took place from 11 to 22 May 2016.\n"
    "Among the films shown was Loving, directed by Jeff Nichols.\n"
    "The film had its premiere at the festival, where it was in competition for the Palme d'Or.\n"
    "On 19 November the studio announced a wide release."
)


def test_a_claims_day_of_a_month_must_be_stated_as_that_date_not_as_a_month_and_a_number_apart() -> None:
    # May, 19 and 2016 are each on the page, but never as May 19
    out = LexicalJudge().judge(
        [ClaimIn(id="c", text="Loving had its premiere at the Cannes Film Festival on May 19, 2016.")],
        [EvidenceIn(source_id="e", text=PREMIERE_PAGE)],
    )
    assert out.findings[0].verdict == "unsupported"
    assert out.findings[0].reason == "The page does not state the date May 19."


@pytest.mark.parametrize(
    "written", ["19 May 2016", "May 19th, 2016", "19.05.2016", "2016-05-19", "the 19th of May 2016"]
)
def test_a_date_the_page_writes_another_way_is_stated(written: str) -> None:
    page = f"Loving premiered at the Cannes Film Festival on {written}, in competition for the Palme d'Or."
    verdict = LexicalJudge().judge_pair("Loving premiered at the Cannes Film Festival on May 19, 2016.", page)
    assert verdict == "supported"


@pytest.mark.parametrize("written", ["１９.０５.２０１６", "Ｍａｙ　１９, 2016"])
def test_a_date_in_fullwidth_characters_is_read_as_the_rest_of_the_page_is(written: str) -> None:
    # the judge reads a page's numbers after NFKC; the date rule reads the same text
    page = f"Loving premiered at the Cannes Film Festival on {written}, in competition for the Palme d'Or."
    verdict = LexicalJudge().judge_pair("Loving premiered at the Cannes Film Festival on May 19, 2016.", page)
    assert verdict == "supported"
