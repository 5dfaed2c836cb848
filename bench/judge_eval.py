"""Scores a judge on bench/data/judge_dev.jsonl ({claim, evidence, label: supported | contradicted |
not_enough_info}): balanced accuracy (supported vs not), false-verified rate (share of contradicted and
not-enough-info pairs judged supported), recall on supported and on contradicted (judged contradicted,
i.e. the note would fail), pairs/s. Targets for the lexical judge: false-verified ≤ 5 %, contradicted →
fail ≥ 50 %, supported recall ≥ 50 %, ≥ 500 pairs/s.

    python -m bench judge_eval            # through the bench runner (writes docs/benchmarks.md)
    python bench/judge_eval.py [--judge lexical] [--data FILE] [--errors]
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from pathlib import Path
from typing import Any

from knowledge_harness.trust.judges import get_judge
from knowledge_harness.trust.validation_models import ClaimIn, EvidenceIn

DATA = Path(__file__).resolve().parent / "data" / "judge_dev.jsonl"


def load(path: Path = DATA) -> list[dict[str, str]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def evaluate(
    rows: list[dict[str, str]], judge_name: str = "lexical", config: dict[str, Any] | None = None
) -> dict[str, Any]:
    judge = get_judge(judge_name, config)
    predictions: list[str] = []
    start = time.perf_counter()
    for row in rows:
        out = judge.judge([ClaimIn(id="c", text=row["claim"])], [EvidenceIn(source_id="e", text=row["evidence"])])
        predictions.append(out.findings[0].verdict)
    seconds = time.perf_counter() - start
    labels = [r["label"] for r in rows]
    sup = [p for p, y in zip(predictions, labels, strict=True) if y == "supported"]
    con = [p for p, y in zip(predictions, labels, strict=True) if y == "contradicted"]
    not_sup = [p for p, y in zip(predictions, labels, strict=True) if y != "supported"]
    recall_supported = sum(p == "supported" for p in sup) / max(1, len(sup))
    specificity = sum(p != "supported" for p in not_sup) / max(1, len(not_sup))
    by_variant: dict[str, Counter[str]] = {}
    for row, p in zip(rows, predictions, strict=True):
        by_variant.setdefault(f"{row.get('lang', '?')}/{row.get('variant', '?')}", Counter())[p] += 1
    return {
        "judge": judge_name,
        "pairs": len(rows),
        "balanced_accuracy": (recall_supported + specificity) / 2,
        "false_verified_rate": 1 - specificity,
        "recall_supported": recall_supported,
        "recall_contradicted": sum(p == "contradicted" for p in con) / max(1, len(con)),
        "pairs_per_second": len(rows) / seconds if seconds else float("inf"),
        "by_variant": {k: dict(v) for k, v in sorted(by_variant.items())},
        "predictions": predictions,
    }


def real_figures() -> list[dict[str, Any]]:
    """Held-out figures of the 2-fold protocol on the real pairs (bench/judge_train.py), when present."""
    from bench import judge_train

    out: list[dict[str, Any]] = []
    for lang in ("ja", "en"):
        try:
            rows = judge_train.load(lang)
        except FileNotFoundError:
            continue
        m = judge_train.cross_validate(lang, rows, judge_train.features(rows))
        name = judge_train.DATASETS[lang]
        for key, label, target in (
            ("false_verified", "false-verified rate", "≤ 0.05"),
            ("recall_supported", "recall on supported", "≥ 0.30"),
            ("supported_to_fail", "supported → fail", "≤ 0.02"),
            ("contradicted_to_fail", "contradicted → fail", ""),
            ("contradicted_precision", "precision of contradicted", "≥ 0.95"),
        ):
            value = m[key]
            if isinstance(value, float) and value != value:
                continue
            out.append(
                {"name": f"{name}: {label} (held out)", "value": round(float(value), 3), "unit": "", "target": target}
            )
    return out


def run() -> dict[str, Any]:
    rows = load()
    # warm up once (imports, regex compilation), then measure
    evaluate(rows[:20])
    m = evaluate(rows)
    return {
        "title": f"Lexical judge: hand-made dev set ({m['pairs']} pairs) and real pairs (2-fold, held out)",
        "command": "python -m bench judge_eval",
        "figures": [
            {"name": "balanced accuracy (supported vs not)", "value": round(m["balanced_accuracy"], 3), "unit": ""},
            {
                "name": "false-verified rate",
                "value": round(m["false_verified_rate"], 3),
                "unit": "",
                "target": "≤ 0.05",
            },
            {"name": "recall on supported", "value": round(m["recall_supported"], 3), "unit": "", "target": "≥ 0.50"},
            {
                "name": "contradicted → contradicted (fail)",
                "value": round(m["recall_contradicted"], 3),
                "unit": "",
                "target": "≥ 0.50",
            },
            {"name": "throughput", "value": round(m["pairs_per_second"]), "unit": "pairs/s", "target": "≥ 500"},
            *real_figures(),
        ],
        "notes": "Per variant: " + json.dumps(m["by_variant"], ensure_ascii=False),
        "raw": {k: v for k, v in m.items() if k != "predictions"},
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--judge", default="lexical")
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--errors", action="store_true", help="print the misjudged pairs")
    args = parser.parse_args()
    rows = load(args.data)
    m = evaluate(rows, args.judge)
    for key in (
        "pairs",
        "balanced_accuracy",
        "false_verified_rate",
        "recall_supported",
        "recall_contradicted",
        "pairs_per_second",
    ):
        value = m[key]
        print(f"{key:22} {value:.3f}" if isinstance(value, float) else f"{key:22} {value}")
    for variant, counts in m["by_variant"].items():
        print(f"  {variant:22} {counts}")
    if args.errors:
        for row, p in zip(rows, m["predictions"], strict=True):
            wrong = (row["label"] == "supported") != (p == "supported") or (
                row["label"] == "contradicted" and p != "contradicted"
            )
            if wrong:
                print(f"[{row['label']} → {p}] {row['variant']}: {row['claim']}")


if __name__ == "__main__":
    main()
