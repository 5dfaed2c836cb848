"""A note's links and backlinks, and the notes that changed recently (read-only).

Answers come from the index and the files together: a note edited since the build is parsed from
its current bytes (its links resolved as the build would), so a link written a second ago is
listed, and a removed one is not. Each link names its line, the section of the linking note it
sits in (the innermost heading) and the text of that line.
"""

from __future__ import annotations

import datetime as dt
import posixpath
from typing import Any, Literal

from pydantic import BaseModel, Field

from ..core.dates import parse_moment
from ..errors import IndexMissing, InputError
from ..vault.note import markdown_lines
from ..vault.paths import Vault, list_note_files, require_note_path
from .links import Resolver, property_name
from .parse import decode_text
from .query import check_index, load_index_json, load_manifest, staleness
from .record import parse_record
from .schema import Staleness
from .store import index_read_lock
from .vault_index import VaultIndex, index_of

MAX_LINKS = 500
DEFAULT_LINKS = 100
MAX_CHANGES = 500
DEFAULT_CHANGES = 50
CONTEXT_CHARS = 200


class LinkEntry(BaseModel):
    note: str | None = Field(description="the other note: the target (outgoing) or the linking note (incoming)")
    title: str | None = None
    kind: str = Field(description="wikilink | embed | markdown | property (a [[link]] in a property's value)")
    target: str = Field(description="the link's target as written")
    heading: str | None = Field(default=None, description="the #heading the link points to")
    block: str | None = None
    status: str = Field(description="resolved | unresolved | ambiguous | self")
    candidates: list[str] = []
    line: int = Field(description="1-based line of the link in the linking note")
    section: str | None = Field(
        default=None,
        description="the linking note's innermost heading around the line; for a property link, the property's name",
    )
    text: str = Field(description="that line, trimmed")


class LinksResult(Staleness):
    path: str
    title: str
    source: str = Field(description="index, or live when the note changed since the build")
    outgoing: list[LinkEntry]
    incoming: list[LinkEntry]
    outgoing_total: int
    incoming_total: int


class ChangeEntry(BaseModel):
    path: str
    change: Literal["added", "changed", "removed"]
    mtime: str | None = Field(description="the file's modification time (UTC); null for a removed note")
    size: int | None = None
    title: str | None = None


class ChangesResult(BaseModel):
    since: str | None = Field(description="the time asked for; null: since the index was built")
    index: str = Field(description="fresh | stale | missing")
    total: int
    changes: list[ChangeEntry]
    next_cursor: str | None = None


# -- links ------------------------------------------------------------------------------------


class _Links:
    """One note's resolved links, heading tree and lines, from its layer or parsed live."""

    def __init__(self, links: list[dict[str, Any]], headings: list[dict[str, Any]], lines: list[str], live: bool):
        self.links, self.headings, self.lines, self.live = links, headings, lines, live

    def section(self, line: int) -> str | None:
        found: str | None = None
        level = self.headings
        while True:
            inner = next((h for h in level if h["line"] <= line <= h["end_line"]), None)
            if inner is None:
                return found
            found, level = str(inner["title"]), inner["children"]

    def text(self, line: int) -> str:
        if 1 <= line <= len(self.lines):
            return self.lines[line - 1].strip()[:CONTEXT_CHARS]
        return ""


