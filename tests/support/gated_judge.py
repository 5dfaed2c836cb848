"""The English gate's counts for a claim, from a lexical judge whose model never supports: what a
test of a reading of the page's words (related words, embeddings) looks at."""

from __future__ import annotations

import math

from knowledge_harness.trust.validate.judges.lexical import LexicalJudge, RelatedWords, prepare
from knowledge_harness.trust.validate.judges.lexical_features import LANGUAGE_FEATURES, LogisticModel
from knowledge_harness.trust.validate.judges.lexical_model import columns_of, fitted_models
from knowledge_harness.trust.validate.validation_models import EvidenceIn


def gate_counts(claim: str, evidence: str, related: RelatedWords | None) -> tuple[int, int]:
    """(claim words absent from the page, claim words missing from the best window) as the gate counts them."""
    n = len(LANGUAGE_FEATURES["en"])
    never = LogisticModel(columns_of(LANGUAGE_FEATURES["en"]), (0.0,) * n, (1.0,) * n, (0.0,) * n, 0.0, math.inf)
    judge = LexicalJudge(models={"ja": fitted_models()["ja"], "en": never}, related=related)
    found = judge.align(claim, prepare(EvidenceIn(source_id="e", text=evidence)))
    assert found.verdict == "unsupported" and found.gate is not None
    return found.gate.absent, found.gate.missing
