"""Building the three index layers, fully or incrementally, deterministically.

Layers (in `VAULT/.harness/index/`): `tree.json`, `manifest.json`, `notes/<id>.json`. Their
bytes are a pure function of the vault's bytes (and `.harness/index.toml`): keys sorted, no
timestamps, notes in path order. `build.json` (timings, file sizes and mtimes) and
`cache/` (per-note parse results, in parts) are not layers; `.gitignore` keeps them out of git.

A rebuild re-reads only files whose size or mtime changed, re-parses only those whose SHA-256
changed, and re-derives links, backlinks and categories; the layers it writes are
byte-identical to a full rebuild's.
"""

from __future__ import annotations

import gc
import hashlib
import json
import multiprocessing as mp
import os
import pickle
import posixpath
import re
import threading
import time
import unicodedata
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from ..vault.harness_files import (
    discard_staging,
    index_dir,
    list_index_files,
    new_index_staging,
    read_harness_toml,
    read_index_file,
    write_index_files,
    write_staged,
)
from ..vault.note import MAX_NOTE_BYTES, Note, markdown_lines, parse_note
from ..vault.paths import NoteFile, ScanProblem, Vault, list_note_files
from ..vault.references import note_references, references_sha256
from .links import RawLink, Resolver, alias_list, extract, mask_code, property_list
from .parse import decode_text, parse_structure
from .schema import BuildReport

INDEX_FORMAT = 1
MAX_CATEGORY_CHAINS = 8
MAX_TOP_HEADINGS = 20
INDEX_TYPES = frozenset({"moc", "index"})
GITIGNORE = b"build.json\ncache/\n"


def note_id(path: str) -> str:
    """Stable id of a note: the first 16 hex digits of the SHA-256 of its NFC path."""
    return hashlib.sha256(unicodedata.normalize("NFC", path).encode("utf-8")).hexdigest()[:16]


# -- one note -------------------------------------------------------------------------------


def heading_tree(flat: list[tuple[int, str, int]], line_count: int) -> list[dict[str, Any]]:
    """Nest flat (level, title, line) headings; end_line = line before the next same-or-higher heading."""
    roots: list[dict[str, Any]] = []
    stack: list[dict[str, Any]] = []
    for level, title, line in flat:
        while stack and stack[-1]["level"] >= level:
            stack.pop()["end_line"] = line - 1
        node: dict[str, Any] = {"level": level, "title": title, "line": line, "end_line": line_count, "children": []}
        (stack[-1]["children"] if stack else roots).append(node)
        stack.append(node)
    return roots


def _trust(properties: dict[str, Any], content_sha: str, refs: Any) -> dict[str, Any] | None:
    ver = properties.get("verification")
    if not isinstance(ver, dict):
        return None
    level = ver.get("level")
    status = ver.get("status")
    stored_content = ver.get("content_sha256")
    stored_refs = ver.get("references_sha256")
    revalidate = ver.get("revalidate_after")
    return {
        "level": level if isinstance(level, int) and not isinstance(level, bool) else None,
        "status": status if isinstance(status, str) else None,
        "content_match": (stored_content == content_sha) if isinstance(stored_content, str) else None,
        "references_match": (stored_refs == refs()) if isinstance(stored_refs, str) else None,
        "revalidate_after": str(revalidate) if revalidate is not None else None,
    }


def _heading_titles(headings: list[dict[str, Any]]) -> list[str]:
    out: list[str] = []
    stack = list(reversed(headings))
    while stack and len(out) < 200:
        h = stack.pop()
        out.append(h["title"])
        stack.extend(reversed(h["children"]))
    return out


# A heading that opens a references section (vault/references.py: `#`s, blanks, then a title that
# is one of REFERENCE_HEADINGS after strip/strip("*_")/lower) contains this; re.I matches every
# character whose lower() does, so a body without a match has no references section.
_REF_SECTION_HINT = re.compile(r"#[ \t]+[\s*_]*(?:references|sources|参考資料|参考文献|出典)", re.IGNORECASE)


def _references_sha(note: Note) -> str:
    """note.references_sha256, without scanning the body line by line when it has no references section."""
    body = note.body
    if _REF_SECTION_HINT.search(body) is None:
        return references_sha256(note_references(note.properties, ""))
    return references_sha256(note_references(note.properties, body))


def _title(note: Note) -> str:
    """note.title without building a pathlib.Path for the common case (PurePosixPath.stem's rule)."""
    value = note.properties.get("title")
    if isinstance(value, str) and value.strip():
        return value.strip()
    path = note.path
    if "//" in path or "/." in path or path.startswith(".") or path.endswith("/") or not path:
        return note.title
    name = path.rpartition("/")[2]
    i = name.rfind(".")
    return name[:i] if 0 < i < len(name) - 1 else name


def parse_record(path: str, raw: bytes) -> dict[str, Any]:
    """Everything the index keeps about one note; a pure function of its path and bytes."""
    note = parse_note(path, raw)
    props = note.properties
    # parse_note decoded the text already ("" when it is not UTF-8 or holds NUL, as decode_text's None)
    text = note.text if note.text else decode_text(raw)
    error = note.problem.as_dict() if note.problem else None
    flat: list[tuple[int, str, int]] = []
    links: list[RawLink] = []
    inline_tags: list[str] = []
    external: list[str] = []
    line_count = 0
    body_start = 1
    parser = "none"
    lines: list[str] = []
    if text is not None:
        lines = markdown_lines(text)
        structure = parse_structure(text, lines)
        line_count = structure.line_count
        body_start = structure.body_start_line
        parser = structure.scanner
        flat = [(h.level, h.title, h.line) for h in structure.headings]
        body = mask_code(lines, structure.code_lines, body_start)
        links, inline_tags, external = extract(body, body_start)
    headings = heading_tree(flat, line_count)
    first = flat[0][2] if flat else line_count + 1
    preamble = None
    if first > body_start and text is not None:
        lines_pre = lines[body_start - 1 : first - 1]
        if any(line.strip() for line in lines_pre):
            preamble = {"line": body_start, "end_line": first - 1}
    tags = sorted({t.lstrip("#") for t in property_list(props.get("tags")) if t.lstrip("#")} | set(inline_tags))
    aliases = alias_list(props.get("aliases", props.get("alias")))
    type_ = props.get("type")
    status = props.get("status")
    return {
        "title": _title(note),
        "type": str(type_) if isinstance(type_, str | int | float) and not isinstance(type_, bool) else None,
        "status": str(status) if isinstance(status, str | int | float) and not isinstance(status, bool) else None,
        "tags": tags,
        "aliases": sorted(set(aliases)),
        "headings": headings,
        "heading_count": len(flat),
        "top_headings": [h["title"] for h in headings[:MAX_TOP_HEADINGS]],
        "heading_titles": _heading_titles(headings),
        "preamble": preamble,
        "line_count": line_count,
        "links": [[lk.kind, lk.target, lk.heading, lk.block, lk.line] for lk in links],
        "external_links": sorted(external),
        "trust": _trust(props, note.content_sha256, lambda: _references_sha(note)),
        "error": error,
        "parser": parser,
    }


def _unreadable_record(path: str, message: str) -> dict[str, Any]:
    return {
        "title": posixpath.splitext(posixpath.basename(path))[0],
        "type": None,
        "status": None,
        "tags": [],
        "aliases": [],
        "headings": [],
        "heading_count": 0,
        "top_headings": [],
        "heading_titles": [],
        "preamble": None,
        "line_count": 0,
        "links": [],
        "external_links": [],
        "trust": None,
        "error": {"message": message, "line": None, "column": None},
        "parser": "none",
    }


