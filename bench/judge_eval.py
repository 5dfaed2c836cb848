"""Scores the judge on real claim/evidence pairs per language (Japanese JNLI, English WiCE; the nested
2-fold protocol of bench/judge_train.py, held-out verdicts only) and on bench/data/judge_dev.jsonl ({claim,
evidence, label: supported | contradicted | not_enough_info}, hand-made): balanced accuracy (supported vs not), false-verified rate (share of contradicted and
not-enough-info pairs judged supported), recall on supported and on contradicted (judged contradicted,
i.e. the note would fail), pairs/s. Targets for the lexical judge: false-verified ≤ 5 %, contradicted →
fail ≥ 50 %, supported recall ≥ 50 %, ≥ 500 pairs/s.

    python -m bench judge_eval            # through the bench runner (replaces its section of docs/benchmarks.md)
    python bench/judge_eval.py [--judge lexical] [--data FILE] [--errors]
    PYTHONPATH=. python bench/judge_eval.py --report   # the same figures as judge_eval in `make bench`, written into
                                          # its own section of docs/benchmarks.md (the others are kept)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections import Counter
from pathlib import Path
from typing import Any

from knowledge_harness.trust.validate.judges import get_judge
from knowledge_harness.trust.validate.judges.lexical import LexicalJudge, prepare
from knowledge_harness.trust.validate.judges.related_words import RELATED_WORDS
from knowledge_harness.trust.validate.text import forget_cached_terms
from knowledge_harness.trust.validate.validation_models import ClaimIn, EvidenceIn

DATA = Path(__file__).resolve().parent / "data" / "judge_dev.jsonl"


def load(path: Path = DATA) -> list[dict[str, str]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def evaluate(
    rows: list[dict[str, str]], judge_name: str = "lexical", config: dict[str, Any] | None = None
) -> dict[str, Any]:
    judge = get_judge(judge_name, config)
    predictions: list[str] = []
    start = time.process_time()
    for row in rows:
        out = judge.judge([ClaimIn(id="c", text=row["claim"])], [EvidenceIn(source_id="e", text=row["evidence"])])
        predictions.append(out.findings[0].verdict)
    seconds = time.process_time() - start
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


LANGUAGES = {"ja": "Japanese — JNLI", "en": "English — WiCE"}
SPEED_RUNS = 3


def real_figures() -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Per language: held-out figures of the 2-fold protocol on the real pairs (bench/judge_train.py),
    each pair through the validator as `POST /v1/validate` receives it, and the shipped judge's speed."""
    from bench import judge_train

    figures: list[dict[str, Any]] = []
    raw: dict[str, Any] = {}
    held_out_judges: dict[tuple[str, int], Any] = {}
    for lang, label in LANGUAGES.items():
        try:
            rows = judge_train.load(lang)
        except FileNotFoundError:
            continue
        fold_judges: dict[int, Any] = {}
        m = judge_train.cross_validate(lang, rows, judge_train.probe(rows), judges=fold_judges)
        held_out_judges.update({(lang, k): j for k, j in fold_judges.items()})
        shipped = get_judge("lexical")
        speeds = []
        for _ in range(SPEED_RUNS):
            forget_cached_terms()  # the pages were seen above: time them as a sidecar meets them first
            RELATED_WORDS.forget_words()
            start = time.process_time()
            judge_train.judge_rows(shipped, rows)
            speeds.append(len(rows) / (time.process_time() - start))
        m["pairs_per_second"] = statistics.median(speeds)
        # a note's claims are judged against pages cut into sentences once per request: a claim's own cost
        # (the sentences it needs are tokenized on its first use of them)
        lexical = LexicalJudge()
        speeds = []
        for _ in range(SPEED_RUNS):
            docs = [prepare(EvidenceIn(source_id="e", text=r["evidence"])) for r in rows]
            start = time.process_time()
            for r, doc in zip(rows, docs, strict=True):
                lexical.align(r["claim"], doc)
            speeds.append(len(rows) / (time.process_time() - start))
        m["claims_per_second"] = statistics.median(speeds)
        raw[lang] = m
        name = f"{label} ({m['pairs']:,} pairs)"
        for key, what, target, unit in (
            ("false_verified", "false-verified rate", "≤ 0.05", ""),
            ("recall_supported", "recall on supported", "≥ 0.30 (goal 0.40)", ""),
            ("supported_to_fail", "supported → fail", "≤ 0.02", ""),
            ("contradicted_to_fail", "contradicted → fail", "", ""),
            ("contradicted_to_pass", "contradicted → pass (the issue's held-out check weighs these)", "", ""),
            ("contradicted_precision", "precision of contradicted", "≥ 0.95", ""),
            ("pairs_per_second", "throughput, one core (each pair's evidence prepared anew)", "≥ 500", "pairs/s"),
            (
                "claims_per_second",
                "claims against an evidence text already cut into sentences, one core",
                "",
                "claims/s",
            ),
        ):
            value = m[key]
            if isinstance(value, float) and value != value:
                value = (
                    "— (no such pairs)"
                    if key in ("contradicted_to_fail", "contradicted_to_pass")
                    else f"— ({m['contradicted_calls']} calls)"
                )
            elif key in ("pairs_per_second", "claims_per_second"):
                value = round(float(value))
            elif key == "contradicted_precision":
                value = f"{value:.3f} ({m['contradicted_calls']} calls)"
            else:
                value = round(float(value), 3)
            figures.append({"name": f"{name}: {what}", "value": value, "unit": unit, "target": target})
    figures += contrast_figures(held_out_judges, raw)
    return figures, raw


