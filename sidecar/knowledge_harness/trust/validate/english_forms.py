"""English words that one fact is written with in several ways, read as one word by the judge's terms.

A page and a claim about it often spell the same thing differently: a month abbreviated ("Nov 10, 2018"
against "November 10, 2018"), a nationality against its country ("Canadian" against "Canada"), British
against American spelling ("230 metres" against "230 meters", "organisation" against "organization"), an
ordinal in digits against one in words ("15th-century" against "fifteenth century"). Each table maps a
word to the form both sides are read as; `search_forms` lists, for the judge's lazy sentence index, the
texts a page may hold such a word in. Pure data and functions: no I/O.
"""

from __future__ import annotations

import functools
import re

MONTH_ABBREVIATIONS = {
    "jan": "january",
    "feb": "february",
    "mar": "march",
    "apr": "april",
    "jun": "june",
    "jul": "july",
    "aug": "august",
    "sep": "september",
    "sept": "september",
    "oct": "october",
    "nov": "november",
    "dec": "december",
}

# nationality or language adjective -> the place (a plural "Canadians" is read as "Canadian")
DEMONYMS = {
    "afghan": "afghanistan",
    "african": "africa",
    "albanian": "albania",
    "algerian": "algeria",
    "american": "america",
    "argentine": "argentina",
    "argentinian": "argentina",
    "armenian": "armenia",
    "asian": "asia",
    "australian": "australia",
    "austrian": "austria",
    "bangladeshi": "bangladesh",
    "belgian": "belgium",
    "bolivian": "bolivia",
    "brazilian": "brazil",
    "british": "britain",
    "bulgarian": "bulgaria",
    "cambodian": "cambodia",
    "canadian": "canada",
    "chilean": "chile",
    "chinese": "china",
    "colombian": "colombia",
    "croatian": "croatia",
    "cuban": "cuba",
    "czech": "czechia",
    "danish": "denmark",
    "dutch": "netherlands",
    "ecuadorian": "ecuador",
    "egyptian": "egypt",
    "english": "england",
    "estonian": "estonia",
    "ethiopian": "ethiopia",
    "european": "europe",
    "filipino": "philippines",
    "finnish": "finland",
    "french": "france",
    "georgian": "georgia",
    "german": "germany",
    "ghanaian": "ghana",
    "greek": "greece",
    "hungarian": "hungary",
    "icelandic": "iceland",
    "indian": "india",
    "indonesian": "indonesia",
    "iranian": "iran",
    "iraqi": "iraq",
    "irish": "ireland",
    "israeli": "israel",
    "italian": "italy",
    "jamaican": "jamaica",
    "japanese": "japan",
    "jordanian": "jordan",
    "kenyan": "kenya",
    "korean": "korea",
    "latvian": "latvia",
    "lebanese": "lebanon",
    "libyan": "libya",
    "lithuanian": "lithuania",
    "malaysian": "malaysia",
    "mexican": "mexico",
    "moroccan": "morocco",
    "nepali": "nepal",
    "nigerian": "nigeria",
    "norwegian": "norway",
    "pakistani": "pakistan",
    "palestinian": "palestine",
    "peruvian": "peru",
    "portuguese": "portugal",
    "romanian": "romania",
    "russian": "russia",
    "saudi": "saudi arabia",
    "scottish": "scotland",
    "serbian": "serbia",
    "singaporean": "singapore",
    "slovak": "slovakia",
    "slovenian": "slovenia",
    "somali": "somalia",
    "spanish": "spain",
    "sudanese": "sudan",
    "swedish": "sweden",
    "swiss": "switzerland",
    "syrian": "syria",
    "taiwanese": "taiwan",
    "thai": "thailand",
    "tunisian": "tunisia",
    "turkish": "turkey",
    "ugandan": "uganda",
    "ukrainian": "ukraine",
    "venezuelan": "venezuela",
    "vietnamese": "vietnam",
    "welsh": "wales",
    "zimbabwean": "zimbabwe",
}

