"""AI-judge axes shared by O-06 and O-09: PASS / FAIL / UNCERTAIN, a confidence 0–1, reasons, references.

The program, not the judge, turns the axes into a result: any FAIL, UNCERTAIN, PASS below 0.70
(and, for O-06, a HIGH uncertainty impact) keeps the article from moving on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .contract import ReasonCode, Uncertainty

VERDICTS = ("PASS", "FAIL", "UNCERTAIN")
IMPACTS = ("LOW", "MEDIUM", "HIGH")
THRESHOLD = 0.70

_REF_LIST = {"type": "array", "items": {"type": "string", "minLength": 1, "maxLength": 80}, "minItems": 1}


def axis_schema(*ref_fields: str, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    props: dict[str, Any] = {
        "verdict": {"enum": list(VERDICTS)},
        "confidence": {"type": "number", "minimum": 0, "maximum": 1},
        "reasons": {"type": "string", "minLength": 1, "maxLength": 4000},
        **{name: _REF_LIST for name in ref_fields},
        **(extra or {}),
    }
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["verdict", "confidence", "reasons", *ref_fields, *(extra or {})],
        "properties": props,
    }


@dataclass
class Verdict:
    decision: str  # PASS | FAIL | HOLD
    codes: list[ReasonCode] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    uncertain: list[str] = field(default_factory=list)
    low: list[str] = field(default_factory=list)
    high_impact: bool = False


def apply_rule(axes: dict[str, dict[str, Any]], impact: str | None = None) -> Verdict:
    failed = [k for k, a in axes.items() if a["verdict"] == "FAIL"]
    uncertain = [k for k, a in axes.items() if a["verdict"] == "UNCERTAIN"]
    low = [k for k, a in axes.items() if a["verdict"] == "PASS" and float(a["confidence"]) < THRESHOLD]
    high = impact == "HIGH"
    codes: list[ReasonCode] = []
    if failed:
        codes.append(ReasonCode.JUDGE_AXIS_FAIL)
    if uncertain:
        codes.append(ReasonCode.JUDGE_AXIS_UNCERTAIN)
    if low:
        codes.append(ReasonCode.JUDGE_LOW_CONFIDENCE)
    if high:
        codes.append(ReasonCode.UNCERTAINTY_IMPACT_HIGH)
    if failed:
        return Verdict("FAIL", codes, failed, uncertain, low, high)
    if uncertain or low or high:
        return Verdict("HOLD", codes, failed, uncertain, low, high)
    return Verdict("PASS", [ReasonCode.JUDGE_ALL_PASS], [], [], [], False)


def axis_uncertainties(axes: dict[str, dict[str, Any]], labels: dict[str, str]) -> list[Uncertainty]:
    out = []
    for key, axis in axes.items():
        if axis["verdict"] != "PASS" or float(axis["confidence"]) < THRESHOLD:
            out.append(
                Uncertainty(
                    item=f"{labels.get(key, key)}: {axis['verdict']}（確信度{float(axis['confidence']):.2f}）",
                    impact=str(axis["reasons"])[:500],
                )
            )
    return out


def describe(verdict: Verdict, labels: dict[str, str]) -> str:
    parts = []
    if verdict.failed:
        parts.append("FAIL: " + "、".join(labels.get(k, k) for k in verdict.failed))
    if verdict.uncertain:
        parts.append("UNCERTAIN: " + "、".join(labels.get(k, k) for k in verdict.uncertain))
    if verdict.low:
        parts.append("確信度0.70未満のPASS: " + "、".join(labels.get(k, k) for k in verdict.low))
    if verdict.high_impact:
        parts.append("不確実性の影響HIGH")
    return "／".join(parts)
