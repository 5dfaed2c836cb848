"""The shared helpers in core/: timestamps, digests, canonical JSON, TOML files and door dates."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from knowledge_harness.core.clock import compact_utc_z, now_utc, now_utc_z, parse_utc_z, utc_z
from knowledge_harness.core.dates import parse_day, parse_moment
from knowledge_harness.core.hashing import sha256_hex
from knowledge_harness.core.jsonutil import canonical_json, jsonable
from knowledge_harness.core.tomlfile import parse_toml, read_toml
from knowledge_harness.errors import InputError, TomlInvalid

JST = dt.timezone(dt.timedelta(hours=9))


def test_utc_z_writes_utc_to_the_second_with_a_z() -> None:
    moment = dt.datetime(2026, 12, 2, 18, 30, 5, 999_999, tzinfo=JST)
    assert utc_z(moment) == "2026-12-02T09:30:05Z"
    assert compact_utc_z(moment) == "20261202T093005Z"
    assert parse_utc_z("2026-12-02T09:30:05Z") == dt.datetime(2026, 12, 2, 9, 30, 5, tzinfo=dt.UTC)


@given(st.datetimes(timezones=st.just(dt.UTC)))
def test_utc_z_round_trips_to_the_second(moment: dt.datetime) -> None:
    assert parse_utc_z(utc_z(moment)) == moment.replace(microsecond=0)


def test_now_is_whole_seconds_in_utc() -> None:
    before = dt.datetime.now(dt.UTC).replace(microsecond=0)
    now, text = now_utc(), now_utc_z()
    assert now.microsecond == 0 and now.tzinfo == dt.UTC and before <= now
    assert text.endswith("Z") and parse_utc_z(text) >= before


def test_sha256_hex_and_canonical_json() -> None:
    assert sha256_hex(b"abc") == hashlib.sha256(b"abc").hexdigest()
    value = {"b": [1, {"z": "日本語", "a": None}], "a": 1.5}
    data = canonical_json(value)
    assert data == '{"a":1.5,"b":[1,{"a":null,"z":"日本語"}]}'.encode()
    assert json.loads(data) == value


def test_jsonable_turns_yaml_values_into_json_values() -> None:
    value = {1: dt.date(2026, 1, 2), "s": {3}, "t": (dt.datetime(2026, 1, 2, 3, 4),), "b": b"\xff"}
    assert jsonable(value) == {"1": "2026-01-02", "s": [3], "t": ["2026-01-02T03:04:00"], "b": "\ufffd"}


def test_toml_reads_a_file_or_none(tmp_path: Path) -> None:
    path = tmp_path / "policy.toml"
    assert read_toml(path, what="the policy file") is None
    path.write_text('[judge]\nname = "日本"\n', encoding="utf-8")
    assert read_toml(path, what="the policy file") == {"judge": {"name": "日本"}}
    folder = tmp_path / "folder.toml"
    folder.mkdir()
    with pytest.raises(InputError, match="Cannot read the folder"):
        read_toml(folder, what="the folder")


@pytest.mark.parametrize(
    ("raw", "line", "column"),
    [
        (b"a = 1\nb = \n", 2, 5),  # a value missing
        (b"a = 1\nb = 2\n[x\n", 3, 3),  # a table header not closed
        (b"a = 1\nb = '\xff'\n", 2, 6),  # not UTF-8
        (b"a = 1\nb = [1,", 2, 8),  # the document ends inside an array
    ],
)
def test_invalid_toml_names_the_file_line_and_column(raw: bytes, line: int, column: int) -> None:
    with pytest.raises(TomlInvalid) as caught:
        parse_toml(raw, what="the policy file p.toml")
    error = caught.value
    assert (error.line, error.column) == (line, column)
    assert error.code == "invalid_input" and error.http_status == 400
    assert error.message.startswith("The policy file p.toml is not valid TOML: ")
    assert error.message.endswith(f"(at line {line}, column {column}).")


def test_door_dates_have_one_message_style() -> None:
    assert parse_day(None, name="--today") is None
    assert parse_day("2026-12-02", name="--today") == dt.date(2026, 12, 2)
    for bad in ("2026-13-01", "tomorrow", ""):
        with pytest.raises(InputError, match=r"^--today must be a date like 2026-12-02 \(YYYY-MM-DD\), got '"):
            parse_day(bad, name="--today")
    assert parse_moment(" 2026-12-02T10:00:00Z ", name="since") == dt.datetime(2026, 12, 2, 10, tzinfo=dt.UTC)
    assert parse_moment("2026-12-02T19:00:00+09:00", name="since") == dt.datetime(2026, 12, 2, 10, tzinfo=dt.UTC)
    assert parse_moment("2026-12-02T10:00", name="since").tzinfo == dt.UTC
    with pytest.raises(InputError, match=r"^since must be a time like"):
        parse_moment("yesterday", name="since")
