"""The openai_compat judge against a local OpenAI-compatible STAND-IN (tests/support/llm_standin.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from knowledge_harness.trust.validate.judges import JudgeFailed, get_judge
from knowledge_harness.trust.validate.judges.openai_compat import OpenAICompatJudge, load_prompt
from knowledge_harness.trust.validate.validation_models import ClaimIn, EvidenceIn, ValidationRequest
from knowledge_harness.trust.validate.validator import validate
from tests.support.llm_standin import LLMStandIn

EVIDENCE = "Mount Fuji is 3,776 metres high. It is the highest mountain in Japan."


@pytest.fixture(scope="module")
def standin() -> Iterator[LLMStandIn]:
    running = LLMStandIn(slow_seconds=3).start()
    try:
        yield running
    finally:
        running.stop()


def _request() -> ValidationRequest:
    return ValidationRequest(
        claims=[ClaimIn(id="c1", text="Mount Fuji is 3,776 m high."), ClaimIn(id="c2", text="It is in Japan.")],
        evidence=[EvidenceIn(source_id="s1", url="https://example.org/fuji", text=EVIDENCE)],
    )


def _judge(standin: LLMStandIn, model: str, timeout: float = 1.0) -> OpenAICompatJudge:
    return OpenAICompatJudge(base_url=standin.base_url, model=model, timeout_seconds=timeout)


def test_valid_json_passes_with_model_id(standin: LLMStandIn) -> None:
    result = validate(_request(), _judge(standin, "valid"))
    assert result.verdict == "pass"
    assert [f.verdict for f in result.findings] == ["supported", "supported"]
    assert result.validator.model == "valid" and result.validator.name == "openai_compat"
    sent = standin.requests[-1]["body"]
    assert sent["response_format"]["type"] == "json_schema"
    assert sent["messages"][0]["content"] == load_prompt()


def test_contradiction_fails(standin: LLMStandIn) -> None:
    assert validate(_request(), _judge(standin, "contradict")).verdict == "fail"


def test_fenced_json_is_accepted(standin: LLMStandIn) -> None:
    assert validate(_request(), _judge(standin, "fenced")).verdict == "pass"


def test_fabricated_quote_is_not_support(standin: LLMStandIn) -> None:
    result = validate(_request(), _judge(standin, "fabricated"))
    assert result.verdict == "unverifiable"  # nothing supported: never reviewed/L2
    assert all(f.verdict == "unsupported" for f in result.findings)


def test_invalid_output_is_retried_once(standin: LLMStandIn) -> None:
    result = validate(_request(), _judge(standin, "invalid-once"))
    assert result.verdict == "pass"
    assert standin.calls["invalid-once"] == 2


@pytest.mark.parametrize("model", ["invalid-json", "wrong-shape", "http500", "slow"])
def test_model_failures_are_unverifiable_never_pass(standin: LLMStandIn, model: str) -> None:
    result = validate(_request(), _judge(standin, model))
    assert result.verdict == "unverifiable"
    assert all(f.verdict != "supported" for f in result.findings)
    assert "judge failed" in result.findings[0].reason


def test_invalid_json_is_asked_twice_then_given_up(standin: LLMStandIn) -> None:
    before = standin.calls.get("wrong-shape", 0)
    with pytest.raises(JudgeFailed):
        _judge(standin, "wrong-shape").judge(_request().claims, _request().evidence)
    assert standin.calls["wrong-shape"] - before == 2


def test_server_without_json_schema_gets_instructions_only(standin: LLMStandIn) -> None:
    assert validate(_request(), _judge(standin, "no-schema")).verdict == "pass"
    assert "response_format" not in standin.requests[-1]["body"]


def test_api_key_comes_from_the_named_environment_variable(
    standin: LLMStandIn, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KH_TEST_LLM_KEY", "sk-test-123")
    judge = get_judge(
        "openai_compat", {"base_url": standin.base_url, "model": "valid", "api_key_env": "KH_TEST_LLM_KEY"}
    )
    assert validate(_request(), judge).verdict == "pass"
    assert standin.requests[-1]["authorization"] == "Bearer sk-test-123"
    monkeypatch.delenv("KH_TEST_LLM_KEY")
    assert validate(_request(), judge).verdict == "unverifiable"


def test_missing_configuration_is_refused() -> None:
    with pytest.raises(JudgeFailed):
        get_judge("openai_compat", {"model": "x"})


def test_findings_carry_quotes_found_in_the_snapshot_with_offsets(standin: LLMStandIn) -> None:
    result = validate(_request(), _judge(standin, "valid"))
    spans = [q for f in result.findings for q in f.quotes]
    assert spans and all(EVIDENCE[q.start : q.end] == q.text for q in spans)
    items = standin.requests[-1]["body"]["response_format"]["json_schema"]["schema"]["properties"]["findings"]["items"]
    assert "quotes" in items["required"] and items["properties"]["quotes"]["type"] == "array"


def test_an_answer_with_one_quote_string_is_still_read(standin: LLMStandIn) -> None:
    result = validate(_request(), _judge(standin, "single-quote"))
    assert result.verdict == "pass" and all(f.quotes for f in result.findings)
