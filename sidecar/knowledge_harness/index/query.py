"""Reading the index: staleness check, tree, ranked manifest search, heading trees, line ranges.

Every answer says whether the index is stale. A note that changed since the build is never
answered from old line numbers: its heading tree and sections are parsed from its current
bytes (`source: "live"`, `note_changed: true`).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import difflib
import hashlib
import json
import math
import os
import re
import threading
import time
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

import ijson
import orjson

from ..core.memory import freeze_long_lived, paused_gc
from ..core.text import has_words
from ..core.text import tokenize as text_tokenize
from ..errors import IndexMissing, InputError, NotFound
from ..vault.paths import Vault, require_note_path, scan_against_stamps
from .categories import excluded
from .categories import index_settings as _index_settings
from .layer_stream import STREAM_LAYER_BYTES, HeadingsPage, LayerOutOfOrder, read_headings_page
from .plain import plain_search
from .record import heading_titles, heading_tree, keyword_values, note_id, parse_record
from .schema import (
    DEFAULT_HEADINGS,
    MAX_HEADINGS,
    BuildReport,
    CheckReport,
    HeadingsResult,
    SearchHit,
    SearchQuery,
    SearchResult,
    SearchSection,
    SectionResult,
    Staleness,
    TreeResult,
    TrustSummary,
)
from .search import MAX_QUERY_CHARS, remember_link_keys, vault_layer
from .serialize import MANIFEST_HEAD, MANIFEST_SETTINGS
from .store import WALK_FILE, index_read_lock, open_index_file, read_index_file
from .vault_index import BuildRecord, StaleAnswer, VaultIndex, index_of, remember

MAX_SECTION_CHARS = 200_000
MAX_LINKS = 5000
DEFAULT_SECTION_CHARS = 20_000
FRESH_STATUSES = frozenset({"verified", "reviewed"})


# -- loading -----------------------------------------------------------------------------------


def load_index_json(vault: Vault, rel: str) -> Any:
    """One of the index's JSON files, parsed; None when it is missing or unreadable."""
    raw = read_index_file(vault, rel)
    if raw is None:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return None


def _load_manifest(ix: VaultIndex) -> dict[str, Any]:
    """The manifest, cached per vault while its file is unchanged; NotFound without an index."""
    vault = ix.vault
    path = vault.harness_dir / "index" / "manifest.json"
    try:
        st = path.stat()
    except FileNotFoundError:
        raise IndexMissing.for_vault(vault.root) from None
    key = (st.st_size, st.st_mtime_ns)
    with ix.query.lock:
        hit = ix.query.manifests.get(str(path))
    if hit and hit[0] == key:
        return hit[1]
    # one parse at a time: the warm-up after a build and the first search after it would both
    # parse the new manifest, each slowing the other down (one interpreter)
    with ix.query.parsing:
        with ix.query.lock:
            hit = ix.query.manifests.get(str(path))
        if hit and hit[0] == key:
            return hit[1]
        return _read_manifest(ix, path, key)


def _read_manifest(ix: VaultIndex, path: Path, key: tuple[int, int]) -> dict[str, Any]:
    vault = ix.vault
    with ix.query.lock:
        known = ix.query.manifest_lines.get(str(path), {})
    with index_read_lock(vault):
        raw = read_index_file(vault, "manifest.json")
    try:
        data, lines = (None, {}) if raw is None else _parse_manifest(raw, known)
    except ValueError:
        data, lines = None, {}
    if not isinstance(data, dict):
        raise IndexMissing.for_vault(vault.root, "The reasoning index is unreadable")
    data["by_path"] = {n["path"]: n for n in data.get("notes", [])}
    data["linked_from"] = {n["path"]: len(n.get("links_in") or []) for n in data.get("notes", [])}
    with ix.query.lock:
        remember(ix.query.manifests, str(path), (key, data))
        remember(ix.query.manifest_lines, str(path), lines)
    return data


_FORMAT_HEAD = MANIFEST_HEAD[: -len(b',"notes":[\n')] + b"}"  # {"format":N}


def _parse_manifest(raw: bytes, known: dict[bytes, Any]) -> tuple[Any, dict[bytes, Any]]:
    """json.loads of manifest.json, and its note lines -> their entries. The manifest has one
    note a line (serialize.manifest_bytes): a line the vault's previous manifest had is not
    parsed again (a one-note edit re-parsed all 10,000 lines, ~120 ms). Another layout is parsed whole."""
    end = raw.rfind(MANIFEST_SETTINGS)
    tail = raw[end + len(MANIFEST_SETTINGS) :].rstrip()
    if not raw.startswith(MANIFEST_HEAD) or end < len(MANIFEST_HEAD) - 1 or not tail.endswith(b"}"):
        return json.loads(raw), {}
    body = raw[len(MANIFEST_HEAD) : end]
    lines: dict[bytes, Any] = {}
    notes: list[Any] = []
    for line in body.split(b",\n") if body else []:
        entry = known.get(line)
        if entry is None:
            entry = json.loads(line)  # a raw newline is never inside a JSON value: one note a line
            if not isinstance(entry, dict):
                return json.loads(raw), {}
        lines[line] = entry
        notes.append(entry)
    data = json.loads(_FORMAT_HEAD)
    data["notes"] = notes
    data["settings"] = json.loads(tail[:-1])
    return data, lines


