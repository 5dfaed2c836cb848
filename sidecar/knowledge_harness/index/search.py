"""The search layer: whole notes in SQLite FTS5, ranked by field, with section hits.

Each note is one row of `note_fts` with seven columns: names (title, aliases, the file name's
words), tags, headings, body (Markdown syntax stripped), code (code blocks), links_in (the
display texts of other notes' links to it) and path (folder words). Each section (the preamble
and every heading's own lines) is one row of `section_fts`: heading path, body, code, and the
display texts of `[[Note#Heading|text]]` links credited to that heading. Words are cut by
core.text (Snowball stems, CJK bigrams) before they reach SQLite; the FTS tokenizer only splits
at spaces (non-ASCII tokens are stored hex-encoded so that SQLite never re-cuts them).

FTS5's bm25() with per-column weights is a BM25F: term frequencies are summed over columns
times their weights, with one length normalization. The weights (NOTE_WEIGHTS, SECTION_WEIGHTS)
were chosen on the shared documentation vaults (docs/reasoning-index.md has the figures).

The layer is derived data: a database file in the user's cache folder (one per vault; see
layer_path), kept in step with the index's manifest right after a build through the sidecar
(query.warm_search, in the background) or else on the first query after a build. A note is
re-read when its sha256 or its resolved outgoing links changed; the notes it linked to (before and after) get their
incoming-link texts rewritten. A re-read note the build of this process parsed (the same bytes) is not parsed again:
its sections come from the build (vault_layer's `built`). The pipeline builds the same layer in memory over its catalog.
"""

from __future__ import annotations

import bisect
import contextlib
import hashlib
import json
import math
import os
import posixpath
import re
import sqlite3
import threading
from array import array
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import platformdirs

from ..core.text import name_key, normalize, query_weights, tokenize
from ..errors import InputError, NotFound
from ..vault.note import markdown_lines
from ..vault.paths import Vault
from .links import Resolver
from .parse import decode_text, parse_structure
from .record import NoteSections, heading_tree

LAYER_FORMAT = "7"
MAX_QUERY_CHARS = 1000  # a longer query is cut here (a question, not a document)
MAX_QUERY_TERMS = 32
MAX_SECTIONS_PER_NOTE = 1 << 16
# A note larger than this is found by its names only (title, aliases, tags, path), not its body:
# parsing and tokenizing a 20 MB note took the sidecar from about 130 MB to over 300 MB.
MAX_DOCUMENT_BYTES = 2 * 1024 * 1024
MAX_SNIPPET_TEXT = 4000  # characters of a section's text kept for snippets
SNIPPET_CHARS = 160
MAX_REMEMBERED_TERMS = 50_000  # document frequencies kept in memory per layer
CANDIDATES = 200  # notes given the name signals, after BM25
REMEMBER_ROWS = 64  # a term in at least this many rows of a table has its BM25 parts remembered
MAX_POSTINGS = 1_000_000  # (row, score) pairs of terms remembered per layer, 12 bytes each

# Column order of note_fts and their bm25 weights; see docs/reasoning-index.md for the figures.
NOTE_COLUMNS = ("names", "tags", "headings", "links_in", "path")
NOTE_WEIGHTS = {"names": 6.0, "tags": 0.5, "headings": 3.0, "links_in": 4.0, "path": 0.5}
# The body is a table of its own, so that a long body does not dilute a match in a name or a
# heading (each table normalizes by its own lengths); its score counts TEXT_WEIGHT times.
TEXT_COLUMNS = ("body", "code")
TEXT_WEIGHTS = {"body": 1.0, "code": 0.2}
TEXT_WEIGHT = 0.85
# A query term in more than COMMON_SHARE of the notes' texts is left out of the FTS5 query, as
# long as KEEP_RAREST rarer terms remain (its idf is near 0; scoring it would visit most notes).
COMMON_SHARE = 0.1
KEEP_RAREST = 2
# The same for the short fields (note_fts), with their own counts: a term in more than
# NOTE_COMMON_SHARE of the notes' names, tags, headings, link texts and paths ("obsidian" in a
# vault about Obsidian). 0.5 and 0.3 measured the same on the shared vaults, 0.2 lost MRR.
NOTE_COMMON_SHARE = 0.3
SECTION_COLUMNS = ("heading", "body", "code", "links_in")
SECTION_WEIGHTS = {"heading": 4.0, "body": 1.0, "code": 0.2, "links_in": 4.0}
SECTION_CANDIDATES = 30  # a note's sections given the heading bonus, after BM25
MAX_SECTION_ROWS = 20_000
MAX_SQL_MARKS = 5000  # ids asked in one statement  # sections of the hits scored for one query
HEADING_MATCH = 10.0  # times the share of the query's words in a section's own heading
HEADING_EXACT = 20.0  # the section's own heading has exactly the query's words
# A query whose words are exactly a note's name (title, alias, file name), in any order and
# form, puts that note first: NAME_BONUS is added to its score (scores are FTS5's bm25, whose
# values on a query stay far below it).
NAME_BONUS = 1000.0
# A note whose whole name, written in Chinese, Japanese or Korean, is part of the query
# (自定义主题 and the note 主题) gets NAME_PART times the share of the query's terms that its
# name holds: bigrams lose where a word starts, and this gives it back. Names in other scripts
# get nothing (on English, "Update your listing" then found a note named "Update").
NAME_PART = 3.0
# LINK_PRIOR times log(1 + the number of notes linking to a note) can be added to a matched
# note's score. Measured and left at 0: it helped the Chinese vault and moved the Korean one's
# answers about at random (docs/reasoning-index.md has the figures).
LINK_PRIOR = 0.0

_WIKI = re.compile(r"(!?)\[\[([^\[\]\n]+?)\]\]")
_MDLINK = re.compile(r"(!?)\[([^\]\n]*)\]\(\s*(<[^>\n]+>|[^)\s]+)(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'))?\s*\)")
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://\S+")
_HTML = re.compile(r"</?[A-Za-z][^>\n]*>")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


# -- documents --------------------------------------------------------------------------------


@dataclass(slots=True)
class Section:
    heading: str | None
    heading_path: list[str]
    line: int
    end_line: int
    text: str
    code: str


@dataclass(slots=True)
class NoteDoc:
    """What the search layer keeps of one note, made from its path, bytes and manifest fields."""

    path: str
    sha256: str
    title: str
    aliases: list[str]
    tags: list[str]
    sections: list[Section]
    # (kind, target as written, heading or None, display text) of links to other notes
    links: list[tuple[str, str, str | None, str]] = field(default_factory=list)


def _link_label(inner: str) -> tuple[str, str | None, str | None]:
    """(target, heading, display text or None) of a wikilink's inside."""
    target, bar, text = inner.partition("|")
    target = target.removesuffix("\\")  # `[[a#b\|text]]` inside a table escapes the bar
    heading: str | None = None
    if "#" in target:
        target, frag = target.split("#", 1)
        heading = None if frag.startswith("^") else frag.split("#")[-1].strip() or None
    return target.strip(), heading, (text.strip() or None) if bar else None


def _strip_line(line: str, links: list[tuple[str, str, str | None, str]]) -> str:
    """A line's words without Markdown syntax; collects the links' display texts."""
    if "[[" in line:

        def wiki(m: re.Match[str]) -> str:
            target, heading, text = _link_label(m.group(2))
            if m.group(1):
                return " "
            if text is not None:
                links.append(("wikilink", target, heading, text))
                return f" {text} "
            return f" {posixpath.basename(target)} {heading or ''} "

        line = _WIKI.sub(wiki, line)
    if "](" in line:

        def md(m: re.Match[str]) -> str:
            text, dest = m.group(2), m.group(3)
            if dest.startswith("<"):
                dest = dest[1:-1]
            if m.group(1):
                return " "
            if not _SCHEME.match(dest) and text.strip():
                path, _, frag = dest.partition("#")
                from urllib.parse import unquote

                heading = unquote(frag) if frag and not frag.startswith("^") else None
                links.append(("markdown", unquote(path), heading, text.strip()))
            return f" {text} "

        line = _MDLINK.sub(md, line)
    if "://" in line:
        line = _URL.sub(" ", line)
    if "<" in line:
        line = _HTML.sub(" ", line)
    return line


