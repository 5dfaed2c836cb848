"""The validator: verdict rules, confidence never changes a verdict, and it never touches the vault."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from pydantic import ValidationError

import knowledge_harness.trust.validate.judges as judges_pkg
import knowledge_harness.trust.validate.validator as validator_mod
from knowledge_harness.trust.validate.judges import JudgeFailed
from knowledge_harness.trust.validate.judges.base import JudgeOutput
from knowledge_harness.trust.validate.judges.lexical import LexicalJudge
from knowledge_harness.trust.validate.validation_models import (
    ClaimIn,
    EvidenceIn,
    Finding,
    ValidationRequest,
    ValidatorInfo,
)
from knowledge_harness.trust.validate.validator import validate

EV = "Mount Fuji is 3,776 metres high. It is the highest mountain in Japan. The last eruption was in 1707."


class FixedJudge:
    """A real Judge implementation with scripted answers (exercises the protocol, not a mock of ours)."""

    def __init__(self, verdicts: dict[str, str], confidence: float = 1.0, fail: bool = False) -> None:
        self.verdicts = verdicts
        self.confidence = confidence
        self.fail = fail

    @property
    def info(self) -> ValidatorInfo:
        return ValidatorInfo(name="fixed", version="0")

    def judge(self, claims: list[ClaimIn], evidence: list[EvidenceIn]) -> JudgeOutput:
        if self.fail:
            raise JudgeFailed("down")
        findings = [
            Finding(
                claim_id=c.id,
                verdict=self.verdicts[c.id],
                source_id=evidence[0].source_id,
                quote="Mount Fuji is 3,776 metres high.",
            )  # type: ignore[arg-type]
            for c in claims
            if c.id in self.verdicts
        ]
        return JudgeOutput(findings=findings, confidence=self.confidence)


def _req(n: int = 2, texts: list[str | None] | None = None) -> ValidationRequest:
    evidence = [EvidenceIn(source_id=f"s{i}", url=f"https://e/{i}", text=t) for i, t in enumerate(texts or [EV])]
    return ValidationRequest(
        claims=[ClaimIn(id=f"c{i}", text="Mount Fuji is 3,776 metres high.") for i in range(n)], evidence=evidence
    )


def test_no_evidence_text_at_all_is_unverifiable() -> None:
    req = ValidationRequest(
        claims=[ClaimIn(id="c0", text="x y z")],
        evidence=[EvidenceIn(source_id="s0", url="https://e/0", text=None, fetch_error="http_404")],
    )
    result = validate(req, FixedJudge({"c0": "supported"}))
    assert result.verdict == "unverifiable"
    assert result.findings[0].verdict == "no_evidence" and "http_404" in result.findings[0].reason


@pytest.mark.parametrize(
    ("verdicts", "expected"),
    [
        ({"c0": "supported", "c1": "supported"}, "pass"),
        ({"c0": "supported", "c1": "unsupported"}, "warn"),
        ({"c0": "supported", "c1": "contradicted"}, "fail"),
        ({"c0": "unsupported", "c1": "contradicted"}, "fail"),
        ({"c0": "supported"}, "warn"),  # the judge skipped c1
        ({"c0": "unsupported", "c1": "unsupported"}, "unverifiable"),  # evidence that backs nothing
        ({}, "unverifiable"),  # the judge skipped every claim
    ],
)
def test_verdict_rules(verdicts: dict[str, str], expected: str) -> None:
    result = validate(_req(), FixedJudge(verdicts))
    assert result.verdict == expected
    assert [f.claim_id for f in result.findings] == ["c0", "c1"]


@pytest.mark.parametrize("confidence", [0.0, 0.01, 0.5, 1.0])
def test_confidence_never_changes_the_verdict(confidence: float) -> None:
    result = validate(_req(), FixedJudge({"c0": "supported", "c1": "unsupported"}, confidence=confidence))
    assert result.verdict == "warn" and result.confidence == confidence


def test_judge_failure_is_unverifiable() -> None:
    result = validate(_req(), FixedJudge({}, fail=True))
    assert result.verdict == "unverifiable"
    assert all(f.verdict == "unsupported" for f in result.findings)


def test_claim_whose_sources_failed_is_no_evidence() -> None:
    req = ValidationRequest(
        claims=[ClaimIn(id="c0", text="a", source_ids=["s1"]), ClaimIn(id="c1", text="b", source_ids=["s0"])],
        evidence=[EvidenceIn(source_id="s0", text=EV), EvidenceIn(source_id="s1", text=None, fetch_error="timeout")],
    )
    result = validate(req, FixedJudge({"c0": "supported", "c1": "supported"}))
    assert [f.verdict for f in result.findings] == ["no_evidence", "supported"]
    assert result.verdict == "warn" and result.score == 0.5


def test_lexical_end_to_end() -> None:
    req = ValidationRequest(
        claims=[
            ClaimIn(id="a", text="Mount Fuji is 3,776 metres high."),
            ClaimIn(id="b", text="The last eruption was in 1807."),
        ],
        evidence=[EvidenceIn(source_id="s", url="https://e", text=EV)],
    )
    result = validate(req, LexicalJudge())
    assert result.verdict == "fail"
    assert [f.verdict for f in result.findings] == ["supported", "contradicted"]
    assert result.validator.name == "lexical"


def test_request_limits() -> None:
    with pytest.raises(ValidationError):
        ValidationRequest(claims=[ClaimIn(id=str(i), text="x") for i in range(10_000)], evidence=[])
    with pytest.raises(ValidationError):
        ValidationRequest(claims=[], evidence=[])
    with pytest.raises(ValidationError):
        ValidationRequest(claims=[ClaimIn(id="a", text="x"), ClaimIn(id="a", text="y")])
    with pytest.raises(ValidationError):
        EvidenceIn(source_id="s", text="x" * 1_000_001)


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            names.add("." * node.level + (node.module or ""))
    return names


def test_validator_and_judges_import_nothing_from_vault_and_write_nothing() -> None:
    files = [Path(validator_mod.__file__), *Path(judges_pkg.__file__).parent.glob("*.py")]
    for path in files:
        source = path.read_text(encoding="utf-8")
        for name in _imports(path):
            assert "vault" not in name, f"{path.name} imports {name}"
        for forbidden in ("open(", "write_text", "write_bytes", "os.replace", "mkdir"):
            assert forbidden not in source, f"{path.name} uses {forbidden}"
    # the modules they import are pure too
    for name in ("validation_models.py", "text.py"):
        for imported in _imports(Path(validator_mod.__file__).with_name(name)):
            assert "vault" not in imported
