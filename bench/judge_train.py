"""Fits the lexical judge's support model on real claim/evidence pairs, with a 2-fold protocol.

Data: ../shared/judge-data/*.jsonl beside the repository (or KH_JUDGE_DATA=DIR): Japanese NLI pairs
(JNLI) fit the "ja" model, English Wikipedia claims against their cited pages (WiCE) the "en" model.
The files are read here and never copied into the repository.

Protocol: pairs are split into two folds by a stable hash of their id. For each fold, a logistic
model is fitted on the other fold and its threshold set so that at most FV_TARGET of that fold's
not-supported pairs would be judged supported; the fold itself is then judged by the full judge
(hard constraints + contradiction cues + model). What is reported is only ever the held-out fold.
The shipped model is fitted on both folds with the same rule.

    python bench/judge_train.py            # fit, print the held-out figures, write lexical_model.json
    python bench/judge_train.py --dry-run  # figures only
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
from pathlib import Path
from typing import Any

from knowledge_harness.trust.judges.base import Judge
from knowledge_harness.trust.judges.lexical import LexicalJudge, prepare
from knowledge_harness.trust.judges.lexical_features import FEATURE_NAMES, LANGUAGE_FEATURES, LogisticModel
from knowledge_harness.trust.judges.lexical_model import columns_of
from knowledge_harness.trust.validation_models import ClaimIn, EvidenceIn, ValidationRequest
from knowledge_harness.trust.validator import validate

REPO = Path(__file__).resolve().parents[1]
MODEL_PATH = REPO / "sidecar" / "knowledge_harness" / "trust" / "judges" / "lexical_model.json"
DATASETS = {"ja": "jnli-v1.3-valid.jsonl", "en": "wice-claim-dev.jsonl"}
# On the fitting fold, chosen so that the held-out fold stays under 5 %. English pairs reach the model
# only through the judge's hard gate (at most two content words missing, every sub-claim found), which
# already keeps false verification near 3 % over six different 2-fold splits; a fold holds only ~117
# not-supported pairs, so one false "supported" is 0.85 %.
FV_TARGET = {"ja": 0.045, "en": 0.05}
L2 = 0.01
EPOCHS = 300

Row = dict[str, Any]


def data_dir() -> Path:
    return Path(os.environ.get("KH_JUDGE_DATA") or REPO.parent / "shared" / "judge-data")


def load(lang: str) -> list[Row]:
    path = data_dir() / DATASETS[lang]
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def fold_of(row: Row) -> int:
    return int(hashlib.sha256(str(row["id"]).encode()).hexdigest(), 16) % 2


def never(lang: str) -> LogisticModel:
    """A model that never says supported (to collect the features the real one would be fed)."""
    n = len(LANGUAGE_FEATURES[lang])
    return LogisticModel(
        columns=columns_of(LANGUAGE_FEATURES[lang]),
        mean=(0.0,) * n,
        scale=(1.0,) * n,
        weights=(0.0,) * n,
        bias=0.0,
        threshold=math.inf,
    )


def features(rows: list[Row]) -> list[list[float] | None]:
    """The model's input for each pair, or None when a hard constraint or a cue decides without it."""
    probe = LexicalJudge(models={"ja": never("ja"), "en": never("en")})
    out: list[list[float] | None] = []
    for row in rows:
        doc = prepare(EvidenceIn(source_id="e", text=row["evidence"]))
        found = probe.align(row["claim"], doc) if doc.sentences else None
        row["_rule"] = found is not None and found.verdict == "supported"
        out.append(found.features if found else None)
    return out


def fit(xs: list[list[float]], ys: list[int]) -> tuple[list[float], list[float], list[float], float]:
    """Logistic regression by full-batch gradient descent on standardized features (no numpy here)."""
    d = len(xs[0])
    n = len(xs)
    mean = [sum(x[j] for x in xs) / n for j in range(d)]
    scale = [math.sqrt(sum((x[j] - mean[j]) ** 2 for x in xs) / n) or 1.0 for j in range(d)]
    zs = [[(x[j] - mean[j]) / scale[j] for j in range(d)] for x in xs]
    w = [0.0] * d
    b = 0.0
    for _ in range(EPOCHS):
        gw = [0.0] * d
        gb = 0.0
        for z, y in zip(zs, ys, strict=True):
            s = max(-30.0, min(30.0, b + sum(wj * zj for wj, zj in zip(w, z, strict=True))))
            g = 1.0 / (1.0 + math.exp(-s)) - y
            gb += g
            for j in range(d):
                gw[j] += g * z[j]
        for j in range(d):
            w[j] -= 0.5 * (gw[j] / n + L2 * w[j])
        b -= 0.5 * gb / n
    return mean, scale, w, b