# -- staleness -------------------------------------------------------------------------------


def _check_index(ix: VaultIndex) -> CheckReport:
    """Compare the index with the vault: fresh, stale (with the notes) or missing."""
    vault = ix.vault
    try:
        manifest = _load_manifest(ix)
    except NotFound:
        return CheckReport(status="missing", fresh=False)
    known = _build_stamps(ix)
    by_path: dict[str, Any] = manifest["by_path"]
    changed: list[str] = []
    with paused_gc():
        seen, moved, _ = scan_against_stamps(vault, read_index_file(vault, WALK_FILE), known)
    settings = _index_settings(vault)
    if "exclude" in settings:
        seen = [p for p in seen if not excluded(p, settings)]
        moved = [nf for nf in moved if not excluded(nf.path, settings)]
    for nf in moved:
        entry = by_path.get(nf.path)
        if entry is None:
            continue  # added: below
        try:
            digest = _sha256_file(nf.disk_path)
        except OSError:
            changed.append(nf.path)
            continue
        if digest != entry["sha256"]:
            changed.append(nf.path)
    added = [p for p in seen if p not in by_path]
    present = set(seen)
    removed = sorted(p for p in by_path if p not in present)
    settings_changed = manifest.get("settings") != settings
    fresh = not (changed or added or removed or settings_changed)
    return CheckReport(
        status="fresh" if fresh else "stale",
        fresh=fresh,
        changed=changed,
        added=added,
        removed=removed,
        settings_changed=settings_changed,
    )


def _sha256_file(path: Any) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def _staleness(ix: VaultIndex) -> tuple[Staleness, set[str]]:
    vault = ix.vault
    report = _check_index(ix)
    if report.status == "missing":
        raise IndexMissing.for_vault(vault.root)
    st = Staleness(stale=not report.fresh, changed=report.changed, added=report.added, removed=report.removed)
    return st, set(report.changed) | set(report.removed)


# -- trust --------------------------------------------------------------------------------------


def trust_summary(stored: dict[str, Any] | None, today: dt.date) -> TrustSummary | None:
    if not stored:
        return None
    triggers: list[str] = []
    if stored.get("content_match") is False:
        triggers.append("content_changed")
    if stored.get("references_match") is False:
        triggers.append("references_changed")
    if stored.get("content_match") is None:
        triggers.append("no_baseline")
    revalidate = stored.get("revalidate_after")
    if revalidate:
        try:
            if dt.date.fromisoformat(str(revalidate)[:10]) < today:
                triggers.append("age_expired")
        except ValueError:
            triggers.append("age_expired")
    level = stored.get("level")
    status = stored.get("status")
    fresh = isinstance(level, int) and level >= 2 and status in FRESH_STATUSES and not triggers
    return TrustSummary(level=level, status=status, fresh=fresh, triggers=triggers, revalidate_after=revalidate)


_TRUST_FILTER = re.compile(r"^(fresh)?[-_ ]?(?:l(\d))?$", re.IGNORECASE)


def _trust_ok(summary: TrustSummary | None, spec: str) -> bool:
    m = _TRUST_FILTER.match(spec.strip())
    if not m or not (m.group(1) or m.group(2)):
        raise InputError(f"Unknown trust filter {spec!r}; use e.g. 'fresh-l2', 'l1' or 'fresh'.")
    if summary is None:
        return False
    if m.group(2) and (summary.level is None or summary.level < int(m.group(2))):
        return False
    return not (m.group(1) and not summary.fresh)


# -- search -------------------------------------------------------------------------------------
#
# Ranking lives in index/search.py (SQLite FTS5 over whole notes, per-field weights, section
# hits). Staleness for search comes from a throttled check, not a walk of the vault per query:
# the vault-wide answer (stale, changed/added/removed) is refreshed in the background once it is
# STALENESS_SECONDS old (longer on a vault whose walk is slow: see _throttled_check); each hit's own note is checked exactly (a stat, and a hash when
# its size or mtime moved), so a hit never hides that its note changed.

STALENESS_SECONDS = 2.0
STALENESS_DUTY = 50.0


def tokenize(text: str) -> list[str]:
    """The search tokenizer (core.text): stems, CJK bigrams, Unicode words."""
    return text_tokenize(text)


def _manifest_key(vault: Vault) -> str:
    st = (vault.harness_dir / "index" / "manifest.json").stat()
    return f"{st.st_size}:{st.st_mtime_ns}"


def _refresh_staleness(ix: VaultIndex, key: str) -> None:
    vault = ix.vault
    try:
        started = time.monotonic()
        report = _check_index(ix)
        took = time.monotonic() - started
        with ix.query.lock:
            remember(ix.query.staleness, str(vault.root), StaleAnswer(key, time.monotonic(), report, took))
    finally:
        with ix.query.lock:
            ix.query.refreshing.discard(str(vault.root))


