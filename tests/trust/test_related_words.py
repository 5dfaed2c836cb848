"""The default judge's table of related English words (WordNet 3.0 synonyms and derivationally related
forms, trust/validate/judges/related_words.txt.gz): read in plain Python from the package, only for the page."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from knowledge_harness.trust.validate.judges.lexical_features import normalize
from knowledge_harness.trust.validate.judges.related_words import RELATED_WORDS, RelatedTable
from knowledge_harness.trust.validate.text import terms
from tests.support.gated_judge import gate_counts

REPO = Path(__file__).resolve().parents[2]


def _absent(claim: str, text: str) -> set[str]:
    return set(terms(normalize(claim)).content) - set(terms(normalize(text)).content)


def test_the_table_loads_in_plain_python_without_numpy_or_the_network_and_only_when_needed() -> None:
    # a fresh interpreter in which numpy (and the embeddings' other packages) cannot be imported and every
    # connection fails: the default judge still reads the table, and reads "physician" as "doctor"
    script = """
import importlib.abc, socket, sys
class Refuse(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {"numpy", "safetensors", "tokenizers", "wordllama"}:
            raise ImportError(name)
sys.meta_path.insert(0, Refuse())
def refuse(*a, **k):
    raise OSError("network")
socket.socket.connect = refuse
socket.create_connection = refuse
from knowledge_harness.trust.validate.judges import get_judge
from knowledge_harness.trust.validate.judges.related_words import RELATED_WORDS
judge = get_judge("lexical")
page = "The doctor opened a small clinic in Leeds in 1901. It moved to York in 1950."
judge.judge_pair("富士山は日本で最も高い山である。", "富士山は日本で最も高い山である。")
judge.judge_pair("The doctor opened a small clinic in Leeds.", page)
print(RELATED_WORDS.loaded)
judge.judge_pair("The physician opened a small clinic in Leeds in 1901.", page)
print(RELATED_WORDS.loaded)
print("doctor" in RELATED_WORDS.related("physician"), "numpy" in sys.modules)
"""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "sidecar"), str(REPO)])}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True)
    # not read for a Japanese claim, nor for an English one whose words are all on the page; read for the first
    # English claim with a word the page lacks
    assert out.stdout.split("\n")[:3] == ["False", "True", "True False"], out.stdout + out.stderr


def test_a_word_the_page_says_in_other_words_counts_as_used_on_the_page() -> None:
    claim = "The physician opened a small clinic in Leeds in 1901."
    page = "The doctor opened a small clinic in Leeds in 1901.\nIt moved to York in 1950."
    assert gate_counts(claim, page, None) == (1, 1)
    # the page uses "doctor": physician is no longer absent from it; the window still lacks the word itself
    assert gate_counts(claim, page, RELATED_WORDS) == (0, 1)
    assert RELATED_WORDS.near(claim, _absent(claim, page), normalize(page)) == _absent(claim, page)


@pytest.mark.parametrize(
    ("claim", "page"),
    [
        ("Sales decreased in the south of the country.", "Sales increased in the north of the country."),
        ("The club lost the final.", "The club won the final."),
        ("The house is large.", "The house is small."),
        ("The attorney arrived in Leeds.", "The doctor arrived in Leeds."),
        ("The museum opened early.", "The museum opened late."),
    ],
)
def test_opposites_and_words_of_one_topic_are_not_related(claim: str, page: str) -> None:
    absent = _absent(claim, page)
    assert absent
    assert RELATED_WORDS.near(claim, absent, normalize(page)) == set()


def test_a_related_word_counts_only_as_a_whole_word() -> None:
    claim = "The film was shown in Leeds."
    assert "movie" in RELATED_WORDS.related("film")
    absent = _absent(claim, "x")
    assert RELATED_WORDS.near(claim, absent, "moviegoers came to leeds.") == set()
    assert RELATED_WORDS.near(claim, absent, "the 'movie' was shown in leeds.") == {"film"}


def test_names_are_never_read_through_the_table() -> None:
    # "Bradford" and "Leeds" share no synset, but a name would bind as written even if they did
    # (Bradford in the place where the page says Leeds is a contradiction: judges/binding.py)
    claim = "The physician from Bradford opened a small clinic in Leeds in 1901."
    page = "The doctor opened a small clinic in Leeds in 1901.\nIt moved to York in 1950."
    assert gate_counts(claim, page, RELATED_WORDS)[0] == 1


def test_a_table_file_is_a_word_then_its_related_words(tmp_path: Path) -> None:
    import gzip

    path = tmp_path / "t.txt.gz"
    path.write_bytes(gzip.compress(b"# a comment\nfilm movie picture\nmovie film\n"))
    table = RelatedTable(path)
    assert table.related("film") == ["movie", "picture"]
    assert table.related("comment") == []
    assert table.near("A film about Leeds.", {"film"}, "a picture about leeds.") == {"film"}
