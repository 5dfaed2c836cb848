"""Timestamps as the sidecar writes them: UTC, whole seconds, a trailing "Z" (2026-12-02T09:30:00Z)."""

from __future__ import annotations

import datetime as dt


def utc_z(moment: dt.datetime) -> str:
    """`moment` in UTC to the second, written with "Z" (a naive moment is taken as local time)."""
    return moment.astimezone(dt.UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def now_utc_z() -> str:
    """The current time as `utc_z` writes it."""
    return utc_z(dt.datetime.now(dt.UTC))


def compact_utc_z(moment: dt.datetime) -> str:
    """`moment` in UTC as a stamp fit for a file name or an id: 20261202T093000Z."""
    return moment.astimezone(dt.UTC).strftime("%Y%m%dT%H%M%SZ")


def parse_utc_z(text: str) -> dt.datetime:
    """A timestamp written by `utc_z` (or any ISO 8601 time) back to an aware datetime."""
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))


def now_utc() -> dt.datetime:
    """The current time, aware, in UTC, to the second (what `utc_z` would write of it)."""
    return dt.datetime.now(dt.UTC).replace(microsecond=0)