def _throttled_check(ix: VaultIndex, key: str) -> CheckReport:
    """check_index, refreshed in the background once it is older than STALENESS_SECONDS (or, on
    a vault where the walk is slow, STALENESS_DUTY times the walk: at most ~2 % of a core)."""
    vault = ix.vault
    root = str(vault.root)
    with ix.query.lock:
        cached = ix.query.staleness.get(root)
    if cached is None or cached.manifest_key != key:
        as_built = _as_built(ix, _load_manifest(ix))
        if as_built is None:
            _refresh_staleness(ix, key)
            with ix.query.lock:
                return ix.query.staleness[root].report
        # the build's own answer, as old as its scan: renewed in the background below once that is
        # STALENESS_SECONDS ago, as any answer
        report, age = as_built
        cached = StaleAnswer(key, time.monotonic() - age, report, cached.walk_seconds if cached is not None else 0.0)
        with ix.query.lock:
            remember(ix.query.staleness, root, cached)
    if time.monotonic() - cached.checked_at > max(STALENESS_SECONDS, STALENESS_DUTY * cached.walk_seconds):
        with ix.query.lock:
            start = root not in ix.query.refreshing
            ix.query.refreshing.add(root)
        if start:
            threading.Thread(target=_refresh_staleness, args=(ix, key), daemon=True).start()
    return cached.report


def _build_record(ix: VaultIndex) -> BuildRecord | None:
    vault = ix.vault
    path = vault.harness_dir / "index" / "build.json"
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    key = (st.st_size, st.st_mtime_ns)
    with ix.query.lock:
        hit = ix.query.stamps.get(str(path))
    if hit and hit.key == key:
        return hit
    raw = read_index_file(vault, "build.json")
    try:
        build = orjson.loads(raw) if raw is not None else {}
    except orjson.JSONDecodeError:
        build = {}
    build = build if isinstance(build, dict) else {}
    files = build.get("files", {})
    files = files if isinstance(files, dict) else {}
    seconds = build.get("seconds")
    record = BuildRecord(key, files, build.get("errors") == [], seconds if isinstance(seconds, int | float) else 0.0)
    with ix.query.lock:
        remember(ix.query.stamps, str(path), record)
    return record


def _build_stamps(ix: VaultIndex) -> dict[str, list[int]]:
    record = _build_record(ix)
    return {} if record is None else record.files


def _as_built(ix: VaultIndex, manifest: dict[str, Any]) -> tuple[CheckReport, float] | None:
    """`fresh`, and how many seconds ago, when the manifest is the last build's (build.json written
    after it, on the same notes and settings, its scan less than STALENESS_SECONDS ago) and that
    build reported no problem: the vault was, when it was scanned, exactly its index. None when
    that is not known (an older build, a manifest written by hand or by git, a build with
    errors): then only a scan answers."""
    vault = ix.vault
    record = _build_record(ix)
    try:
        manifest_mtime = (vault.harness_dir / "index" / "manifest.json").stat().st_mtime_ns
    except FileNotFoundError:
        return None
    by_path: dict[str, Any] = manifest["by_path"]
    if record is None or not record.clean or record.key[1] < manifest_mtime or len(record.files) != len(by_path):
        return None
    age = (time.time_ns() - record.key[1]) / 1e9 + record.seconds  # since the build's scan began
    if age > STALENESS_SECONDS:  # only as old as a throttled answer may be
        return None
    if not all(map(by_path.__contains__, record.files)) or manifest.get("settings") != _index_settings(vault):
        return None
    return CheckReport(status="fresh", fresh=True), age


def _note_changed(vault: Vault, entry: dict[str, Any], stamps: dict[str, list[int]]) -> bool:
    """Whether one note's bytes differ from the build's (a stat; a hash only when the stamp moved)."""
    try:
        st = os.stat(f"{vault.root}/{entry['path']}")  # noqa: PTH116 - a plain stat; no Path per hit
    except (OSError, ValueError):
        return True
    stamp = stamps.get(entry["path"])
    if stamp is not None and stamp[0] == st.st_size and stamp[1] == st.st_mtime_ns:
        return False
    try:  # the stamp moved: compare the bytes (read through the vault's path checks)
        return bool(_sha256_file(vault.resolve_note(entry["path"])) != entry["sha256"])
    except (OSError, ValueError, NotFound, InputError):
        return True


def _sections_as_now(vault: Vault, path: str, sections: list[SearchSection]) -> list[SearchSection]:
    """A changed note's sections with the line ranges of the note as it is now (parsed live),
    found by their heading path; a section whose heading is gone is left out. The ranges the
    build stored would send a reader to shifted lines. The note is parsed here, not through
    _all_headings, whose staleness check walks the whole vault: once per changed hit, that
    was nearly all of a search's time."""
    if not sections:
        return sections
    try:
        tree = parse_record(path, _current_bytes(vault, path))
    except (NotFound, InputError, OSError):
        return []
    out: list[SearchSection] = []
    for section in sections:
        if section.heading is None:
            preamble = tree["preamble"]
            if not preamble:
                continue
            line, end_line = int(preamble["line"]), int(preamble["end_line"])
        else:
            found = _heading_at(tree["headings"], section.heading_path)
            if found is None:
                continue
            line, end_line = int(found["line"]), int(found["end_line"])
        out.append(section.model_copy(update={"line": line, "end_line": end_line}))
    return out


def _heading_at(headings: list[dict[str, Any]], titles: list[str]) -> dict[str, Any] | None:
    """The first heading reached by following `titles` down the tree, or None."""
    level = headings
    found: dict[str, Any] | None = None
    for title in titles:
        found = next((h for h in level if h["title"] == title), None)
        if found is None:
            return None
        level = found["children"]
    return found


