"""`self_judged`: a note judged by its own generator is flagged; `[judge] independent = "required"`
refuses that judge's support, so the note never passes on its own word."""

from __future__ import annotations

import pytest

from knowledge_harness.errors import InputError
from knowledge_harness.trust.policy import parse_policy
from knowledge_harness.trust.validate.validation_models import Finding, ValidationResult, ValidatorInfo
from knowledge_harness.trust.validate.validation_service import is_self_judged, validator_label
from knowledge_harness.trust.validate.validator import mark_self_judged

CLAUDE_CODE = ValidatorInfo(name="agent", version="1", client="claude-code", client_version="2.1.0")
CODEX = ValidatorInfo(name="agent", version="1", client="codex-mcp-client", client_version="0.9")
GPT = ValidatorInfo(name="openai_compat", version="2", model="gpt-4o")
LEXICAL = ValidatorInfo(name="lexical", version="8")


@pytest.mark.parametrize(
    ("info", "generator", "expected"),
    [
        (CLAUDE_CODE, "claude", True),
        (CLAUDE_CODE, "Claude", True),
        (CLAUDE_CODE, "codex", False),
        (CODEX, "codex", True),
        (GPT, "gpt-4o", True),
        (GPT, "claude", False),
        (LEXICAL, "lexical", False),  # the embedded judge is nobody's generator
        (CLAUDE_CODE, None, False),
        (CLAUDE_CODE, "", False),
    ],
)
def test_the_judge_is_self_when_it_is_the_notes_generator(
    info: ValidatorInfo, generator: str | None, expected: bool
) -> None:
    provenance = {"origin": "ai_generated", "generator": generator} if generator is not None else None
    assert is_self_judged(info, provenance) is expected


def test_the_judge_is_named_on_the_record() -> None:
    assert validator_label(CLAUDE_CODE) == "agent:claude-code 2.1.0"
    assert validator_label(GPT) == "openai_compat:gpt-4o"
    assert validator_label(LEXICAL) == "lexical-8"
    assert validator_label(ValidatorInfo(name="agent", version="1")) == "agent:unknown client"


def _result() -> ValidationResult:
    findings = [
        Finding(claim_id="c1", verdict="supported", source_id="s1", quote="x", judged="supported"),
        Finding(claim_id="c2", verdict="unsupported"),
    ]
    return ValidationResult(verdict="warn", score=0.5, confidence=0.9, findings=findings, validator=CLAUDE_CODE)


def test_flag_marks_every_finding_and_keeps_the_verdict() -> None:
    flagged = mark_self_judged(_result(), refuse=False)
    assert flagged.verdict == "warn" and flagged.score == 0.5
    assert [f.self_judged for f in flagged.findings] == [True, True]


def test_required_refuses_the_self_judges_support() -> None:
    refused = mark_self_judged(_result(), refuse=True)
    assert refused.verdict == "unverifiable" and refused.score == 0.0
    first = refused.findings[0]
    assert (first.verdict, first.reason_code, first.judged, first.self_judged) == (
        "unsupported",
        "self_judged",
        "supported",
        True,
    )


def test_the_policy_says_flag_or_required() -> None:
    assert parse_policy({}).judge.independent == "flag"
    assert parse_policy({"judge": {"independent": "required", "wait_seconds": 120}}).judge.independent == "required"
    with pytest.raises(InputError, match=r"judge\.independent"):
        parse_policy({"judge": {"independent": "sometimes"}})