# British roots read as their American spelling; a word starting with the root takes the American one
# ("colourful" = "colorful", "metres" = "meters", "travelling" = "traveling")
BRITISH_ROOTS = {
    "ardour": "ardor",
    "armour": "armor",
    "behaviour": "behavior",
    "calibre": "caliber",
    "cancell": "cancel",
    "candour": "candor",
    "catalogue": "catalog",
    "centimetre": "centimeter",
    "centre": "center",
    "clamour": "clamor",
    "colour": "color",
    "counsell": "counsel",
    "defence": "defense",
    "demeanour": "demeanor",
    "endeavour": "endeavor",
    "favour": "favor",
    "fervour": "fervor",
    "fibre": "fiber",
    "flavour": "flavor",
    "fuell": "fuel",
    "harbour": "harbor",
    "honour": "honor",
    "humour": "humor",
    "kilometre": "kilometer",
    "labell": "label",
    "labour": "labor",
    "licence": "license",
    "litre": "liter",
    "lustre": "luster",
    "manoeuvre": "maneuver",
    "meagre": "meager",
    "metre": "meter",
    "millimetre": "millimeter",
    "modell": "model",
    "neighbour": "neighbor",
    "odour": "odor",
    "offence": "offense",
    "parlour": "parlor",
    "rigour": "rigor",
    "rumour": "rumor",
    "sabre": "saber",
    "saviour": "savior",
    "savour": "savor",
    "sombre": "somber",
    "spectre": "specter",
    "splendour": "splendor",
    "theatre": "theater",
    "travell": "travel",
    "tumour": "tumor",
    "valour": "valor",
    "vapour": "vapor",
    "vigour": "vigor",
}
_BRITISH_STARTS = frozenset(root[:4] for root in BRITISH_ROOTS)
BRITISH_WORDS = {"programme": "program", "programmes": "programs", "grey": "gray", "tyre": "tire", "tyres": "tires"}

# terms (stemmed words) that say the same thing, read as the first: "started" = "began", "death" = "died"
SAME_TERMS = {
    "start": "begin",
    "commenc": "begin",
    "death": "die",
    "died": "die",
    "born": "birth",
    "purchas": "buy",
}

# -ise/-yse and their inflections read as -ize/-yze ("organised" = "organized", "analyse" = "analyze")
_ISE = re.compile(r"(?<=[a-z]{2})([iy])s(e|es|ed|ing|ation|ations|er|ers)$")

