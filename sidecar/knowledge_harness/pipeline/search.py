"""Search providers for O-04 behind one protocol, with a registry.

- `vault`: the reasoning index's search (index/search.py: whole notes, field weights, section
  hits) over the vault's notes in memory; hits are the notes themselves, read in full (source
  class secondary; `disputed` notes discovery_only), each with the lines of its best section.
- `cited_urls`: the reference URLs of the notes the vault search found (fetched later).
- `searxng`: a SearXNG instance's JSON API (`/search?q=…&format=json`); results are
  discovery-only snippets until their pages are fetched.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import httpx

from ..core.text import tokenize
from ..vault.catalog import NoteCatalog
from ..vault.note import Note
from ..vault.references import is_evidence_url
from .config import EvidenceSettings

if TYPE_CHECKING:
    from ..index.search import SearchLayer


class ProviderError(Exception):
    def __init__(self, message: str, *, transient: bool) -> None:
        super().__init__(message)
        self.transient = transient


@dataclass
class SearchHit:
    provider: str
    title: str
    snippet: str = ""
    url: str | None = None  # web result or cited URL
    note_path: str | None = None  # vault note
    line: int | None = None
    end_line: int | None = None
    score: float = 0.0
    discovered_via: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


class SearchProvider(Protocol):
    name: str

    def search(self, query: str, *, limit: int, context: list[SearchHit]) -> list[SearchHit]: ...


_STOP_WORDS = (
    "the a an and or of to in on for with is are be was were how what why when which does do can i you it this "
    "that from by as at use using about"
)
_STOP = frozenset(_STOP_WORDS.split())


def key_terms(text: str, limit: int = 12) -> list[str]:
    """Query terms of a question in first-seen order: words and CJK runs (katakana/kanji)."""
    seen: dict[str, None] = {}
    for match in re.finditer(
        r"[A-Za-z][A-Za-z0-9_+.#-]*[A-Za-z0-9+#]|[\u30a0-\u30ff\u30fc]{2,}|[\u3400-\u9fff]{2,}", text
    ):
        term = match.group(0)
        if term.lower() in _STOP or len(term) < 2:
            continue
        seen.setdefault(term, None)
    return list(seen)[:limit]


def is_request_note(note: Note) -> bool:
    return str(note.properties.get("harness", "")).strip().lower() == "request"


class VaultSearch:
    """The index's search over the catalog's notes; the request notes themselves are skipped."""

    name = "vault"

    def __init__(self, catalog: NoteCatalog, *, exclude: set[str] | None = None) -> None:
        self.catalog = catalog
        self.exclude = exclude or set()
        self._notes: dict[str, Note] = {}
        self._layer: SearchLayer | None = None  # built on the first search

    def search(self, query: str, *, limit: int, context: list[SearchHit]) -> list[SearchHit]:
        """The index's search (index/search.py: whole notes, field weights, section hits) over the
        catalog's notes, in memory; each hit's passage is the original lines of its best section."""
        from ..index.search import documents_in_memory

        if self._layer is None:
            notes = [
                note
                for _, note in self.catalog.notes()
                if note.path not in self.exclude and note.problem is None and not is_request_note(note)
            ]
            self._notes = {note.path: note for note in notes}
            self._layer = documents_in_memory(
                (note.path, note.raw, note.sha256, note.title, _aliases(note), _tags(note)) for note in notes
            )
        found = self._layer.rank(query, limit=limit, sections=1)
        hits = []
        for ranked in found.hits:
            note = self._notes[ranked.path]
            if ranked.sections:
                best = ranked.sections[0]
                lines = note.text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
                line, end_line = best.line, min(best.end_line, best.line + 11)
                passage = "\n".join(lines[line - 1 : end_line]).strip()
            else:
                line, end_line, passage = best_passage(note, tokenize(query))
            hits.append(
                SearchHit(
                    provider=self.name,
                    title=note.title,
                    snippet=passage,
                    note_path=note.path,
                    line=line,
                    end_line=end_line,
                    score=round(ranked.score, 4),
                    discovered_via=f"vault-search:{query}",
                    extra={"status": _verification_status(note), "references": note.references},
                )
            )
        return hits


def _aliases(note: Note) -> list[str]:
    value = note.properties.get("aliases", note.properties.get("alias"))
    values = value if isinstance(value, list) else [value] if value else []
    return [str(v) for v in values if isinstance(v, str | int | float) and not isinstance(v, bool)]


def _tags(note: Note) -> list[str]:
    value = note.properties.get("tags")
    values = value if isinstance(value, list) else [value] if value else []
    return [str(v).lstrip("#") for v in values if isinstance(v, str)]


def _verification_status(note: Note) -> str | None:
    verification = note.properties.get("verification")
    if isinstance(verification, dict):
        status = verification.get("status")
        return str(status) if status else None
    return None


def best_passage(note: Note, terms: list[str], window: int = 8) -> tuple[int, int, str]:
    """The body window (1-based file lines, inclusive) with the most query-term hits."""
    lines = note.body.splitlines()
    offset = note.body_start_line
    if not lines:
        return offset, offset, ""
    best, best_start = -1, 0
    for start in range(0, max(1, len(lines) - window + 1), max(1, window // 2)):
        chunk = "\n".join(lines[start : start + window])
        tokens = Counter(tokenize(chunk))
        hits = sum(tokens.get(t, 0) for t in terms)
        if hits > best:
            best, best_start = hits, start
    chunk_lines = lines[best_start : best_start + window]
    return offset + best_start, offset + best_start + len(chunk_lines) - 1, "\n".join(chunk_lines).strip()


class CitedUrls:
    """The reference URLs of the notes found by the vault search in this run."""

    name = "cited_urls"

    def search(self, query: str, *, limit: int, context: list[SearchHit]) -> list[SearchHit]:
        hits: list[SearchHit] = []
        for hit in context:
            if hit.provider != "vault":
                continue
            for url in hit.extra.get("references", []):
                if is_evidence_url(url):
                    hits.append(
                        SearchHit(provider=self.name, title=url, url=url, discovered_via=f"cited-by:{hit.note_path}")
                    )
        return hits[: limit * 3]


class SearxngSearch:
    """A SearXNG instance: GET {base}/search?q=…&format=json → results[{url, title, content}]."""

    name = "searxng"

    def __init__(self, base_url: str, *, timeout: float = 15.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout

    def search(self, query: str, *, limit: int, context: list[SearchHit]) -> list[SearchHit]:
        try:
            with httpx.Client(timeout=self.timeout, trust_env=False) as client:
                resp = client.get(f"{self.base_url}/search", params={"q": query, "format": "json"})
        except (httpx.TimeoutException, httpx.NetworkError) as exc:
            raise ProviderError(f"searxng: {type(exc).__name__}", transient=True) from exc
        except httpx.HTTPError as exc:
            raise ProviderError(f"searxng: {type(exc).__name__}", transient=False) from exc
        if resp.status_code == 429 or resp.status_code >= 500:
            raise ProviderError(f"searxng: HTTP {resp.status_code}", transient=True)
        if resp.status_code != 200:
            raise ProviderError(f"searxng: HTTP {resp.status_code}", transient=False)
        try:
            results = resp.json().get("results", [])
        except ValueError as exc:
            raise ProviderError("searxng: the answer is not JSON", transient=False) from exc
        hits = []
        for item in results[:limit]:
            if not isinstance(item, dict) or not isinstance(item.get("url"), str):
                continue
            hits.append(
                SearchHit(
                    provider=self.name,
                    title=str(item.get("title") or item["url"]),
                    snippet=str(item.get("content") or ""),
                    url=item["url"],
                    discovered_via=f"searxng:{query}",
                    extra={"published": item.get("publishedDate"), "engine": item.get("engine")},
                )
            )
        return hits


ProviderFactory = Callable[[NoteCatalog, EvidenceSettings, set[str]], SearchProvider | None]


def _vault(catalog: NoteCatalog, settings: EvidenceSettings, exclude: set[str]) -> SearchProvider:
    return VaultSearch(catalog, exclude=exclude)


def _cited(catalog: NoteCatalog, settings: EvidenceSettings, exclude: set[str]) -> SearchProvider:
    return CitedUrls()


def _searxng(catalog: NoteCatalog, settings: EvidenceSettings, exclude: set[str]) -> SearchProvider | None:
    return SearxngSearch(settings.searxng_url) if settings.searxng_url else None


PROVIDERS: dict[str, ProviderFactory] = {"vault": _vault, "cited_urls": _cited, "searxng": _searxng}


def build_providers(catalog: NoteCatalog, settings: EvidenceSettings, exclude: set[str]) -> list[SearchProvider]:
    names = list(settings.providers)
    if settings.searxng_url and "searxng" not in names:
        names.append("searxng")
    out: list[SearchProvider] = []
    for name in names:
        factory = PROVIDERS.get(name)
        if factory is None:
            continue
        provider = factory(catalog, settings, exclude)
        if provider is not None:
            out.append(provider)
    return out
