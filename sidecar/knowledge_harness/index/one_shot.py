"""A one-shot incremental build: what a new `kh index build` process does after a few edits."""

from __future__ import annotations

import hashlib
import re
import time
from typing import Any

import orjson

from ..vault.harness_files import list_index_files, read_index_file, write_index_files
from ..vault.paths import ScanProblem, Vault, list_note_files
from .build_state import new_note, paths_fingerprint
from .categories import index_settings, is_index_note
from .links import Resolver
from .reading import read_note_bytes
from .record import TOO_LARGE, parse_record, resolve_links, unreadable_record
from .schema import BuildReport
from .serialize import (
    CACHE_FORMAT,
    INDEX_FORMAT,
    MANIFEST_HEAD,
    MANIFEST_SETTINGS,
    SORTED_KEYS,
    build_json_bytes,
    encode,
)

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


class NotOneShot(Exception):
    """The one-shot path does not apply: the full incremental build runs instead."""


def _verified(vault: Vault, rel: str, digest: str) -> bytes:
    data = read_index_file(vault, rel)
    if data is None or not digest or hashlib.sha256(data).hexdigest() != digest:
        raise NotOneShot
    return data


def build_one_shot(vault: Vault) -> BuildReport | None:
    try:
        return _lite(vault)
    except (NotOneShot, ValueError, TypeError, KeyError, IndexError, UnicodeDecodeError, OSError):
        return None


def _lite(vault: Vault) -> BuildReport:
    started = time.perf_counter()
    build_raw = read_index_file(vault, "build.json")
    if build_raw is None:
        raise NotOneShot
    build = orjson.loads(build_raw)
    if build.get("format") != INDEX_FORMAT or build.get("cache_format") != CACHE_FORMAT or "errors" not in build:
        raise NotOneShot
    old_files: dict[str, list[int]] = build["files"]
    layers: dict[str, str] = build["layers"]
    problems: list[ScanProblem] = []
    files = list_note_files(vault, problems)
    if len(files) != len(old_files) or any(fs.path != p for fs, p in zip(files, old_files, strict=True)):
        raise NotOneShot  # notes added, removed or renamed: links resolve differently
    changed = [(i, fs) for i, fs in enumerate(files) if old_files[fs.path] != [fs.size, fs.mtime_ns]]
    parts = list_index_files(vault, "cache")
    lite_parts = [int(m.group(1)) for r in parts if (m := _LITE_PART.fullmatch(r))]
    if len(changed) > LITE_MAX_CHANGED or len(lite_parts) >= LITE_MAX_PARTS:
        raise NotOneShot
    manifest = _verified(vault, "manifest.json", layers.get("manifest.json", ""))
    settings = index_settings(vault)
    settings_at = manifest.rfind(MANIFEST_SETTINGS)
    if not manifest.startswith(MANIFEST_HEAD) or manifest[settings_at + len(MANIFEST_SETTINGS) :] != (
        encode(settings) + b"}\n"
    ):
        raise NotOneShot
    body = manifest[len(MANIFEST_HEAD) : settings_at]
    lines = body.split(b",\n") if body else []
    if len(lines) != len(files):
        raise NotOneShot

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
            raise NotOneShot
        raw, sha = read_note_bytes(fs)
        old_files[path] = [fs.size, fs.mtime_ns]
        if sha == old["sha256"]:
            continue  # touched, same bytes: only its stat changes (size too is the same)
        record = unreadable_record(path, TOO_LARGE) if raw is None else parse_record(path, raw)
        note = new_note(path, fs.size if raw is None else len(raw), fs.mtime_ns, sha, record)
        if is_index_note(path, note, settings) != old["index_note"]:
            raise NotOneShot
        if resolver is None:
            resolver, paths_fp = Resolver(paths), paths_fingerprint(tuple(paths))
        resolved, links_out = resolve_links(path, record["links"], resolver)
        if links_out != old["links_out"]:
            raise NotOneShot  # the link graph changed: backlinks and categories are derived again
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
                encode(chains) if chains else b"[]",
                note.m_mid,
                b"true" if old["index_note"] else b"false",
                b',"links_in":',
                encode(old["links_in"]) if old["links_in"] else b"[]",
                b',"links_out":',
                encode(links_out) if links_out else b"[]",
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

    manifest = b"".join((MANIFEST_HEAD, b",\n".join(lines), manifest[settings_at:]))
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
        tree_bytes = orjson.dumps(tree, option=SORTED_KEYS | orjson.OPT_APPEND_NEWLINE)
        layers["tree.json"] = hashlib.sha256(tree_bytes).hexdigest()
        out_files["tree.json"] = tree_bytes
    if cache_lines:
        out_files[f"cache/u{max(lite_parts, default=0) + 1:05}.jsonl"] = b"\n".join(cache_lines) + b"\n"
    errors_list = [note_errors[p] for p in paths if p in note_errors]
    generation = hashlib.sha256(f"{time.time_ns()}-lite".encode()).hexdigest()[:16]
    # orjson writes a dict in its order, as `_build` joins its entries: "key":value, no spaces
    layers_json = orjson.dumps(layers)[1:-1].decode("utf-8")
    files_json = orjson.dumps(old_files)[1:-1].decode("utf-8")
    out_files["build.json"] = build_json_bytes(
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