# -- build state ----------------------------------------------------------------------------
#
# Every layer byte is produced by `_enc`: orjson with sorted keys, whose output for the index's
# values (str, int, bool, None, lists, str-keyed dicts; never a float) is byte-identical to
# json.dumps(sort_keys=True, ensure_ascii=False, separators=(",", ":")) and ~10x faster
# (tests/index/test_build_cache.py re-serializes every layer with json.dumps to check). To keep
# an incremental rebuild cheap, each note carries what was already serialized for it: its note
# layer's digest, the parts of its manifest line that do not depend on other notes, its cache
# line; a rebuild re-serializes only what changed.

_SORTED = orjson.OPT_SORT_KEYS


def _enc(obj: Any) -> bytes:
    return orjson.dumps(obj, option=_SORTED)


CACHE_FORMAT = 3  # a line of cache/*.jsonl: <header JSON>\t<record JSON>\t<manifest head>\t<mid>\t<tail>
# cache/ holds one part per chunk of a parallel build (c00000.jsonl, …), written by whichever
# process parsed the chunk, and REST_PART with every other line; parts are read in name order
# and a later line for a path wins.
REST_PART = "cache/r.jsonl"
LEGACY_CACHE = "cache.json"  # the single-file cache of earlier versions: removed when the cache is written

# (kind, target, heading, block, line, status, path, candidates) of a link that is not an attachment
_Resolved = tuple[str, str, str | None, str | None, int, str, str | None, list[str]]


def _resolve_links(path: str, raw_links: list[list[Any]], resolver: Resolver) -> tuple[list[_Resolved], list[str]]:
    resolved: list[_Resolved] = []
    out: set[str] = set()
    for kind, target, heading, block, line in raw_links:
        status, to, candidates = resolver.resolve(path, kind, target)
        if status == "attachment":
            continue
        if status == "resolved" and to is not None:
            out.add(to)
        resolved.append((kind, target, heading, block, line, status, to, candidates))
    return resolved, sorted(out)


def _layer_bytes(path: str, nid: str, sha: str, rec: dict[str, Any], resolved: list[_Resolved]) -> bytes:
    layer = {
        "path": path,
        "id": nid,
        "sha256": sha,
        "title": rec["title"],
        "line_count": rec["line_count"],
        "preamble": rec["preamble"],
        "headings": rec["headings"],
        "links": [
            {
                "kind": kind,
                "target": target,
                "heading": heading,
                "block": block,
                "line": line,
                "status": status,
                "path": to,
                "candidates": candidates,
            }
            for kind, target, heading, block, line, status, to, candidates in resolved
        ],
        "external_links": rec["external_links"],
        "error": rec["error"],
        "parser": rec["parser"],
    }
    return orjson.dumps(layer, option=_SORTED | orjson.OPT_APPEND_NEWLINE)


def _manifest_parts(path: str, nid: str, sha: str, size: int, rec: dict[str, Any]) -> tuple[bytes, bytes, bytes]:
    """A manifest line without its cross-note values, as three strings that frame them.

    line = head + categories + mid + index_note + ',"links_in":' + links_in + ',"links_out":'
    + links_out + tail; the same bytes as `_enc(entry)` (keys in sorted order).
    """
    err = rec["error"]
    head = _enc({"aliases": rec["aliases"]})[:-1] + b',"categories":'
    mid = (
        b","
        + _enc(
            {
                "error": err["message"] if err else None,
                "heading_count": rec["heading_count"],
                "heading_titles": rec["heading_titles"],
                "id": nid,
            }
        )[1:-1]
        + b',"index_note":'
    )
    tail = (
        b","
        + _enc(
            {
                "path": path,
                "sha256": sha,
                "size": size,
                "status": rec["status"],
                "tags": rec["tags"],
                "title": rec["title"],
                "top_headings": rec["top_headings"],
                "trust": rec["trust"],
                "type": rec["type"],
            }
        )[1:]
    )
    return head, mid, tail


class _Note:
    """One indexed note: stat, hash, the few record fields the build needs, serialized parts."""

    __slots__ = (
        "c_line",
        "c_ref",
        "c_staged",
        "digest",
        "error",
        "heading_count",
        "id",
        "layer",
        "link_count",
        "links",
        "links_out",
        "m_head",
        "m_key",
        "m_line",
        "m_mid",
        "m_tail",
        "mtime_ns",
        "parser",
        "path",
        "rec_json",
        "res_fp",
        "res_key",
        "resolved",
        "sha256",
        "size",
        "staged",
        "tags",
        "title",
        "type",
    )

    def __init__(
        self,
        path: str,
        nid: str,
        size: int,
        mtime_ns: int,
        sha256: str,
        lite: tuple[str, str | None, list[str], int, dict[str, Any] | None, list[list[Any]], str],
        rec_json: bytes | None,
        parts: tuple[bytes, bytes, bytes],
    ) -> None:
        self.path = path
        self.id = nid
        self.size = size
        self.mtime_ns = mtime_ns
        self.sha256 = sha256
        self.title, self.type, self.tags, self.heading_count, self.error, self.links, self.parser = lite
        # None for a note a helper process parsed: `_materialize` unpacks it from its cache line
        self.rec_json = rec_json
        self.m_head, self.m_mid, self.m_tail = parts
        self.res_key: object = None  # the paths tuple `resolved` was computed against
        self.res_fp = ""  # its fingerprint (_paths_fp), kept in the cache line
        self.resolved: list[_Resolved] = []
        self.link_count = 0  # len(resolved)
        self.links_out: list[str] = []
        self.digest = ""  # SHA-256 of the note layer for `resolved`
        self.layer: bytes | None = None  # its bytes, until written
        self.staged = False  # its bytes are in the build's staging folder (written by a worker)
        self.m_key: tuple[Any, ...] | None = None
        self.m_line = b""
        self.c_line = b""
        self.c_ref: tuple[_StagedLines, str, int] | None = None  # where a helper's note has its line
        self.c_staged = False  # its current cache line is in a staged chunk part

    def _materialize(self) -> None:
        """A note a helper parsed arrives light; unpack the rest from its cache line on first use."""
        if self.rec_json is None:
            if not self.c_line:
                assert self.c_ref is not None
                source, part, index = self.c_ref
                self.c_line = source.line(part, index)
            header, self.rec_json, _ = self.c_line.split(b"\t", 2)
            fields = orjson.loads(header)
            self.resolved = [tuple(r) for r in fields[7]]
            self.links = fields[8][5]

    def raw_links(self) -> list[list[Any]]:
        self._materialize()
        return self.links

    def record(self) -> dict[str, Any]:
        self._materialize()
        rec: dict[str, Any] = orjson.loads(self.rec_json)  # type: ignore[arg-type]
        return rec

    def set_resolution(self, key: object, fp: str, resolved: list[_Resolved], links_out: list[str]) -> None:
        """Adopt links resolved against the paths `key`; the note layer is rebuilt if they changed."""
        self._materialize()
        if fp != self.res_fp:
            self.res_fp, self.c_line, self.c_staged = fp, b"", False
        if self.res_key is not None and resolved == self.resolved and self.digest:
            self.res_key = key
            return
        self.res_key = key
        self.resolved = resolved
        self.link_count = len(resolved)
        self.links_out = links_out
        self.layer = _layer_bytes(self.path, self.id, self.sha256, self.record(), resolved)
        self.digest = hashlib.sha256(self.layer).hexdigest()
        self.staged = False  # a staged copy would be of the old resolution
        self.c_line, self.c_staged = b"", False

    def restamp(self, size: int, mtime_ns: int) -> _Note:
        """The same bytes under a new stat (a touched file): a copy, the old state stays intact."""
        self._materialize()
        twin = _Note.__new__(_Note)
        for name in _Note.__slots__:
            setattr(twin, name, getattr(self, name))
        if size != self.size:
            twin.m_head, twin.m_mid, twin.m_tail = _manifest_parts(self.path, self.id, self.sha256, size, self.record())
            twin.m_key = None
        twin.size, twin.mtime_ns, twin.c_line, twin.c_staged = size, mtime_ns, b"", False
        return twin

    def cache_line(self) -> bytes:
        if not self.c_line and self.rec_json is None:
            self._materialize()  # a helper's note: its line is in a chunk part
        if not self.c_line:
            assert self.rec_json is not None  # c_line is cleared only after _materialize
            header = [
                self.path,
                self.size,
                self.mtime_ns,
                self.sha256,
                self.digest,
                self.res_fp,
                self.links_out,
                self.resolved,
                [self.title, self.type, self.tags, self.heading_count, self.error, self.links, self.parser],
            ]
            self.c_line = b"\t".join((_enc(header), self.rec_json, self.m_head, self.m_mid, self.m_tail))
        return self.c_line

    @classmethod
    def from_cache_line(cls, line: bytes) -> _Note:
        """A note as the cache line has it, light: the line itself is kept (it is the note's cache
        line while nothing changes) and the record and links are unpacked from it on first use,
        so a loaded state holds each note's parsed links at most once, and only where needed."""
        i1 = line.index(b"\t")
        i2 = line.index(b"\t", i1 + 1)
        i3 = line.index(b"\t", i2 + 1)
        i4 = line.index(b"\t", i3 + 1)
        path, size, mtime_ns, sha, digest, res_fp, links_out, resolved, lite = orjson.loads(line[:i1])
        lite[5] = []  # the raw links: see _materialize
        parts = (line[i2 + 1 : i3], line[i3 + 1 : i4], line[i4 + 1 :])
        note = cls(path, note_id(path), size, mtime_ns, sha, tuple(lite), None, parts)
        note.digest = digest
        note.res_fp = res_fp
        note.links_out = links_out
        note.link_count = len(resolved)
        note.c_line = line
        return note


