"""The lexical judge's fitted model: one logistic model per language, loaded from lexical_model.json.

bench/judge_train.py fits the weights and chooses each threshold by 2-fold cross-validation on
real claim/evidence pairs (Japanese NLI pairs, English Wikipedia claims against cited pages) and
writes the JSON with the figures that chose them. docs/validator.md explains the figures.
"""

from __future__ import annotations

import functools
import json
import math
from importlib import resources
from typing import Any

from ..text import has_cjk
from .lexical_features import FEATURE_NAMES, Gate, LogisticModel

MODEL_FILE = "lexical_model.json"


def columns_of(names: list[str] | tuple[str, ...]) -> tuple[int, ...]:
    unknown = [n for n in names if n not in FEATURE_NAMES]
    if unknown:
        raise RuntimeError(f"{MODEL_FILE} names unknown features {unknown}; run bench/judge_train.py again.")
    return tuple(FEATURE_NAMES.index(n) for n in names)


def model_from_json(data: dict[str, Any]) -> LogisticModel:
    columns = columns_of(data["features"])
    if not len(columns) == len(data["mean"]) == len(data["scale"]) == len(data["weights"]):
        raise RuntimeError(f"{MODEL_FILE}: a model's features and weights differ in length.")
    return LogisticModel(
        columns=columns,
        mean=tuple(data["mean"]),
        scale=tuple(data["scale"]),
        weights=tuple(data["weights"]),
        bias=float(data["bias"]),
        threshold=math.inf if data["threshold"] is None else float(data["threshold"]),  # None: never supports
        gate=Gate(**data["gate"]) if data.get("gate") else None,
    )


@functools.cache
def fitted_models() -> dict[str, LogisticModel]:
    raw = json.loads(resources.files(__package__).joinpath(MODEL_FILE).read_text(encoding="utf-8"))
    return {lang: model_from_json(m) for lang, m in raw["models"].items()}


def language_of(claim: str) -> str:
    """The model a claim is judged by: "ja" when it holds CJK text, else "en"."""
    return "ja" if has_cjk(claim) else "en"