STOPWORDS_ONLY = (
    "The query holds only words that every note has (such as 'the', 'of', 'の', 'は'), so nothing is ranked; "
    "add a word that names what you are looking for."
)


def _search(
    ix: VaultIndex,
    asked: SearchQuery,
    *,
    today: dt.date | None = None,
    trust_of: Callable[[str], TrustSummary | None] | None = None,
) -> SearchResult:
    """Rank notes by their whole text (index/search.py), after the filters; each hit with its best sections.

    An empty query lists the notes that pass the filters; an empty query without filters is an
    input error. `trust_of` evaluates a note's trust as the audit does (the doors pass
    trust_view.live_trust); without it, trust is summarized from what the build stored."""
    vault = ix.vault
    type, status, tag, category, trust = asked.type, asked.status, asked.tag, asked.category, asked.trust
    folder, limit = asked.folder, asked.limit
    query = " ".join(asked.q.split())
    truncated = len(query) > MAX_QUERY_CHARS
    query = query[:MAX_QUERY_CHARS]
    filtered = any(f is not None and str(f).strip() for f in (type, status, tag, category, trust, folder))
    # a folder (or any path prefix ending at a "/"): "docs/en" keeps docs/en/… but not docs/english/…
    prefix = unicodedata.normalize("NFC", folder.strip().strip("/")) + "/" if folder and folder.strip("/ ") else ""
    if not query and not filtered:
        raise InputError(
            "The search query is empty: give words to look for, or a filter (type, status, tag, category, trust) "
            "to list notes."
        )
    limit = max(1, min(limit, 500))
    try:
        manifest = _load_manifest(ix)
        key = _manifest_key(vault)
        report = _throttled_check(ix, key)
        if report.status == "missing":
            raise IndexMissing.for_vault(vault.root)
    except IndexMissing:
        # words and a folder are all plain search reads; the other filters need the index
        if not query or any(f is not None and str(f).strip() for f in (type, status, tag, category, trust)):
            raise
        return plain_search(vault, query, folder_prefix=prefix, limit=limit, truncated=truncated, trust_of=trust_of)
    day = today or dt.date.today()
    by_path: dict[str, Any] = manifest["by_path"]
    summaries: dict[str, TrustSummary | None] = {}

    def summary_of(entry: dict[str, Any]) -> TrustSummary | None:
        path = entry["path"]
        if path not in summaries:
            summaries[path] = trust_of(path) if trust_of is not None else trust_summary(entry.get("trust"), day)
        return summaries[path]

    def passes(entry: dict[str, Any]) -> bool:
        if prefix and not entry["path"].startswith(prefix):
            return False
        if type and type.lower() not in keyword_values(entry.get("type")):
            return False
        if status and status.lower() not in keyword_values(entry.get("status")):
            return False
        if tag and tag.lstrip("#").lower() not in {t.lower() for t in entry.get("tags", [])}:
            return False
        if category and not _in_category(entry, category, manifest):
            return False
        return not (trust and not _trust_ok(summary_of(entry), trust))

    reason: str | None = None
    rewarm = False
    ranked: list[tuple[dict[str, Any], float, list[SearchSection]]] = []
    if not query:
        listed = [entry for entry in manifest["notes"] if passes(entry)]
        total = len(listed)
        ranked = [(entry, 0.0, []) for entry in listed[:limit]]
    elif not tokenize(query):
        total = 0
        reason = (
            STOPWORDS_ONLY
            if has_words(query)
            else "The query has no words to search for (only punctuation or symbols)."
        )
    else:
        layer = vault_layer(ix.search, vault, manifest, key, ix.built_sections)
        # a sidecar's layer after a build by another process: warmed again, once this query is answered
        rewarm = layer.keep_warm and layer.needs_warm
        if rewarm:
            layer.needs_warm = False
        found = layer.rank(
            query,
            limit=limit,
            keep=(lambda p: p in by_path and passes(by_path[p])) if filtered else None,
            linked_from=manifest["linked_from"],
        )
        total = found.total
        for hit in found.hits:
            entry = by_path.get(hit.path)
            if entry is None:
                continue
            sections = [
                SearchSection(
                    heading=s.heading,
                    heading_path=s.heading_path,
                    line=s.line,
                    end_line=s.end_line,
                    score=s.score,
                    snippet=s.snippet,
                )
                for s in hit.sections
            ]
            ranked.append((entry, hit.score, sections))
    stamps = _build_stamps(ix)
    changed = set(report.changed) | set(report.removed)
    hits: list[SearchHit] = []
    for entry, score, sections in ranked:
        note_changed = entry["path"] in changed or _note_changed(vault, entry, stamps)
        if note_changed:
            changed.add(entry["path"])
            sections = _sections_as_now(vault, entry["path"], sections)
        hits.append(
            SearchHit(
                path=entry["path"],
                id=entry["id"],
                title=entry["title"],
                score=score,
                type=entry.get("type"),
                status=entry.get("status"),
                tags=entry.get("tags", []),
                aliases=entry.get("aliases", []),
                top_headings=entry.get("top_headings", []),
                matched_headings=list(dict.fromkeys(s.heading for s in sections if s.heading)),
                categories=entry.get("categories", []),
                trust=summary_of(entry),
                note_changed=note_changed,
                sections=sections,
            )
        )
    if rewarm:
        _warm_search_in_background(ix, after_a_build=True)
    changed_list = sorted(set(report.changed) | {h.path for h in hits if h.note_changed and h.path in by_path})
    stale = not report.fresh or bool(changed_list)
    return SearchResult(
        stale=stale,
        changed=changed_list,
        added=report.added,
        removed=report.removed,
        query=query,
        query_truncated=truncated,
        total=total,
        hits=hits,
        reason=reason,
    )