def _new_note(path: str, size: int, mtime_ns: int, sha: str, rec: dict[str, Any]) -> _Note:
    nid = note_id(path)
    lite = (rec["title"], rec["type"], rec["tags"], rec["heading_count"], rec["error"], rec["links"], rec["parser"])
    return _Note(path, nid, size, mtime_ns, sha, lite, _enc(rec), _manifest_parts(path, nid, sha, size, rec))


@dataclass
class _State:
    notes: dict[str, _Note] = field(default_factory=dict)
    layers: dict[str, str] = field(default_factory=dict)  # index-relative path -> sha256 of its bytes on disk
    paths_key: tuple[str, ...] = ()
    resolver: Resolver | None = None
    generation: str = ""
    build_stat: tuple[int, int, int] | None = None
    manifest: tuple[bytes, str] | None = None  # bytes and digest
    tree: tuple[bytes, str] | None = None  # bytes and digest
    rows: _Rows | None = None  # per-note pieces of the last build, in path order
    paths_fp: str = ""
    settings: dict[str, list[str]] = field(default_factory=dict)
    in_memory: bool = False  # kept by this process since its last build (else loaded from disk)
    cache_pending: int = 0  # notes changed since the cache was last written
    links_in: dict[str, list[str]] = field(default_factory=dict)
    index_notes: list[str] = field(default_factory=list)
    categories: dict[str, list[list[str]]] = field(default_factory=dict)


@dataclass
class _Rows:
    """What the last build wrote for each note, aligned with its paths: a rebuild in which only
    some notes changed and the link graph did not replaces just their rows."""

    position: dict[str, int]
    manifest_lines: list[bytes]
    layer_entries: list[str]  # '"notes/<id>.json":"<digest>"' of build.json's layers
    file_entries: list[str]  # '"<path>":[size,mtime_ns]' of build.json's files
    headings: int
    fallback: int  # notes parsed by markdown-it
    errors: list[tuple[str, dict[str, Any]]]  # (path, error) of notes with one


_STATES: dict[str, _State] = {}
_STATE_LOCK = threading.Lock()


def _load_state(vault: Vault) -> _State:
    state = _State()
    build_raw = read_index_file(vault, "build.json")
    parts = list_index_files(vault, "cache")
    if build_raw is None or not parts:
        return state
    try:
        build = json.loads(build_raw)
        if build.get("format") != INDEX_FORMAT or build.get("cache_format") != CACHE_FORMAT:
            return state
        files = build.get("files", {})
        state.paths_key = tuple(sorted(files))
        fp = _paths_fp(state.paths_key)
        for part in parts:
            for line in (read_index_file(vault, part) or b"").split(b"\n"):
                if line.startswith(b"["):
                    note = _Note.from_cache_line(line)
                    if note.path in files:  # the cache may be older than build.json (see _CACHE_SLACK)
                        note.res_key = state.paths_key if note.res_fp == fp else None
                        state.notes[note.path] = note
        state.paths_fp = fp
        state.layers = dict(build.get("layers", {}))
        state.generation = str(build.get("generation", ""))
    except (ValueError, TypeError, UnicodeDecodeError):
        return _State()
    return state


_GENERATION_PREFIX = b'{"generation":"'