_UNITS = ("", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth")
_TEENS = (
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
)
_TENS = ("", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_TENTHS = ("", "", "twentieth", "thirtieth", "fortieth", "fiftieth", "sixtieth", "seventieth", "eightieth", "ninetieth")


def ordinal_word(value: int) -> str:
    """The English word of an ordinal 1–99 ("fifteenth", "twenty-first"); "" outside that range."""
    if not 1 <= value <= 99:
        return ""
    if value < 10:
        return _UNITS[value]
    if value < 20:
        return _TEENS[value - 10]
    tens, units = divmod(value, 10)
    return _TENTHS[tens] if units == 0 else f"{_TENS[tens]}-{_UNITS[units]}"


ORDINAL_DIGITS = {ordinal_word(n): f"{n}" for n in range(1, 100)}  # "fifteenth" -> "15" (a page may write "15th")


@functools.lru_cache(maxsize=65536)
def canonical_word(word: str) -> str:
    """The one form both a claim and a page are read as (lower-case word, before stemming)."""
    if word in MONTH_ABBREVIATIONS:
        return MONTH_ABBREVIATIONS[word]
    singular = word[:-1] if word.endswith("s") and word[:-1] in DEMONYMS else word
    if singular in DEMONYMS:
        return DEMONYMS[singular].split()[0]
    if word.startswith("co-") and len(word) > 5:  # "co-operation" = "cooperation", "co-star" = "costar"
        word = "co" + word[3:]
    if word in BRITISH_WORDS:
        return BRITISH_WORDS[word]
    if word[:4] in _BRITISH_STARTS:
        for length in range(4, min(len(word), 10) + 1):
            american = BRITISH_ROOTS.get(word[:length])
            if american is not None:
                word = american + word[length:]
                break
    return _ISE.sub(r"\1z\2", word) if len(word) > 5 and ("is" in word or "ys" in word) else word


def _written_forms() -> dict[str, set[str]]:
    """canonical word -> the other words a page may write it as."""
    forms: dict[str, set[str]] = {}
    for table in (MONTH_ABBREVIATIONS, BRITISH_WORDS):
        for written, canonical in table.items():
            forms.setdefault(canonical, set()).add(written)
    for demonym, place in DEMONYMS.items():
        forms.setdefault(place.split()[0], set()).add(demonym)
    for word, digits in ORDINAL_DIGITS.items():
        forms.setdefault(word, set()).update(digits + suffix for suffix in ("st", "nd", "rd", "th"))  # "13rd" too
    return forms


_WRITTEN_FORMS = _written_forms()
_AMERICAN_ROOTS = {american: british for british, american in BRITISH_ROOTS.items()}


@functools.lru_cache(maxsize=65536)
def written_forms(word: str) -> tuple[str, ...]:
    """Texts other than `word` itself that a page may hold it in, each the start of such a word (for the
    judge's lazy sentence index: a sentence holding none of them and not `word` never holds the term)."""
    forms = set(_WRITTEN_FORMS.get(word, ()))
    forms.update(other for other, same in SAME_TERMS.items() if same == word)
    # the spellings undone one after the other, so that they combine ("co-organised" = "coorganized")
    spellings = {word}
    if word.startswith("co") and len(word) > 2:
        spellings.add("co-" + word[2:])
    for spelling in list(spellings):
        for length in range(4, min(len(spelling), 10) + 1):
            british = _AMERICAN_ROOTS.get(spelling[:length])
            if british is not None:
                spellings.add(british + spelling[length:])
    for spelling in list(spellings):
        at = max(spelling.rfind("iz"), spelling.rfind("yz"))
        if at > 1:
            spellings.add(spelling[: at + 1] + "s" + spelling[at + 2 :])
    forms |= spellings
    forms.discard(word)
    return tuple(sorted(forms))


# -- calendar dates ------------------------------------------------------------------------------------
# A claim's day of a month binds as a whole: "on 27 July 2018" is not stated by a page that holds "July",
# "27" and "2018" in three other places. The page may write the date in any of the usual ways.
MONTH_NAMES = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
_MONTH_NUMBERS = {name.lower(): number for number, name in enumerate(MONTH_NAMES, start=1)}
_MONTH_NUMBERS |= {short: _MONTH_NUMBERS[full] for short, full in MONTH_ABBREVIATIONS.items()}
_MONTH = r"(" + "|".join(sorted(_MONTH_NUMBERS, key=len, reverse=True)) + r")\.?"
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_DAY_RANGE_END = r"(?:\s*[\-\u2013\u2014]\s*(\d{1,2})(?:st|nd|rd|th)?)?"
_MONTH_DAY = re.compile(rf"\b{_MONTH}\s+{_DAY}{_DAY_RANGE_END}(?![\d:])", re.IGNORECASE)
_DAY_MONTH = re.compile(rf"(?<![\d.,:])\b{_DAY}{_DAY_RANGE_END}\s+(?:of\s+)?{_MONTH}\b", re.IGNORECASE)
_ISO_DATE = re.compile(r"\b(?:1\d|20)\d\d-(\d\d)-(\d\d)\b")
_NUMERIC_DATE = re.compile(r"\b(\d{1,2})([/.])(\d{1,2})\2(?:1\d|20)?\d\d\b")


def calendar_dates(text: str, *, claim: bool = False) -> frozenset[tuple[int, int]]:
    """The (month, day) dates a text states: "July 27", "27 July", "27th of July", "Jul. 27–29" (both ends),
    "2018-07-27", and on a page "7/27/2018" or "27.07.2018" read both ways round. In a claim a month is
    read only when capitalized, so that "may 15" is not May 15 ("it may 15 times" is no date)."""
    found: set[tuple[int, int]] = set()

    def month_of(word: str) -> int | None:
        if claim and not word[0].isupper():
            return None
        return _MONTH_NUMBERS.get(word.lower())

    for m in _MONTH_DAY.finditer(text):
        month = month_of(m.group(1))
        if month is not None:
            found.update((month, int(day)) for day in (m.group(2), m.group(3)) if day)
    for m in _DAY_MONTH.finditer(text):
        month = month_of(m.group(3))
        if month is not None:
            found.update((month, int(day)) for day in (m.group(1), m.group(2)) if day)
    for m in _ISO_DATE.finditer(text):
        found.add((int(m.group(1)), int(m.group(2))))
    if not claim:
        for m in _NUMERIC_DATE.finditer(text):
            a, b = int(m.group(1)), int(m.group(3))
            found.update({(a, b), (b, a)})
    return frozenset((month, day) for month, day in found if 1 <= month <= 12 and 1 <= day <= 31)
