"""Dates and times given at a door (`--today`, MCP `today`, `since`): one parser, one message style."""

from __future__ import annotations

import datetime as dt

from ..errors import InputError


def parse_day(text: str | None, *, name: str) -> dt.date | None:
    """A YYYY-MM-DD date given as option or argument `name`; None when not given."""
    if text is None:
        return None
    try:
        return dt.date.fromisoformat(text)
    except ValueError as exc:
        raise InputError(f"{name} must be a date like 2026-12-02 (YYYY-MM-DD), got {text!r}.") from exc


def parse_moment(text: str, *, name: str) -> dt.datetime:
    """An ISO 8601 time given as `name`, aware (a time without an offset is taken as UTC)."""
    try:
        moment = dt.datetime.fromisoformat(text.strip())
    except ValueError as exc:
        raise InputError(f"{name} must be a time like 2026-12-02T10:00:00Z (ISO 8601), got {text!r}.") from exc
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=dt.UTC)
