"""What a build returns and the headings page limits: all that `kh index build` needs of the
index's answers, without Pydantic (importing it and building a model's validator cost a new
process ~80 ms, as much as an incremental build of a one-line edit). index/schema.py holds the
validated model the doors serve (BuildReport) and re-exports the limits."""

from __future__ import annotations

from typing import Any, NamedTuple

# one headings answer holds at most MAX_HEADINGS headings and MAX_LINKS links (~1 MB of JSON):
# a 20 MB note with 383,000 headings once made one answer of 80 MB
DEFAULT_HEADINGS = 1000
MAX_HEADINGS = 5000


class BuildOutcome(NamedTuple):
    """Counts, per-note errors and timing of one build (BuildReport's fields, in the same order)."""

    notes: int
    headings: int
    links: int
    errors: list[dict[str, Any]]
    seconds: float
    reparsed: int = 0
    removed: int = 0
    files_written: int = 0
    fallback_notes: int = 0
