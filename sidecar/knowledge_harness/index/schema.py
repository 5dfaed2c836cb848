"""Answers of the index services (the same models serve REST, CLI and MCP)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..errors import InputError
from .answer import DEFAULT_HEADINGS, MAX_HEADINGS

__all__ = [
    "DEFAULT_HEADINGS",
    "MAX_HEADINGS",
    "BuildReport",
    "CheckReport",
    "HeadingsResult",
    "SearchHit",
    "SearchQuery",
    "SearchResult",
    "SearchSection",
    "SectionResult",
    "Staleness",
    "TreeResult",
    "TrustSummary",
]


class _Answer(BaseModel):
    # Pydantic builds a model's validator on first use, not at import: a door that serves one of
    # these answers should not pay for all of them
    model_config = ConfigDict(defer_build=True)


# what `POST /v1/index/build` answers: the build's outcome (index/answer.py), validated (no
# docstring: it would become the model's description in the OpenAPI document)
class BuildReport(_Answer):
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


class CheckReport(_Answer):
    status: str = Field(description="fresh | stale | missing")
    fresh: bool
    changed: list[str] = []
    added: list[str] = []
    removed: list[str] = []
    settings_changed: bool = False


class Staleness(_Answer):
    stale: bool
    changed: list[str] = []
    added: list[str] = []
    removed: list[str] = []


class TrustSummary(_Answer):
    level: int | None = None
    status: str | None = None
    fresh: bool = False
    triggers: list[str] = []
    revalidate_after: str | None = None


class SearchSection(_Answer):
    heading: str | None = Field(
        description="The heading's title; null for the preamble (the lines before the first heading)"
    )
    heading_path: list[str] = Field(description="The titles from the top-level heading down to this one")
    line: int = Field(description="First line (1-based, frontmatter counted), as in notes/<id>.json and read_section")
    end_line: int = Field(description="Last line, inclusive: pass line/end_line to read_section")
    score: float
    snippet: str = Field(description="A short excerpt of the section around the query's words")


class SearchHit(_Answer):
    path: str
    id: str
    title: str
    score: float
    type: str | list[str] | None = Field(default=None, description="The note's type property: a list when it gives one")
    status: str | list[str] | None = Field(
        default=None, description="The note's status property: a list when it gives one"
    )
    tags: list[str] = []
    aliases: list[str] = []
    top_headings: list[str] = []
    matched_headings: list[str] = []
    categories: list[list[str]] = []
    trust: TrustSummary | None = None
    note_changed: bool = Field(
        default=False,
        description="The note changed since the build: its sections' lines are those of the note as it is now "
        "(parsed live); a section whose heading is gone is left out",
    )
    sections: list[SearchSection] = Field(default=[], description="The note's best sections for the query, best first")


# what every door asks search (REST's query parameters, MCP's index_search, `kh index search`);
# no docstring: it would become a description in the OpenAPI document
class SearchQuery(BaseModel):
    q: str = Field(default="", max_length=10_000, description="Words to look for; searched up to 1,000 characters")
    type: str | None = Field(default=None, max_length=100)
    status: str | None = Field(default=None, max_length=100)
    tag: str | None = Field(default=None, max_length=200)
    category: str | None = Field(default=None, max_length=1024)
    trust: str | None = Field(default=None, max_length=20)
    folder: str | None = Field(
        default=None, max_length=1024, description="Only notes in this folder (vault-relative, subfolders too)"
    )
    limit: int = Field(default=20, ge=1, le=500)

    @classmethod
    def asked(cls, **fields: object) -> SearchQuery:
        """The query a door was given; a value out of bounds is an input error, as at REST."""
        try:
            return cls.model_validate(fields)
        except ValidationError as exc:
            first = exc.errors(include_url=False, include_input=False)[0]
            # `q` is REST's name; MCP's index_search and `kh index search` call it the query
            where = ".".join("query" if part == "q" else str(part) for part in first["loc"])
            raise InputError(f"Search {where}: {first['msg']}") from exc


class SearchResult(Staleness):
    query: str = Field(description="The query as searched (cut at 1,000 characters)")
    query_truncated: bool = False
    total: int
    hits: list[SearchHit]
    reason: str | None = Field(default=None, description="Why there are no hits, when the query itself explains it")
    fallback: Literal["plain"] | None = Field(
        default=None, description="plain: the vault has no index, the hits come from a bounded plain text scan"
    )


class TreeResult(Staleness):
    tree: dict[str, Any]


class HeadingsResult(Staleness):
    path: str
    id: str
    sha256: str
    source: str = Field(description="index, or live when the note changed since the build")
    note_changed: bool = False
    title: str
    line_count: int
    preamble: dict[str, int] | None
    headings: list[dict[str, Any]] = Field(
        description=(
            "The headings number offset .. offset+limit-1 in document order, nested as in the note; "
            "a heading whose parent is on an earlier page is at the top level of this page"
        )
    )
    links: list[dict[str, Any]] = Field(
        default=[], description="The links on this page's lines (from the heading at offset to the next page's)"
    )
    heading_count: int = Field(default=0, description="Headings in the whole note")
    offset: int = 0
    limit: int = Field(default=0, description="The most headings one answer holds (at most 5,000)")
    truncated: bool = Field(default=False, description="More headings follow: ask again with offset=next_offset")
    next_offset: int | None = None
    links_truncated: bool = Field(
        default=False, description="This page has more than 5,000 links; the rest are left out"
    )


class SectionResult(Staleness):
    path: str
    line: int
    end_line: int
    heading: str | None = None
    truncated: bool
    sha256: str = Field(description="SHA-256 of the note's bytes the lines were read from")
    note_changed: bool = False
    text: str
