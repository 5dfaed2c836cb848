"""Word neighbours from WordLlama's token embeddings: the lexical judge reading an English word the page
never uses as used when the page holds a word of like meaning (measured, not shipped: docs/validator.md).

WordLlama (PyPI `wordllama`, MIT) ships a 32,000 × 256 token-embedding matrix and its tokenizer inside its
wheel, so nothing is downloaded at run time; its own loader would still try the network for the
tokenizer file the wheel already holds, so the two files are read here directly. A word's vector is the
mean of its tokens' rows, normalized; two words are neighbours when their cosine reaches `threshold`.
The judge asks `near` through its `RelatedWords` seam (judges/lexical.py): for the claim's terms absent
from the page, and for those missing from the best window.

    pip install wordllama   # not part of the project's install
    python bench/judge_train.py --profile embeddings --dry-run          # the nested protocol
    python bench/judge_train.py --profile embeddings --splits 8 --lang en  # and the eight-split check
"""

from __future__ import annotations

import functools
import re
from collections import OrderedDict
from importlib import resources
from typing import Any

from knowledge_harness.trust.judges.lexical import VERSION, LexicalJudge
from knowledge_harness.trust.judges.lexical_features import LogisticModel, normalize
from knowledge_harness.trust.text import terms
from knowledge_harness.trust.validation_models import ValidatorInfo

DEFAULT_THRESHOLD = 0.6
_WORD = re.compile(r"[a-z][a-z']+")
_PAGES_KEPT = 8  # a note's claims are judged against the same few pages in turn


@functools.cache
def _model() -> tuple[Any, Any]:
    """The tokenizer and the token-embedding matrix shipped in the wordllama wheel."""
    import numpy as np
    from safetensors import safe_open
    from tokenizers import Tokenizer

    package = resources.files("wordllama")
    tokenizer = Tokenizer.from_file(str(package / "tokenizers" / "l2_supercat_tokenizer_config.json"))
    tokenizer.no_padding()
    with safe_open(str(package / "weights" / "l2_supercat_256.safetensors"), framework="np", device="cpu") as f:
        matrix = np.asarray(f.get_tensor("embedding.weight"), dtype=np.float32)
    return tokenizer, matrix


def _term_of(word: str) -> str | None:
    found = terms(word).content
    return found[0] if len(found) == 1 else None


class EmbeddingNeighbours:
    """`RelatedWords` by cosine between WordLlama word vectors (see the module docstring)."""

    def __init__(self, threshold: float = DEFAULT_THRESHOLD) -> None:
        self.threshold = threshold
        self._tokenizer, self._matrix = _model()
        self._vectors: dict[str, Any] = {}
        self._pages: OrderedDict[str, Any] = OrderedDict()

    def _embed(self, words: list[str]) -> Any:
        import numpy as np

        new = [w for w in words if w not in self._vectors]
        if new:
            for word, encoding in zip(new, self._tokenizer.encode_batch(new, add_special_tokens=False), strict=True):
                ids = encoding.ids or [0]
                v = self._matrix[ids].mean(axis=0)
                self._vectors[word] = v / (float(np.linalg.norm(v)) or 1.0)
        return np.stack([self._vectors[w] for w in words]) if words else np.zeros((0, self._matrix.shape[1]))

    def _page(self, text: str) -> Any:
        found = self._pages.get(text)
        if found is None:
            words = sorted({w for w in _WORD.findall(normalize(text)) if len(w) > 2 and _term_of(w)})
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
        for word in _WORD.findall(normalize(claim)):
            term = _term_of(word)
            if term in absent:
                by_term.setdefault(term, []).append(word)
        if not by_term:
            return set()
        page = self._page(text)
        if page.shape[0] == 0:
            return set()
        return {term for term, words in by_term.items() if float((self._embed(words) @ page.T).max()) >= self.threshold}


def embeddings_judge(models: dict[str, LogisticModel], threshold: float = DEFAULT_THRESHOLD) -> LexicalJudge:
    """The lexical judge reading English words through their WordLlama neighbours."""
    return LexicalJudge(
        models=models,
        related=EmbeddingNeighbours(threshold),
        info=ValidatorInfo(
            name="lexical+embeddings", version=VERSION, model=f"wordllama l2_supercat_256, cosine >= {threshold}"
        ),
    )