def _paths_fp(paths: tuple[str, ...]) -> str:
    return hashlib.sha256("\n".join(paths).encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _build_stamp(vault: Vault) -> tuple[tuple[int, int, int] | None, str]:
    """(inode, size, mtime) and generation of build.json, reading only its first bytes."""
    path = index_dir(vault) / "build.json"
    try:
        with open(path, "rb") as handle:
            st = os.fstat(handle.fileno())
            head = handle.read(64)
    except OSError:
        return None, ""
    generation = ""
    if head.startswith(_GENERATION_PREFIX):
        end = head.find(b'"', len(_GENERATION_PREFIX))
        if end > 0:
            generation = head[len(_GENERATION_PREFIX) : end].decode("ascii", "replace")
    return (st.st_ino, st.st_size, st.st_mtime_ns), generation


def _get_state(vault: Vault, full: bool) -> _State:
    if full:
        return _State()
    stamp, generation = _build_stamp(vault)
    with _STATE_LOCK:
        cached = _STATES.get(str(vault.root))
    if cached is not None and cached.generation and cached.generation == generation and cached.build_stat == stamp:
        return cached
    return _load_state(vault)


def _read(fs: NoteFile) -> tuple[bytes | None, str]:
    if fs.size > MAX_NOTE_BYTES:
        h = hashlib.sha256()
        with open(fs.disk, "rb") as handle:
            while chunk := handle.read(1 << 20):
                h.update(chunk)
        return None, h.hexdigest()
    fd = os.open(fs.disk, os.O_RDONLY)  # unbuffered: no fstat, ioctl or lseek per note
    try:
        raw = os.read(fd, fs.size + 1)
        if len(raw) > fs.size:  # the file grew since the walk's stat: read the rest
            chunks = [raw]
            while chunk := os.read(fd, 1 << 20):
                chunks.append(chunk)
            raw = b"".join(chunks)
    finally:
        os.close(fd)
    digest = hashlib.sha256(raw).hexdigest()
    return (None if len(raw) > MAX_NOTE_BYTES else raw), digest


# -- derived structure -------------------------------------------------------------------------


def _index_settings(vault: Vault) -> dict[str, list[str]]:
    conf = read_harness_toml(vault, "index.toml")
    section = conf.get("index", conf)
    folders = [str(f).strip("/") for f in section.get("moc_folders", []) if str(f).strip("/")]
    tags = [str(t).lstrip("#").lower() for t in section.get("moc_tags", []) if str(t).strip()]
    return {"moc_folders": sorted(set(folders)), "moc_tags": sorted(set(tags))}


def _is_index(path: str, note: _Note, settings: dict[str, list[str]]) -> bool:
    if isinstance(note.type, str) and note.type.lower() in INDEX_TYPES:
        return True
    if settings["moc_folders"] and any(path.startswith(folder + "/") for folder in settings["moc_folders"]):
        return True
    if not settings["moc_tags"]:
        return False
    tags = {t.lower() for t in note.tags}
    return any(t in tags for t in settings["moc_tags"])


def _categories(index_notes: list[str], links_out: dict[str, list[str]]) -> dict[str, list[list[str]]]:
    """Shortest chains of index notes from root index notes to every reachable note."""
    index_set = set(index_notes)
    outside_in: dict[str, int] = {}
    for src, targets in links_out.items():
        if src not in index_set:
            for t in targets:
                if t in index_set:
                    outside_in[t] = outside_in.get(t, 0) + 1
    linked_from_index: set[str] = set()
    for m in index_notes:
        linked_from_index.update(t for t in links_out.get(m, []) if t != m)
    dist: dict[str, int] = {}
    chains: dict[str, list[list[str]]] = {}
    roots = [m for m in index_notes if m not in linked_from_index]
    pending = sorted(index_set)
    while True:
        queue: deque[str] = deque()
        for r in roots:
            if r not in dist:
                dist[r] = 0
                chains[r] = []
                queue.append(r)
        while queue:
            m = queue.popleft()
            if m not in index_set:
                continue
            base = chains[m] if chains[m] else [[]]
            via = [[*c, m] for c in base]
            for t in links_out.get(m, []):
                if t == m:
                    continue
                if t not in dist:
                    dist[t] = dist[m] + 1
                    chains[t] = []
                    queue.append(t)
                if dist[t] == dist[m] + 1:
                    merged = chains[t] + [c for c in via if c not in chains[t]]
                    chains[t] = sorted(merged)[:MAX_CATEGORY_CHAINS]
        unreached = [m for m in pending if m not in dist]
        if not unreached:
            break
        # index notes that only link to each other (a MOC linking back "up"): enter the cycle at the
        # index note linking to the most unreached index notes, then the most linked from other
        # notes (a home page), then by path
        unreached_set = set(unreached)
        roots = [
            min(
                unreached,
                key=lambda m: (
                    -len(unreached_set.intersection(links_out.get(m, []))),
                    -outside_in.get(m, 0),
                    m,
                ),
            )
        ]
    return chains


def _tree(paths: list[str], notes: dict[str, _Note]) -> dict[str, Any]:
    root: dict[str, Any] = {"kind": "folder", "name": "", "path": "", "children": []}
    folders: dict[str, dict[str, Any]] = {"": root}
    for path in paths:
        parts = path.split("/")
        parent = root
        for i in range(len(parts) - 1):
            fpath = "/".join(parts[: i + 1])
            node = folders.get(fpath)
            if node is None:
                node = {"kind": "folder", "name": parts[i], "path": fpath, "children": []}
                folders[fpath] = node
                parent["children"].append(node)
            parent = node
        note = notes[path]
        parent["children"].append(
            {
                "kind": "note",
                "name": parts[-1],
                "path": path,
                "id": note.id,
                "title": note.title,
                "heading_count": note.heading_count,
            }
        )
    for node in folders.values():
        node["children"].sort(key=lambda c: (c["kind"] != "folder", c["name"]))
    return root


# -- the build --------------------------------------------------------------------------------

# (file, bytes read, sha256, problem, the parsed note or None when its bytes are known)
_Parsed = tuple[NoteFile, int, str, str | None, _Note | None]
PARALLEL_MIN_NOTES = 1500
_CACHE_SLACK = 256


@dataclass
class _Job:
    """What every parse needs besides the file: the scan's paths, and where layers may go."""

    resolver: Resolver
    paths_key: tuple[str, ...]
    paths_fp: str
    staging: Path | None = None  # parallel builds write note layers and cache parts here
    old_layers: dict[str, str] = field(default_factory=dict)  # rel -> digest already on disk
    cache_parts: list[str] = field(default_factory=list)  # staged cache parts, one per chunk
    lines: _StagedLines | None = None  # where the parent finds a helper's note's cache line


class _StagedLines:
    """Cache lines of the chunk parts, each part read once, for notes a helper parsed.

    `folder` is the staging folder until the commit, then the index folder, where the parts
    stay until a later build rewrites the cache (it reads every line it needs first).
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._parts: dict[str, list[bytes]] = {}

    def line(self, part: str, index: int) -> bytes:
        lines = self._parts.get(part)
        if lines is None:
            lines = self._parts[part] = (self.folder / part).read_bytes().split(b"\n")
        return lines[index]


def _chunk_part(i: int) -> str:
    return f"cache/c{i:05}.jsonl"


def _stage_cache_part(job: _Job, i: int, lines: list[bytes]) -> None:
    assert job.staging is not None
    write_staged(job.staging, _chunk_part(i), b"\n".join(lines) + b"\n")


_WORKER_JOB: _Job | None = None  # set before forking the pool; workers inherit it


def _read_one(fs: NoteFile, known_sha: str | None, job: _Job) -> _Parsed:
    """Read, hash and (unless the hash is known) parse one note, resolve its links, lay it out."""
    try:
        raw, sha = _read(fs)
    except OSError as exc:
        return (fs, fs.size, "", f"Cannot read the note: {exc.strerror}.", None)
    if known_sha == sha:
        return (fs, fs.size, sha, None, None)
    if raw is None:
        size = fs.size
        record = _unreadable_record(fs.path, f"The note is larger than {MAX_NOTE_BYTES} bytes; not indexed.")
    else:
        size = len(raw)
        record = parse_record(fs.path, raw)
    note = _new_note(fs.path, size, fs.mtime_ns, sha, record)
    resolved, links_out = _resolve_links(fs.path, record["links"], job.resolver)
    note.res_key = job.paths_key
    note.res_fp = job.paths_fp
    note.resolved, note.link_count, note.links_out = resolved, len(resolved), links_out
    layer = _layer_bytes(fs.path, note.id, sha, record, resolved)
    note.digest = hashlib.sha256(layer).hexdigest()
    if job.staging is None:
        note.layer = layer
    else:
        rel = f"notes/{note.id}.json"
        if job.old_layers.get(rel) != note.digest:
            write_staged(job.staging, rel, layer)
            note.staged = True
    return (fs, size, sha, None, note)


# A note parsed in a helper process crosses the process boundary as a flat tuple and the index of
# its line in the chunk's staged cache part (which holds the record and resolved links); the
# parent reads that line back only if it needs more (see _Note._materialize).
_LIGHT = (
    "id",
    "digest",
    "title",
    "type",
    "tags",
    "heading_count",
    "error",
    "parser",
    "m_head",
    "m_mid",
    "m_tail",
    "links_out",
    "link_count",
    "staged",
    "sha256",
    "size",
    "mtime_ns",
    "path",
    "res_fp",
)


def _parse_chunk(i: int, chunk: list[tuple[NoteFile, str | None]], job: _Job) -> list[tuple[Any, ...]]:
    """A helper's work on one chunk: notes as light tuples, their cache lines staged as a part."""
    out: list[tuple[Any, ...]] = []
    lines: list[bytes] = []
    for fs, known in chunk:
        fs, size, sha, problem, note = _read_one(fs, known, job)
        light = None
        if note is not None:
            light = (*(getattr(note, name) for name in _LIGHT), len(lines))
            lines.append(note.cache_line())
        out.append((fs, size, sha, problem, light))
    _stage_cache_part(job, i, lines)
    return out


def _parse_own_chunk(i: int, chunk: list[tuple[NoteFile, str | None]], job: _Job) -> list[_Parsed]:
    """The parent's work on one chunk: whole notes, their cache lines staged as a part."""
    parsed = [_read_one(fs, known, job) for fs, known in chunk]
    lines: list[bytes] = []
    for *_, note in parsed:
        if note is not None:
            lines.append(note.cache_line())
            note.c_staged = True
    _stage_cache_part(job, i, lines)
    return parsed


def _claim(counter: Any, total: int) -> Iterator[int]:
    """Chunk numbers taken in turn from a counter shared by the parent and its helpers."""
    while True:
        with counter.get_lock():
            i = counter.value
            counter.value = i + 1
        if i >= total:
            return
        yield i


_RESULTS = "results"  # a folder of the staging folder: one pickle per chunk a helper parsed


def _helper(chunks: list[list[tuple[NoteFile, str | None]]], counter: Any, parent: int) -> None:
    """A forked helper process: parse claimed chunks and leave each result in the staging folder.

    It stops at the next chunk when its parent is gone (a killed build), so it never outlives
    the build by more than a chunk (nor holds the inherited vault lock longer). An exception
    is left there too, for the parent to raise.
    """
    job = _WORKER_JOB
    assert job is not None and job.staging is not None
    try:
        for i in _claim(counter, len(chunks)):
            if os.getppid() != parent:
                os._exit(1)
            payload = pickle.dumps(_parse_chunk(i, chunks[i], job), protocol=pickle.HIGHEST_PROTOCOL)
            write_staged(job.staging, f"{_RESULTS}/{i:05}.pickle", payload)
    except BaseException as exc:
        try:
            error = pickle.dumps(exc)
        except Exception:
            error = pickle.dumps(RuntimeError(f"{type(exc).__name__}: {exc}"))
        write_staged(job.staging, f"{_RESULTS}/error-{os.getpid()}.pickle", error)
        raise


def _note_from_light(values: tuple[Any, ...], paths_key: tuple[str, ...], source: _StagedLines, part: str) -> _Note:
    note = _Note.__new__(_Note)
    for name, value in zip(_LIGHT, values, strict=False):
        setattr(note, name, value)
    note.c_line, note.c_ref, note.c_staged = b"", (source, part, values[-1]), True
    note.rec_json = None
    note.links, note.resolved = [], []
    note.res_key = paths_key
    note.layer, note.m_key, note.m_line = None, None, b""
    return note


def _read_and_parse(vault: Vault, to_read: list[NoteFile], state: _State, workers: int, job: _Job) -> list[_Parsed]:
    """Read, hash and parse notes; with forked helpers when there are many and workers allow.

    Every process resolves links against the scan's paths and writes changed note layers into
    `job.staging` (created here; build_index removes it if the build fails).
    """
    global _WORKER_JOB
    jobs = []
    for fs in to_read:
        old = state.notes.get(fs.path)
        jobs.append((fs, old.sha256 if old is not None else None))
    count = workers if workers > 0 else (os.cpu_count() or 1)
    if count > 1 and len(to_read) >= PARALLEL_MIN_NOTES and "fork" in mp.get_all_start_methods():
        size = max(50, len(jobs) // (count * 16))  # small chunks: little idle time at the end
        chunks = [jobs[i : i + size] for i in range(0, len(jobs), size)]
        job.staging = new_index_staging(vault)
        job.old_layers = state.layers
        _WORKER_JOB = job
        try:
            return _parse_in_parallel(chunks, count - 1, job)
        finally:
            _WORKER_JOB = None
    return [_read_one(fs, known, job) for fs, known in jobs]


def _parse_in_parallel(chunks: list[list[tuple[NoteFile, str | None]]], helpers: int, job: _Job) -> list[_Parsed]:
    """This process and `helpers` forked processes parse the chunks, each claiming the next free one.

    The parent keeps its own notes whole; a helper's notes come back light (see _LIGHT), as a
    pickle per chunk in the staging folder, read once the helper has exited. (Files rather
    than a pipe: a helper never blocks on a parent that is busy, or dead.)
    """
    assert job.staging is not None
    source = job.lines = _StagedLines(job.staging)
    results = job.staging / _RESULTS
    results.mkdir()
    ctx = mp.get_context("fork")
    counter = ctx.Value("i", 0)
    procs = [ctx.Process(target=_helper, args=(chunks, counter, os.getpid()), daemon=True) for _ in range(helpers)]
    for proc in procs:
        proc.start()
    finished = False
    try:
        by_chunk: dict[int, list[_Parsed]] = {}
        for i in _claim(counter, len(chunks)):
            by_chunk[i] = _parse_own_chunk(i, chunks[i], job)
        for proc in procs:
            proc.join()
        for error in sorted(results.glob("error-*.pickle")):
            raise pickle.loads(error.read_bytes())  # noqa: S301 - written by our own helper
        if any(proc.exitcode != 0 for proc in procs):
            codes = [proc.exitcode for proc in procs]
            raise RuntimeError(f"An index parser process ended unexpectedly (exit codes {codes}).")
        for i in range(len(chunks)):
            if i in by_chunk:
                continue
            part = _chunk_part(i)
            payload = pickle.loads((results / f"{i:05}.pickle").read_bytes())  # noqa: S301 - ours
            by_chunk[i] = [
                (
                    fs,
                    size,
                    sha,
                    problem,
                    None if light is None else _note_from_light(light, job.paths_key, source, part),
                )
                for fs, size, sha, problem, light in payload
            ]
        job.cache_parts = [_chunk_part(i) for i in range(len(chunks))]
        finished = True
        return [parsed for i in range(len(chunks)) for parsed in by_chunk[i]]
    finally:
        for proc in procs:
            if not finished and proc.is_alive():
                proc.kill()  # its results are not wanted
            proc.join()
        discard_staging(results)


def build_index(vault: Vault, *, full: bool = False, workers: int = 1, resident: bool = True) -> BuildReport:
    """Build or update the index of `vault` (see _build); the cyclic GC pauses meanwhile.

    resident: keep the whole build state in this process for the next build (the sidecar).
    False suits a one-shot process (`kh index build`): when only some notes changed and the
    link graph did not, it reads from the previous build only what those notes need
    (`_build_lite`) instead of loading the whole state.
    """
    enabled = gc.isenabled()
    gc.disable()  # the build allocates many small containers and frees nothing cyclic
    stagings: list[Path] = []  # gone after the commit; removed here if the build fails before it
    try:
        if not full and not resident:
            with _STATE_LOCK:
                held = str(vault.root) in _STATES
            if not held:
                report = _build_lite(vault)
                if report is not None:
                    return report
        return _build(vault, full=full, workers=workers, stagings=stagings)
    finally:
        for staging in stagings:
            discard_staging(staging)
        if enabled:
            gc.enable()


def _build(vault: Vault, *, full: bool, workers: int, stagings: list[Path]) -> BuildReport:
    """Build or update the index of `vault`; returns counts, per-note errors and timings.

    workers: 1 parses in this process (the server's choice); 0 uses every core through forked
    worker processes when many notes need parsing (the CLI's choice); n uses n processes.
    """
    started = time.perf_counter()
    state = _get_state(vault, full)
    problems: list[ScanProblem] = []
    files = list_note_files(vault, problems)
    errors: list[dict[str, Any]] = [{"path": p.path, "message": p.message, "line": None} for p in problems]
    notes: dict[str, _Note] = {}
    reparsed = 0
    to_read: list[NoteFile] = []
    old_notes = state.notes
    for fs in files:
        old = old_notes.get(fs.path)
        if old is not None and old.size == fs.size and old.mtime_ns == fs.mtime_ns:
            notes[fs.path] = old
        else:
            to_read.append(fs)

    # the paths of this scan; a note that cannot be read drops out below (and links are re-resolved)
    scanned = tuple(fs.path for fs in files)
    if scanned == state.paths_key:
        scanned = state.paths_key
    scan_resolver = state.resolver if scanned is state.paths_key and state.resolver is not None else None
    scan_fp = state.paths_fp if scanned is state.paths_key else ""
    parsed_notes: list[_Parsed] = []
    staging: Path | None = None
    cache_parts: list[str] = []
    staged_lines: _StagedLines | None = None
    if to_read:
        scan_resolver = scan_resolver or Resolver(scanned)
        scan_fp = scan_fp or _paths_fp(scanned)
        job = _Job(scan_resolver, scanned, scan_fp)
        try:
            parsed_notes = _read_and_parse(vault, to_read, state, workers, job)
        finally:
            staging, cache_parts, staged_lines = job.staging, job.cache_parts, job.lines
            if staging is not None:
                stagings.append(staging)
    read_fail = False
    touched: list[str] = []  # notes whose object is not the previous build's
    for fs, _size, sha, problem, parsed in parsed_notes:
        if problem is not None:
            errors.append({"path": fs.path, "message": problem, "line": None})
            read_fail = True
            continue
        old = old_notes.get(fs.path)
        if parsed is None:
            assert old is not None and old.sha256 == sha
            notes[fs.path] = old.restamp(fs.size, fs.mtime_ns)
            touched.append(fs.path)
            continue
        reparsed += 1
        notes[fs.path] = parsed
        touched.append(fs.path)
    if read_fail or to_read:
        notes = {p: notes[p] for p in scanned if p in notes}
    paths = list(notes)
    paths_key = scanned if not read_fail else tuple(paths)
    if paths_key == state.paths_key:
        paths_key = state.paths_key
    if paths_key is scanned and scan_resolver is not None:
        resolver = scan_resolver
    elif paths_key is state.paths_key and state.resolver is not None:
        resolver = state.resolver
    else:
        resolver = Resolver(paths)
    if paths_key is state.paths_key:
        paths_fp = state.paths_fp
    else:
        paths_fp = scan_fp if paths_key is scanned and scan_fp else _paths_fp(paths_key)
    settings = _index_settings(vault)

    # links: resolved again only for notes whose resolution is not for this set of paths
    total_links = 0
    links_out: dict[str, list[str]] = {}
    changed = len(touched) + (0 if paths_key is state.paths_key else abs(len(old_notes) - len(notes)) + 1)
    for p in paths:
        note = notes[p]
        if note.res_key is not paths_key:
            resolved, out = _resolve_links(p, note.raw_links(), resolver)
            note.set_resolution(paths_key, paths_fp, resolved, out)
            changed += 1
        links_out[p] = note.links_out
        total_links += note.link_count
    # backlinks and categories: derived again only when a link or an index note changed
    same_graph = state.in_memory and paths_key is state.paths_key and settings == state.settings
    for p in touched if same_graph else ():
        old = old_notes[p]
        if notes[p].links_out != old.links_out or _is_index(p, notes[p], settings) != _is_index(p, old, settings):
            same_graph = False
            break
    if same_graph:
        links_in, index_notes, categories = state.links_in, state.index_notes, state.categories
    else:
        links_in = {p: [] for p in paths}
        for p in paths:
            for t in links_out[p]:
                links_in[t].append(p)
        index_notes = [p for p in paths if _is_index(p, notes[p], settings)]
        categories = _categories(index_notes, links_out)

    # layers
    out_files: dict[str, bytes] = {}
    staged: list[str] = []  # note layers a worker already wrote into `staging`
    old_layers = state.layers
    index_set = set(index_notes)

    def lay_out(p: str, note: _Note) -> tuple[bytes, str]:
        """The note's manifest line and build.json layers entry; its layer goes out if it changed."""
        rel = f"notes/{note.id}.json"
        if old_layers.get(rel) != note.digest:
            if note.staged:
                staged.append(rel)
            else:
                if note.layer is None:
                    record = note.record()
                    note.layer = _layer_bytes(p, note.id, note.sha256, record, note.resolved)
                out_files[rel] = note.layer
        chains = categories.get(p, [])
        is_index = p in index_set
        key = (chains, is_index, links_in[p], note.links_out)
        if note.m_key != key:
            note.m_line = b"".join(
                (
                    note.m_head,
                    _enc(chains) if chains else b"[]",
                    note.m_mid,
                    b"true" if is_index else b"false",
                    b',"links_in":',
                    _enc(links_in[p]) if links_in[p] else b"[]",
                    b',"links_out":',
                    _enc(note.links_out) if note.links_out else b"[]",
                    note.m_tail,
                )
            )
            note.m_key = key
        return note.m_line, f'"{rel}":"{note.digest}"'

    old_rows = state.rows
    if same_graph and old_rows is not None and changed == len(touched):
        # the same paths and links: only the touched notes' rows can differ
        rows = _Rows(
            old_rows.position,
            list(old_rows.manifest_lines),
            list(old_rows.layer_entries),
            list(old_rows.file_entries),
            old_rows.headings,
            old_rows.fallback,
            [],
        )
        for p in touched:
            i, note, old = rows.position[p], notes[p], old_notes[p]
            rows.manifest_lines[i], rows.layer_entries[i] = lay_out(p, note)
            rows.file_entries[i] = _file_entry(note)
            rows.headings += note.heading_count - old.heading_count
            rows.fallback += (note.parser == "markdown-it") - (old.parser == "markdown-it")
        touched_set = set(touched)
        rows.errors = [(p, e) for p, e in old_rows.errors if p not in touched_set]
        rows.errors += [(p, notes[p].error) for p in touched if notes[p].error is not None]  # type: ignore[misc]
        rows.errors.sort(key=lambda pe: pe[0])
        new_layers = dict(old_layers)
        for p in touched:
            new_layers[f"notes/{notes[p].id}.json"] = notes[p].digest
        tree_changed = any(
            (notes[p].title, notes[p].heading_count) != (old_notes[p].title, old_notes[p].heading_count)
            for p in touched
        )
    else:
        rows = _Rows({p: i for i, p in enumerate(paths)}, [], [], [], 0, 0, [])
        for p in paths:
            note = notes[p]
            line, entry = lay_out(p, note)
            rows.manifest_lines.append(line)
            rows.layer_entries.append(entry)
            rows.file_entries.append(_file_entry(note))
            rows.headings += note.heading_count
            rows.fallback += note.parser == "markdown-it"
            if note.error is not None:
                rows.errors.append((p, note.error))
        new_layers = {f"notes/{notes[p].id}.json": notes[p].digest for p in paths}
        tree_changed = True
    errors.extend({"path": p, "message": e["message"], "line": e["line"]} for p, e in rows.errors)
    manifest_lines = rows.manifest_lines
    total_headings = rows.headings
    manifest = b"".join(
        (
            b'{"format":' + str(INDEX_FORMAT).encode() + b',"notes":[\n',
            b",\n".join(manifest_lines),
            b'\n],"settings":' + _enc(settings) + b"}\n",
        )
    )
    # In the sidecar the previous manifest is in memory and on disk: comparing bytes decides; its
    # digest (8 MB: ~15 ms) is left empty, which makes the next build from disk rewrite it.
    if state.manifest is not None:
        manifest_digest = state.manifest[1] if state.manifest[0] == manifest else ""
        if state.manifest[0] != manifest:
            out_files["manifest.json"] = manifest
    else:
        manifest_digest = hashlib.sha256(manifest).hexdigest()
        if old_layers.get("manifest.json") != manifest_digest:
            out_files["manifest.json"] = manifest
    new_layers["manifest.json"] = manifest_digest
    if state.tree is not None and paths_key is state.paths_key and not tree_changed:
        tree, tree_digest = state.tree
    else:
        tree = orjson.dumps(_tree(paths, notes), option=_SORTED | orjson.OPT_APPEND_NEWLINE)
        tree_digest = hashlib.sha256(tree).hexdigest()
    for rel, data, digest in (("tree.json", tree, tree_digest), (".gitignore", GITIGNORE, _GITIGNORE_DIGEST)):
        new_layers[rel] = digest
        if old_layers.get(rel) != digest:
            out_files[rel] = data
    delete = [] if new_layers.keys() == old_layers.keys() else sorted(r for r in old_layers if r not in new_layers)
    if full:
        delete = sorted(set(delete) | {r for r in list_index_files(vault, "notes") if r not in new_layers})

    # non-layer files: the parse cache and the build metadata (generation first: see _build_stamp)
    # cache/ (~25 MB for 10,000 notes) is a cache: its lines check themselves (size, mtime,
    # sha256, paths fingerprint), so a process that keeps its state in memory rewrites it only
    # after _CACHE_SLACK changed notes; a process that loaded it from disk rewrites it at once;
    # a parallel build staged a part per chunk and adds the lines of every other note
    pending = state.cache_pending + changed
    if full or not state.in_memory or pending > _CACHE_SLACK or cache_parts:
        rest = [notes[p].cache_line() for p in paths if not notes[p].c_staged]
        out_files[REST_PART] = b"\n".join(rest) + b"\n" if rest else b""
        staged.extend(cache_parts)
        keep = {REST_PART, *cache_parts}
        delete = [*delete, *(r for r in list_index_files(vault, "cache") if r not in keep), LEGACY_CACHE]
        pending = 0
    generation = hashlib.sha256(f"{time.time_ns()}-{id(state)}".encode()).hexdigest()[:16]
    files_json = ",".join(rows.file_entries)
    layers_json = ",".join(
        [*rows.layer_entries, *(f'"{rel}":"{new_layers[rel]}"' for rel in ("manifest.json", "tree.json", ".gitignore"))]
    )
    fallback = rows.fallback
    out_files["build.json"] = _build_json(
        generation,
        len(paths),
        reparsed,
        time.perf_counter() - started,
        (fallback, total_headings, total_links),
        [[p, e["message"], e["line"]] for p, e in rows.errors],
        layers_json,
        files_json,
    )
    written = write_index_files(vault, out_files, delete, staging=staging, staged=staged)
    for p in paths:
        note = notes[p]
        note.layer = None  # written; rebuilt from the record if ever needed again
        note.staged = note.c_staged = False  # "in this build's staging folder"
    if staged_lines is not None:
        staged_lines.folder = index_dir(vault)
    new_state = _State(
        notes=notes,
        layers=new_layers,
        paths_key=paths_key,
        resolver=resolver,
        generation=generation,
        build_stat=_build_stamp(vault)[0],
        manifest=(manifest, manifest_digest),
        tree=(tree, tree_digest),
        rows=rows,
        paths_fp=paths_fp,
        settings=settings,
        in_memory=True,
        cache_pending=pending,
        links_in=links_in,
        index_notes=index_notes,
        categories=categories,
    )
    with _STATE_LOCK:
        _STATES[str(vault.root)] = new_state
    return BuildReport(
        notes=len(paths),
        headings=total_headings,
        links=total_links,
        errors=errors,
        seconds=round(time.perf_counter() - started, 4),
        reparsed=reparsed,
        removed=len([r for r in delete if r.startswith("notes/")]),
        files_written=written,
        fallback_notes=fallback,
    )


_GITIGNORE_DIGEST = hashlib.sha256(GITIGNORE).hexdigest()


def _build_json(
    generation: str,
    notes: int,
    reparsed: int,
    seconds: float,
    counts: tuple[int, int, int],
    errors: list[list[Any]],
    layers_json: str,
    files_json: str,
) -> bytes:
    """build.json: generation first (see _build_stamp); counts = (fallback notes, headings, links);
    errors = [path, message, line] of every note with one, in path order."""
    fallback, headings, links = counts
    return (
        f'{{"generation":"{generation}","format":{INDEX_FORMAT},"cache_format":{CACHE_FORMAT},'
        f'"notes":{notes},"reparsed":{reparsed},"seconds":{round(seconds, 4)},'
        f'"fallback_notes":{fallback},"headings":{headings},"links":{links},'
        f'"errors":{_enc(errors).decode("utf-8")},"layers":{{{layers_json}}},"files":{{{files_json}}}}}\n'
    ).encode()


# -- a one-shot incremental build ---------------------------------------------------------------
#
# A new process that finds a few notes changed reads build.json (every note's stat and layer
# digest, the report's totals), manifest.json (one line per note: its sha256, links and what
# other notes contribute to it) and the changed notes' old layers, and nothing else: it keeps no
# state of the other notes. It applies while the set of paths, the settings and the link graph
# (every note's links_out and whether it is an index note) stay the same; otherwise, or when
# anything it reads does not match build.json's digests, the full incremental build runs.
# Changed notes' cache lines go to a new cache part; the full build reads the parts in name
# order (a later line for a path wins) and rewrites them into one.

LITE_MAX_CHANGED = 2000
LITE_MAX_PARTS = 64
_LITE_PART = re.compile(r"cache/u(\d{5})\.jsonl")
_MANIFEST_HEAD = b'{"format":' + str(INDEX_FORMAT).encode() + b',"notes":[\n'
_MANIFEST_SETTINGS = b'\n],"settings":'


class _NotLite(Exception):
    """The one-shot path does not apply: the full incremental build runs instead."""


def _verified(vault: Vault, rel: str, digest: str) -> bytes:
    data = read_index_file(vault, rel)
    if data is None or not digest or hashlib.sha256(data).hexdigest() != digest:
        raise _NotLite
    return data


def _build_lite(vault: Vault) -> BuildReport | None:
    try:
        return _lite(vault)
    except (_NotLite, ValueError, TypeError, KeyError, IndexError, UnicodeDecodeError, OSError):
        return None


def _lite(vault: Vault) -> BuildReport:
    started = time.perf_counter()
    build_raw = read_index_file(vault, "build.json")
    if build_raw is None:
        raise _NotLite
    build = orjson.loads(build_raw)
    if build.get("format") != INDEX_FORMAT or build.get("cache_format") != CACHE_FORMAT or "errors" not in build:
        raise _NotLite
    old_files: dict[str, list[int]] = build["files"]
    layers: dict[str, str] = build["layers"]
    problems: list[ScanProblem] = []
    files = list_note_files(vault, problems)
    if len(files) != len(old_files) or any(fs.path != p for fs, p in zip(files, old_files, strict=True)):
        raise _NotLite  # notes added, removed or renamed: links resolve differently
    changed = [(i, fs) for i, fs in enumerate(files) if old_files[fs.path] != [fs.size, fs.mtime_ns]]
    parts = list_index_files(vault, "cache")
    lite_parts = [int(m.group(1)) for r in parts if (m := _LITE_PART.fullmatch(r))]
    if len(changed) > LITE_MAX_CHANGED or len(lite_parts) >= LITE_MAX_PARTS:
        raise _NotLite
    manifest = _verified(vault, "manifest.json", layers.get("manifest.json", ""))
    settings = _index_settings(vault)
    settings_at = manifest.rfind(_MANIFEST_SETTINGS)
    if not manifest.startswith(_MANIFEST_HEAD) or manifest[settings_at + len(_MANIFEST_SETTINGS) :] != (
        _enc(settings) + b"}\n"
    ):
        raise _NotLite
    body = manifest[len(_MANIFEST_HEAD) : settings_at]
    lines = body.split(b",\n") if body else []
    if len(lines) != len(files):
        raise _NotLite

    paths = [fs.path for fs in files]
    resolver: Resolver | None = None
    paths_fp = ""
    tree_patch: dict[str, tuple[str, int]] = {}  # path -> (title, heading_count)
    out_files: dict[str, bytes] = {}
    cache_lines: list[bytes] = []
    counts = [build["fallback_notes"], build["headings"], build["links"]]
    note_errors: dict[str, list[Any]] = {e[0]: e for e in build["errors"]}
    reparsed = 0
    for i, fs in changed:
        path = fs.path
        old = orjson.loads(lines[i])
        if old["path"] != path:
            raise _NotLite
        raw, sha = _read(fs)
        old_files[path] = [fs.size, fs.mtime_ns]
        if sha == old["sha256"]:
            continue  # touched, same bytes: only its stat changes (size too is the same)
        if raw is None:
            record = _unreadable_record(path, f"The note is larger than {MAX_NOTE_BYTES} bytes; not indexed.")
        else:
            record = parse_record(path, raw)
        note = _new_note(path, fs.size if raw is None else len(raw), fs.mtime_ns, sha, record)
        if _is_index(path, note, settings) != old["index_note"]:
            raise _NotLite
        if resolver is None:
            resolver, paths_fp = Resolver(paths), _paths_fp(tuple(paths))
        resolved, links_out = _resolve_links(path, record["links"], resolver)
        if links_out != old["links_out"]:
            raise _NotLite  # the link graph changed: backlinks and categories are derived again
        rel = f"notes/{note.id}.json"
        old_layer = orjson.loads(_verified(vault, rel, layers.get(rel, "")))
        note.set_resolution(None, paths_fp, resolved, links_out)
        assert note.layer is not None
        if note.digest != layers[rel]:
            out_files[rel] = note.layer
            layers[rel] = note.digest
        chains = old["categories"]
        lines[i] = b"".join(
            (
                note.m_head,
                _enc(chains) if chains else b"[]",
                note.m_mid,
                b"true" if old["index_note"] else b"false",
                b',"links_in":',
                _enc(old["links_in"]) if old["links_in"] else b"[]",
                b',"links_out":',
                _enc(links_out) if links_out else b"[]",
                note.m_tail,
            )
        )
        if (note.title, note.heading_count) != (old["title"], old["heading_count"]):
            tree_patch[path] = (note.title, note.heading_count)
        counts[0] += (note.parser == "markdown-it") - (old_layer["parser"] == "markdown-it")
        counts[1] += note.heading_count - old["heading_count"]
        counts[2] += note.link_count - len(old_layer["links"])
        if note.error is not None:
            note_errors[path] = [path, note.error["message"], note.error["line"]]
        else:
            note_errors.pop(path, None)
        cache_lines.append(note.cache_line())
        reparsed += 1

    manifest = b"".join((_MANIFEST_HEAD, b",\n".join(lines), manifest[settings_at:]))
    digest = hashlib.sha256(manifest).hexdigest()
    if digest != layers["manifest.json"]:
        layers["manifest.json"] = digest
        out_files["manifest.json"] = manifest
    if tree_patch:
        tree = orjson.loads(_verified(vault, "tree.json", layers.get("tree.json", "")))
        stack = [tree]
        while stack:
            node = stack.pop()
            if node["kind"] == "folder":
                stack.extend(node["children"])
            elif node["path"] in tree_patch:
                node["title"], node["heading_count"] = tree_patch[node["path"]]
        tree_bytes = orjson.dumps(tree, option=_SORTED | orjson.OPT_APPEND_NEWLINE)
        layers["tree.json"] = hashlib.sha256(tree_bytes).hexdigest()
        out_files["tree.json"] = tree_bytes
    if cache_lines:
        out_files[f"cache/u{max(lite_parts, default=0) + 1:05}.jsonl"] = b"\n".join(cache_lines) + b"\n"
    errors_list = [note_errors[p] for p in paths if p in note_errors]
    generation = hashlib.sha256(f"{time.time_ns()}-lite".encode()).hexdigest()[:16]
    # orjson writes a dict in its order, as `_build` joins its entries: "key":value, no spaces
    layers_json = orjson.dumps(layers)[1:-1].decode("utf-8")
    files_json = orjson.dumps(old_files)[1:-1].decode("utf-8")
    out_files["build.json"] = _build_json(
        generation,
        len(paths),
        reparsed,
        time.perf_counter() - started,
        (counts[0], counts[1], counts[2]),
        errors_list,
        layers_json,
        files_json,
    )
    written = write_index_files(vault, out_files)
    errors: list[dict[str, Any]] = [{"path": p.path, "message": p.message, "line": None} for p in problems]
    errors += [{"path": p, "message": m, "line": line} for p, m, line in errors_list]
    return BuildReport(
        notes=len(paths),
        headings=counts[1],
        links=counts[2],
        errors=errors,
        seconds=round(time.perf_counter() - started, 4),
        reparsed=reparsed,
        removed=0,
        files_written=written,
        fallback_notes=counts[0],
    )


def _file_entry(note: _Note) -> str:
    return f"{_enc(note.path).decode('utf-8')}:[{note.size},{note.mtime_ns}]"