def _warm_search(ix: VaultIndex, *, after_a_build: bool = False) -> None:
    """Bring the vault's search layer in step with its index now (e.g. right after a build), and
    answer staleness for that index, so that the first search pays for neither; then remember
    the commonest terms' rows. Without an index there is nothing to do.

    after_a_build: the commonest terms wait WARM_PAUSE seconds first. Remembering them costs
    ~0.3 s of CPU at 10,000 notes and holds the GIL most of that time; the search an agent or
    the plugin sends right after a build would otherwise share the interpreter with it (measured:
    the first search after the sidecar's build 0.23 s at the median, 0.14 s after a build by
    another process, which starts no warm-up)."""
    vault = ix.vault
    try:
        manifest = _load_manifest(ix)
        key = _manifest_key(vault)
        layer = vault_layer(ix.search, vault, manifest, key, ix.built_sections)
    except (NotFound, OSError):
        return
    layer.keep_warm, layer.needs_warm = True, False
    remember_link_keys(layer, manifest)
    with contextlib.suppress(NotFound, OSError):  # the first search need not wait for it
        _throttled_check(ix, key)
    if after_a_build:
        time.sleep(WARM_PAUSE)
    layer.remember_common_terms()
    # the layer's tables and the manifest live until they change: out of the collector's walks
    # (without it, a full collection during the first search after an edit took ~120 ms)
    freeze_long_lived(collect_first=False)


WARM_PAUSE = 1.0


def _warm_search_in_background(ix: VaultIndex, *, after_a_build: bool = False) -> threading.Thread | None:
    """warm_search in a daemon thread when the vault has an index (the sidecar's start-up and builds)."""
    vault = ix.vault
    if not (vault.harness_dir / "index" / "manifest.json").is_file():
        return None
    thread = threading.Thread(
        target=_warm_search, args=(ix,), kwargs={"after_a_build": after_a_build}, name="kh-search-warm", daemon=True
    )
    thread.start()
    return thread


def _in_category(entry: dict[str, Any], category: str, manifest: dict[str, Any]) -> bool:
    want = category.lower()
    by_path = manifest["by_path"]
    for chain in entry.get("categories", []):
        for p in chain:
            idx = by_path.get(p, {})
            if p.lower() == want or str(idx.get("title", "")).lower() == want or p.lower().removesuffix(".md") == want:
                return True
    return False


# -- tree ---------------------------------------------------------------------------------------


def _get_tree(ix: VaultIndex, folder: str | None = None, depth: int | None = None) -> TreeResult:
    vault = ix.vault
    stale, _ = _staleness(ix)
    with index_read_lock(vault):
        tree = load_index_json(vault, "tree.json")
    if not isinstance(tree, dict):
        raise NotFound("The reasoning index has no tree.json; rebuild it.")
    if folder:
        node = _find_folder(tree, folder.strip("/"))
        if node is None:
            raise NotFound(f"No folder {folder!r} in the index.")
        tree = node
    if depth is not None:
        tree = _prune(tree, max(0, depth))
    return TreeResult(**stale.model_dump(), tree=tree)


def _find_folder(node: dict[str, Any], path: str) -> dict[str, Any] | None:
    if node.get("path") == path:
        return node
    for child in node.get("children", []):
        if child.get("kind") == "folder" and (path == child["path"] or path.startswith(child["path"] + "/")):
            return _find_folder(child, path)
    return None


def _prune(node: dict[str, Any], depth: int) -> dict[str, Any]:
    if node.get("kind") != "folder":
        return node
    if depth == 0:
        return {k: v for k, v in node.items() if k != "children"} | {"children_count": len(node["children"])}
    return node | {"children": [_prune(c, depth - 1) for c in node["children"]]}


# -- one note -----------------------------------------------------------------------------------


def _find_note(ix: VaultIndex, path: str) -> str:
    """The vault path of the note `path` names: the path itself, or (when no note is there) the
    path with `.md` added, or the one note whose file name (with or without `.md`) it is,
    case-insensitively; else NotFound with the closest names, or InputError naming the several."""
    vault = ix.vault
    rel = require_note_path(path) if path.lower().endswith(".md") else None
    if rel is not None:
        try:
            vault.locate_note(rel)
            return rel
        except NotFound:
            pass
    if has_index(vault):
        paths = list(_load_manifest(ix)["by_path"])
    else:
        from ..vault.paths import list_note_files

        paths = [nf.path for nf in list_note_files(vault)]
    want = unicodedata.normalize("NFC", path.strip().strip("/")).lower()
    want_md = want if want.endswith(".md") else want + ".md"
    exact = [p for p in paths if p.lower() == want_md]
    named = exact or [p for p in paths if p.lower().rpartition("/")[2] == want_md.rpartition("/")[2]]
    if "/" in want and not exact:
        named = [p for p in paths if p.lower().endswith("/" + want_md)]
    if len(named) == 1:
        return str(named[0])
    if len(named) > 1:
        raise InputError(f"{path!r} names {len(named)} notes: {', '.join(sorted(named)[:10])}; give the path.")
    stems = {p.rpartition("/")[2][:-3].lower(): p for p in paths}
    close = difflib.get_close_matches(want_md.rpartition("/")[2][:-3], list(stems), n=5, cutoff=0.6)
    hint = f" Did you mean: {', '.join(stems[c] for c in close)}?" if close else ""
    raise NotFound(f"No such note: {path}.{hint}")