def note_links(vault: Vault, path: str, *, limit: int = DEFAULT_LINKS, index: VaultIndex | None = None) -> LinksResult:
    """Outgoing links and backlinks of a note, each with its line, section and line text."""
    rel = require_note_path(path)
    with index_of(vault, index) as ix:
        stale = staleness(vault, index=ix)
        manifest = load_manifest(vault, index=ix)
    by_path: dict[str, Any] = manifest["by_path"]
    vault.resolve_note(rel)  # NotFound for a note that is not in the vault now
    live = set(stale.changed) | set(stale.added)
    current = (set(by_path) - set(stale.removed)) | set(stale.added)
    resolver: list[Resolver] = []

    def resolve(src: str, kind: str, target: str) -> tuple[str, str | None, list[str]]:
        if not resolver:
            resolver.append(Resolver(current))
        return resolver[0].resolve(src, kind, target)

    def read(src: str) -> _Links:
        raw = vault.resolve_note(src).read_bytes()
        lines = markdown_lines(decode_text(raw) or "")
        entry = by_path.get(src)
        if src not in live and entry is not None:
            with index_read_lock(vault):
                layer = load_index_json(vault, f"notes/{entry['id']}.json")
            if isinstance(layer, dict) and layer.get("sha256") == entry["sha256"]:
                return _Links(layer["links"], layer["headings"], lines, live=False)
        record = parse_record(src, raw)
        links = []
        for kind, target, heading, block, line in record["links"]:
            status, to, candidates = resolve(src, kind, target)
            if status != "attachment":
                links.append(
                    {"kind": kind, "target": target, "heading": heading, "block": block, "line": line}
                    | {"status": status, "path": to, "candidates": candidates}
                )
        return _Links(links, record["headings"], lines, live=True)

    def title(other: str | None) -> str | None:
        if other is None:
            return None
        entry = by_path.get(other)
        return str(entry["title"]) if entry else posixpath.splitext(posixpath.basename(other))[0]

    def entry_of(link: dict[str, Any], note: str | None, where: _Links) -> LinkEntry:
        return LinkEntry(
            note=note,
            title=title(note),
            kind=link["kind"],
            target=link["target"],
            heading=link.get("heading"),
            block=link.get("block"),
            status=link["status"],
            candidates=link.get("candidates") or [],
            line=link["line"],
            section=property_name(where.lines, link["line"])
            if link["kind"] == "property"
            else where.section(link["line"]),
            text=where.text(link["line"]),
        )

    own = read(rel)
    outgoing = [entry_of(link, link.get("path"), own) for link in own.links]
    outgoing.sort(key=lambda e: (e.line, e.target))
    linking = set(by_path.get(rel, {}).get("links_in", [])) - set(stale.removed)
    linking |= live  # a note edited since the build may have gained (or lost) a link here
    incoming: list[LinkEntry] = []
    for src in sorted(linking - {rel}):
        source = read(src)
        incoming.extend(
            entry_of(link, src, source)
            for link in source.links
            if link.get("path") == rel and link["status"] == "resolved"
        )
    incoming.sort(key=lambda e: (e.note or "", e.line))
    limit = max(1, min(limit, MAX_LINKS))
    return LinksResult(
        **stale.model_dump(),
        path=rel,
        title=title(rel) or rel,
        source="live" if own.live else "index",
        outgoing=outgoing[:limit],
        incoming=incoming[:limit],
        outgoing_total=len(outgoing),
        incoming_total=len(incoming),
    )


# -- changes ----------------------------------------------------------------------------------


def _since_ns(since: str) -> int:
    when = parse_moment(since, name="since")
    return int(when.timestamp() * 1_000_000_000)


def _iso(ns: int) -> str:
    return dt.datetime.fromtimestamp(ns / 1_000_000_000, dt.UTC).isoformat(timespec="milliseconds")


def recent_changes(
    vault: Vault,
    since: str | None = None,
    *,
    limit: int = DEFAULT_CHANGES,
    cursor: str | None = None,
    index: VaultIndex | None = None,
) -> ChangesResult:
    """Notes added, changed or removed since a time (by file mtime) or, without one, since the
    index was built (by content); newest first, paged. Removed notes (in the index, gone from the
    vault) come last: when they went is not known."""
    with index_of(vault, index) as ix:
        try:
            manifest: dict[str, Any] | None = load_manifest(vault, index=ix)
        except IndexMissing:
            if since is None:
                raise
            manifest = None
        files = {nf.path: nf for nf in list_note_files(vault)}
        report = check_index(vault, index=ix) if manifest is not None else None
    by_path: dict[str, Any] = manifest["by_path"] if manifest else {}
    if since is None and report is not None:
        picked = [(p, "added") for p in report.added] + [(p, "changed") for p in report.changed]
        removed = report.removed
    else:
        floor = _since_ns(since or "")
        picked = [(p, "added" if by_path and p not in by_path else "changed") for p in files]
        picked = [(p, change) for p, change in picked if files[p].mtime_ns >= floor]
        removed = sorted(p for p in by_path if p not in files)
    state = report.status if report is not None else "missing"
    dated = [
        ChangeEntry(
            path=p,
            change="added" if change == "added" else "changed",
            mtime=_iso(files[p].mtime_ns),
            size=files[p].size,
            title=str(by_path[p]["title"]) if p in by_path else None,
        )
        for p, change in picked
        if p in files
    ]
    dated.sort(key=lambda e: (e.mtime or "", e.path), reverse=True)
    gone = [ChangeEntry(path=p, change="removed", mtime=None, title=str(by_path[p]["title"])) for p in removed]
    changes = dated + gone
    try:
        start = int(cursor) if cursor else 0
    except ValueError as exc:
        raise InputError(f"Invalid cursor {cursor!r}.") from exc
    start = max(0, start)
    limit = max(1, min(limit, MAX_CHANGES))
    page = changes[start : start + limit]
    more = start + limit < len(changes)
    return ChangesResult(
        since=since,
        index=state,
        total=len(changes),
        changes=page,
        next_cursor=str(start + limit) if more else None,
    )
