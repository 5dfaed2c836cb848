"""Building the three index layers, fully or incrementally, deterministically.

Layers (in `VAULT/.harness/index/`): `tree.json`, `manifest.json`, `notes/<id>.json`. Their
bytes are a pure function of the vault's bytes (and `.harness/index.toml`): keys sorted, no
timestamps, notes in path order. `build.json` (timings, file sizes and mtimes) and
`cache/` (per-note parse results, in parts) are not layers; `.gitignore` keeps them out of git.

A rebuild re-reads only files whose size or mtime changed, re-parses only those whose SHA-256
changed, and re-derives links, backlinks and categories; the layers it writes are
byte-identical to a full rebuild's.

The parts: record.py (one note's record), serialize.py (the files' bytes), build_state.py (what
is kept between builds, on disk and in MEMORY), reading.py and parallel.py (reading and
parsing), categories.py (index notes and category chains), one_shot.py (a new process after a
few edits); this module runs a build from them.
"""

from __future__ import annotations

import gc
import hashlib
import time
from pathlib import Path
from typing import Any

import orjson

from ..vault.harness_files import discard_staging, index_dir, list_index_files, write_index_files
from ..vault.paths import NoteFile, ScanProblem, Vault, list_note_files
from .build_state import (
    LEGACY_CACHE,
    MEMORY,
    REST_PART,
    BuildRows,
    BuildState,
    IndexedNote,
    StagedLines,
    build_stamp,
    paths_fingerprint,
    state_for,
)
from .categories import category_chains, index_settings, is_index_note
from .links import Resolver
from .reading import Parsed, ParseJob, read_and_parse
from .record import heading_tree, note_id, parse_record, resolve_links
from .schema import BuildReport
from .serialize import (
    GITIGNORE,
    GITIGNORE_DIGEST,
    INDEX_FORMAT,
    SORTED_KEYS,
    build_json_bytes,
    encode,
    file_entry,
    note_layer_bytes,
    tree_of,
)

__all__ = ["MEMORY", "build_index", "heading_tree", "index_settings", "note_id", "parse_record"]

_index_settings = index_settings  # the name index/query.py imports

# A process that keeps its state in memory rewrites the parse cache only after this many notes changed
_CACHE_SLACK = 256