def _current_bytes(vault: Vault, path: str) -> bytes:
    disk = vault.resolve_note(path)
    return disk.read_bytes()


def _page_of_headings(
    headings: list[dict[str, Any]], offset: int, limit: int
) -> tuple[list[dict[str, Any]], int, int | None, int | None]:
    """(the page's tree, headings in all, first line of the page, first line after it).

    Headings are numbered in document order (pre-order); the page keeps those numbered
    offset .. offset+limit-1, each under its parent when the parent is on the page too.
    """
    end = offset + limit
    page: list[dict[str, Any]] = []
    total = 0
    first_line: int | None = None
    next_line: int | None = None
    stack: list[tuple[dict[str, Any], dict[str, Any] | None]] = [(h, None) for h in reversed(headings)]
    while stack:
        node, parent = stack.pop()
        number = total
        total += 1
        copy: dict[str, Any] | None = None
        if offset <= number < end:
            copy = {k: v for k, v in node.items() if k != "children"}
            copy["children"] = []
            (parent["children"] if parent is not None else page).append(copy)
            if first_line is None:
                first_line = int(node["line"])
        elif number == end:
            next_line = int(node["line"])
        children = node.get("children") or []
        stack.extend((child, copy) for child in reversed(children))
    return page, total, first_line, next_line


def _note_headings(ix: VaultIndex, path: str, *, offset: int = 0, limit: int = DEFAULT_HEADINGS) -> HeadingsResult:
    """One page of a note's heading tree (at most MAX_HEADINGS headings) and the links on its lines.

    Parsed live when the note changed since the build. `truncated` / `next_offset` say when
    more headings follow; a note's preamble links are on the first page.
    """
    vault = ix.vault
    if offset < 0:
        raise InputError("offset must be 0 or more.")
    limit = max(1, min(limit, MAX_HEADINGS))
    path = _find_note(ix, path)
    streamed = _large_layer_page(ix, path, offset=offset, limit=limit) if has_index(vault) else None
    if streamed is not None:
        fields, scanned = streamed
        return _headings_result(fields, scanned.headings, scanned.total, scanned.links, offset, limit)
    full = _all_headings(ix, path)
    page, total, first_line, next_line = _page_of_headings(full["headings"], offset, limit)
    start = 1 if offset == 0 else first_line
    links: list[dict[str, Any]] = []
    if start is not None:
        stop = next_line if next_line is not None else math.inf
        links = [link for link in full.get("links", []) if start <= int(link.get("line") or 0) < stop]
    return _headings_result(full, page, total, links, offset, limit)


def _headings_result(
    fields: dict[str, Any],
    page: list[dict[str, Any]],
    total: int,
    links: list[dict[str, Any]],
    offset: int,
    limit: int,
) -> HeadingsResult:
    next_offset = offset + limit if offset + limit < total else None
    # only the page is validated into the answer model: the whole tree may hold 500,000 headings
    return HeadingsResult(
        **fields
        | {
            "headings": page,
            "links": links[:MAX_LINKS],
            "links_truncated": len(links) > MAX_LINKS,
            "heading_count": total,
            "offset": offset,
            "limit": limit,
            "truncated": next_offset is not None,
            "next_offset": next_offset,
        }
    )


def _large_layer_page(
    ix: VaultIndex, path: str, *, offset: int, limit: int, find_title: str | None = None
) -> tuple[dict[str, Any], HeadingsPage] | None:
    """A page of a large, current note layer read as a stream (see layer_stream); None when the
    layer is small, missing or behind the note, and the caller loads it whole or parses the note."""
    vault = ix.vault
    rel = require_note_path(path)
    entry = _load_manifest(ix)["by_path"].get(rel)
    if entry is None:
        return None
    with index_read_lock(vault):
        handle = open_index_file(vault, f"notes/{entry['id']}.json")
    if handle is None:
        return None
    with handle:
        if os.fstat(handle.fileno()).st_size < STREAM_LAYER_BYTES:
            return None
        digest = hashlib.sha256(_current_bytes(vault, rel)).hexdigest()
        if entry["sha256"] != digest:
            return None
        try:
            scanned = read_headings_page(
                handle, offset=offset, limit=limit, link_cap=MAX_LINKS + 1, find_title=find_title
            )
        except (LayerOutOfOrder, ijson.JSONError):
            return None
    meta = scanned.meta
    if meta.get("sha256") != digest:
        return None
    stale, _ = _staleness(ix)
    fields = stale.model_dump() | {
        "path": rel,
        "id": meta.get("id", entry["id"]),
        "sha256": digest,
        "source": "index",
        "title": meta.get("title", ""),
        "line_count": meta.get("line_count", 0),
        "preamble": meta.get("preamble"),
    }
    return fields, scanned


