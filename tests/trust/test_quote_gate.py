"""The quote gate: a model's `supported` / `contradicted` stands only on a quote found word for word
in the source it names; found quotes are recorded with their offsets in the snapshot's text.

The judge here is a scripted one (it answers the findings each test gives it), because the unit
under test is the validator's gate, not a model. Finding a quote is the same for every judge; the
tests of that half answer as the embedded judge, whose claims are not bound a second time.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from knowledge_harness.trust.validate.judges.base import JudgeOutput
from knowledge_harness.trust.validate.quotes import SourceText
from knowledge_harness.trust.validate.validation_models import (
    ClaimIn,
    EvidenceIn,
    Finding,
    ValidationRequest,
    ValidationResult,
    ValidatorInfo,
)
from knowledge_harness.trust.validate.validator import validate

PAGE_EN = (
    "History.\n"
    "The Eiffel Tower was completed in 1889.  It is 330\u00a0metres tall.\n"
    "Its designer\u2019s firm was led by Gustave Eiffel \u2014 an engineer.\n"
)
PAGE_JA = "東京タワーは１９５８年に完成した。高さは３３３メートルである。"


@dataclass
class ScriptedJudge:
    """Answers exactly the findings it was given (name: a model judge unless told otherwise)."""

    findings: list[Finding]
    name: str = "openai_compat"

    @property
    def info(self) -> ValidatorInfo:
        return ValidatorInfo(name=self.name, version="1", model="scripted")

    def judge(self, claims: list[ClaimIn], evidence: list[EvidenceIn]) -> JudgeOutput:
        return JudgeOutput(findings=self.findings, confidence=0.9)


def _run(
    quote: str,
    *,
    verdict: str = "supported",
    source: str = "s1",
    claim: str = "The tower was completed in 1889.",
    judge: str = "lexical",
) -> ValidationResult:
    request = ValidationRequest(
        claims=[ClaimIn(id="c1", text=claim)],
        evidence=[
            EvidenceIn(source_id="s1", url="https://example.org/eiffel", text=PAGE_EN),
            EvidenceIn(source_id="s2", url="https://example.org/tokyo", text=PAGE_JA),
        ],
    )
    finding = Finding(claim_id="c1", verdict=verdict, source_id=source, quote=quote)  # type: ignore[arg-type]
    return validate(request, ScriptedJudge([finding], name=judge))


@pytest.mark.parametrize(
    "quote",
    [
        "The Eiffel Tower was completed in 1889.",
        "the eiffel tower was COMPLETED in 1889",  # case
        "The Eiffel  Tower was\ncompleted in 1889.",  # whitespace and a line break
        "Ｔｈｅ Ｅｉｆｆｅｌ Ｔｏｗｅｒ was completed in １８８９.",  # fullwidth (NFKC)
        "\u201cThe Eiffel Tower was completed in 1889.\u201d",  # quotation marks added
        "completed in 1889. It is 330 metres tall",  # crosses a sentence break; NBSP as a space
        "Its designer's firm was led by Gustave Eiffel - an engineer",  # straight apostrophe, hyphen for dash
    ],
)
def test_a_quote_is_found_despite_copying_differences(quote: str) -> None:
    finding = _run(quote).findings[0]
    assert finding.verdict == "supported", finding.reason
    assert finding.reason_code is None and finding.judged == "supported"
    assert len(finding.quotes) == 1


def test_a_found_quote_records_the_snapshots_own_words_at_their_offsets() -> None:
    finding = _run("the eiffel tower was COMPLETED in 1889").findings[0]
    span = finding.quotes[0]
    expected = "The Eiffel Tower was completed in 1889"
    assert (span.source_id, span.start, span.end) == (
        "s1",
        PAGE_EN.index(expected),
        PAGE_EN.index(expected) + len(expected),
    )
    assert span.text == expected == PAGE_EN[span.start : span.end]


def test_offsets_point_into_the_original_text_when_normalization_changes_lengths() -> None:
    finding = _run(
        "tokyo tower: 東京タワーは1958年に完成した", source="s2", claim="東京タワーは1958年に完成した。"
    ).findings[0]
    assert finding.reason_code == "quote_not_found"  # "tokyo tower:" is not on the page
    finding = _run("東京タワーは1958年に完成した", source="s2", claim="東京タワーは1958年に完成した。").findings[0]
    span = finding.quotes[0]
    assert PAGE_JA[span.start : span.end] == "東京タワーは１９５８年に完成した"
    assert (span.start, span.end) == (0, 16)


def test_several_passages_of_one_page_are_each_found() -> None:
    finding = _run("The Eiffel Tower was completed in 1889 \u2026 led by Gustave Eiffel").findings[0]
    assert finding.verdict == "supported"
    assert [q.text for q in finding.quotes] == ["The Eiffel Tower was completed in 1889", "led by Gustave Eiffel"]
    assert finding.quotes[0].end <= finding.quotes[1].start


def test_one_passage_missing_refuses_the_whole_finding() -> None:
    finding = _run("The Eiffel Tower was completed in 1889 \u2026 designed by Leonardo da Vinci").findings[0]
    assert (finding.verdict, finding.reason_code, finding.judged) == ("unsupported", "quote_not_found", "supported")
    assert "Leonardo" in finding.reason and finding.quotes == []


@pytest.mark.parametrize(
    ("quote", "source", "why"),
    [
        ("The Eiffel Tower was finished in 1890.", "s1", "made up"),
        ("東京タワーは１９５８年に完成した", "s1", "from the other source"),
        ("La tour Eiffel a été achevée en 1889.", "s1", "in another language"),
        ("1889", "s1", "too short"),
        ("", "s1", "empty"),
        ("The Eiffel Tower was completed in 1889.", "s9", "names a source that does not exist"),
    ],
)
def test_a_quote_not_in_the_named_source_is_quote_not_found(quote: str, source: str, why: str) -> None:
    result = _run(quote, source=source)
    finding = result.findings[0]
    assert (finding.verdict, finding.reason_code) == ("unsupported", "quote_not_found"), why
    assert result.verdict == "unverifiable"


def test_a_contradicted_finding_keeps_its_quote_the_same_way() -> None:
    found = _run("It is 330 metres tall.", verdict="contradicted", claim="The tower is 300 metres tall.")
    assert found.verdict == "fail" and found.findings[0].quotes[0].text == "It is 330\u00a0metres tall."
    made_up = _run("It is 250 metres tall.", verdict="contradicted", claim="The tower is 300 metres tall.")
    assert made_up.verdict == "unverifiable" and made_up.findings[0].reason_code == "quote_not_found"


def test_a_quote_from_a_source_the_claim_does_not_cite_is_refused() -> None:
    request = ValidationRequest(
        claims=[ClaimIn(id="c1", text="The tower was completed in 1889.", source_ids=["s2"])],
        evidence=[
            EvidenceIn(source_id="s1", text=PAGE_EN),
            EvidenceIn(source_id="s2", text=PAGE_JA),
        ],
    )
    finding = Finding(
        claim_id="c1", verdict="supported", source_id="s1", quote="The Eiffel Tower was completed in 1889."
    )
    result = validate(request, ScriptedJudge([finding]))
    assert result.findings[0].reason_code == "quote_not_found"
    assert "does not cite" in result.findings[0].reason


def test_unsupported_findings_pass_through_untouched() -> None:
    finding = _run("", verdict="unsupported").findings[0]
    assert (finding.verdict, finding.reason_code, finding.judged, finding.quotes) == ("unsupported", None, None, [])


@pytest.mark.parametrize(("page_form", "quote_form"), [("NFD", "NFC"), ("NFC", "NFD")], ids=["page-nfd", "quote-nfd"])
def test_a_quote_matches_a_page_in_the_other_unicode_normal_form(page_form: str, quote_form: str) -> None:
    import unicodedata

    page = "ガイドでは、データベースのバックアップが毎日行われると書かれている。Café Müller opens at nine."
    quote = "データベースのバックアップが毎日行われる"
    source = SourceText(unicodedata.normalize(page_form, page))
    found = source.find(unicodedata.normalize(quote_form, quote))
    assert found is not None
    # the offsets span the page's own characters, combining marks included
    assert unicodedata.normalize("NFC", found.text) == quote
    assert source.text[found.start : found.end] == found.text
    latin = source.find(unicodedata.normalize(quote_form, "Café Müller opens"))
    assert latin is not None and unicodedata.normalize("NFC", latin.text) == "Café Müller opens"
    # a mark is part of its letter: か is not found inside が
    assert source.find(unicodedata.normalize(quote_form, "ハックアッフ")) is None