def note_document(
    path: str,
    raw: bytes,
    sha256: str,
    title: str,
    aliases: list[str],
    tags: list[str],
    parsed: NoteSections | None = None,
) -> NoteDoc:
    """Sections with their line ranges (as notes/<id>.json has them) and plain text, and the links
    (none for a note over MAX_DOCUMENT_BYTES: it is found by its names). `parsed`: the sections
    the build's parse of these very bytes found (record.NoteSections), so as not to parse again."""
    text = decode_text(raw) if len(raw) <= MAX_DOCUMENT_BYTES else None
    doc = NoteDoc(path=path, sha256=sha256, title=title, aliases=aliases, tags=tags, sections=[])
    if not text:
        return doc
    lines = markdown_lines(text)
    if parsed is None:
        structure = parse_structure(text, lines)
        headings = [(h.level, h.title, h.line) for h in structure.headings]
        parsed = NoteSections(headings, structure.code_lines, structure.body_start_line, structure.line_count)
    line_count = parsed.line_count
    flat = parsed.headings[:MAX_SECTIONS_PER_NOTE]
    is_code = bytearray(line_count + 2)
    for start, end in parsed.code_lines:
        for i in range(max(start, 1), min(end, line_count) + 1):
            is_code[i] = 1
    ranges: list[tuple[int, int]] = []  # full ranges in document order, as heading_tree makes them
    stack = list(reversed(heading_tree(flat, line_count)))
    while stack:
        node = stack.pop()
        ranges.append((int(node["line"]), int(node["end_line"])))
        stack.extend(reversed(node["children"]))

    def own(first: int, last: int, heading: str | None, path_titles: list[str], line: int, end_line: int) -> None:
        words: list[str] = []
        code: list[str] = []
        for n in range(first, last + 1):
            raw_line = lines[n - 1]
            if is_code[n]:
                code.append(raw_line)
            elif raw_line.strip():
                words.append(_strip_line(raw_line, doc.links))
        doc.sections.append(Section(heading, path_titles, line, end_line, "\n".join(words), "\n".join(code)))

    body_start = parsed.body_start_line
    first_heading = flat[0][2] if flat else line_count + 1
    if first_heading > body_start and any(s.strip() for s in lines[body_start - 1 : first_heading - 1]):
        own(body_start, first_heading - 1, None, [], body_start, first_heading - 1)
    titles: list[tuple[int, str]] = []
    for k, (level, heading, line) in enumerate(flat):
        while titles and titles[-1][0] >= level:
            titles.pop()
        titles.append((level, heading))
        next_line = flat[k + 1][2] if k + 1 < len(flat) else line_count + 1
        own(line + 1, next_line - 1, heading, [t for _, t in titles], line, ranges[k][1])
    return doc