def contrast_figures(held_out_judges: dict[tuple[str, int], Any], raw: dict[str, Any]) -> list[dict[str, Any]]:
    """One-edit contrast claims (bench/judge_contrast.py), each pair judged by the held-out judge of its
    original's fold: of the originals confirmed, the share still confirmed after the edit."""
    from bench import judge_contrast, judge_train

    try:
        rows = judge_contrast.load_contrast()
    except FileNotFoundError:
        return []
    found = judge_contrast.contrast(
        lambda original: held_out_judges[(original["lang"], judge_train.fold_of(original))], rows
    )
    raw["contrast"] = {kind: {k: v for k, v in r.items() if k != "kept"} for kind, r in found.items()}
    return [
        {
            "name": f"contrast {kind} ({r['rows']} rows): still confirmed after the edit, of {r['originals_confirmed']} "
            "originals confirmed",
            "value": f"{r['still_confirmed']} ({r['share']:.1%})",
            "unit": "",
            "target": "≤ 2 %",
        }
        for kind, r in found.items()
    ]


def profile_figures(hand_made: list[dict[str, str]]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The optional lexical_embeddings judge (when its extra is installed): WiCE held out by the same nested
    protocol, its cosine chosen with the gate inside each fitting half; the hand-made set; its speed."""
    from bench import judge_train

    try:
        import wordllama  # noqa: F401
    except ImportError:
        return [], {}
    try:
        rows = judge_train.load("en")
    except FileNotFoundError:
        return [], {}
    readings = judge_train.readings_of(rows, embeddings=True)
    m = judge_train.cross_validate("en", rows, readings[0].probes, readings=readings)
    speeds = []
    for _ in range(SPEED_RUNS):
        forget_cached_terms()
        judge = get_judge("lexical_embeddings")  # a fresh judge: its word vectors computed anew
        start = time.process_time()
        judge_train.judge_rows(judge, rows)
        speeds.append(len(rows) / (time.process_time() - start))
    hand = evaluate(hand_made, "lexical_embeddings")
    name = f"lexical_embeddings (optional), English — WiCE ({m['pairs']:,} pairs)"
    figures = [
        {
            "name": f"{name}: false-verified rate",
            "value": round(float(m["false_verified"]), 3),
            "unit": "",
            "target": "≤ 0.05",
        },
        {
            "name": f"{name}: recall on supported",
            "value": round(float(m["recall_supported"]), 3),
            "unit": "",
            "target": "≥ 0.30 (goal 0.40)",
        },
        {
            "name": f"{name}: supported → fail",
            "value": round(float(m["supported_to_fail"]), 3),
            "unit": "",
            "target": "≤ 0.02",
        },
        {"name": f"{name}: throughput, one core", "value": round(statistics.median(speeds)), "unit": "pairs/s"},
        {
            "name": "lexical_embeddings: hand-made recall on supported",
            "value": round(hand["recall_supported"], 3),
            "unit": "",
        },
        {
            "name": "lexical_embeddings: hand-made false-verified rate",
            "value": round(hand["false_verified_rate"], 3),
            "unit": "",
        },
        {
            "name": "lexical_embeddings: hand-made contradicted → contradicted (fail)",
            "value": round(hand["recall_contradicted"], 3),
            "unit": "",
        },
    ]
    chosen = [c["reading"] for c in m.pop("chosen_per_fold")]
    return figures, {**m, "readings_per_fold": chosen, "pairs_per_second": statistics.median(speeds)}


NOTES = (
    "Real pairs: JNLI v1.3 validation (Japanese NLI) and WiCE claim-level dev (English Wikipedia claims "
    "against the pages they cite), read from a data folder beside the repository. Nested 2-fold protocol: each "
    "half is judged by a model whose setting (threshold target; for English the gate's limits and the "
    "regularization) was chosen by cross-validation inside the other half, and whose weights and threshold "
    "were then fitted on that other half (bench/judge_train.py, docs/validator.md). "
    "Each pair goes through the validator with one claim and one evidence text (pass = supported, fail = "
    "contradicted). WiCE has no contradicted label: every contradicted call there is a wrong one. "
    "Throughput is per second of this process's CPU time, the median of {runs} runs, each starting with empty "
    "word tables (one core; the machine is shared: load average {load} when measured). The related-words table "
    "is read once per process, before the timed runs (its first read is the figure of its own). "
    "Contrast claims (contrast-dev.jsonl, one edit that keeps nearly every word on the page: a number or a name "
    "replaced by another the page states, 'not' inserted, a Japanese predicate negated, a word swapped for its "
    "sibling): each judged with its original by the held-out judge of the original's fold; the figure is, of "
    "the originals confirmed, how many are still confirmed after the edit. What looked at which figures: the "
    "claim-sentence binding (judges/binding.py) was written for the design's examples and then adjusted while "
    "reading the dev contrast claims still confirmed and the dev supported pairs it lost (its sibling-word "
    "groups; in #41's rework, which replaced the rule that let a value written anywhere on an English page "
    "count: a sentence elsewhere on the page stating the fact with its context, the page's opening name for "
    "he/she/it/the album, the page's dateline for a year, numbers in brackets, a fact stated only with its "
    "fellows, negative comparatives restating a superlative; then a claim over several lines, a name of several "
    "words in a short clause, and for the quote gate's sake a boy as a child, 二階 as 2階, a katakana sibling "
    "word inside a longer one). Those choices looked at the shipped model's "
    "in-sample figures on the dev pairs and the dev contrast claims, never at the held-out halves of another "
    "split: the contrast and natural figures here are therefore dev figures for the binding, held out only for "
    "the model. FV_BOUND (3.5 % on the inner halves) was set from the issue's held-out figures before these "
    "figures were computed. "
)


def table_load_ms() -> float:
    """CPU time of reading the related-words table (once per process, on the first English claim that
    needs it): paid before the timed runs, and reported on its own."""
    start = time.process_time()
    RELATED_WORDS.related("film")
    return (time.process_time() - start) * 1000


def run() -> dict[str, Any]:
    rows = load()
    table_ms = table_load_ms()
    # warm up once (imports, regex compilation), then measure
    evaluate(rows[:20])
    m = evaluate(rows)
    real, raw = real_figures()
    profile, raw["lexical_embeddings"] = profile_figures(rows)
    return {
        "title": f"Lexical judge: real pairs per language (nested 2-fold, held out) and the hand-made dev set ({m['pairs']} pairs)",
        "command": "python -m bench judge_eval",
        "figures": [
            *real,
            {
                "name": "hand-made: balanced accuracy (supported vs not)",
                "value": round(m["balanced_accuracy"], 3),
                "unit": "",
            },
            {
                "name": "hand-made: false-verified rate",
                "value": round(m["false_verified_rate"], 3),
                "unit": "",
                "target": "≤ 0.05",
            },
            {
                "name": "hand-made: recall on supported",
                "value": round(m["recall_supported"], 3),
                "unit": "",
                "target": "≥ 0.50",
            },
            {
                "name": "hand-made: contradicted → contradicted (fail)",
                "value": round(m["recall_contradicted"], 3),
                "unit": "",
                "target": "≥ 0.50",
            },
            {
                "name": "hand-made: throughput",
                "value": round(m["pairs_per_second"]),
                "unit": "pairs/s",
                "target": "≥ 500",
            },
            {
                "name": "related-words table: first read (once per process), CPU time",
                "value": round(table_ms),
                "unit": "ms",
            },
            *profile,
        ],
        "notes": NOTES.format(load=f"{os.getloadavg()[0]:.1f}", runs=SPEED_RUNS)
        + (
            "lexical_embeddings (optional, its extra installed): the same protocol, with the cosine at which it "
            "reads an English word as a page word's neighbour (none, 0.6, 0.7, 0.8) chosen with the gate inside each "
            "fitting half; its throughput with a fresh judge per run (word vectors computed anew). "
            if profile
            else ""
        )
        + "Hand-made set per variant: "
        + json.dumps(m["by_variant"], ensure_ascii=False),
        "raw": {"hand_made": {k: v for k, v in m.items() if k != "predictions"}, "real": raw},
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--judge", default="lexical")
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--errors", action="store_true", help="print the misjudged pairs")
    parser.add_argument(
        "--report",
        action="store_true",
        help="run the whole judge benchmark and rewrite its section of docs/benchmarks.md",
    )
    args = parser.parse_args()
    if args.report:
        result = run()
        for fig in result["figures"]:
            print(f"{fig['name']}: {fig['value']} {fig.get('unit', '')}")
        from bench.__main__ import replace_sections

        replace_sections([result])
        return
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