def _all_headings(ix: VaultIndex, path: str) -> dict[str, Any]:
    """A note's whole heading tree with line ranges (HeadingsResult's fields, not validated);
    parsed live when the note changed since the build."""
    vault = ix.vault
    rel = require_note_path(path)
    if not has_index(vault):
        # no index: the note is read and parsed as it is (an agent can read before any build)
        raw = _current_bytes(vault, rel)
        return Staleness(stale=True).model_dump() | _parsed_live(rel, raw, hashlib.sha256(raw).hexdigest())
    stale, _ = _staleness(ix)
    manifest = _load_manifest(ix)
    entry = manifest["by_path"].get(rel)
    raw = _current_bytes(vault, rel)
    digest = hashlib.sha256(raw).hexdigest()
    if entry is not None and entry["sha256"] == digest:
        with index_read_lock(vault):
            layer = load_index_json(vault, f"notes/{entry['id']}.json")
        if isinstance(layer, dict) and layer.get("sha256") == digest:
            return stale.model_dump() | {
                "path": rel,
                "id": layer["id"],
                "sha256": digest,
                "source": "index",
                "title": layer["title"],
                "line_count": layer["line_count"],
                "preamble": layer["preamble"],
                "headings": layer["headings"],
                "links": layer["links"],
            }
    return stale.model_dump() | {"stale": True, "note_changed": True} | _parsed_live(rel, raw, digest)


def _parsed_live(rel: str, raw: bytes, digest: str) -> dict[str, Any]:
    """A note's heading fields parsed from its bytes as they are now (source "live")."""
    record = parse_record(rel, raw)
    return {
        "path": rel,
        "id": note_id(rel),
        "sha256": digest,
        "source": "live",
        "title": record["title"],
        "line_count": record["line_count"],
        "preamble": record["preamble"],
        "headings": record["headings"],
    }


def has_index(vault: Vault) -> bool:
    return (vault.harness_dir / "index" / "manifest.json").is_file()


def _section_tree(ix: VaultIndex, path: str, heading: str | None) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The note's fields (path, sha256, line_count, staleness) and the heading titled `heading`."""
    vault = ix.vault
    streamed = _large_layer_page(ix, path, offset=0, limit=1, find_title=heading) if has_index(vault) else None
    if streamed is not None:
        return streamed[0], streamed[1].found
    tree = _all_headings(ix, path)
    return tree, (_find_heading(tree["headings"], heading) if heading is not None else None)


def heading_key(title: str) -> str:
    """A heading title as a person types it: NFKC, case-folded, emoji and other symbols and
    punctuation dropped, spaces collapsed ("⌨️ ショートカットキー" and "ショートカットキー" agree)."""
    text = unicodedata.normalize("NFKC", title).casefold()
    kept = "".join(ch if not unicodedata.category(ch).startswith(("S", "P", "C", "M")) else " " for ch in text)
    return " ".join(kept.split())


def _find_heading(headings: list[dict[str, Any]], title: str) -> dict[str, Any] | None:
    """The first heading titled `title` (exactly, ignoring case and spaces at the ends), else the
    first whose heading_key is the same."""
    want = title.strip().lower()
    loose = heading_key(title)
    fallback: dict[str, Any] | None = None
    stack: list[dict[str, Any]] = list(reversed(headings))
    while stack:
        h = stack.pop()
        if str(h["title"]).strip().lower() == want:
            return h
        if fallback is None and loose and heading_key(str(h["title"])) == loose:
            fallback = h
        stack.extend(reversed(h["children"]))
    return fallback


def _read_section(
    ix: VaultIndex,
    path: str,
    *,
    heading: str | None = None,
    line: int | None = None,
    end_line: int | None = None,
    max_chars: int = DEFAULT_SECTION_CHARS,
) -> SectionResult:
    """The original Markdown of a heading's range (by title) or of explicit lines, size-bounded."""
    vault = ix.vault
    max_chars = max(1, min(max_chars, MAX_SECTION_CHARS))
    path = _find_note(ix, path)
    tree, found = _section_tree(ix, path, heading)
    raw = _current_bytes(vault, tree["path"])
    if hashlib.sha256(raw).hexdigest() != tree["sha256"]:
        tree, found = _section_tree(ix, path, heading)  # changed between the two reads
        raw = _current_bytes(vault, tree["path"])
    title: str | None = None
    if heading is not None:
        if found is None:
            titles = heading_titles(tree.get("headings") or _all_headings(ix, tree["path"])["headings"], None)
            by_key = {heading_key(t): t for t in titles}
            close = difflib.get_close_matches(heading_key(heading), list(by_key), n=5, cutoff=0.5)
            hint = f" Did you mean: {', '.join(repr(by_key[c]) for c in close)}?" if close else ""
            raise NotFound(f"No heading {heading!r} in {tree['path']}.{hint}")
        start, end, title = found["line"], found["end_line"], found["title"]
    else:
        if line is None:
            raise InputError("Give a heading title or a line (and optionally end_line).")
        start = line
        end = end_line if end_line is not None else int(tree["line_count"])
    if start < 1 or end < start:
        raise InputError(f"Invalid line range {start}-{end}.")
    text = raw.decode("utf-8", errors="replace").removeprefix("\ufeff")
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if start > len(lines):
        raise InputError(f"Line {start} is past the end of {tree['path']} ({len(lines)} lines).")
    end = min(end, len(lines))
    chunk = "\n".join(lines[start - 1 : end])
    truncated = len(chunk) > max_chars
    if truncated:
        chunk = chunk[:max_chars]
        end = start + chunk.count("\n")
    return SectionResult(
        stale=tree["stale"],
        changed=tree["changed"],
        added=tree["added"],
        removed=tree["removed"],
        path=tree["path"],
        line=start,
        end_line=end,
        heading=title,
        truncated=truncated,
        sha256=tree["sha256"],
        note_changed=tree.get("note_changed", False),
        text=chunk,
    )


