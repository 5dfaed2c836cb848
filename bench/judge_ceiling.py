"""How many of WiCE's supported claims ANY quote gate could pass with the oracle's quotes.

Issue #42 asks two things of the quote gate: that a `supported` finding stand only when its
quotes state every number, date and name of the claim, and that an oracle stand-in quoting
WiCE's gold `supporting_sentence_sets` end `pass` on >= 90 % of supported pairs. This counts,
without any of the product's code, the supported WiCE pairs whose claim's numbers and names are
written in those quotes at all (and, more generously still, anywhere on the cited page): no gate
that checks them can pass more.

The count is deliberately generous, so that it is a ceiling and not an estimate:
  numbers  each run of digits of the claim (thousands commas dropped) must appear in the text,
           or, for 1-20, its English word or ordinal ("ninth" for 9th);
  names    each capitalised run of the claim (the claim's first word skipped when it stands alone;
           months count as names of dates), present when the first five letters of ANY of its
           words of 3+ letters appear in the text, in any case ("Upton" is enough for "Kate
           Upton", "Libya" for "Libyan").

    .venv/bin/python -m bench.judge_ceiling        (KH_JUDGE_DATA=DIR for the data)
"""

from __future__ import annotations

import re
import sys
from typing import Any

from bench.judge_gate import load_pairs

_NUMBER = re.compile(r"\d(?:[\d,.]*\d)?")
_NAME = re.compile(r"[A-Z][\w'’.&-]*(?:[ \t]+(?:(?:of|the|de|and|&)[ \t]+)?[A-Z][\w'’.&-]*)*")
_COMMON = frozenset(
    [
        "The",
        "A",
        "An",
        "In",
        "On",
        "At",
        "By",
        "For",
        "Of",
        "And",
        "But",
        "Or",
        "As",
        "To",
        "From",
        "With",
        "After",
        "Before",
        "During",
        "Since",
        "While",
        "When",
        "Where",
        "Although",
        "However",
        "Also",
        "Both",
        "Each",
        "His",
        "Her",
        "Its",
        "Their",
        "He",
        "She",
        "It",
        "They",
        "This",
        "That",
        "These",
        "Those",
        "There",
        "Instead",
        "Then",
        "Later",
        "Today",
        "Currently",
    ]
)
_WORDS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
]
_ORDINALS = [
    "zeroth",
    "first",
    "second",
    "third",
    "fourth",
    "fifth",
    "sixth",
    "seventh",
    "eighth",
    "ninth",
    "tenth",
    "eleventh",
    "twelfth",
    "thirteenth",
    "fourteenth",
    "fifteenth",
    "sixteenth",
    "seventeenth",
    "eighteenth",
    "nineteenth",
    "twentieth",
]


def numbers(claim: str) -> list[str]:
    return [m.group().replace(",", "").rstrip(".") for m in _NUMBER.finditer(claim)]


def name_words(claim: str) -> list[list[str]]:
    names = []
    for m in _NAME.finditer(claim):
        words = [re.sub(r"['’]s$", "", w.strip(".,'’")) for w in m.group().split()]
        if words and (words[0] in _COMMON or (m.start() == 0 and len(words) == 1)):
            words = words[1:]
        words = [w for w in words if len(w) >= 3]
        if words:
            names.append(words)
    return names


def has_number(number: str, text: str) -> bool:
    if number in text.replace(",", ""):
        return True
    if number.isdigit() and int(number) <= 20:
        return bool(re.search(rf"\b(?:{_WORDS[int(number)]}|{_ORDINALS[int(number)]})\b", text, re.IGNORECASE))
    return False


def could_pass(claim: str, text: str) -> bool:
    """Every number and (a word of) every name of `claim` is somewhere in `text`."""
    lowered = text.lower()
    return all(has_number(n, text) for n in numbers(claim)) and all(
        any(w[:5].lower() in lowered for w in words) for words in name_words(claim)
    )


def ceiling(pairs: list[dict[str, Any]]) -> dict[str, tuple[int, int]]:
    supported = [p for p in pairs if p["corpus"] == "wice" and p["label"] == "supported"]
    quotes = sum(could_pass(p["claim"], "\n".join(p["gold"])) for p in supported)
    page = sum(could_pass(p["claim"], p["evidence"]) for p in supported)
    return {"oracle's quotes": (quotes, len(supported)), "the whole page": (page, len(supported))}


def main() -> None:
    for where, (n, total) in ceiling(load_pairs(None)).items():
        print(f"WiCE supported pairs whose numbers and names are in {where}: {n} of {total} ({n / total:.1%})")


if __name__ == "__main__":
    main()
    sys.exit(0)
