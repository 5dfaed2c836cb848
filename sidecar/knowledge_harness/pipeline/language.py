"""Is a text written in Japanese? A script count, good enough to refuse English or copied text.

Technical Japanese mixes in many Latin terms (`YAML 1.2 の core schema では…`), so the rule is
lenient on Latin letters: a text is Japanese when it has kana (kanji alone could be Chinese),
at least `MIN_JAPANESE_CHARS` Japanese characters, and Japanese characters make at least
`MIN_JAPANESE_SHARE` of its letters (kana, kanji and Latin letters; digits and symbols ignored).
"""

from __future__ import annotations

import re

MIN_JAPANESE_CHARS = 8
MIN_JAPANESE_SHARE = 0.3

_KANA = re.compile(r"[\u3041-\u309f\u30a1-\u30ff\uff66-\uff9f]")
_KANJI = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LATIN = re.compile(r"[A-Za-z\uff21-\uff3a\uff41-\uff5a]")


def is_japanese(text: str) -> bool:
    kana = len(_KANA.findall(text))
    japanese = kana + len(_KANJI.findall(text))
    latin = len(_LATIN.findall(text))
    if kana == 0 or japanese < MIN_JAPANESE_CHARS:
        return False
    return japanese / (japanese + latin) >= MIN_JAPANESE_SHARE