def _build_now(
    ix: VaultIndex,
    *,
    full: bool = False,
    who: str = "sidecar",
    progress: Callable[[int, int, str], None] | None = None,
) -> BuildReport:
    """Build the index as the sidecar's doors do (REST, MCP): one writer of .harness/ at a time (a
    build by the CLI makes this wait, then answers busy), then the search layer follows in the
    background so that the next search finds it in step. progress(done, total, phase): a job's
    report ("wait" for the lock, then build_index's checkpoints); a cancel keeps the last index."""
    vault = ix.vault
    from ..vault.lock import vault_lock
    from .build import build_index

    def waiting() -> None:
        if progress is not None:
            progress(0, 0, "wait")  # a cancelled job raises here, also while another writer holds the lock

    waiting()
    with vault_lock(vault, f"index build ({who})", waiting=waiting):
        outcome = build_index(vault, full=full, checkpoint=progress, memory=ix.build)
    _warm_search_in_background(ix, after_a_build=True)
    return BuildReport(**outcome._asdict())


# -- the public readers: `index` is what the caller keeps (the sidecar's, a CLI process's); without
# it the call makes its own, closed when it returns ---------------------------------------------


def load_manifest(vault: Vault, *, index: VaultIndex | None = None) -> dict[str, Any]:
    """The manifest, cached in `index` while its file is unchanged; NotFound without an index."""
    with index_of(vault, index) as ix:
        return _load_manifest(ix)


def staleness(vault: Vault, *, index: VaultIndex | None = None) -> Staleness:
    """How the index differs from the vault now; IndexMissing without an index."""
    with index_of(vault, index) as ix:
        return _staleness(ix)[0]


def check_index(vault: Vault, *, index: VaultIndex | None = None) -> CheckReport:
    """Compare the index with the vault: fresh, stale (with the notes) or missing."""
    with index_of(vault, index) as ix:
        return _check_index(ix)


def search(
    vault: Vault,
    asked: SearchQuery | str,
    *,
    today: dt.date | None = None,
    trust_of: Callable[[str], TrustSummary | None] | None = None,
    index: VaultIndex | None = None,
) -> SearchResult:
    """Rank notes by their whole text (see _search); a plain string asks for its words, unfiltered."""
    if isinstance(asked, str):
        asked = SearchQuery.model_construct(q=asked)
    with index_of(vault, index) as ix:
        return _search(ix, asked, today=today, trust_of=trust_of)


def warm_search(vault: Vault, *, after_a_build: bool = False, index: VaultIndex | None = None) -> None:
    """Bring the search layer in step with the index now (see _warm_search)."""
    with index_of(vault, index) as ix:
        _warm_search(ix, after_a_build=after_a_build)


def warm_search_in_background(index: VaultIndex, *, after_a_build: bool = False) -> threading.Thread | None:
    """warm_search in a daemon thread when the vault has an index (the sidecar's start-up and builds)."""
    return _warm_search_in_background(index, after_a_build=after_a_build)


def get_tree(
    vault: Vault, folder: str | None = None, depth: int | None = None, *, index: VaultIndex | None = None
) -> TreeResult:
    with index_of(vault, index) as ix:
        return _get_tree(ix, folder, depth)


def find_note(vault: Vault, path: str, *, index: VaultIndex | None = None) -> str:
    """The vault path of the note `path` names (see _find_note)."""
    with index_of(vault, index) as ix:
        return _find_note(ix, path)


def note_headings(
    vault: Vault, path: str, *, offset: int = 0, limit: int = DEFAULT_HEADINGS, index: VaultIndex | None = None
) -> HeadingsResult:
    """A page of the note's heading outline (see _note_headings)."""
    with index_of(vault, index) as ix:
        return _note_headings(ix, path, offset=offset, limit=limit)


def read_section(
    vault: Vault,
    path: str,
    *,
    heading: str | None = None,
    line: int | None = None,
    end_line: int | None = None,
    max_chars: int = DEFAULT_SECTION_CHARS,
    index: VaultIndex | None = None,
) -> SectionResult:
    """The original Markdown of a heading's range (by title) or of explicit lines, size-bounded."""
    with index_of(vault, index) as ix:
        return _read_section(ix, path, heading=heading, line=line, end_line=end_line, max_chars=max_chars)


def build_now(
    vault: Vault,
    *,
    full: bool = False,
    who: str = "sidecar",
    progress: Callable[[int, int, str], None] | None = None,
    index: VaultIndex,
) -> BuildReport:
    """Build the index as the sidecar's doors do (see _build_now)."""
    with index_of(vault, index) as ix:
        return _build_now(ix, full=full, who=who, progress=progress)


__all__ = [
    "build_now",
    "check_index",
    "get_tree",
    "heading_tree",
    "load_manifest",
    "note_headings",
    "read_section",
    "search",
    "trust_summary",
    "warm_search",
    "warm_search_in_background",
]