def fitted(lang: str, rows: list[Row], feats: list[list[float] | None], fv_target: float) -> LogisticModel:
    columns = columns_of(LANGUAGE_FEATURES[lang])
    pairs = [(x, r["label"] == "supported") for r, x in zip(rows, feats, strict=True) if x is not None]
    mean, scale, w, b = fit([[x[c] for c in columns] for x, _ in pairs], [int(y) for _, y in pairs])
    model = LogisticModel(columns, tuple(mean), tuple(scale), tuple(w), b, math.inf)
    if fv_target <= 0:
        return model
    negatives = sum(1 for r in rows if r["label"] != "supported")
    # pairs without features were decided by a rule; the rule's false "supported" use up the budget
    false = sum(
        1 for r, x in zip(rows, feats, strict=True) if x is None and r["label"] != "supported" and r.get("_rule")
    )
    ranked = sorted(((model.score(x), y) for x, y in pairs), reverse=True)
    threshold = math.inf
    for score, y in ranked:
        if not y:
            false += 1
            if false / max(1, negatives) > fv_target:
                break
        threshold = score
    return LogisticModel(columns, model.mean, model.scale, model.weights, model.bias, threshold)


def metrics(rows: list[Row], verdicts: list[str]) -> dict[str, float | int]:
    sup = [v for r, v in zip(rows, verdicts, strict=True) if r["label"] == "supported"]
    con = [v for r, v in zip(rows, verdicts, strict=True) if r["label"] == "contradicted"]
    not_sup = [v for r, v in zip(rows, verdicts, strict=True) if r["label"] != "supported"]
    called_contradicted = [r["label"] for r, v in zip(rows, verdicts, strict=True) if v == "contradicted"]
    return {
        "pairs": len(rows),
        "false_verified": sum(v == "supported" for v in not_sup) / max(1, len(not_sup)),
        "recall_supported": sum(v == "supported" for v in sup) / max(1, len(sup)),
        "supported_to_fail": sum(v == "contradicted" for v in sup) / max(1, len(sup)),
        "contradicted_to_fail": sum(v == "contradicted" for v in con) / max(1, len(con)) if con else float("nan"),
        "contradicted_calls": len(called_contradicted),
        "contradicted_precision": (
            sum(lab == "contradicted" for lab in called_contradicted) / len(called_contradicted)
            if called_contradicted
            else float("nan")
        ),
    }


_OUTCOME = {"pass": "supported", "fail": "contradicted"}


def judge_rows(judge: Judge, rows: list[Row]) -> list[str]:
    """Each pair as `POST /v1/validate` receives it (one claim, one evidence text), through the validator:
    pass → supported, fail → contradicted, anything else (warn, unverifiable) → unsupported."""
    verdicts = []
    for r in rows:
        request = ValidationRequest(
            claims=[ClaimIn(id="c", text=r["claim"])], evidence=[EvidenceIn(source_id="e", text=r["evidence"])]
        )
        verdicts.append(_OUTCOME.get(validate(request, judge).verdict, "unsupported"))
    return verdicts


def cross_validate(lang: str, rows: list[Row], feats: list[list[float] | None]) -> dict[str, Any]:
    """Held-out figures of the 2-fold protocol (each fold judged by a model fitted on the other)."""
    held_rows: list[Row] = []
    held_verdicts: list[str] = []
    for k in (0, 1):
        train = [i for i, r in enumerate(rows) if fold_of(r) != k]
        test = [r for r in rows if fold_of(r) == k]
        model = fitted(lang, [rows[i] for i in train], [feats[i] for i in train], FV_TARGET[lang])
        other = "en" if lang == "ja" else "ja"
        judge = LexicalJudge(models={lang: model, other: never(other)})
        held_rows += test
        held_verdicts += judge_rows(judge, test)
    return metrics(held_rows, held_verdicts)


def _rounded(value: float | int) -> float | int | None:
    if isinstance(value, float):
        return round(value, 4) if math.isfinite(value) else None  # NaN: no such pairs
    return value


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dry-run", action="store_true")
    args = parser.parse_args()
    out: dict[str, Any] = {"features": list(FEATURE_NAMES), "models": {}, "figures": {}}
    for lang in ("ja", "en"):
        rows = load(lang)
        feats = features(rows)
        figures = cross_validate(lang, rows, feats)
        model = fitted(lang, rows, feats, FV_TARGET[lang])
        out["models"][lang] = {
            "features": list(LANGUAGE_FEATURES[lang]),
            "mean": [round(v, 6) for v in model.mean],
            "scale": [round(v, 6) for v in model.scale],
            "weights": [round(v, 6) for v in model.weights],
            "bias": round(model.bias, 6),
            "threshold": round(model.threshold, 6) if math.isfinite(model.threshold) else None,
        }
        out["figures"][lang] = {
            "data": DATASETS[lang],
            "fv_target_on_fitting_fold": FV_TARGET[lang],
            "held_out": {k: _rounded(v) for k, v in figures.items()},
        }
        print(lang, json.dumps(out["figures"][lang]["held_out"]))
    if not args.dry_run:
        MODEL_PATH.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(f"wrote {MODEL_PATH.relative_to(REPO)}")


if __name__ == "__main__":
    main()
