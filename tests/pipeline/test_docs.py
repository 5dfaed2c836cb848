"""Every reason code is documented in docs/pipeline.md with its Japanese and English explanation."""

from __future__ import annotations

from pathlib import Path

from knowledge_harness.pipeline.contract import REASONS, ReasonCode

DOC = Path(__file__).resolve().parents[2] / "docs" / "pipeline.md"


def test_reason_codes_are_documented() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert set(REASONS) == set(ReasonCode)
    for code, (ja, en) in REASONS.items():
        assert f"| `{code.value}` | {ja} | {en} |" in text, code
