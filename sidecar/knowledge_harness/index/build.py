"""Building the three index layers, fully or incrementally, deterministically.

Layers (in `VAULT/.harness/index/`): `tree.json`, `manifest.json`, `notes/<id>.json`. Their
bytes are a pure function of the vault's bytes (and `.harness/index.toml`): keys sorted, no
timestamps, notes in path order. `build.json` (timings, file sizes and mtimes) and
`cache.json` (per-note parse results) are not layers; `.gitignore` keeps them out of git.

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
import posixpath
import re
import threading
import time
import unicodedata
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from ..vault.harness_files import index_dir, read_harness_toml, read_index_file, write_index_files
from ..vault.note import MAX_NOTE_BYTES, Note, parse_note
from ..vault.paths import NoteFile, ScanProblem, Vault, list_note_files
from ..vault.references import note_references, references_sha256
from .links import RawLink, Resolver, alias_list, extract, mask_code, property_list
from .parse import decode_text, parse_structure, split_lines
from .schema import BuildReport

INDEX_FORMAT = 1
MAX_CATEGORY_CHAINS = 8
MAX_TOP_HEADINGS = 20
INDEX_TYPES = frozenset({"moc", "index"})
GITIGNORE = b"build.json\ncache.json\n"


def note_id(path: str) -> str:
    """Stable id of a note: the first 16 hex digits of the SHA-256 of its NFC path."""
    return hashlib.sha256(unicodedata.normalize("NFC", path).encode("utf-8")).hexdigest()[:16]


def dumps(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


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
        lines = split_lines(text)
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
# Every layer byte is produced by `_ENCODER` (json.dumps with sorted keys, compact separators,
# no ASCII escaping). To keep an incremental rebuild cheap, each note carries what was already
# serialized for it: its note layer's digest, the parts of its manifest line that do not depend
# on other notes, its cache line; a rebuild re-serializes only what changed.

_ENCODER = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":"), check_circular=False)
_enc = _ENCODER.encode
CACHE_FORMAT = 2  # cache.json line: <header JSON>\t<record JSON>\t<manifest head>\t<mid>\t<tail>

# (kind, target, heading, block, line, status, path, candidates) of a link that is not an attachment
_Resolved = tuple[str, str, str | None, str | None, int, str, str | None, list[str]]


def _resolve_links(path: str, raw_links: list[list[Any]], resolver: Resolver) -> tuple[list[_Resolved], list[str]]:
    resolved: list[_Resolved] = []
    out: set[str] = set()
    for kind, target, heading, block, line in raw_links:
        status, to, candidates = resolver.resolve(path, RawLink(kind, target, heading, block, line))
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
    return (_enc(layer) + "\n").encode("utf-8")


def _manifest_parts(path: str, nid: str, sha: str, size: int, rec: dict[str, Any]) -> tuple[str, str, str]:
    """A manifest line without its cross-note values, as three strings that frame them.

    line = head + categories + mid + index_note + ',"links_in":' + links_in + ',"links_out":'
    + links_out + tail; the same bytes as `_enc(entry)` (keys in sorted order).
    """
    err = rec["error"]
    head = _enc({"aliases": rec["aliases"]})[:-1] + ',"categories":'
    mid = (
        ","
        + _enc(
            {
                "error": err["message"] if err else None,
                "heading_count": rec["heading_count"],
                "heading_titles": rec["heading_titles"],
                "id": nid,
            }
        )[1:-1]
        + ',"index_note":'
    )
    tail = (
        ","
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
        "digest",
        "error",
        "heading_count",
        "id",
        "layer",
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
        rec_json: str,
        parts: tuple[str, str, str],
    ) -> None:
        self.path = path
        self.id = nid
        self.size = size
        self.mtime_ns = mtime_ns
        self.sha256 = sha256
        self.title, self.type, self.tags, self.heading_count, self.error, self.links, self.parser = lite
        self.rec_json = rec_json
        self.m_head, self.m_mid, self.m_tail = parts
        self.res_key: object = None  # the paths tuple `resolved` was computed against
        self.res_fp = ""  # its fingerprint (_paths_fp), kept in the cache line
        self.resolved: list[_Resolved] = []
        self.links_out: list[str] = []
        self.digest = ""  # SHA-256 of the note layer for `resolved`
        self.layer: bytes | None = None  # its bytes, until written
        self.m_key: tuple[Any, ...] | None = None
        self.m_line = b""
        self.c_line = b""

    def record(self) -> dict[str, Any]:
        rec: dict[str, Any] = json.loads(self.rec_json)
        return rec

    def set_resolution(self, key: object, fp: str, resolved: list[_Resolved], links_out: list[str]) -> None:
        """Adopt links resolved against the paths `key`; the note layer is rebuilt if they changed."""
        if fp != self.res_fp:
            self.res_fp, self.c_line = fp, b""
        if self.res_key is not None and resolved == self.resolved and self.digest:
            self.res_key = key
            return
        self.res_key = key
        self.resolved = resolved
        self.links_out = links_out
        self.layer = _layer_bytes(self.path, self.id, self.sha256, self.record(), resolved)
        self.digest = hashlib.sha256(self.layer).hexdigest()
        self.c_line = b""

    def restamp(self, size: int, mtime_ns: int) -> _Note:
        """The same bytes under a new stat (a touched file): a copy, the old state stays intact."""
        twin = _Note.__new__(_Note)
        for name in _Note.__slots__:
            setattr(twin, name, getattr(self, name))
        if size != self.size:
            twin.m_head, twin.m_mid, twin.m_tail = _manifest_parts(self.path, self.id, self.sha256, size, self.record())
            twin.m_key = None
        twin.size, twin.mtime_ns, twin.c_line = size, mtime_ns, b""
        return twin

    def cache_line(self) -> bytes:
        if not self.c_line:
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
            self.c_line = "\t".join((_enc(header), self.rec_json, self.m_head, self.m_mid, self.m_tail)).encode("utf-8")
        return self.c_line

    @classmethod
    def from_cache_line(cls, line: str) -> _Note:
        header, rec_json, head, mid, tail = line.split("\t")
        path, size, mtime_ns, sha, digest, res_fp, links_out, resolved, lite = json.loads(header)
        note = cls(path, note_id(path), size, mtime_ns, sha, tuple(lite), rec_json, (head, mid, tail))
        note.digest = digest
        note.res_fp = res_fp
        note.links_out = links_out
        note.resolved = [tuple(r) for r in resolved]
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
    tree: tuple[list[tuple[str, int]], bytes, str] | None = None  # (title, heading_count) per path
    build_frags: dict[str, str] = field(default_factory=dict)
    paths_fp: str = ""
    settings: dict[str, list[str]] = field(default_factory=dict)
    in_memory: bool = False  # kept by this process since its last build (else loaded from disk)
    cache_pending: int = 0  # notes changed since cache.json was last written
    links_in: dict[str, list[str]] = field(default_factory=dict)
    index_notes: list[str] = field(default_factory=list)
    categories: dict[str, list[list[str]]] = field(default_factory=dict)


_STATES: dict[str, _State] = {}
_STATE_LOCK = threading.Lock()


def _load_state(vault: Vault) -> _State:
    state = _State()
    build_raw = read_index_file(vault, "build.json")
    cache_raw = read_index_file(vault, "cache.json")
    if build_raw is None or cache_raw is None:
        return state
    try:
        build = json.loads(build_raw)
        if build.get("format") != INDEX_FORMAT or build.get("cache_format") != CACHE_FORMAT:
            return state
        files = build.get("files", {})
        state.paths_key = tuple(sorted(files))
        fp = _paths_fp(state.paths_key)
        for line in cache_raw.decode("utf-8").split("\n"):
            if line.startswith("["):
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
    with open(fs.disk, "rb") as handle:
        raw = handle.read()
    return raw, hashlib.sha256(raw).hexdigest()


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
_WORKER_RESOLVER: tuple[Resolver, tuple[str, ...]] | None = None  # set before forking the pool


def _read_one(fs: NoteFile, known_sha: str | None, resolver: tuple[Resolver, tuple[str, ...]] | None) -> _Parsed:
    """Read, hash and (unless the hash is known) parse one note; links resolved when a resolver is given."""
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
    if resolver is not None:
        resolved, links_out = _resolve_links(fs.path, record["links"], resolver[0])
        note.res_key = resolver[1]
        note.resolved, note.links_out = resolved, links_out
        note.layer = _layer_bytes(fs.path, note.id, sha, record, resolved)
        note.digest = hashlib.sha256(note.layer).hexdigest()
    return (fs, size, sha, None, note)


def _read_chunk(chunk: list[tuple[NoteFile, str | None]]) -> list[_Parsed]:
    return [_read_one(fs, known, _WORKER_RESOLVER) for fs, known in chunk]


def _note_state(note: _Note) -> tuple[Any, ...]:
    return tuple(getattr(note, name) for name in _Note.__slots__)


def _note_from_state(values: tuple[Any, ...]) -> _Note:
    note = _Note.__new__(_Note)
    for name, value in zip(_Note.__slots__, values, strict=True):
        setattr(note, name, value)
    return note


def _read_chunk_flat(chunk: list[tuple[NoteFile, str | None]]) -> list[tuple[Any, ...]]:
    # notes cross the process boundary as plain tuples (pickling __slots__ objects is slower);
    # res_key (the tuple of all paths) stays behind and is set again in the parent
    out: list[tuple[Any, ...]] = []
    for fs, size, sha, problem, note in _read_chunk(chunk):
        if note is not None:
            note.res_key = None
        out.append((fs, size, sha, problem, _note_state(note) if note is not None else None))
    return out


def _read_and_parse(
    to_read: list[NoteFile], state: _State, workers: int, resolver: tuple[Resolver, tuple[str, ...]]
) -> list[_Parsed]:
    """Read, hash and parse notes; in worker processes (fork) when there are many and workers allow.

    Notes parsed in workers come back with their links resolved and their note layer serialized
    against `resolver` (the paths of this scan), so the parent only joins the pieces.
    """
    global _WORKER_RESOLVER
    jobs = []
    for fs in to_read:
        old = state.notes.get(fs.path)
        jobs.append((fs, old.sha256 if old is not None else None))
    count = workers if workers > 0 else (os.cpu_count() or 1)
    if count > 1 and len(to_read) >= PARALLEL_MIN_NOTES and "fork" in mp.get_all_start_methods():
        size = max(50, len(jobs) // (count * 8))
        chunks = [jobs[i : i + size] for i in range(0, len(jobs), size)]
        _WORKER_RESOLVER = resolver
        try:
            with mp.get_context("fork").Pool(count) as pool:
                out: list[_Parsed] = []
                for part in pool.imap(_read_chunk_flat, chunks):
                    for fs, size_read, sha, problem, values in part:
                        note = None
                        if values is not None:
                            note = _note_from_state(values)
                            note.res_key = resolver[1]
                        out.append((fs, size_read, sha, problem, note))
                return out
        finally:
            _WORKER_RESOLVER = None
    return [_read_one(fs, known, resolver) for fs, known in jobs]


def build_index(vault: Vault, *, full: bool = False, workers: int = 1) -> BuildReport:
    """Build or update the index of `vault` (see _build); the cyclic GC pauses meanwhile."""
    enabled = gc.isenabled()
    gc.disable()  # the build allocates many small containers and frees nothing cyclic
    try:
        return _build(vault, full=full, workers=workers)
    finally:
        if enabled:
            gc.enable()


def _build(vault: Vault, *, full: bool, workers: int) -> BuildReport:
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
    if to_read:
        scan_resolver = scan_resolver or Resolver(scanned)
        scan_fp = scan_fp or _paths_fp(scanned)
    read_fail = False
    touched: list[str] = []  # notes whose object is not the previous build's
    for fs, _size, sha, problem, parsed in _read_and_parse(to_read, state, workers, (scan_resolver, scanned)):  # type: ignore[arg-type]
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
        parsed.res_fp = scan_fp
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
            resolved, out = _resolve_links(p, note.links, resolver)
            note.set_resolution(paths_key, paths_fp, resolved, out)
            changed += 1
        links_out[p] = note.links_out
        total_links += len(note.resolved)
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
    new_layers: dict[str, str] = {}
    old_layers = state.layers
    manifest_lines: list[bytes] = []
    total_headings = 0
    index_set = set(index_notes)
    no_chains: list[list[str]] = []
    for p in paths:
        note = notes[p]
        total_headings += note.heading_count
        if note.error is not None:
            errors.append({"path": p, "message": note.error["message"], "line": note.error["line"]})
        rel = f"notes/{note.id}.json"
        new_layers[rel] = note.digest
        if old_layers.get(rel) != note.digest:
            if note.layer is None:
                note.layer = _layer_bytes(p, note.id, note.sha256, note.record(), note.resolved)
            out_files[rel] = note.layer
        chains = categories.get(p, no_chains)
        is_index = p in index_set
        key = (chains, is_index, links_in[p], note.links_out)
        if note.m_key != key:
            line = (
                note.m_head
                + _enc(chains)
                + note.m_mid
                + ("true" if is_index else "false")
                + ',"links_in":'
                + _enc(links_in[p])
                + ',"links_out":'
                + _enc(note.links_out)
                + note.m_tail
            )
            note.m_key, note.m_line = key, line.encode("utf-8")
        manifest_lines.append(note.m_line)
    manifest = b"".join(
        (
            b'{"format":' + str(INDEX_FORMAT).encode() + b',"notes":[\n',
            b",\n".join(manifest_lines),
            b'\n],"settings":' + _enc(settings).encode("utf-8") + b"}\n",
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
    tree_key = [(notes[p].title, notes[p].heading_count) for p in paths]
    if state.tree is not None and paths_key is state.paths_key and state.tree[0] == tree_key:
        tree, tree_digest = state.tree[1], state.tree[2]
    else:
        tree = (_enc(_tree(paths, notes)) + "\n").encode("utf-8")
        tree_digest = hashlib.sha256(tree).hexdigest()
    for rel, data, digest in (("tree.json", tree, tree_digest), (".gitignore", GITIGNORE, _GITIGNORE_DIGEST)):
        new_layers[rel] = digest
        if old_layers.get(rel) != digest:
            out_files[rel] = data
    delete = sorted(rel for rel in old_layers if rel not in new_layers)
    if full:
        from ..vault.harness_files import list_index_files

        delete = sorted(set(delete) | {r for r in list_index_files(vault, "notes") if r not in new_layers})

    # non-layer files: the parse cache and the build metadata (generation first: see _build_stamp)
    # cache.json (11 MB for 10,000 notes) is a cache: its lines check themselves (size, mtime,
    # sha256, paths fingerprint), so a process that keeps its state in memory rewrites it only
    # after _CACHE_SLACK changed notes; a process that loaded it from disk rewrites it at once
    pending = state.cache_pending + changed
    if full or not state.in_memory or pending > _CACHE_SLACK:
        out_files["cache.json"] = b"".join(
            (b'{"format":2,"notes":[\n', b"\n".join(notes[p].cache_line() for p in paths), b"\n]}\n")
        )
        pending = 0
    generation = hashlib.sha256(f"{time.time_ns()}-{id(state)}".encode()).hexdigest()[:16]
    frags = state.build_frags if paths_key is state.paths_key else {}
    files_json = ",".join(_file_frag(frags, notes[p]) for p in paths)
    layers_json = ",".join(f'"{rel}":"{digest}"' for rel, digest in new_layers.items())
    fallback = sum(1 for p in paths if notes[p].parser == "markdown-it")
    build_json = (
        f'{{"generation":"{generation}","format":{INDEX_FORMAT},"cache_format":{CACHE_FORMAT},'
        f'"notes":{len(paths)},"reparsed":{reparsed},"seconds":{round(time.perf_counter() - started, 4)},'
        f'"fallback_notes":{fallback},"layers":{{{layers_json}}},"files":{{{files_json}}}}}\n'
    ).encode()
    out_files["build.json"] = build_json
    written = write_index_files(vault, out_files, delete)
    for p in paths:
        notes[p].layer = None  # written; rebuilt from the record if ever needed again
    new_state = _State(
        notes=notes,
        layers=new_layers,
        paths_key=paths_key,
        resolver=resolver,
        generation=generation,
        build_stat=_build_stamp(vault)[0],
        manifest=(manifest, manifest_digest),
        tree=(tree_key, tree, tree_digest),
        build_frags=frags,
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
    )


_GITIGNORE_DIGEST = hashlib.sha256(GITIGNORE).hexdigest()


def _file_frag(frags: dict[str, str], note: _Note) -> str:
    frag = frags.get(note.path)
    stamp = f"[{note.size},{note.mtime_ns}]"
    if frag is None or not frag.endswith(stamp):
        frag = _enc(note.path) + ":" + stamp
        frags[note.path] = frag
    return frag
