"""Plain search: what index_search answers when the vault has no index (DESIGN: search falls back
to a plain text scan). Every note's text is scanned for the query's words, bounded in notes and
bytes; hits are ordered by how often the words occur, each with the first matching line as its
section, read from the note as it is now. The answer says it is a fallback and how to build the index."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

from ..vault.exclusions import excluded_notes, is_excluded_note
from ..vault.note import markdown_lines, read_note_head
from ..vault.paths import Vault, list_note_files
from .record import note_id
from .schema import SearchHit, SearchResult, SearchSection, TrustSummary

MAX_PLAIN_NOTES = 20_000  # notes scanned at most, in path order
MAX_PLAIN_NOTE_BYTES = 2 * 1024 * 1024  # a larger note is skipped (search's MAX_DOCUMENT_BYTES)
MAX_PLAIN_BYTES = 64 * 1024 * 1024  # bytes read in all; the scan stops there and says so
MAX_SNIPPET_CHARS = 200
FALLBACK_REASON = (
    "The vault has no reasoning index: this is plain search, a bounded text scan of the notes for "
    "every word of the query (ordered by how often they occur, not ranked). Build the index for "
    "ranked search with sections: `kh index build VAULT`, POST /v1/index/build or the MCP tool index_build."
)


def _fold(text: str) -> str:
    return unicodedata.normalize("NFC", text).casefold()


def plain_search(
    vault: Vault,
    query: str,
    *,
    folder_prefix: str = "",
    limit: int = 20,
    truncated: bool = False,
    trust_of: Callable[[str], TrustSummary | None] | None = None,
) -> SearchResult:
    """Notes whose text (or path) holds every word of `query`, most occurrences first."""
    words = list(dict.fromkeys(_fold(query).split()))
    exclude = excluded_notes(vault)
    files = [
        nf
        for nf in list_note_files(vault)
        if nf.path.startswith(folder_prefix) and not (exclude and is_excluded_note(nf.path, exclude))
    ]
    found: list[tuple[int, str, int, str]] = []  # (-count, path, first line, its snippet)
    read = scanned = skipped = 0
    for nf in files[:MAX_PLAIN_NOTES]:
        if nf.size > MAX_PLAIN_NOTE_BYTES:
            skipped += 1
            continue
        if read + nf.size > MAX_PLAIN_BYTES:
            break
        try:
            raw = read_note_head(nf.disk_path, MAX_PLAIN_NOTE_BYTES + 1)
        except OSError:
            skipped += 1
            continue
        read += len(raw)
        scanned += 1
        original = raw.decode("utf-8", errors="replace")
        text = _fold(original)
        name = _fold(nf.path)
        if not all(w in text or w in name for w in words):
            continue
        count = sum(text.count(w) + 10 * name.count(w) for w in words)
        # the first line holding the most of the words, as the note writes it (folding keeps the lines)
        line_no, line, most = 0, "", 0
        for n, candidate in enumerate(markdown_lines(original), 1):
            folded = _fold(candidate)
            held = sum(1 for w in words if w in folded)
            if held > most:
                line_no, line, most = n, candidate, held
                if held == len(words):
                    break
        found.append((-count, nf.path, line_no, line.strip()[:MAX_SNIPPET_CHARS]))
    found.sort()
    hits: list[SearchHit] = []
    for neg, path, line_no, snippet in found[:limit]:
        sections = (
            [
                SearchSection(
                    heading=None, heading_path=[], line=line_no, end_line=line_no, score=float(-neg), snippet=snippet
                )
            ]
            if line_no
            else []
        )
        hits.append(
            SearchHit(
                path=path,
                id=note_id(path),
                title=path.rpartition("/")[2].removesuffix(".md"),
                score=float(-neg),
                trust=trust_of(path) if trust_of is not None else None,
                sections=sections,
            )
        )
    reason = FALLBACK_REASON
    left = len(files) - scanned - skipped
    if left > 0 or skipped:
        reason += (
            f" Scanned {scanned} of {len(files)} notes (bounded: {MAX_PLAIN_NOTES} notes, {MAX_PLAIN_BYTES >> 20} MB"
        )
        reason += f", notes over {MAX_PLAIN_NOTE_BYTES >> 20} MB skipped)."
    return SearchResult(
        stale=True,
        query=query,
        query_truncated=truncated,
        total=len(found),
        hits=hits,
        reason=reason,
        fallback="plain",
    )
