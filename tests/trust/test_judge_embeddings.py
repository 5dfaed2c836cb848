"""The optional lexical_embeddings judge: English words read through their WordLlama neighbours, loaded
from the wheel without the network. Skipped only when the `embeddings` extra is not installed (make
setup installs it)."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("wordllama")

from knowledge_harness.trust.validate.judges import get_judge
from knowledge_harness.trust.validate.judges.embedded import (
    PROFILE,
    EmbeddingNeighbours,
    _model,
    _shipped,
    embeddings_judge,
)
from knowledge_harness.trust.validate.judges.lexical import LexicalJudge
from knowledge_harness.trust.validate.judges.lexical_features import normalize
from knowledge_harness.trust.validate.judges.lexical_model import fitted_models
from knowledge_harness.trust.validate.text import terms
from knowledge_harness.trust.validate.validation_models import ClaimIn, EvidenceIn, ValidationRequest
from knowledge_harness.trust.validate.validator import validate


def _absent(claim: str, text: str) -> set[str]:
    return set(terms(normalize(claim)).content) - set(terms(normalize(text)).content)


def test_the_embeddings_load_from_the_wheel_without_the_network(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_: object, **__: object) -> None:
        raise AssertionError("the embeddings tried the network")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    _model.cache_clear()
    tokenizer, matrix = _model()
    assert matrix.shape == (32000, 256)
    assert tokenizer.encode("physician", add_special_tokens=False).ids


def test_words_of_like_meaning_are_neighbours() -> None:
    claim, page = "The physician saw the movie with an attorney.", "The doctor saw the film with a lawyer."
    absent = _absent(claim, page)
    assert len(absent) == 3
    assert EmbeddingNeighbours(0.6).near(claim, absent, page) == absent


def test_opposites_and_words_of_one_topic_are_not() -> None:
    for claim, page in (
        ("Sales decreased in the south.", "Sales increased in the north."),
        ("The attorney arrived.", "The doctor arrived."),
        ("The club won the cup in Leeds.", "The club lost the cup in Leeds."),
    ):
        absent = _absent(claim, page)
        assert absent
        assert EmbeddingNeighbours(0.6).near(claim, absent, page) == set(), claim


def test_a_higher_cosine_admits_fewer_neighbours() -> None:
    claim, page = "The physician saw the movie with an attorney.", "The doctor saw the film with a lawyer."
    absent = _absent(claim, page)
    loose, strict = (
        EmbeddingNeighbours(0.6).near(claim, absent, page),
        EmbeddingNeighbours(0.8).near(claim, absent, page),
    )
    assert strict < loose  # film/movie stays; physician/doctor and attorney/lawyer do not reach 0.8


def test_the_profile_is_registered_names_its_reading_and_reads_japanese_as_the_default() -> None:
    judge = get_judge(PROFILE)
    _, cosine = _shipped()
    assert judge.info.name == PROFILE
    # the shipped cosine is what fitting chose; none means the default's reading, and the record says so
    assert ("wordllama" in (judge.info.model or "")) == (cosine is not None)
    assert isinstance(judge, LexicalJudge)
    default = LexicalJudge()
    for claim, evidence in (
        ("白熊が、仰向けになって寝ています。", "白クマが日陰で仰向けで寝ています。"),
        ("富士山は日本で最も低い山である。", "富士山は日本で最も高い山である。"),
    ):
        assert judge.judge_pair(claim, evidence) == default.judge_pair(claim, evidence)


_PINNED = json.loads((Path(__file__).parent / "data" / "judge_real_pairs_embeddings.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("pair", _PINNED["pairs"], ids=[p["id"] for p in _PINNED["pairs"]])
def test_real_pairs_the_default_and_the_embeddings_reading_judge_differently(pair: dict[str, Any]) -> None:
    # a paraphrase the default cannot see ("younger sister" of two named people against "two siblings"),
    # seen when the words are read through their WordLlama neighbours at cosine 0.6 (the default's model)
    request = ValidationRequest(
        claims=[ClaimIn(id="c", text=pair["claim"])],
        evidence=[EvidenceIn(source_id="e", url="https://example.org/e", text=pair["evidence"])],
    )
    assert validate(request, LexicalJudge()).verdict == pair["expected_default"]
    assert validate(request, embeddings_judge(fitted_models(), 0.6)).verdict == pair["expected_embeddings"]
