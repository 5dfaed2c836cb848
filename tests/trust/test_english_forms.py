"""English words written several ways are read as one term by the judge, and words that only look alike
stay apart."""

from __future__ import annotations

import pytest

from knowledge_harness.trust.validate.english_forms import calendar_dates
from knowledge_harness.trust.validate.text import search_forms, terms


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


@pytest.mark.parametrize(
    ("text", "dates"),
    [
        ("On August 22, 2017, he signed.", {(8, 22)}),
        ("She replaced him on 24 July 2019.", {(7, 24)}),
        ("It opened on the 3rd of March.", {(3, 3)}),
        ("The festival ran Jul. 27–29, 2019.", {(7, 27), (7, 29)}),
        ("Released 2018-07-27.", {(7, 27)}),
        ("The doors open at 10:30 on June 5.", {(6, 5)}),
        ("It was released in May 2018.", set()),  # a month and a year: no day
        ("the 1940s and 50s", set()),
    ],
)
def test_calendar_dates_are_read_however_they_are_written(text: str, dates: set[tuple[int, int]]) -> None:
    assert calendar_dates(text, claim=True) == dates
    assert calendar_dates(text) == dates


def test_a_page_may_write_a_date_in_digits_either_way_round_but_a_claim_names_its_month() -> None:
    assert calendar_dates("Filed 7/27/2018; heard 27.07.2018.") == {(7, 27)}
    assert calendar_dates("Filed 7/27/2018.", claim=True) == set()  # a claim's date binds only as words
    # a claim's month is read only when written as a name: "may" the verb is no month
    assert calendar_dates("Prices may 15 times exceed it.", claim=True) == set()
    assert calendar_dates("It fell on May 15.", claim=True) == {(5, 15)}
