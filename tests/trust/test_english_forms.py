"""English words written several ways are read as one term by the judge, and words that only look alike
stay apart."""

from __future__ import annotations

import pytest

from knowledge_harness.trust.text import search_forms, terms


def _words(text: str) -> set[str]:
    return set(terms(text).content)


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("Nov", "November"),
        ("Sept", "September"),
        ("Canadians", "Canada"),
        ("French", "France"),
        ("metres", "meters"),
        ("colourful", "colorful"),
        ("organisation", "organization"),
        ("travelling", "traveling"),
        ("co-operation", "cooperation"),
        ("winning", "win"),
        ("stopped", "stop"),
        ("appearance", "appeared"),
        ("elections", "elected"),
        ("announcement", "announced"),
        ("occurrence", "occurred"),
        ("started", "began"),
        ("death", "died"),
    ],
)
def test_one_word_written_two_ways_is_one_term(one: str, other: str) -> None:
    assert _words(one) == _words(other)
    # the judge finds the page's sentences holding the term from either spelling
    (term,) = _words(one)
    keys = (term, *search_forms(term))
    for written in (one.lower(), other.lower()):
        assert any(written.startswith(k.removesuffix("y")) for k in keys), (written, keys)


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("department", "depart"),
        ("question", "quest"),
        ("station", "state"),
        ("importance", "import"),
        ("add", "adding"),
    ],
)
def test_words_that_only_look_alike_stay_apart(one: str, other: str) -> None:
    if one == "add":  # a doubled d is kept ("adding" is "add", not "ad")
        assert _words(other) == {"add"}
        return
    assert _words(one) != _words(other)


def test_ordinals_and_year_ranges() -> None:
    ninth = terms("400 9th-grade students")
    assert "ninth" in ninth.content and "grad" in ninth.content and "th-grad" not in ninth.content
    assert set(terms("the 2018–19 season").numbers) == {"2018|", "2019|"}
    assert set(terms("the 2018-2019 season").numbers) == {"2018|", "2019|"}
    assert set(terms("on 2018-05-05").numbers) == {"2018|", "5|"}  # a date, not a range
    assert "twenty-first" in terms("the 21st century").content
    assert "fifteenth" in terms("the fifteenth century").content
