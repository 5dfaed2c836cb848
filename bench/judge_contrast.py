"""One-edit contrast claims (../shared/judge-data/contrast-dev.jsonl): for each kind of edit, of the claims the
judge confirms in their original form, the share it still confirms after the edit (target ≤ 2 % in every kind).

Each contrast claim is judged, like its original, through the validator with one claim and one evidence
text (`POST /v1/validate`). Given per-fold judges (the nested protocol of bench/judge_train.py), a pair is
judged by the judge fitted on the other fold, so that neither form of a claim is judged by a model fitted
on its original.

    PYTHONPATH=. python bench/judge_contrast.py            # the shipped judge
    PYTHONPATH=. python bench/judge_contrast.py --show en-entity   # the contrast claims still confirmed
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from typing import Any

from bench import judge_train
from knowledge_harness.trust.validate.judges import get_judge
from knowledge_harness.trust.validate.judges.base import Judge

CONTRAST = "contrast-dev.jsonl"
KINDS = ("en-number", "en-entity", "en-negation", "ja-negation", "ja-swap")

Row = dict[str, Any]


def load_contrast() -> list[Row]:
    path = judge_train.data_dir() / CONTRAST
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def originals() -> dict[str, Row]:
    found: dict[str, Row] = {}
    for lang in judge_train.DATASETS:
        for row in judge_train.load(lang):
            found[row["id"]] = row
    return found


def contrast(judge_for: Callable[[Row], Judge], rows: list[Row] | None = None) -> dict[str, Any]:
    """Per kind: originals confirmed, of those the edited claims still confirmed, and the share."""
    rows = rows if rows is not None else load_contrast()
    by_id = originals()
    out: dict[str, Any] = {}
    for kind in KINDS:
        confirmed = still = 0
        kept: list[str] = []
        for row in (r for r in rows if r["kind"] == kind):
            original = by_id[row["from"]]
            judge = judge_for(original)
            if judge_train.judge_rows(judge, [original]) != ["supported"]:
                continue
            confirmed += 1
            if judge_train.judge_rows(judge, [row]) == ["supported"]:
                still += 1
                kept.append(row["claim"])
        out[kind] = {
            "rows": sum(1 for r in rows if r["kind"] == kind),
            "originals_confirmed": confirmed,
            "still_confirmed": still,
            "share": still / confirmed if confirmed else float("nan"),
            "kept": kept,
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--show", default=None, help="print the still-confirmed claims of this kind")
    args = parser.parse_args()
    judge = get_judge("lexical")
    result = contrast(lambda _row: judge)
    for kind, r in result.items():
        print(
            f"{kind:12} {r['still_confirmed']:3} of {r['originals_confirmed']:3} ({r['share']:.1%}) [{r['rows']} rows]"
        )
        if kind == args.show:
            for claim in r["kept"]:
                print("   ", claim)


if __name__ == "__main__":
    main()
