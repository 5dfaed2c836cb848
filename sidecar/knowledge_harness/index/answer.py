"""The base of the index's answers, the build's report and the headings page limits: all that
`kh index build` needs of index/schema.py, whose other models cost a new process ~20-50 ms to
define (schema.py re-exports these)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

# one headings answer holds at most MAX_HEADINGS headings and MAX_LINKS links (~1 MB of JSON):
# a 20 MB note with 383,000 headings once made one answer of 80 MB
DEFAULT_HEADINGS = 1000
MAX_HEADINGS = 5000


class Answer(BaseModel):
    # Pydantic builds a model's validator on first use, not at import: `kh index build` needs one
    # of these models, once, and a new process should not pay for all of them.
    model_config = ConfigDict(defer_build=True)


class BuildReport(Answer):
    notes: int
    headings: int
    links: int
    errors: list[dict[str, Any]]
    seconds: float
    reparsed: int = 0
    removed: int = 0
    files_written: int = 0
    fallback_notes: int = Field(
        default=0, description="Notes whose structure the scanner left to markdown-it-py (block parse)."
    )