# -- the database -----------------------------------------------------------------------------

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS notes(
  id INTEGER PRIMARY KEY, path TEXT UNIQUE NOT NULL, sha256 TEXT NOT NULL, links_key TEXT NOT NULL,
  title TEXT NOT NULL, names TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS links(src INTEGER NOT NULL, dst TEXT NOT NULL, heading TEXT, text TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS links_src ON links(src);
CREATE INDEX IF NOT EXISTS links_dst ON links(dst);
CREATE TABLE IF NOT EXISTS sections(
  id INTEGER PRIMARY KEY, heading TEXT, heading_path TEXT NOT NULL, line INTEGER NOT NULL,
  end_line INTEGER NOT NULL, text TEXT NOT NULL);
CREATE VIRTUAL TABLE IF NOT EXISTS note_fts USING fts5(
  names, tags, headings, links_in, path, tokenize = "unicode61 remove_diacritics 0");
CREATE VIRTUAL TABLE IF NOT EXISTS text_fts USING fts5(
  body, code, tokenize = "unicode61 remove_diacritics 0");
CREATE VIRTUAL TABLE IF NOT EXISTS text_vocab USING fts5vocab(text_fts, 'row');
CREATE VIRTUAL TABLE IF NOT EXISTS note_vocab USING fts5vocab(note_fts, 'row');
CREATE VIRTUAL TABLE IF NOT EXISTS section_vocab USING fts5vocab(section_fts, 'row');
CREATE VIRTUAL TABLE IF NOT EXISTS section_fts USING fts5(
  heading, body, code, links_in, note, tokenize = "unicode61 remove_diacritics 0");
"""


# One term's BM25 part in each table, and the factor it counts with in a note's score.
_TERM_QUERIES: dict[str, tuple[str, list[float], float]] = {
    "note": (
        "SELECT rowid, -bm25(note_fts, ?, ?, ?, ?, ?) FROM note_fts WHERE note_fts MATCH ?",
        [NOTE_WEIGHTS[c] for c in NOTE_COLUMNS],
        1.0,
    ),
    "text": (
        "SELECT rowid, -bm25(text_fts, ?, ?) FROM text_fts WHERE text_fts MATCH ?",
        [TEXT_WEIGHTS[c] for c in TEXT_COLUMNS],
        TEXT_WEIGHT,
    ),
}
_SECTION_ROWS = "SELECT rowid, heading, body, code, links_in FROM section_fts WHERE section_fts MATCH ? LIMIT ?"
BM25_K1, BM25_B = 1.2, 0.75  # FTS5's bm25() constants (sections are scored here with the same formula)


def _summed(lists: list[tuple[array[int], array[float]]], weights: list[float] | None = None) -> dict[int, float]:
    """Row id -> the sum of its scores over the lists (each times its weight, 1 without weights)."""
    if not lists:
        return {}
    order = sorted(range(len(lists)), key=lambda k: -len(lists[k][0]))
    weight_of = weights or [1.0] * len(lists)
    first, w = lists[order[0]], weight_of[order[0]]
    total = dict(zip(first[0], first[1] if w == 1.0 else [v * w for v in first[1]], strict=True))
    get = total.get
    for k in order[1:]:
        (ids, values), w = lists[k], weight_of[k]
        if w == 1.0:
            for i, v in zip(ids, values, strict=True):
                total[i] = get(i, 0.0) + v
        else:
            for i, v in zip(ids, values, strict=True):
                total[i] = get(i, 0.0) + v * w
    return total


def _common(terms: list[str], df: Mapping[str, int], most: float) -> set[str]:
    """The terms in more than `most` rows, as long as KEEP_RAREST rarer terms that occur remain."""
    by_rarity = sorted((t for t in terms if df[t]), key=lambda t: (df[t], t))
    return {t for t in by_rarity[KEEP_RAREST:] if df[t] > most}


def _varint(block: bytes, at: int) -> tuple[int, int]:
    """One SQLite varint (big-endian, 7 bits a byte, the ninth byte whole) at `at`: (value, next offset)."""
    value = 0
    for i in range(8):
        byte = block[at + i]
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value, at + i + 1
    return (value << 8) | block[at + 8], at + 9


def _fts_token(token: str) -> str:
    # tokens are letters and digits only: SQLite's unicode61 keeps each whole (or, for a script
    # whose marks it splits at, cuts notes and queries alike, and a quoted phrase still matches)
    return token


def fts_text(text: str) -> str:
    return " ".join(tokenize(text))


def _names_of(path: str, title: str, aliases: list[str]) -> list[str]:
    stem = posixpath.splitext(posixpath.basename(path))[0]
    keys = {" ".join(sorted(k)) for k in (name_key(n) for n in [title, stem, *aliases]) if k}
    return sorted(keys)


def _path_words(path: str) -> str:
    return " ".join(posixpath.splitext(path)[0].split("/"))


def _heading_key(heading: str) -> str:
    return " ".join(tokenize(heading, keep_stopwords=True))


@dataclass(slots=True)
class SectionHit:
    heading: str | None
    heading_path: list[str]
    line: int
    end_line: int
    score: float
    snippet: str


@dataclass(slots=True)
class NoteHit:
    path: str
    score: float
    sections: list[SectionHit] = field(default_factory=list)


@dataclass(slots=True)
class Ranked:
    hits: list[NoteHit]
    total: int
    reason: str | None = None


class SearchLayer:
    """One search database (a file beside the index, or in memory for the pipeline)."""

    def __init__(self, location: Path | None = None) -> None:
        self.location = location
        if location is not None:
            _private_files(location)  # it holds the notes' words
        self.db = sqlite3.connect(str(location) if location else ":memory:", check_same_thread=False, timeout=60)
        self.lock = threading.RLock()
        with self.lock:
            self.db.execute("PRAGMA journal_mode=WAL" if location else "PRAGMA journal_mode=MEMORY")
            self.db.execute("PRAGMA synchronous=OFF")
            fmt = self._meta_raw("format")
            if fmt is not None and fmt != LAYER_FORMAT:
                self._drop_all()
            self.db.executescript(_SCHEMA)
            self.db.execute("INSERT OR REPLACE INTO meta VALUES ('format', ?)", (LAYER_FORMAT,))
            self.db.commit()
        self._names: dict[str, list[str]] | None = None
        self._keys_of: dict[str, list[str]] = {}  # path -> its name keys, while _names is read
        self._path_of: dict[int, str] | None = None
        self._name_sets: dict[str, list[frozenset[str]]] | None = None
        self._stored: dict[str, tuple[int, str, str]] | None = None
        # What this process read of the tables is that of this generation (meta 'generation',
        # new at every sync): a sync by another process makes it differ, and all is read again.
        self.generation: str | None = None
        # derived from the manifest alone (vault_layer): the link keys and the resolver of the last sync
        self.link_keys: dict[str, tuple[list[str], str]] = {}
        self.resolver: tuple[frozenset[str], Resolver] | None = None
        # the manifest entries (the parsed objects, which the next manifest's parse reuses for its
        # unchanged lines) and the `wanted` of the last complete sync: the next sync looks only
        # at the entries that are new objects
        self.synced: tuple[dict[str, Any], dict[str, tuple[str, str]]] | None = None
        # synced since the last warm (query.warm_search): the remembered parts are gone; a layer
        # warmed once in this process (a sidecar's) is warmed again then
        self.needs_warm = False
        self.keep_warm = False
        self._reader: sqlite3.Connection | None = None  # the warm-up's own connection (_reading_apart)
        self._reader_lock = threading.RLock()
        self._df_of: dict[str, dict[str, int]] = {}
        self._section_avg: tuple[int, float] | None = None
        self._postings_of: OrderedDict[tuple[str, str], tuple[array[int], array[float]]] = OrderedDict()
        self._postings_rows = 0
        self._heading_terms_of: dict[str, frozenset[str]] = {}  # a heading's words do not change
        # the manifest this process last saw the layer in step with (another process may sync
        # the same file: then the tables above are read again)
        self.in_step_with: str | None = None

    def forget(self) -> None:
        """Drop what was read from the tables (after another process changed them)."""
        self._names = self._path_of = self._name_sets = self._stored = None
        self._keys_of = {}
        self.synced = None
        self._forget_scores()

    def _forget_scores(self) -> None:
        """Drop what depends on every row (BM25's idf and average lengths): after any change."""
        self._df_of = {}
        self._section_avg = None
        self._postings_of = OrderedDict()
        self._postings_rows = 0

    def _meta_raw(self, key: str) -> str | None:
        try:
            row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        except sqlite3.OperationalError:
            return None
        return None if row is None else str(row[0])

    def _drop_all(self) -> None:
        for table in (
            "meta",
            "notes",
            "links",
            "sections",
            "text_vocab",
            "note_vocab",
            "note_fts",
            "text_fts",
            "section_fts",
        ):
            self.db.execute(f"DROP TABLE IF EXISTS {table}")

    def meta(self, key: str) -> str | None:
        with self.lock:
            return self._meta_raw(key)

    def set_meta(self, key: str, value: str) -> None:
        with self.lock:
            self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))
            self.db.commit()

    def close(self) -> None:
        with self.lock, self._reader_lock:
            if self._reader is not None:
                self._reader.close()
            self.db.close()

    # -- keeping it in step ----------------------------------------------------------------------

    def stored(self) -> dict[str, tuple[int, str, str]]:
        """path -> (id, sha256, links key) of the notes in the layer (read once, then kept in step by sync)."""
        with self.lock:
            if self._stored is None:
                rows = self.db.execute("SELECT id, path, sha256, links_key FROM notes")
                self._stored = {p: (i, s, k) for i, p, s, k in rows}
            return self._stored

    def check_generation(self) -> None:
        """Forget what was read when another process changed the tables since."""
        with self.lock:
            current = self._meta_raw("generation") or ""
            if current != self.generation:
                self.forget()
                self.generation = current

    def sync(
        self,
        wanted: dict[str, tuple[str, str]],
        load: Callable[[str], NoteDoc | None],
        resolver: Resolver,
        only: list[str] | None = None,
    ) -> int:
        """Bring the layer to `wanted` ({path: (sha256, links_key)}); `load` reads a note's document.
        `only`: the paths that may differ, when the layer was in step with `wanted` but for them
        (the same paths, the other notes unchanged).

        Returns how many notes were (re)indexed."""
        with self.lock:
            stored = self.stored()
            if only is None:
                gone = {p for p in stored if p not in wanted}
                todo = sorted(p for p, key in wanted.items() if p not in stored or stored[p][1:] != key)
            else:
                gone = set()
                todo = sorted(p for p in only if p not in stored or stored[p][1:] != wanted[p])
            if not gone and not todo:
                return 0
            db = self.db
            affected: set[str] = set()
            for p in [*sorted(gone), *todo]:
                if p not in stored:
                    continue
                nid = stored[p][0]
                affected.update(r[0] for r in db.execute("SELECT dst FROM links WHERE src = ?", (nid,)))
                db.execute("DELETE FROM links WHERE src = ?", (nid,))
                self._delete_rows(nid)
                if p in gone:
                    db.execute("DELETE FROM notes WHERE id = ?", (nid,))
                    self._note_gone(p, nid)
                    del stored[p]
            fresh: list[tuple[int, NoteDoc]] = []
            for p in todo:
                doc = load(p)
                sha, links_key = wanted[p]
                if doc is None:
                    doc = NoteDoc(p, sha, posixpath.splitext(posixpath.basename(p))[0], [], [], [])
                keys = _names_of(p, doc.title, doc.aliases)
                names = json.dumps(keys, ensure_ascii=False)
                row_sha = doc.sha256 if doc.sha256 else sha
                if p in stored:
                    nid = stored[p][0]
                    db.execute(
                        "UPDATE notes SET sha256 = ?, links_key = ?, title = ?, names = ? WHERE id = ?",
                        (row_sha, links_key, doc.title, names, nid),
                    )
                else:
                    cur = db.execute(
                        "INSERT INTO notes(path, sha256, links_key, title, names) VALUES (?, ?, ?, ?, ?)",
                        (p, row_sha, links_key, doc.title, names),
                    )
                    nid = int(cur.lastrowid or 0)
                stored[p] = (nid, row_sha, links_key)
                self._note_named(p, nid, keys)
                rows = []
                for kind, target, heading, text in doc.links:
                    status, to, _ = resolver.resolve(p, kind, target)
                    if status == "resolved" and to is not None and to != p:
                        rows.append((nid, to, heading, text))
                        affected.add(to)
                db.executemany("INSERT INTO links VALUES (?, ?, ?, ?)", rows)
                fresh.append((nid, doc))
            for nid, doc in fresh:
                self._insert_rows(nid, doc, self._incoming(doc.path))
            done = {doc.path for _, doc in fresh}
            for target in sorted(affected - done):
                if target in stored:
                    self._rewrite_incoming(stored[target][0], self._incoming(target))
            db.execute("INSERT OR REPLACE INTO meta VALUES ('notes', ?)", (str(len(stored)),))
            self.generation = os.urandom(8).hex()
            db.execute("INSERT OR REPLACE INTO meta VALUES ('generation', ?)", (self.generation,))
            db.commit()
            self._forget_scores()
            return len(todo)

    def _note_gone(self, path: str, nid: int) -> None:
        """Take a removed note out of the name and path tables read so far."""
        if self._path_of is not None:
            self._path_of.pop(nid, None)
        if self._names is not None:
            self._unname(path, self._names)
        if self._name_sets is not None:
            self._name_sets.pop(path, None)

    def _unname(self, path: str, names: dict[str, list[str]]) -> None:
        """Take `path` out of the name table under each key it was filed under."""
        for key in self._keys_of.pop(path, []):
            paths = names[key]
            paths.remove(path)
            if not paths:
                del names[key]

    def _note_named(self, path: str, nid: int, keys: list[str]) -> None:
        """Put a (re)indexed note's id and names into the tables read so far, as a new read would."""
        if self._path_of is not None:
            self._path_of[nid] = path
        if self._names is not None:
            self._unname(path, self._names)
            for key in keys:
                bisect.insort(self._names.setdefault(key, []), path)
            self._keys_of[path] = list(keys)
        if self._name_sets is not None:
            if keys:
                self._name_sets[path] = [frozenset(key.split()) for key in keys]
            else:
                self._name_sets.pop(path, None)

    def _incoming(self, path: str) -> list[tuple[str | None, str]]:
        return [
            (h, t) for h, t in self.db.execute("SELECT heading, text FROM links WHERE dst = ? ORDER BY rowid", (path,))
        ]

    def _delete_rows(self, nid: int) -> None:
        lo, hi = nid * MAX_SECTIONS_PER_NOTE, (nid + 1) * MAX_SECTIONS_PER_NOTE - 1
        self.db.execute("DELETE FROM note_fts WHERE rowid = ?", (nid,))
        self.db.execute("DELETE FROM text_fts WHERE rowid = ?", (nid,))
        self.db.execute("DELETE FROM section_fts WHERE rowid BETWEEN ? AND ?", (lo, hi))
        self.db.execute("DELETE FROM sections WHERE id BETWEEN ? AND ?", (lo, hi))

    @staticmethod
    def _credited(sections: list[tuple[str | None, list[str]]], incoming: list[tuple[str | None, str]]) -> list[str]:
        """Per section, the display texts of the links that name its heading (the last one of a heading path)."""
        by_key: dict[str, list[str]] = {}
        for heading, text in incoming:
            if heading:
                by_key.setdefault(_heading_key(heading), []).append(text)
        out: list[str] = []
        taken: set[str] = set()
        for heading, _ in sections:
            key = _heading_key(heading) if heading else ""
            if key and key in by_key and key not in taken:
                taken.add(key)  # the first heading of that title gets them, as Obsidian's link does
                out.append("\n".join(by_key[key]))
            else:
                out.append("")
        return out

    def _insert_rows(self, nid: int, doc: NoteDoc, incoming: list[tuple[str | None, str]]) -> None:
        db = self.db
        stem = posixpath.splitext(posixpath.basename(doc.path))[0]
        names = [doc.title, *doc.aliases] + ([stem] if stem != doc.title else [])
        headings = [s.heading for s in doc.sections if s.heading]
        db.execute(
            "INSERT INTO note_fts(rowid, names, tags, headings, links_in, path) VALUES (?, ?, ?, ?, ?, ?)",
            (
                nid,
                fts_text("\n".join(names)),
                fts_text(" ".join(doc.tags)),
                fts_text("\n".join(headings)),
                fts_text("\n".join(t for _, t in incoming)),
                fts_text(_path_words(doc.path)),
            ),
        )
        credited = self._credited([(s.heading, s.heading_path) for s in doc.sections], incoming)
        base = nid * MAX_SECTIONS_PER_NOTE
        db.executemany(
            "INSERT INTO sections VALUES (?, ?, ?, ?, ?, ?)",
            [
                (
                    base + k,
                    s.heading,
                    json.dumps(s.heading_path, ensure_ascii=False),
                    s.line,
                    s.end_line,
                    (s.heading or "") + "\n" + s.text[:MAX_SNIPPET_TEXT],
                )
                for k, s in enumerate(doc.sections)
            ],
        )
        section_rows = [
            (base + k, fts_text(" ".join(s.heading_path)), fts_text(s.text), fts_text(s.code), fts_text(credit))
            for k, (s, credit) in enumerate(zip(doc.sections, credited, strict=True))
        ]
        note_token = f"note{nid}"  # the note column (weight 0) lets a query stay inside one note
        db.executemany(
            "INSERT INTO section_fts(rowid, heading, body, code, links_in, note) VALUES (?, ?, ?, ?, ?, ?)",
            [(*r, note_token) for r in section_rows],
        )
        db.execute(
            "INSERT INTO text_fts(rowid, body, code) VALUES (?, ?, ?)",
            (nid, "\n".join(r[2] for r in section_rows), "\n".join(r[3] for r in section_rows)),
        )

    def _rewrite_incoming(self, nid: int, incoming: list[tuple[str | None, str]]) -> None:
        db = self.db
        db.execute(
            "UPDATE note_fts SET links_in = ? WHERE rowid = ?", (fts_text("\n".join(t for _, t in incoming)), nid)
        )
        lo, hi = nid * MAX_SECTIONS_PER_NOTE, (nid + 1) * MAX_SECTIONS_PER_NOTE - 1
        rows = db.execute(
            "SELECT id, heading, heading_path FROM sections WHERE id BETWEEN ? AND ? ORDER BY id", (lo, hi)
        )
        sections = [(int(i), h, list(json.loads(hp))) for i, h, hp in rows]
        credited = self._credited([(h, hp) for _, h, hp in sections], incoming)
        for (sid, _, _), credit in zip(sections, credited, strict=True):
            text = fts_text(credit)
            old = db.execute("SELECT links_in FROM section_fts WHERE rowid = ?", (sid,)).fetchone()
            if old is not None and old[0] != text:
                db.execute("UPDATE section_fts SET links_in = ? WHERE rowid = ?", (text, sid))

    # -- asking it -------------------------------------------------------------------------------

    def _paths(self) -> dict[int, str]:
        if self._path_of is None:
            self._path_of = {int(i): str(p) for i, p in self.db.execute("SELECT id, path FROM notes")}
        return self._path_of

    def names(self) -> dict[str, list[str]]:
        """name key -> the paths of the notes with that name (title, alias or file name)."""
        with self.lock:
            if self._names is None:
                table: dict[str, list[str]] = {}
                keys_of: dict[str, list[str]] = {}
                for path, names in self.db.execute("SELECT path, names FROM notes ORDER BY path"):
                    keys = keys_of[path] = json.loads(names)
                    for key in keys:
                        table.setdefault(key, []).append(path)
                self._names, self._keys_of = table, keys_of
            return self._names

    def _heading_terms(self, heading: str) -> frozenset[str]:
        terms = self._heading_terms_of.get(heading)
        if terms is None:
            if len(self._heading_terms_of) >= MAX_REMEMBERED_TERMS:
                self._heading_terms_of.clear()
            terms = self._heading_terms_of[heading] = frozenset(tokenize(heading))
        return terms

    def names_by_path(self) -> dict[str, list[frozenset[str]]]:
        """path -> the word sets of its names (title, aliases, file name)."""
        with self.lock:
            if self._name_sets is None:
                table: dict[str, list[frozenset[str]]] = {}
                for key, paths in self.names().items():
                    for path in paths:
                        table.setdefault(path, []).append(frozenset(key.split()))
                self._name_sets = table
            return self._name_sets

    def _df(self, terms: list[str], vocab: str = "text_vocab") -> dict[str, int]:
        """In how many rows of a table each term occurs (its FTS5 vocabulary table: one statement
        for the terms not yet known, remembered)."""
        known = self._df_of.setdefault(vocab, {})
        # the answer is built apart from the memory, which may be trimmed meanwhile (here, when
        # it would pass MAX_REMEMBERED_TERMS, or by the warm-up): a trim once dropped terms of the
        # query being answered, and the search answered 500 (KeyError)
        counts: dict[str, int] = {}
        missing: list[str] = []
        for t in dict.fromkeys(terms):
            count = known.get(t)
            if count is None:
                missing.append(t)
            else:
                counts[t] = count
        if missing:
            marks = ", ".join("?" * len(missing))
            sql = f"SELECT term, doc FROM {vocab} WHERE term IN ({marks})"  # noqa: S608 - a fixed name, "?" marks
            found = {str(t): int(d) for t, d in self.db.execute(sql, missing)}
            if len(known) + len(missing) > MAX_REMEMBERED_TERMS:
                known.clear()
            for t in missing:
                counts[t] = known[t] = found.get(t, 0)
        return {t: counts[t] for t in terms}

    def remembered_rows(self) -> int:
        """How many (row, score) pairs of terms this layer remembers (bounded by MAX_POSTINGS)."""
        return self._postings_rows

    def _fetch(
        self, table: str, terms: list[str], db: sqlite3.Connection | None = None
    ) -> tuple[array[int], array[float]]:
        """Each row of a table that holds any of the terms, with the sum of their BM25 parts."""
        sql, weights, factor = _TERM_QUERIES[table]
        match = " OR ".join(f'"{_fts_token(t)}"' for t in terms)
        rows = (db or self.db).execute(sql, (*weights, match)).fetchall()
        return array("i", [r[0] for r in rows]), array("d", [r[1] * factor for r in rows])

    def _part(self, table: str, term: str, db: sqlite3.Connection) -> tuple[array[int], array[float]]:
        """One term's part in a table ("both": its two parts summed once)."""
        if table == "both":
            merged = _summed([self._fetch("note", [term], db), self._fetch("text", [term], db)])
            return array("i", merged.keys()), array("d", merged.values())
        return self._fetch(table, [term], db)

    def _keep(self, key: tuple[str, str], found: tuple[array[int], array[float]]) -> None:
        self._postings_of[key] = found
        self._postings_rows += len(found[0])
        while self._postings_rows > MAX_POSTINGS and len(self._postings_of) > 1:
            _, (gone, _) = self._postings_of.popitem(last=False)
            self._postings_rows -= len(gone)

    def _reading_apart(self) -> tuple[sqlite3.Connection, threading.RLock]:
        """A connection for the warm-up and the lock that guards it: for a layer in a file, a
        read-only one of its own, so that the warm-up reads beside the queries (WAL) instead of
        holding the layer's lock through a vocabulary scan (0.3 s at 10,000 notes); else the layer's."""
        if self.location is None:
            return self.db, self.lock
        with self.lock:
            if self._reader is None:
                uri = f"{self.location.as_uri()}?mode=ro"
                self._reader = sqlite3.connect(uri, uri=True, check_same_thread=False, timeout=60)
            return self._reader, self._reader_lock

    def _postings(self, table: str, term: str) -> tuple[array[int], array[float]]:
        """One term's BM25 part in one table, for every row that holds it: (row ids, scores).

        FTS5's bm25() over a query is the sum of its terms' parts (each with its own idf), so a
        term's part is asked once and remembered (up to MAX_POSTINGS rows in all, the least
        recently used term forgotten first): a common term costs its rows once, not every query."""
        key = (table, term)
        known = self._postings_of.get(key)
        if known is not None:
            self._postings_of.move_to_end(key)
            return known
        found = self._part(table, term, self.db)
        self._keep(key, found)
        return found

    def _warm_part(self, table: str, term: str) -> None:
        """_postings for the warm-up: asked apart (_reading_apart), kept if the layer did not change meanwhile."""
        key = (table, term)
        with self.lock:
            if key in self._postings_of:
                return
            generation = self.generation
        db, lock = self._reading_apart()
        with lock:
            found = self._part(table, term, db)
        with self.lock:
            if self.generation == generation and key not in self._postings_of:
                self._keep(key, found)

    def _remember_vocabulary(self, vocab: str) -> dict[str, int]:
        """Every term of an FTS5 vocabulary table with its row count, the most common
        MAX_REMEMBERED_TERMS of them remembered for _df: fts5vocab counts a term's rows by reading
        them, so a common term's first lookup costs as much as its rows (milliseconds at 10,000 notes)."""
        with self.lock:
            generation = self.generation
        db, lock = self._reading_apart()
        with lock:
            sql = f"SELECT term, doc FROM {vocab}"  # noqa: S608 - a fixed name
            counts = {str(t): int(d) for t, d in db.execute(sql)}
        kept = sorted(counts, key=lambda t: -counts[t])[:MAX_REMEMBERED_TERMS]
        with self.lock:
            if self.generation != generation:
                return counts
            known = self._df_of.setdefault(vocab, {})
            if len(known) + len(kept) > MAX_REMEMBERED_TERMS:
                known.clear()
            known.update((t, counts[t]) for t in kept)
        return counts

    def remember_common_terms(self, budget: int | None = None) -> int:
        """Ask now the BM25 parts of the terms in the most rows that a query would still ask (up
        to `budget` rows in all, half of MAX_POSTINGS by default), and read the vocabularies' row counts and
        the name tables, so that the first queries after a build do not pay for them (a common
        term's first query cost 10-30 ms at 10,000 notes). Run in the background (warm_search):
        the rows are read on a connection of its own (_reading_apart) and the layer's lock is
        taken only to keep each result. Returns the rows remembered."""
        budget = MAX_POSTINGS // 2 if budget is None else budget
        with self.lock:
            n_notes = len(self._paths())
            self.names_by_path()  # read once per state of the layer: the first query need not
            self._section_totals()
        counts = {vocab: self._remember_vocabulary(vocab) for vocab in ("note_vocab", "text_vocab", "section_vocab")}
        asked: dict[str, dict[str, int]] = {}  # term -> {table: its rows}, for the terms a query would ask
        for table, vocab, share in (("note", "note_vocab", NOTE_COMMON_SHARE), ("text", "text_vocab", COMMON_SHARE)):
            for term, doc in counts[vocab].items():
                # Terms over the share (asked only while among a query's KEEP_RAREST rarest)
                # were measured too: with the whole bound they left a fifth fewer rows to the
                # first queries but doubled the warm-up's CPU, which a sidecar's first queries share.
                if REMEMBER_ROWS <= doc <= share * n_notes:
                    asked.setdefault(term, {})[table] = doc
        picks = [(sum(by.values()), "both" if len(by) == 2 else next(iter(by)), t) for t, by in asked.items()]
        picks.sort(key=lambda p: (-p[0], p[1], p[2]))
        used = 0
        for rows, table, term in picks:
            if used + rows > budget:
                continue
            self._warm_part(table, term)
            used += rows
        return used

    def _term_lists(
        self,
        terms: list[str],
        note_terms: set[str],
        text_terms: set[str],
        note_df: Mapping[str, int],
        df: Mapping[str, int],
        weight: Mapping[str, float],
    ) -> list[tuple[tuple[array[int], array[float]], float]]:
        """The BM25 parts of the terms asked of each table, each with its query weight: a term in
        many rows from its remembered postings, the terms in few rows in one statement per weight."""
        many_note = {t for t in note_terms if note_df[t] >= REMEMBER_ROWS}
        many_text = {t for t in text_terms if df[t] >= REMEMBER_ROWS}
        lists = [
            (
                self._postings(
                    "both" if t in many_note and t in many_text else "note" if t in many_note else "text", t
                ),
                weight.get(t, 1.0),
            )
            for t in terms
            if t in many_note or t in many_text
        ]
        for table, asked, many in (("note", note_terms, many_note), ("text", text_terms, many_text)):
            few = [t for t in terms if t in asked and t not in many]
            # terms of one weight are asked in one statement (BM25 of an OR is the sum of its terms)
            for w in sorted({weight.get(t, 1.0) for t in few}):
                lists.append((self._fetch(table, [t for t in few if weight.get(t, 1.0) == w]), w))
        return lists

    def rank(
        self,
        query: str,
        *,
        limit: int,
        keep: Callable[[str], bool] | None = None,
        sections: int = 3,
        linked_from: Mapping[str, int] | None = None,
    ) -> Ranked:
        """The best notes for a query (after `keep`), each with its best sections.

        `linked_from` counts, per note, the notes that link to it (the index's links_in)."""
        terms = list(dict.fromkeys(tokenize(query[:MAX_QUERY_CHARS])))[:MAX_QUERY_TERMS]
        if not terms:
            return Ranked([], 0)
        with self.lock:
            n_notes = len(self._paths())
            df = self._df(terms)
            note_df = self._df(terms, "note_vocab")
            # A term in most notes ranks almost nothing (its idf is near 0) but makes FTS5 score
            # every one of them: such terms are left out while rarer ones remain. BM25 is a sum
            # over the terms, so each table is asked its terms' parts on their own (_term_lists).
            common = _common(terms, df, COMMON_SHARE * n_notes)
            note_common = _common(terms, note_df, NOTE_COMMON_SHARE * n_notes)
            weight = query_weights(query[:MAX_QUERY_CHARS])
            # A term in half of a table's rows or more gets the idf FTS5 floors at 1e-6: its part
            # only breaks ties, yet asking it scores every one of those rows (most of a first
            # query's time at 10,000 notes). It is asked only when the other terms find fewer
            # than `want` notes (or a filter needs every note that holds a term).
            floored_note = {t for t in terms if t not in note_common and 2 * note_df[t] >= n_notes}
            floored_text = {t for t in terms if t not in common and 2 * df[t] >= n_notes}
            ask_note = {t for t in terms if t not in note_common and note_df[t]}
            ask_text = {t for t in terms if t not in common and df[t]}
            lists = self._term_lists(terms, ask_note - floored_note, ask_text - floored_text, note_df, df, weight)
            by_id = _summed([found for found, _ in lists], [w for _, w in lists])
            want = max(CANDIDATES, limit * 4)
            if (floored_note or floored_text) and (keep is not None or len(by_id) < want):
                lists += self._term_lists(terms, floored_note, floored_text, note_df, df, weight)
                by_id = _summed([found for found, _ in lists], [w for _, w in lists])
            if keep is not None:
                want = len(by_id)
            if len(by_id) > want:  # the best `want` and those tied with the last of them
                cut = sorted(by_id.values(), reverse=True)[want - 1]
                by_id = {i: v for i, v in by_id.items() if v >= cut}
            paths = self._paths()
            scores: dict[str, float] = {paths[i]: s for i, s in by_id.items() if i in paths}
            ids: dict[str, int] = {paths[i]: i for i in by_id if i in paths}
            if linked_from and LINK_PRIOR:
                for p in scores:
                    scores[p] += LINK_PRIOR * math.log1p(linked_from.get(p, 0))
            if NAME_PART and not all(t.isascii() for t in terms):  # a CJK name needs a CJK term
                query_set = set(terms)
                by_path = self.names_by_path()
                for p in scores:
                    part = max(
                        (len(n) for n in by_path.get(p, ()) if n < query_set and not any(t.isascii() for t in n)),
                        default=0,
                    )
                    if part:
                        scores[p] += NAME_PART * part / len(query_set)
            key = " ".join(sorted(set(terms)))
            for p in self.names().get(key, []):
                scores[p] = scores.get(p, 0.0) + NAME_BONUS
            ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
            if keep is not None:
                ranked = [kv for kv in ranked if keep(kv[0])]
            total = len(ranked)
            hits = [NoteHit(p, round(s, 6)) for p, s in ranked[:limit]]
            wanted = set(terms)
            note_ids: list[int] = []
            for hit in hits:
                nid = ids.get(hit.path)
                if nid is None:
                    row = self.db.execute("SELECT id FROM notes WHERE path = ?", (hit.path,)).fetchone()
                    nid = int(row[0])
                note_ids.append(nid)
            found = self._section_scores(note_ids, terms)
            best = self._sections(note_ids, found, wanted, sections)
            for hit, nid in zip(hits, note_ids, strict=True):
                hit.sections = best[nid]
        return Ranked(hits, total)

    def _section_totals(self) -> tuple[int, float]:
        """Rows of section_fts and their average length in tokens (all columns), as FTS5's bm25 sees them.

        Read from FTS5's averages record (row 1 of its data table: SQLite varints, the row count
        then each column's token total), once per state of the layer."""
        if self._section_avg is None:
            row = self.db.execute("SELECT block FROM section_fts_data WHERE id = 1").fetchone()
            numbers: list[int] = []
            block = bytes(row[0]) if row and row[0] is not None else b""
            at = 0
            while at < len(block):
                value, at = _varint(block, at)
                numbers.append(value)
            rows = numbers[0] if numbers else 0
            self._section_avg = (rows, sum(numbers[1:]) / rows if rows else 1.0)
        return self._section_avg

    def _section_idf(self, terms: list[str], rows: int) -> dict[str, float]:
        """FTS5's bm25 idf of each term over the sections (the number of sections holding it, remembered)."""
        counts = self._df(terms, "section_vocab")
        out: dict[str, float] = {}
        for t in terms:
            hit = counts[t]
            if not hit:  # not one token to SQLite's tokenizer (it cut it): count the phrase
                hit = int(
                    self.db.execute(
                        "SELECT count(*) FROM section_fts WHERE section_fts MATCH ?", (f'"{t}"',)
                    ).fetchone()[0]
                )
            idf = math.log((rows - hit + 0.5) / (hit + 0.5))
            out[t] = idf if idf > 0 else 1e-6
        return out

    def _section_scores(self, note_ids: list[int], terms: list[str]) -> dict[int, list[tuple[float, int]]]:
        """The bm25 of the sections of these notes that hold a query term, as FTS5's bm25() with
        SECTION_WEIGHTS gives it, computed here from the rows' words: FTS5 would first count every
        query term's sections in the whole layer on every query (most of a query's time at 10,000
        notes); here those counts are remembered between queries."""
        if not note_ids:
            return {}
        match = " OR ".join(f'"{_fts_token(t)}"' for t in terms)
        inside = "note : (" + " OR ".join(f"note{nid}" for nid in note_ids) + f") AND ({match})"
        rows = self.db.execute(_SECTION_ROWS, (inside, MAX_SECTION_ROWS)).fetchall()
        if not rows:
            return {}
        count, avgdl = self._section_totals()
        weights = [SECTION_WEIGHTS[c] for c in SECTION_COLUMNS]
        k1, b = BM25_K1, BM25_B
        needles = [(t, f" {t} ") for t in terms]
        counted: list[tuple[int, dict[str, float], int]] = []
        for sid, *columns in rows:
            freq: dict[str, float] = {}
            length = 1  # the note column's one token
            for weight, text in zip(weights, columns, strict=True):
                if not text:
                    continue
                length += text.count(" ") + 1  # the columns are tokens joined by single spaces
                spaced = f" {text} "
                for t, needle in needles:
                    n = spaced.count(needle)
                    if n:
                        if f"{needle}{t} " in spaced:  # side by side, str.count missed the second
                            n = text.split().count(t)
                        freq[t] = freq.get(t, 0.0) + weight * n
            counted.append((int(sid), freq, length))
        found = [t for t in terms if any(t in freq for _, freq, _ in counted)]
        idf = self._section_idf(found, count)
        out: dict[int, list[tuple[float, int]]] = {}
        for sid, freq, length in counted:
            norm = k1 * (1 - b + b * length / avgdl)
            score = sum(idf[t] * (f * (k1 + 1.0)) / (f + norm) for t in found if (f := freq.get(t, 0.0)))
            out.setdefault(sid // MAX_SECTIONS_PER_NOTE, []).append((score, sid))
        return out

    def _by_id(self, columns: str, ids: list[int]) -> dict[int, tuple[Any, ...]]:
        """Rows of the sections table by id (a few statements, however many hits)."""
        out: dict[int, tuple[Any, ...]] = {}
        for at in range(0, len(ids), MAX_SQL_MARKS):
            part = ids[at : at + MAX_SQL_MARKS]
            marks = ", ".join("?" * len(part))
            sql = f"SELECT id, {columns} FROM sections WHERE id IN ({marks})"  # noqa: S608 - fixed columns, "?" marks
            out.update((int(r[0]), tuple(r[1:])) for r in self.db.execute(sql, part))
        return out

    def _sections(
        self, note_ids: list[int], found: dict[int, list[tuple[float, int]]], wanted: set[str], count: int
    ) -> dict[int, list[SectionHit]]:
        """Each note's best sections: bm25 over the sections' fields (SECTION_WEIGHTS) plus the
        own-heading signals; the preamble or first section when no section holds a query term."""
        best_of: dict[int, list[tuple[float, int]]] = {}
        for nid in note_ids:
            # the note matched by its name, tags or path only: its first section
            scored = found.get(nid) or [(0.0, nid * MAX_SECTIONS_PER_NOTE)]
            best_of[nid] = sorted(scored, key=lambda r: (-r[0], r[1]))[:SECTION_CANDIDATES]
        headings = self._by_id("heading", sorted({sid for best in best_of.values() for _, sid in best}))
        chosen: dict[int, list[tuple[float, int]]] = {}
        for nid, best in best_of.items():
            # a section whose own heading says what the query says comes first (names win, for headings)
            ranked: list[tuple[float, int]] = []
            for score, sid in best:
                row = headings.get(sid)
                if row is None:
                    continue
                own = self._heading_terms(row[0]) if row[0] else frozenset()
                cover = len(wanted & own) / len(wanted) if own else 0.0
                bonus = HEADING_MATCH * cover + (HEADING_EXACT if own == wanted else 0.0)
                ranked.append((score + bonus if score else 0.0, sid))
            ranked.sort(key=lambda r: (-r[0], r[1]))
            chosen[nid] = ranked[:count]
        details = self._by_id(
            "heading, heading_path, line, end_line, text", sorted({sid for c in chosen.values() for _, sid in c})
        )
        out: dict[int, list[SectionHit]] = {}
        for nid, picked in chosen.items():
            out[nid] = [
                SectionHit(h, list(json.loads(hp)), int(line), int(end), round(score, 6), snippet(text, wanted))
                for score, sid in picked
                for h, hp, line, end, text in [details[sid]]
            ]
        return out


def snippet(text: str, terms: set[str]) -> str:
    """A short excerpt around the line of the section's text that holds the most query terms.

    A term is looked for as a substring of the normalized line: stems are prefixes of their
    words and bigrams are substrings, so no line needs tokenizing."""
    best, best_line = 0, ""
    lines = [ln.strip() for ln in text.split("\n")]
    lows = normalize(text).split("\n")  # one normalization for the whole text
    if len(lows) != len(lines):
        lows = [normalize(ln) for ln in lines]
    order = [*range(1, len(lines)), 0]
    # the first line is the heading (shown apart): the body's lines are the excerpt when they match
    for k in order:
        ln = lines[k]
        if not ln:
            continue
        low = lows[k]
        found = sum(1 for t in terms if t in low)
        if found > best:
            best, best_line = found, ln
    if not best_line:
        best_line = next((ln for ln in lines[1:] if ln), lines[0] if lines else "")
    best_line = " ".join(best_line.split())
    if len(best_line) <= SNIPPET_CHARS:
        return best_line
    low = normalize(best_line)
    hits = [i for i in (low.find(t) for t in terms) if i >= 0]
    at = min(hits) if hits and len(low) == len(best_line) else 0
    start = max(0, at - SNIPPET_CHARS // 3)
    piece = best_line[start : start + SNIPPET_CHARS]
    return ("…" if start else "") + piece + ("…" if start + SNIPPET_CHARS < len(best_line) else "")


def documents_in_memory(
    notes: Iterable[tuple[str, bytes, str, str, list[str], list[str]]],
) -> SearchLayer:
    """A layer in memory over (path, bytes, sha256, title, aliases, tags) (the pipeline's catalog)."""
    items = list(notes)
    layer = SearchLayer(None)
    by_path = {p: (raw, sha, title, aliases, tags) for p, raw, sha, title, aliases, tags in items}

    def load(path: str) -> NoteDoc:
        raw, sha, title, aliases, tags = by_path[path]
        return note_document(path, raw, sha, title, aliases, tags)

    layer.sync({p: (v[1], "") for p, v in by_path.items()}, load, Resolver(by_path))
    return layer


# -- the layer of a vault's index ---------------------------------------------------------------

MAX_PRUNED_LOOKS = 256  # layer files looked at when a layer is opened
MEMORY_LAYERS = 8  # layers kept open at once; the least recently used is closed first


@dataclass
class SearchMemory:
    """The open search layers of this process, so that a query opens no database.

    Key: the cache folder and the vault's root as given (a string; one resolve() when first
    seen, not one a query). Value: (the layer's file, the open layer). Bound: MEMORY_LAYERS
    layers, the least recently used closed first. Invalidation: a layer whose file was deleted
    is closed and opened anew; a layer is brought in step with the manifest by vault_layer.
    Each layer also remembers its terms' BM25 parts (MAX_POSTINGS rows at most; the least
    recently used term first forgotten; all forgotten when the layer changes): sizes() counts them.
    """

    layers: dict[str, tuple[Path, SearchLayer]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def open_layer(self, vault: Vault) -> SearchLayer:
        folder = _cache_folder()
        key = f"{folder}\0{vault.root}"
        with self.lock:
            known = self.layers.pop(key, None)
            if known is not None and not known[0].exists():
                known[1].close()
                known = None
            if known is None:
                location = layer_path(vault, folder)
                known = (location, SearchLayer(location))
                known[1].set_meta("root", str(vault.root.resolve()))
                prune_layers(location.parent, keep=location)
            self.layers[key] = known  # most recently used last
            while len(self.layers) > MEMORY_LAYERS:
                _, oldest = self.layers.pop(next(iter(self.layers)))
                oldest.close()
            return known[1]

    def sizes(self) -> dict[str, int]:
        with self.lock:
            return {
                "open_layers": len(self.layers),
                "remembered_rows": sum(layer.remembered_rows() for _, layer in self.layers.values()),
            }

    def clear(self) -> None:
        with self.lock:
            for _, layer in self.layers.values():
                layer.close()
            self.layers.clear()


def prune_layers(folder: Path, keep: Path) -> list[Path]:
    """Delete the layers whose vault folder no longer exists (their recorded root is gone)."""
    removed: list[Path] = []
    for other in sorted(folder.glob("*.sqlite"))[:MAX_PRUNED_LOOKS]:
        if other == keep:
            continue
        try:
            with closing(sqlite3.connect(f"{other.as_uri()}?mode=ro", uri=True, timeout=1)) as db:
                row = db.execute("SELECT value FROM meta WHERE key = 'root'").fetchone()
        except sqlite3.Error:
            continue  # busy, or not a layer: left alone
        if row is None or Path(str(row[0])).is_dir():
            continue
        for suffix in ("", "-wal", "-shm"):
            Path(f"{other}{suffix}").unlink(missing_ok=True)
        removed.append(other)
    return removed


def _private_files(location: Path) -> None:
    """The layer's folder 0700 and its files 0600, also when they already exist more open (a
    shared KH_SEARCH_CACHE, an old 0755 folder): SQLite gives -wal/-shm the database's mode."""
    folder = location.parent
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    if not hasattr(os, "getuid"):  # Windows: the user's profile folder is private already
        return
    if folder.stat().st_uid != os.getuid():
        raise InputError(
            f"The search cache folder {folder} belongs to another user; set KH_SEARCH_CACHE to a folder of yours."
        )
    if folder.stat().st_mode & 0o077:
        folder.chmod(0o700)
    os.close(os.open(location, os.O_RDWR | os.O_CREAT, 0o600))
    for suffix in ("", "-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            if Path(f"{location}{suffix}").stat().st_mode & 0o077:
                Path(f"{location}{suffix}").chmod(0o600)


def _cache_folder() -> str:
    return os.environ.get("KH_SEARCH_CACHE") or platformdirs.user_cache_dir("knowledge-harness", appauthor=False)


def layer_path(vault: Vault, folder: str | None = None) -> Path:
    """The layer's file: in the user's cache folder, one per vault (by its real path).

    Not in the vault: searching is reading, and a read must not change one byte of the vault
    (nor make files that a vault kept in git would show). KH_SEARCH_CACHE names another folder."""
    key = hashlib.sha256(str(vault.root.resolve()).encode("utf-8")).hexdigest()[:24]
    return Path(folder or _cache_folder()) / "search" / f"{key}.sqlite"


def _links_key(entry: dict[str, Any]) -> str:
    return hashlib.sha256("\n".join(entry.get("links_out") or []).encode("utf-8")).hexdigest()[:16]


def _wanted(layer: SearchLayer, by_path: dict[str, Any]) -> dict[str, tuple[str, str]]:
    """{path: (sha256, links key)} of the manifest's notes; a note's links key is hashed again
    only when its outgoing links changed since the last sync (one hash a note took ~50 ms at 10,000)."""
    known = layer.link_keys
    wanted: dict[str, tuple[str, str]] = {}
    fresh: dict[str, tuple[list[str], str]] = {}
    for p, e in by_path.items():
        wanted[p] = _wanted_row(e, known.get(p), fresh, p)
    layer.link_keys = fresh
    return wanted


def _wanted_row(
    entry: dict[str, Any], seen: tuple[list[str], str] | None, link_keys: dict[str, tuple[list[str], str]], path: str
) -> tuple[str, str]:
    """A note's (sha256, links key); its links key, hashed again only when its links changed since
    `seen`, is put in `link_keys`."""
    links = entry.get("links_out") or []
    key = seen[1] if seen is not None and seen[0] == links else _links_key(entry)
    link_keys[path] = (links, key)
    return str(entry["sha256"]), key


def _changed_since_sync(
    layer: SearchLayer, by_path: dict[str, Any]
) -> tuple[dict[str, tuple[str, str]], list[str]] | None:
    """The wanted rows and the paths that may differ, when the last complete sync saw the same
    paths: an entry the manifest parse reused (the same object) is the same note line. None
    when the paths changed or nothing was synced yet in this process."""
    if layer.synced is None:
        return None
    entries, wanted = layer.synced
    if len(entries) != len(by_path):
        return None
    changed = [p for p, e in by_path.items() if entries.get(p) is not e]
    if not all(map(entries.__contains__, changed)):
        return None
    wanted = dict(wanted)
    for p in changed:
        wanted[p] = _wanted_row(by_path[p], layer.link_keys.get(p), layer.link_keys, p)
    return wanted, changed


def remember_link_keys(layer: SearchLayer, manifest: dict[str, Any]) -> None:
    """Hash the notes' links keys now (warm_search), so that the first sync after an edit need not."""
    with layer.lock:
        _wanted(layer, manifest["by_path"])


# The sections the build's parse found in a note's bytes, by (path, sha256); None when that parse
# is not at hand (VaultIndex.built_sections)
BuiltSections = Callable[[str, str], NoteSections | None]


def vault_layer(
    memory: SearchMemory,
    vault: Vault,
    manifest: dict[str, Any],
    manifest_key: str,
    built: BuiltSections | None = None,
) -> SearchLayer:
    """The vault's search layer, brought in step with the manifest identified by `manifest_key`.
    A note the build parsed in this process is not parsed again (`built`); one that changed since
    (another SHA-256) is."""
    layer = memory.open_layer(vault)
    if layer.in_step_with == manifest_key:
        return layer
    with layer.lock:
        if layer.in_step_with == manifest_key:
            return layer
        layer.check_generation()
        if layer.meta("manifest") == manifest_key:
            layer.in_step_with = manifest_key
            return layer
        by_path: dict[str, Any] = manifest["by_path"]

        def load(path: str) -> NoteDoc | None:
            entry = by_path[path]
            try:
                raw = vault.resolve_note(path).read_bytes()
            except (OSError, ValueError, NotFound):  # deleted or renamed since the build
                return None
            sha = hashlib.sha256(raw).hexdigest()
            title, aliases, tags = str(entry["title"]), list(entry.get("aliases") or []), list(entry.get("tags") or [])
            return note_document(path, raw, sha, title, aliases, tags, built(path, sha) if built else None)

        since = _changed_since_sync(layer, by_path)
        if since is not None and layer.resolver is not None:  # the same paths: the same resolver
            wanted, only = since
        else:
            wanted, only = _wanted(layer, by_path), None
            paths = frozenset(wanted)
            if layer.resolver is None or layer.resolver[0] != paths:
                layer.resolver = (paths, Resolver(paths))
        layer.synced = None  # until this sync is complete
        layer.sync(wanted, load, layer.resolver[1], only)
        layer.synced = (dict(by_path), wanted)
        layer.needs_warm = True
        layer.set_meta("manifest", manifest_key)
        layer.in_step_with = manifest_key
    return layer


__all__ = [
    "NoteDoc",
    "Ranked",
    "SearchLayer",
    "documents_in_memory",
    "note_document",
    "remember_link_keys",
    "snippet",
    "vault_layer",
]
