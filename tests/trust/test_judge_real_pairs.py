"""Real claim/evidence pairs nobody here wrote (JNLI, WiCE excerpts; tests/trust/data/judge_real_pairs.json
names each pair's source and licence) through the validator with the embedded lexical judge: one claim and
one evidence text per pair, as `POST /v1/validate` receives them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from knowledge_harness.trust.validate.judges.lexical import LexicalJudge
from knowledge_harness.trust.validate.validation_models import ClaimIn, EvidenceIn, ValidationRequest
from knowledge_harness.trust.validate.validator import validate

FIXTURE = json.loads((Path(__file__).parent / "data" / "judge_real_pairs.json").read_text(encoding="utf-8"))
PAIRS: list[dict[str, Any]] = FIXTURE["pairs"]


def test_the_fixture_is_a_small_attributed_sample_of_every_outcome() -> None:
    assert len(PAIRS) <= 12
    assert {"jnli", "wice"} <= set(FIXTURE["licences"])
    assert {p["expected"] for p in PAIRS} == {"pass", "fail", "unverifiable"}
    for pair in PAIRS:
        repo = pair["source"].split("@")[0]
        assert repo in {"yahoojapan/JGLUE", "ryokamoi/wice"}
        assert pair["id"].startswith("jnli-" if repo == "yahoojapan/JGLUE" else "wice-")


@pytest.mark.parametrize("pair", PAIRS, ids=[p["id"] for p in PAIRS])
def test_real_pair(pair: dict[str, Any]) -> None:
    request = ValidationRequest(
        claims=[ClaimIn(id="c", text=pair["claim"])],
        evidence=[EvidenceIn(source_id="e", url="https://example.org/e", text=pair["evidence"])],
    )
    result = validate(request, LexicalJudge())
    assert result.verdict == pair["expected"], result.findings[0].reason
    finding = result.findings[0]
    if pair["expected"] != "unverifiable":
        assert finding.quote and finding.source_id == "e"
    # never verified against the data set's answer: a pass is always a supported pair
    if result.verdict == "pass":
        assert pair["label"] == "supported"
    if result.verdict == "fail":
        assert pair["label"] == "contradicted"
