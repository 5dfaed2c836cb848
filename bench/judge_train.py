"""Fits the lexical judge's support model on real claim/evidence pairs, with a 2-fold protocol.

Data: ../shared/judge-data/*.jsonl beside the repository (or KH_JUDGE_DATA=DIR): Japanese NLI pairs
(JNLI) fit the "ja" model, English Wikipedia claims against their cited pages (WiCE) the "en" model.
The files are read here and never copied into the repository.

Protocol (nested, so that what is tuned on is never what is reported): pairs are split into two
folds by a stable hash of their id. For each fold, everything the model has is chosen on the *other*
fold alone: its setting (for English the gate's limits and the regularization; for both the share
of the fitting rows' not-supported pairs the threshold may let through) by 2-fold cross-validation
inside that fold (INNER_SPLITS different inner splits, pooled; the setting confirming most
supported pairs on the inner held-out halves while at most FV_BOUND[lang] of their not-supported pairs
are), then the weights and the threshold. The fold itself is then judged by the full judge (hard
constraints + contradiction cues + model) through the validator. What is reported is only ever the
held-out folds. The shipped model is chosen and fitted on both folds with the same rules.
FV_BOUND is 3.5 %, well under the 5 % bar: thresholds chosen at the edge of the bound (4.5 % / 4 %) ran
about two points optimistic on other splits of the same sources.

    python bench/judge_train.py            # fit, print the held-out figures, write lexical_model.json
    python bench/judge_train.py --dry-run  # figures only
    python bench/judge_train.py --splits 8 --lang en  # the held-out counts over eight other splits, and their mean
    python bench/judge_train.py --profile embeddings  # the optional lexical_embeddings judge's English model
    python bench/judge_train.py --splits 8 --lang en --related none  # the same without the related-words table
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import hashlib
import json
import math
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from knowledge_harness.trust.validate.judges.base import Judge
from knowledge_harness.trust.validate.judges.lexical import LexicalJudge, RelatedWords, prepare
from knowledge_harness.trust.validate.judges.lexical_features import (
    FEATURE_NAMES,
    LANGUAGE_FEATURES,
    Gate,
    GateMeasures,
    LogisticModel,
)
from knowledge_harness.trust.validate.judges.lexical_model import columns_of
from knowledge_harness.trust.validate.judges.related_words import RELATED_WORDS, RelatedTable
from knowledge_harness.trust.validate.validation_models import ClaimIn, EvidenceIn, ValidationRequest
from knowledge_harness.trust.validate.validator import validate

REPO = Path(__file__).resolve().parents[1]
MODEL_PATH = REPO / "sidecar" / "knowledge_harness" / "trust" / "validate" / "judges" / "lexical_model.json"
EMBEDDINGS_MODEL_PATH = MODEL_PATH.with_name("lexical_embeddings_model.json")
DATASETS = {"ja": "jnli-v1.3-valid.jsonl", "en": "wice-claim-dev.jsonl"}
# What may be chosen, by cross-validation inside the fitting rows only (`choose`): the share of the
# fitting rows' not-supported pairs the threshold may let through, and, for English, the gate's limits.
L2 = 0.01
INNER_SPLITS = 3  # inner 2-fold splits, pooled
# the most not-supported pairs the inner held-out halves may see judged supported (the bar is 5 %): 3.5 %
# for both, a point and a half under it: thresholds picked at 4-4.5 % held 4.1 % / 3.8 % in the nested
# figures but 6.1 % on JNLI's other splits (issue #41)
FV_BOUND = {"ja": 0.035, "en": 0.035}
FV_TARGETS = {"ja": (0.02, 0.025, 0.03, 0.035), "en": (0.02, 0.025, 0.03, 0.035)}
L2S: dict[str, tuple[float, ...]] = {"ja": (L2,), "en": (1.0, 0.1, L2)}  # few English pairs reach the model
# The English gate's limits on what the words show; two content words in a row that the page never
# uses are always an added detail ("… in 2013 for its natural beauty") and never pass.
GATES: dict[str, list[Gate | None]] = {
    "ja": [None],
    "en": [
        Gate(max_missing, max_absent, False, min_subclaim)
        for max_absent in (1, 2)
        for max_missing in (2, 3, 4, 6, 99)
        for min_subclaim in (0.4, 0.0)
    ],
}
EPOCHS = 300

Row = dict[str, Any]


def data_dir() -> Path:
    return Path(os.environ.get("KH_JUDGE_DATA") or REPO.parent / "shared" / "judge-data")


def load(lang: str) -> list[Row]:
    path = data_dir() / DATASETS[lang]
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def fold_of(row: Row, salt: str = "") -> int:
    """The outer fold of a pair; another `salt` splits the pairs another way (the eight-split check)."""
    return int(hashlib.sha256(f"{salt}{row['id']}".encode()).hexdigest(), 16) % 2


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


@dataclass(frozen=True)
class Probe:
    """What the judge found for one pair before its model was asked."""

    decided: str  # "supported" or "contradicted" by a rule or a cue, else "unsupported"
    features: list[float] | None  # the model's input (None when a rule, a cue or a hard constraint decided)
    gate: GateMeasures | None  # what an English gate looks at


# a lexical judge around the given models: the default, or a reading under test (--profile)
JudgeMaker = Callable[[dict[str, LogisticModel]], LexicalJudge]


# the related-words table the default reading uses (--related: another table, or none)
RELATED: RelatedWords | None = RELATED_WORDS


def lexical_judge(models: dict[str, LogisticModel]) -> LexicalJudge:
    return LexicalJudge(models=models, related=RELATED)


# the cosines the lexical_embeddings profile may read words at (chosen with the rest, inside the fitting rows)
READING_COSINES: dict[str, float | None] = {"lexical": None, "cosine>=0.6": 0.6, "cosine>=0.7": 0.7, "cosine>=0.8": 0.8}


def readings_of(rows: list[Row], embeddings: bool) -> list[Reading]:
    """The default reading, and with `embeddings` also words read through their WordLlama neighbours."""
    readings = [Reading("lexical", lexical_judge, probe(rows))]
    if embeddings:
        from knowledge_harness.trust.validate.judges.embedded import embeddings_judge  # the optional extra

        for name, cosine in READING_COSINES.items():
            if cosine is not None:
                maker = functools.partial(embeddings_judge, threshold=cosine)
                readings.append(Reading(name, maker, probe(rows, maker)))
    return readings


def probe(rows: list[Row], make_judge: JudgeMaker = lexical_judge) -> list[Probe]:
    judge = make_judge({"ja": never("ja"), "en": never("en")})
    out: list[Probe] = []
    for row in rows:
        doc = prepare(EvidenceIn(source_id="e", text=row["evidence"]))
        if not doc.sentences:
            out.append(Probe("unsupported", None, None))
            continue
        found = judge.align(row["claim"], doc)
        out.append(Probe(found.verdict, found.features, found.gate))
    return out


def fit(xs: list[list[float]], ys: list[int], l2: float = L2) -> tuple[list[float], list[float], list[float], float]:
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
            w[j] -= 0.5 * (gw[j] / n + l2 * w[j])
        b -= 0.5 * gb / n
    return mean, scale, w, b


def fitted(lang: str, rows: list[Row], probes: list[Probe], setting: Setting) -> LogisticModel:
    """A logistic model fitted on the pairs that reach it (through the setting's gate), its threshold set
    so that at most the setting's share of these rows' not-supported pairs would be judged supported."""
    return thresholded(weighted(lang, rows, probes, setting.gate, setting.l2), rows, probes, setting.fv_target)


def weighted(lang: str, rows: list[Row], probes: list[Probe], gate: Gate | None, l2: float) -> LogisticModel:
    """The logistic model's weights, fitted on the pairs that reach it (threshold still infinite)."""
    columns = columns_of(LANGUAGE_FEATURES[lang])
    pairs = [
        (p.features, r["label"] == "supported")
        for r, p in zip(rows, probes, strict=True)
        if p.features is not None and _reaches(gate, p)
    ]
    if len({y for _, y in pairs}) < 2:
        return dataclasses.replace(never(lang), gate=gate)
    mean, scale, w, b = fit([[x[c] for c in columns] for x, _ in pairs], [int(y) for _, y in pairs], l2)
    return LogisticModel(columns, tuple(mean), tuple(scale), tuple(w), b, math.inf, gate)


def _reaches(gate: Gate | None, p: Probe) -> bool:
    return p.features is not None and (gate is None or (p.gate is not None and gate.admits(p.gate)))


def thresholded(model: LogisticModel, rows: list[Row], probes: list[Probe], fv_target: float) -> LogisticModel:
    """The model with the lowest threshold that keeps these rows' false-verified rate within fv_target."""
    negatives = sum(1 for r in rows if r["label"] != "supported")
    # a rule's false "supported" use up the budget first
    false = sum(1 for r, p in zip(rows, probes, strict=True) if p.decided == "supported" and r["label"] != "supported")
    ranked = sorted(
        (
            (model.score(p.features), r["label"] == "supported")
            for r, p in zip(rows, probes, strict=True)
            if p.features is not None and _reaches(model.gate, p)
        ),
        reverse=True,
    )
    threshold = math.inf
    if any(w != 0.0 for w in model.weights):
        for score, y in ranked:
            if not y:
                false += 1
                if false / max(1, negatives) > fv_target:
                    break
            threshold = score
    return dataclasses.replace(model, threshold=threshold)


def _quick_verdict(model: LogisticModel, p: Probe) -> str:
    """The judge's verdict from a probe (the same decision as the judge's, without aligning again)."""
    if p.decided != "unsupported":
        return p.decided
    return "supported" if p.features is not None and model.supports(p.features, p.gate) else "unsupported"


def _inner_fold(row: Row, split: int) -> int:
    return int(hashlib.sha256(f"inner{split}:{row['id']}".encode()).hexdigest(), 16) % 2


@dataclass(frozen=True)
class Setting:
    """What cross-validation inside the fitting rows chooses for a language's model."""

    gate: Gate | None
    l2: float
    fv_target: float

    def as_json(self) -> dict[str, Any]:
        return {"gate": _gate_json(self.gate), "l2": self.l2, "fv_target": self.fv_target}


def choose(lang: str, rows: list[Row], probes: list[Probe]) -> tuple[Setting, dict[str, float]]:
    """The gate, the regularization and the fitting fold's false-verified target, chosen by 2-fold
    cross-validation inside these rows only (INNER_SPLITS different splits, pooled): the most supported
    pairs confirmed on the inner held-out halves while at most FV_BOUND[lang] of their not-supported pairs
    are; ties go to the setting listed first (the stricter)."""
    best: tuple[float, float] = (-1.0, 0.0)
    chosen = Setting(GATES[lang][0], L2S[lang][0], min(FV_TARGETS[lang]))
    figures: dict[str, float] = {}
    for gate in GATES[lang]:
        for l2 in L2S[lang]:
            halves = {}
            for split in range(INNER_SPLITS):
                for k in (0, 1):
                    train = [i for i, r in enumerate(rows) if _inner_fold(r, split) != k]
                    half_rows, half_probes = [rows[i] for i in train], [probes[i] for i in train]
                    halves[split, k] = (weighted(lang, half_rows, half_probes, gate, l2), half_rows, half_probes)
            for fv_target in FV_TARGETS[lang]:
                supported = confirmed = negatives = false = 0
                for split, k in halves:
                    model = thresholded(*halves[split, k], fv_target)
                    for r, p in zip(rows, probes, strict=True):
                        if _inner_fold(r, split) != k:
                            continue
                        verdict = _quick_verdict(model, p)
                        if r["label"] == "supported":
                            supported += 1
                            confirmed += verdict == "supported"
                        else:
                            negatives += 1
                            false += verdict == "supported"
                recall, fv = confirmed / max(1, supported), false / max(1, negatives)
                if fv <= FV_BOUND[lang] and (recall, -fv) > best:
                    best = (recall, -fv)
                    chosen = Setting(gate, l2, fv_target)
                    figures = {"inner_recall": round(recall, 4), "inner_false_verified": round(fv, 4)}
    return chosen, figures


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
        "contradicted_to_pass": sum(v == "supported" for v in con) / max(1, len(con)) if con else float("nan"),
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


@dataclass(frozen=True)
class Reading:
    """One way for the judge to read the pairs (the default, or words through their neighbours at one
    cosine), with what it found for each pair before its model was asked."""

    name: str
    make_judge: JudgeMaker
    probes: list[Probe]


def cross_validate(
    lang: str,
    rows: list[Row],
    probes: list[Probe],
    make_judge: JudgeMaker = lexical_judge,
    salt: str = "",
    readings: list[Reading] | None = None,
    judges: dict[int, Judge] | None = None,
) -> dict[str, Any]:
    """Held-out figures of the 2-fold protocol: each fold judged, through the validator, by a model whose
    gate, threshold target, weights and threshold were all chosen on the other fold. Given several
    `readings`, the reading too is chosen on the other fold, by the same inner cross-validation (ties go
    to the reading listed first)."""
    readings = readings or [Reading("lexical", make_judge, probes)]
    held_rows: list[Row] = []
    held_verdicts: list[str] = []
    settings = []
    for k in (0, 1):
        train = [i for i, r in enumerate(rows) if fold_of(r, salt) != k]
        train_rows = [rows[i] for i in train]
        reading, setting, inner = choose_reading(
            lang, train_rows, [(x, [x.probes[i] for i in train]) for x in readings]
        )
        model = fitted(lang, train_rows, [reading.probes[i] for i in train], setting)
        settings.append({"fold": k, "reading": reading.name, **setting.as_json(), **inner})
        test = [r for r in rows if fold_of(r, salt) == k]
        other = "en" if lang == "ja" else "ja"
        judge = reading.make_judge({lang: model, other: never(other)})
        if judges is not None:  # each fold's judge, for pairs made from that fold's rows (judge_contrast.py)
            judges[k] = judge
        held_rows += test
        held_verdicts += judge_rows(judge, test)
    return {**metrics(held_rows, held_verdicts), "chosen_per_fold": settings}


def choose_reading(
    lang: str, rows: list[Row], readings: list[tuple[Reading, list[Probe]]]
) -> tuple[Reading, Setting, dict[str, float]]:
    """The reading and its setting whose inner cross-validation confirms most (within FV_BOUND)."""
    best: tuple[tuple[float, float], Reading, Setting, dict[str, float]] | None = None
    for reading, probes in readings:
        setting, inner = choose(lang, rows, probes)
        key = (inner.get("inner_recall", -1.0), -inner.get("inner_false_verified", 1.0))
        if best is None or key > best[0]:
            best = (key, reading, setting, inner)
    assert best is not None
    return best[1], best[2], best[3]


def split_check(lang: str, rows: list[Row], splits: int, readings: list[Reading]) -> dict[str, Any]:
    """The protocol's held-out counts (supported pairs confirmed, not-supported pairs judged supported) on
    the reported split and on `splits` other splits of the same pairs, and their mean over the others: one
    split of a few hundred pairs moves by a handful of pairs with any change, the mean says more."""
    supported = sum(r["label"] == "supported" for r in rows)
    others = len(rows) - supported
    counts: dict[str, tuple[int, int]] = {}
    for salt in ["", *(f"split{i}:" for i in range(splits))]:
        held = cross_validate(lang, rows, readings[0].probes, salt=salt, readings=readings)
        counts[salt or "reported"] = (
            round(float(held["recall_supported"]) * supported),
            round(float(held["false_verified"]) * others),
        )
    other_splits = [c for name, c in counts.items() if name != "reported"]
    return {
        "supported": supported,
        "not_supported": others,
        "confirmed_false_verified": counts,
        "mean_over_splits": [
            round(sum(c[0] for c in other_splits) / len(other_splits), 1),
            round(sum(c[1] for c in other_splits) / len(other_splits), 1),
        ],
    }


def _gate_json(gate: Gate | None) -> dict[str, Any] | None:
    return dataclasses.asdict(gate) if gate is not None else None


def _rounded(value: float | int) -> float | int | None:
    if isinstance(value, float):
        return round(value, 4) if math.isfinite(value) else None  # NaN: no such pairs
    return value


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dry-run", action="store_true")
    parser.add_argument(
        "--splits",
        type=int,
        default=0,
        help="figures only: the held-out counts over N other 2-fold splits of the pairs and their mean",
    )
    parser.add_argument("--lang", choices=("ja", "en"), default=None, help="one language only (with --splits)")
    parser.add_argument(
        "--profile",
        choices=("lexical", "embeddings"),
        default="lexical",
        help="embeddings: the optional lexical_embeddings judge (English; its own model file; needs the extra)",
    )
    parser.add_argument(
        "--related",
        default=None,
        help="figures only: the default reading with another related-words table (a .txt.gz path) or 'none'",
    )
    args = parser.parse_args()
    if args.related:
        global RELATED
        RELATED = None if args.related == "none" else RelatedTable(Path(args.related))
        args.dry_run = True
    embeddings = args.profile == "embeddings"
    langs = ("en",) if embeddings else ("ja", "en")
    if args.splits:
        for lang in (args.lang,) if args.lang else langs:
            rows = load(lang)
            print(lang, json.dumps(split_check(lang, rows, args.splits, readings_of(rows, embeddings))))
        return
    out: dict[str, Any] = {"features": list(FEATURE_NAMES), "models": {}, "figures": {}}
    for lang in langs:
        rows = load(lang)
        readings = readings_of(rows, embeddings)
        figures = cross_validate(lang, rows, readings[0].probes, readings=readings)
        reading, setting, inner = choose_reading(lang, rows, [(x, x.probes) for x in readings])
        model = fitted(lang, rows, reading.probes, setting)
        out["models"][lang] = {
            "features": list(LANGUAGE_FEATURES[lang]),
            "mean": [round(v, 6) for v in model.mean],
            "scale": [round(v, 6) for v in model.scale],
            "weights": [round(v, 6) for v in model.weights],
            "bias": round(model.bias, 6),
            "threshold": round(model.threshold, 6) if math.isfinite(model.threshold) else None,
            "gate": _gate_json(setting.gate),
        }
        if embeddings:
            out["models"][lang]["cosine"] = READING_COSINES[reading.name]
        chosen = figures.pop("chosen_per_fold")
        if not embeddings:  # one reading: nothing chosen
            for fold in chosen:
                fold.pop("reading")
        out["figures"][lang] = {
            "data": DATASETS[lang],
            "held_out": {k: _rounded(v) for k, v in figures.items()},
            "held_out_settings_per_fold": chosen,
            "shipped_settings": {**({"reading": reading.name} if embeddings else {}), **setting.as_json(), **inner},
        }
        print(lang, json.dumps(out["figures"][lang]))
    if not args.dry_run:
        path = EMBEDDINGS_MODEL_PATH if embeddings else MODEL_PATH
        path.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(f"wrote {path.relative_to(REPO)}")


if __name__ == "__main__":
    main()
