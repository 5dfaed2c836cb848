"""The optional `lexical_embeddings` judge: the lexical judge reading an English word that the page never
uses as used when the page holds a word of like meaning, by WordLlama's token embeddings.

WordLlama (PyPI `wordllama`, MIT) ships a 32,000 × 256 token-embedding matrix and its tokenizer inside its
wheel, so nothing is downloaded at run time; its own loader would still try the network for the
tokenizer file the wheel already holds, so the two files are read here directly. A word's vector is the
mean of its tokens' rows, normalized; two words are neighbours when their cosine reaches the profile's
threshold. The judge asks `near` through its `RelatedWords` seam (judges/lexical.py): for the claim's
terms absent from the page, and for those missing from the best window; never for a name or a word
holding a digit. The English model and the cosine are fitted and chosen by
`bench/judge_train.py --profile embeddings` into lexical_embeddings_model.json; Japanese is read as the
default judge reads it. Install: `pip install 'knowledge-harness[embeddings]'` (`make setup` does).
"""

from __future__ import annotations

import functools
import json
from collections import OrderedDict
from importlib import resources
from typing import Any

from ..validation_models import ValidatorInfo
from .base import UnknownJudge
from .lexical import VERSION, LexicalJudge
from .lexical_features import LogisticModel, normalize
from .lexical_model import fitted_models, model_from_json
from .related_words import RELATED_WORDS, WORD, term_of

DEFAULT_THRESHOLD = 0.6
_PAGES_KEPT = 8  # a note's claims are judged against the same few pages in turn


PROFILE = "lexical_embeddings"
MODEL_FILE = "lexical_embeddings_model.json"


class EmbeddingsMissing(UnknownJudge):
    """The profile's extra is not installed."""


@functools.cache
def _model() -> tuple[Any, Any]:
    """The tokenizer and the token-embedding matrix shipped in the wordllama wheel."""
    try:
        import numpy as np
        from safetensors.numpy import load
        from tokenizers import Tokenizer

        package = resources.files("wordllama")
    except ImportError as exc:
        raise EmbeddingsMissing(f"The {PROFILE} judge needs: pip install 'knowledge-harness[embeddings]'.") from exc
    tokenizer = Tokenizer.from_str((package / "tokenizers" / "l2_supercat_tokenizer_config.json").read_text("utf-8"))
    tokenizer.no_padding()
    weights = load((package / "weights" / "l2_supercat_256.safetensors").read_bytes())
    matrix = np.asarray(weights["embedding.weight"], dtype=np.float32)
    return tokenizer, matrix


class EmbeddingNeighbours:
    """`RelatedWords` by cosine between WordLlama word vectors (see the module docstring)."""

    reads_window = True

    def __init__(self, threshold: float = DEFAULT_THRESHOLD) -> None:
        self.threshold = threshold
        self._tokenizer, self._matrix = _model()
        self._vectors: dict[str, Any] = {}
        self._pages: OrderedDict[str, Any] = OrderedDict()

    def _embed(self, words: list[str]) -> Any:
        import numpy as np

        new = [w for w in words if w not in self._vectors]
        if new:
            token_ids = [e.ids or [0] for e in self._tokenizer.encode_batch(new, add_special_tokens=False)]
            lengths = np.array([len(ids) for ids in token_ids])
            starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
            sums = np.add.reduceat(self._matrix[[i for ids in token_ids for i in ids]], starts, axis=0)
            norms = np.linalg.norm(sums, axis=1, keepdims=True)  # the mean's direction is the sum's
            vectors = sums / np.where(norms > 0, norms, 1.0)
            self._vectors.update(zip(new, vectors, strict=True))
        return np.stack([self._vectors[w] for w in words]) if words else np.zeros((0, self._matrix.shape[1]))

    def _page(self, text: str) -> Any:
        found = self._pages.get(text)
        if found is None:
            words = sorted({w for w in WORD.findall(normalize(text)) if len(w) > 2 and term_of(w)})
            found = self._embed(words)
            self._pages[text] = found
            if len(self._pages) > _PAGES_KEPT:
                self._pages.popitem(last=False)
        else:
            self._pages.move_to_end(text)
        return found

    def near(self, claim: str, absent: set[str], text: str) -> set[str]:
        """The terms of `absent` one of whose words in `claim` has a neighbour among the words of `text`."""
        if not absent:
            return set()
        by_term: dict[str, list[str]] = {}
        for word in WORD.findall(normalize(claim)):
            term = term_of(word)
            if term in absent:
                by_term.setdefault(term, []).append(word)
        if not by_term:
            return set()
        page = self._page(text)
        if page.shape[0] == 0:
            return set()
        return {term for term, words in by_term.items() if float((self._embed(words) @ page.T).max()) >= self.threshold}


def embeddings_judge(models: dict[str, LogisticModel], threshold: float | None) -> LexicalJudge:
    """The lexical judge reading English words through their WordLlama neighbours at `threshold` (None:
    as the default judge reads them, through its related-words table)."""
    return LexicalJudge(
        models=models,
        related=EmbeddingNeighbours(threshold) if threshold is not None else RELATED_WORDS,
        info=ValidatorInfo(
            name=PROFILE,
            version=VERSION,
            model=(
                f"wordllama l2_supercat_256, cosine >= {threshold}"
                if threshold is not None
                else "the default's related words (no cosine was chosen when the profile was fitted)"
            ),
        ),
    )


@functools.cache
def _shipped() -> tuple[dict[str, LogisticModel], float | None]:
    raw = json.loads(resources.files(__package__).joinpath(MODEL_FILE).read_text(encoding="utf-8"))
    english = raw["models"]["en"]
    return {**fitted_models(), "en": model_from_json(english)}, english["cosine"]


def profile_judge() -> LexicalJudge:
    """The shipped profile: its English model and cosine (lexical_embeddings_model.json), the default's
    Japanese model."""
    models, threshold = _shipped()
    return embeddings_judge(models, threshold)