def build_index(vault: Vault, *, full: bool = False, workers: int = 1, resident: bool = True) -> BuildReport:
    """Build or update the index of `vault` (see _build); the cyclic GC pauses meanwhile.

    resident: keep the whole build state in this process for the next build (the sidecar).
    False suits a one-shot process (`kh index build`): when only some notes changed and the
    link graph did not, it reads from the previous build only what those notes need
    (`build_one_shot`) instead of loading the whole state.
    """
    enabled = gc.isenabled()
    gc.disable()  # the build allocates many small containers and frees nothing cyclic
    stagings: list[Path] = []  # gone after the commit; removed here if the build fails before it
    try:
        if not full and not resident and not MEMORY.holds(str(vault.root)):
            from .one_shot import build_one_shot

            report = build_one_shot(vault)
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
    state = state_for(vault, full)
    problems: list[ScanProblem] = []
    files = list_note_files(vault, problems)
    errors: list[dict[str, Any]] = [{"path": p.path, "message": p.message, "line": None} for p in problems]
    notes: dict[str, IndexedNote] = {}
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
    parsed_notes: list[Parsed] = []
    staging: Path | None = None
    cache_parts: list[str] = []
    staged_lines: StagedLines | None = None
    if to_read:
        scan_resolver = scan_resolver or Resolver(scanned)
        scan_fp = scan_fp or paths_fingerprint(scanned)
        job = ParseJob(scan_resolver, scanned, scan_fp)
        try:
            parsed_notes = read_and_parse(vault, to_read, state, workers, job)
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
        paths_fp = scan_fp if paths_key is scanned and scan_fp else paths_fingerprint(paths_key)
    settings = index_settings(vault)

    # links: resolved again only for notes whose resolution is not for this set of paths
    total_links = 0
    links_out: dict[str, list[str]] = {}
    changed = len(touched) + (0 if paths_key is state.paths_key else abs(len(old_notes) - len(notes)) + 1)
    for p in paths:
        note = notes[p]
        if note.res_key is not paths_key:
            resolved, out = resolve_links(p, note.raw_links(), resolver)
            note.set_resolution(paths_key, paths_fp, resolved, out)
            changed += 1
        links_out[p] = note.links_out
        total_links += note.link_count
    # backlinks and categories: derived again only when a link or an index note changed
    same_graph = state.in_memory and paths_key is state.paths_key and settings == state.settings
    for p in touched if same_graph else ():
        old = old_notes[p]
        if notes[p].links_out != old.links_out or is_index_note(p, notes[p], settings) != is_index_note(
            p, old, settings
        ):
            same_graph = False
            break
    if same_graph:
        links_in, index_notes, categories = state.links_in, state.index_notes, state.categories
    else:
        links_in = {p: [] for p in paths}
        for p in paths:
            for t in links_out[p]:
                links_in[t].append(p)
        index_notes = [p for p in paths if is_index_note(p, notes[p], settings)]
        categories = category_chains(index_notes, links_out)

    # layers
    out_files: dict[str, bytes] = {}
    staged: list[str] = []  # note layers a worker already wrote into `staging`
    old_layers = state.layers
    index_set = set(index_notes)

    def lay_out(p: str, note: IndexedNote) -> tuple[bytes, str]:
        """The note's manifest line and build.json layers entry; its layer goes out if it changed."""
        rel = f"notes/{note.id}.json"
        if old_layers.get(rel) != note.digest:
            if note.staged:
                staged.append(rel)
            else:
                if note.layer is None:
                    record = note.record()
                    note.layer = note_layer_bytes(p, note.id, note.sha256, record, note.resolved)
                out_files[rel] = note.layer
        chains = categories.get(p, [])
        is_index = p in index_set
        key = (chains, is_index, links_in[p], note.links_out)
        if note.m_key != key:
            note.m_line = b"".join(
                (
                    note.m_head,
                    encode(chains) if chains else b"[]",
                    note.m_mid,
                    b"true" if is_index else b"false",
                    b',"links_in":',
                    encode(links_in[p]) if links_in[p] else b"[]",
                    b',"links_out":',
                    encode(note.links_out) if note.links_out else b"[]",
                    note.m_tail,
                )
            )
            note.m_key = key
        return note.m_line, f'"{rel}":"{note.digest}"'

    old_rows = state.rows
    if same_graph and old_rows is not None and changed == len(touched):
        # the same paths and links: only the touched notes' rows can differ
        rows = BuildRows(
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
            rows.file_entries[i] = file_entry(note)
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
        rows = BuildRows({p: i for i, p in enumerate(paths)}, [], [], [], 0, 0, [])
        for p in paths:
            note = notes[p]
            line, entry = lay_out(p, note)
            rows.manifest_lines.append(line)
            rows.layer_entries.append(entry)
            rows.file_entries.append(file_entry(note))
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
            b'\n],"settings":' + encode(settings) + b"}\n",
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
        tree = orjson.dumps(tree_of(paths, notes), option=SORTED_KEYS | orjson.OPT_APPEND_NEWLINE)
        tree_digest = hashlib.sha256(tree).hexdigest()
    for rel, data, digest in (("tree.json", tree, tree_digest), (".gitignore", GITIGNORE, GITIGNORE_DIGEST)):
        new_layers[rel] = digest
        if old_layers.get(rel) != digest:
            out_files[rel] = data
    delete = [] if new_layers.keys() == old_layers.keys() else sorted(r for r in old_layers if r not in new_layers)
    if full:
        delete = sorted(set(delete) | {r for r in list_index_files(vault, "notes") if r not in new_layers})

    # non-layer files: the parse cache and the build metadata (generation first: see build_stamp)
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
    out_files["build.json"] = build_json_bytes(
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
    new_state = BuildState(
        notes=notes,
        layers=new_layers,
        paths_key=paths_key,
        resolver=resolver,
        generation=generation,
        build_stat=build_stamp(vault)[0],
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
    MEMORY.put(str(vault.root), new_state)
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
