"""The index's JSON is the same bytes whether orjson or the standard library writes it (a new
`kh index build` process writes with the standard library; everything else with orjson)."""

from __future__ import annotations

import sys
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from knowledge_harness.core import jsoncodec
from tests.support.examples import examples

# what the index holds: text, 64-bit integers, booleans, null, lists and text-keyed objects
TEXT = st.text(st.characters(exclude_categories=["Cs"]), max_size=30)
SCALARS = st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | TEXT
VALUES = st.recursive(
    SCALARS, lambda inner: st.lists(inner, max_size=5) | st.dictionaries(TEXT, inner, max_size=5), max_leaves=25
)


def _both(value: Any, **options: bool) -> tuple[bytes, bytes]:
    fast = jsoncodec.dumps(value, **options)
    with jsoncodec.standard_library_only(even_if_loaded=True):
        standard = jsoncodec.dumps(value, **options)
    return fast, standard


def test_every_character_is_written_the_same_by_both_libraries() -> None:
    characters = [chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]
    for start in range(0, len(characters), 4096):  # in strings of 4,096 characters, and one by one
        chunk = characters[start : start + 4096]
        fast, standard = _both(["".join(chunk), *chunk])
        assert fast == standard, f"characters from U+{ord(chunk[0]):04X}"


@settings(max_examples=examples(1.0))
@given(VALUES, st.booleans(), st.booleans())
def test_index_values_are_written_and_read_the_same_by_both_libraries(
    value: Any, sort_keys: bool, newline: bool
) -> None:
    fast, standard = _both(value, sort_keys=sort_keys, newline=newline)
    assert fast == standard
    assert fast.endswith(b"\n") == newline
    with jsoncodec.standard_library_only(even_if_loaded=True):
        read_by_standard = jsoncodec.loads(fast)
    assert jsoncodec.loads(fast) == read_by_standard == value


def test_keys_are_sorted_by_code_point_by_both_libraries() -> None:
    value = {"é": 1, "e": 2, "z": 3, "日本": 4, "\U0001f600": 5, "ｚ": 6}
    fast, standard = _both(value, sort_keys=True)
    assert fast == standard == '{"e":2,"z":3,"é":1,"日本":4,"ｚ":6,"😀":5}'.encode()


def test_malformed_json_is_a_value_error_for_both_libraries() -> None:
    for raw in (b"{", b'{"a":}', b"\xff", b""):
        for forced in (False, True):
            with jsoncodec.standard_library_only(even_if_loaded=forced):
                try:
                    jsoncodec.loads(raw)
                except ValueError:
                    continue
                raise AssertionError(f"{raw!r} was read")


def _library_in_use() -> str:
    """A float is the one value they write differently: orjson 1.5e-7, the standard library 1.5e-07."""
    return "orjson" if jsoncodec.dumps(1.5e-7) == b"1.5e-7" else "standard"


def test_the_standard_library_is_used_only_inside_and_only_while_orjson_is_not_loaded() -> None:
    assert "orjson" in sys.modules or _library_in_use() == "orjson"  # first use imports it
    assert "orjson" in sys.modules
    assert _library_in_use() == "orjson"
    with jsoncodec.standard_library_only():  # orjson is loaded: it costs nothing more to use it
        assert _library_in_use() == "orjson"
    with jsoncodec.standard_library_only(even_if_loaded=True):
        assert _library_in_use() == "standard"
        with jsoncodec.standard_library_only():  # a nested call keeps the outer choice
            assert _library_in_use() == "standard"
        assert _library_in_use() == "standard"
    assert _library_in_use() == "orjson"
