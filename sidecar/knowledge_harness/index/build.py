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

import contextlib
import gc
import hashlib
import json
import multiprocessing as mp
import os
import posixpath
import threading
import time
import unicodedata
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from ..vault.harness_files import read_harness_toml, read_index_file, write_index_files
from ..vault.note import MAX_NOTE_BYTES, parse_note
from ..vault.paths import NoteFile, ScanProblem, Vault, iter_note_files
from ..vault.references import references_sha256
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


def parse_record(path: str, raw: bytes) -> dict[str, Any]:
    """Everything the index keeps about one note; a pure function of its path and bytes."""
    note = parse_note(path, raw)
    props = note.properties
    text = decode_text(raw)
    error = note.problem.as_dict() if note.problem else None
    flat: list[tuple[int, str, int]] = []
    links: list[RawLink] = []
    inline_tags: list[str] = []
    external: list[str] = []
    line_count = 0
    body_start = 1
    parser = "none"
    if text is not None:
        structure = parse_structure(text)
        line_count = structure.line_count
        body_start = structure.body_start_line
        parser = structure.scanner
        flat = [(h.level, h.title, h.line) for h in structure.headings]
        lines = split_lines(text)
        body = mask_code(lines, structure.code_lines, body_start)
        links, inline_tags, external = extract(body, body_start)
    headings = heading_tree(flat, line_count)
    first = flat[0][2] if flat else line_count + 1
    preamble = None
    if first > body_start and text is not None:
        lines_pre = split_lines(text)[body_start - 1 : first - 1]
        if any(line.strip() for line in lines_pre):
            preamble = {"line": body_start, "end_line": first - 1}
    tags = sorted({t.lstrip("#") for t in property_list(props.get("tags")) if t.lstrip("#")} | set(inline_tags))
    aliases = alias_list(props.get("aliases", props.get("alias")))
    type_ = props.get("type")
    status = props.get("status")
    return {
        "title": note.title,
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
        "trust": _trust(props, note.content_sha256, lambda: references_sha256(note.references)),
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


@dataclass
class _Entry:
    size: int
    mtime_ns: int
    sha256: str
    record: dict[str, Any]
    cache_line: str = ""


@dataclass
class _State:
    entries: dict[str, _Entry] = field(default_factory=dict)
    layers: dict[str, str] = field(default_factory=dict)  # index-relative path -> sha256 of bytes
    note_layers: dict[str, tuple[Any, bytes, str]] = field(default_factory=dict)
    resolved: dict[str, tuple[str, list[dict[str, Any]], list[str], int]] = field(default_factory=dict)
    paths_key: tuple[str, ...] = ()
    resolver: Resolver | None = None
    manifest_lines: dict[str, tuple[dict[str, Any], str]] = field(default_factory=dict)
    generation: str = ""


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
        if build.get("format") != INDEX_FORMAT:
            return state
        lines = cache_raw.decode("utf-8").split("\n")
        for line in lines:
            if not line.startswith("["):
                continue
            path, size, mtime_ns, sha, record = json.loads(line.rstrip(","))
            state.entries[path] = _Entry(size, mtime_ns, sha, record, line.rstrip(","))
        state.layers = dict(build.get("layers", {}))
        state.generation = str(build.get("generation", ""))
    except (ValueError, TypeError, UnicodeDecodeError):
        return _State()
    return state


def _get_state(vault: Vault, full: bool) -> _State:
    key = str(vault.root)
    if full:
        return _State()
    build_raw = read_index_file(vault, "build.json")
    generation = ""
    if build_raw:
        with contextlib.suppress(ValueError, AttributeError):
            generation = str(json.loads(build_raw).get("generation", ""))
    with _STATE_LOCK:
        cached = _STATES.get(key)
    if cached is not None and cached.generation and cached.generation == generation:
        return cached
    return _load_state(vault)


def _hash_file(disk: Any) -> tuple[bytes | None, str]:
    h = hashlib.sha256()
    with open(disk, "rb") as handle:
        while chunk := handle.read(1 << 20):
            h.update(chunk)
    return None, h.hexdigest()


def _read(nf: NoteFile) -> tuple[bytes | None, str]:
    if nf.size > MAX_NOTE_BYTES:
        return _hash_file(nf.disk_path)
    raw = nf.disk_path.read_bytes()
    return raw, hashlib.sha256(raw).hexdigest()


# -- derived structure -------------------------------------------------------------------------


def _index_settings(vault: Vault) -> dict[str, list[str]]:
    conf = read_harness_toml(vault, "index.toml")
    section = conf.get("index", conf)
    folders = [str(f).strip("/") for f in section.get("moc_folders", []) if str(f).strip("/")]
    tags = [str(t).lstrip("#").lower() for t in section.get("moc_tags", []) if str(t).strip()]
    return {"moc_folders": sorted(set(folders)), "moc_tags": sorted(set(tags))}


def _is_index(path: str, record: dict[str, Any], settings: dict[str, list[str]]) -> bool:
    if isinstance(record["type"], str) and record["type"].lower() in INDEX_TYPES:
        return True
    if any(path.startswith(folder + "/") for folder in settings["moc_folders"]):
        return True
    tags = {t.lower() for t in record["tags"]}
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


def _tree(paths: list[str], entries: dict[str, _Entry], ids: dict[str, str]) -> dict[str, Any]:
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
        rec = entries[path].record
        parent["children"].append(
            {
                "kind": "note",
                "name": parts[-1],
                "path": path,
                "id": ids[path],
                "title": rec["title"],
                "heading_count": rec["heading_count"],
            }
        )
    for node in folders.values():
        node["children"].sort(key=lambda c: (c["kind"] != "folder", c["name"]))
    return root


# -- the build --------------------------------------------------------------------------------


_Parsed = tuple[NoteFile, int, str, dict[str, Any] | None, str | None]
PARALLEL_MIN_NOTES = 1500


def _read_one(nf: NoteFile, known_sha: str | None) -> _Parsed:
    try:
        raw, sha = _read(nf)
    except OSError as exc:
        return (nf, nf.size, "", None, f"Cannot read the note: {exc.strerror}.")
    if known_sha == sha:
        return (nf, nf.size, sha, None, None)
    if raw is None:
        record = _unreadable_record(nf.path, f"The note is larger than {MAX_NOTE_BYTES} bytes; not indexed.")
        return (nf, nf.size, sha, record, None)
    return (nf, len(raw), sha, parse_record(nf.path, raw), None)


def _read_chunk(chunk: list[NoteFile]) -> list[_Parsed]:
    return [_read_one(nf, None) for nf in chunk]


def _read_and_parse(to_read: list[NoteFile], state: _State, workers: int) -> list[_Parsed]:
    """Read, hash and parse notes; in worker processes (fork) when there are many and workers allow."""
    count = workers if workers > 0 else (os.cpu_count() or 1)
    if count > 1 and len(to_read) >= PARALLEL_MIN_NOTES and "fork" in mp.get_all_start_methods():
        size = max(50, len(to_read) // (count * 8))
        chunks = [to_read[i : i + size] for i in range(0, len(to_read), size)]
        with mp.get_context("fork").Pool(count) as pool:
            out: list[_Parsed] = []
            for part in pool.imap(_read_chunk, chunks):
                out.extend(part)
            return out
    results = []
    for nf in to_read:
        old = state.entries.get(nf.path)
        results.append(_read_one(nf, old.sha256 if old is not None else None))
    return results


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
    files = list(iter_note_files(vault, problems))
    errors: list[dict[str, Any]] = [{"path": p.path, "message": p.message, "line": None} for p in problems]
    entries: dict[str, _Entry] = {}
    reparsed = 0
    to_read: list[NoteFile] = []
    for nf in files:
        old = state.entries.get(nf.path)
        if old is not None and old.size == nf.size and old.mtime_ns == nf.mtime_ns:
            entries[nf.path] = old
        else:
            to_read.append(nf)
    for nf, size, sha, record, problem in _read_and_parse(to_read, state, workers):
        if problem is not None:
            errors.append({"path": nf.path, "message": problem, "line": None})
            continue
        old = state.entries.get(nf.path)
        if old is not None and old.sha256 == sha:
            entries[nf.path] = _Entry(nf.size, nf.mtime_ns, sha, old.record)
            continue
        assert record is not None
        reparsed += 1
        entries[nf.path] = _Entry(size, nf.mtime_ns, sha, record)
    paths = sorted(entries)
    ids = {p: note_id(p) for p in paths}
    settings = _index_settings(vault)

    # links: re-resolved only for changed notes while the set of paths stays the same
    paths_key = tuple(paths)
    same_paths = paths_key == state.paths_key
    resolver = state.resolver if same_paths and state.resolver is not None else Resolver(paths)
    links_out: dict[str, list[str]] = {}
    resolved_links: dict[str, list[dict[str, Any]]] = {}
    new_resolved: dict[str, tuple[str, list[dict[str, Any]], list[str], int]] = {}
    total_links = 0
    for p in paths:
        prev = state.resolved.get(p) if same_paths else None
        if prev is not None and prev[0] == entries[p].sha256:
            resolved_links[p] = prev[1]
            links_out[p] = prev[2]
            total_links += prev[3]
            new_resolved[p] = prev
            continue
        counted = 0
        out: set[str] = set()
        resolved: list[dict[str, Any]] = []
        for kind, target, heading, block, line in entries[p].record["links"]:
            status, to, candidates = resolver.resolve(p, RawLink(kind, target, heading, block, line))
            if status == "attachment":
                continue
            counted += 1
            if status == "resolved" and to is not None:
                out.add(to)
            resolved.append(
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
            )
        links_out[p] = sorted(out)
        resolved_links[p] = resolved
        total_links += counted
        new_resolved[p] = (entries[p].sha256, resolved, links_out[p], counted)
    links_in: dict[str, list[str]] = {p: [] for p in paths}
    for p in paths:
        for t in links_out[p]:
            links_in[t].append(p)
    index_notes = [p for p in paths if _is_index(p, entries[p].record, settings)]
    categories = _categories(index_notes, links_out)

    # layers
    out_files: dict[str, bytes] = {}
    new_layers: dict[str, str] = {}
    manifest_lines: list[str] = []
    new_note_layers: dict[str, tuple[Any, bytes, str]] = {}
    new_manifest_cache: dict[str, tuple[dict[str, Any], str]] = {}
    total_headings = 0
    index_set = set(index_notes)
    for p in paths:
        e = entries[p]
        rec = e.record
        total_headings += rec["heading_count"]
        if rec["error"] is not None:
            errors.append({"path": p, "message": rec["error"]["message"], "line": rec["error"]["line"]})
        key = (e.sha256, resolved_links[p])
        cached_layer = state.note_layers.get(p)
        if cached_layer is not None and cached_layer[0] == key:
            layer_bytes, digest = cached_layer[1], cached_layer[2]
        else:
            layer = {
                "path": p,
                "id": ids[p],
                "sha256": e.sha256,
                "title": rec["title"],
                "line_count": rec["line_count"],
                "preamble": rec["preamble"],
                "headings": rec["headings"],
                "links": resolved_links[p],
                "external_links": rec["external_links"],
                "error": rec["error"],
                "parser": rec["parser"],
            }
            layer_bytes = (dumps(layer) + "\n").encode("utf-8")
            digest = hashlib.sha256(layer_bytes).hexdigest()
        new_note_layers[p] = (key, layer_bytes, digest)
        rel = f"notes/{ids[p]}.json"
        new_layers[rel] = digest
        if state.layers.get(rel) != digest:
            out_files[rel] = layer_bytes
        entry = {
            "path": p,
            "id": ids[p],
            "title": rec["title"],
            "type": rec["type"],
            "status": rec["status"],
            "tags": rec["tags"],
            "aliases": rec["aliases"],
            "top_headings": rec["top_headings"],
            "heading_titles": rec["heading_titles"],
            "heading_count": rec["heading_count"],
            "links_out": links_out[p],
            "links_in": links_in[p],
            "categories": categories.get(p, []),
            "index_note": p in index_set,
            "sha256": e.sha256,
            "size": e.size,
            "trust": rec["trust"],
            "error": rec["error"]["message"] if rec["error"] else None,
        }
        cached_line = state.manifest_lines.get(p)
        line = cached_line[1] if cached_line is not None and cached_line[0] == entry else dumps(entry)
        new_manifest_cache[p] = (entry, line)
        manifest_lines.append(line)
    manifest = (
        '{"format":' + str(INDEX_FORMAT) + ',"notes":[\n' + ",\n".join(manifest_lines) + "\n],"
        '"settings":' + dumps(settings) + "}\n"
    ).encode("utf-8")
    tree = (dumps(_tree(paths, entries, ids)) + "\n").encode("utf-8")
    for rel, data in (("manifest.json", manifest), ("tree.json", tree), (".gitignore", GITIGNORE)):
        digest = hashlib.sha256(data).hexdigest()
        new_layers[rel] = digest
        if state.layers.get(rel) != digest:
            out_files[rel] = data
    delete = sorted(rel for rel in state.layers if rel not in new_layers)
    if full:
        from ..vault.harness_files import list_index_files

        delete = sorted(set(delete) | {r for r in list_index_files(vault, "notes") if r not in new_layers})

    # non-layer files: the parse cache and the build metadata
    cache_lines = []
    for p in paths:
        e = entries[p]
        if not e.cache_line:
            e.cache_line = json.dumps([p, e.size, e.mtime_ns, e.sha256, e.record], ensure_ascii=False, sort_keys=True)
        cache_lines.append(e.cache_line)
    generation = hashlib.sha256(f"{time.time_ns()}-{id(state)}".encode()).hexdigest()[:16]
    seconds = round(time.perf_counter() - started, 4)
    build_meta = {
        "format": INDEX_FORMAT,
        "generation": generation,
        "layers": new_layers,
        "notes": len(paths),
        "reparsed": reparsed,
        "seconds": seconds,
        "files": {p: [entries[p].size, entries[p].mtime_ns] for p in paths},
        "fallback_notes": sum(1 for p in paths if entries[p].record["parser"] == "markdown-it"),
    }
    out_files["cache.json"] = ('{"format":1,"notes":[\n' + ",\n".join(cache_lines) + "\n]}\n").encode("utf-8")
    out_files["build.json"] = (json.dumps(build_meta, sort_keys=True) + "\n").encode("utf-8")
    written = write_index_files(vault, out_files, delete)
    new_state = _State(
        entries=entries,
        layers=new_layers,
        note_layers=new_note_layers,
        manifest_lines=new_manifest_cache,
        resolved=new_resolved,
        paths_key=paths_key,
        resolver=resolver,
        generation=generation,
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
