"""Building the three index layers, fully or incrementally, deterministically.

Layers (in `VAULT/.harness/index/`): `tree.json`, `manifest.json`, `notes/<id>.json`. Their
bytes are a pure function of the vault's bytes (and `.harness/index.toml`): keys sorted, no
timestamps, notes in path order. `build.json` (timings, file sizes and mtimes) and
`cache/` (per-note parse results, in parts) are not layers; `.gitignore` keeps them out of git.

A rebuild re-reads only files whose size or mtime changed, re-parses only those whose SHA-256
changed, and re-derives links, backlinks and categories; the layers it writes are
byte-identical to a full rebuild's.

The parts: record.py (one note's record), serialize.py (the files' bytes), build_state.py (what
is kept between builds, on disk and in a BuildMemory), reading.py and parallel.py (reading and
parsing), categories.py (index notes and category chains), one_shot.py (a new process after a
few edits); this module runs a build from them.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..core import jsoncodec
from ..core.memory import freeze_long_lived, paused_gc
from ..vault.paths import NoteFile, ScanProblem, Vault, list_note_files
from .answer import BuildOutcome
from .build_state import (
    LEGACY_CACHE,
    REST_PART,
    BuildMemory,
    BuildRows,
    BuildState,
    IndexedNote,
    StagedLines,
    build_stamp,
    paths_fingerprint,
    state_for,
)
from .categories import category_chains, excluded, folder_hubs, hubs_on, index_settings, is_index_note
from .links import Resolver
from .parsing import read_and_parse
from .reading import Parsed, ParseJob
from .record import heading_tree, note_id, parse_record, resolve_links
from .serialize import (
    GITIGNORE,
    GITIGNORE_DIGEST,
    build_json_bytes,
    file_entry,
    manifest_bytes,
    manifest_line,
    note_layer_bytes,
    tree_of,
)
from .store import (
    WALK_FILE,
    discard_staging,
    index_dir,
    list_index_files,
    write_index_files,
    write_staged_lines,
)

__all__ = ["build_index", "heading_tree", "index_settings", "note_id", "parse_record"]

_index_settings = index_settings  # the name index/query.py imports

# A process that keeps its state in memory rewrites the parse cache only after this many notes changed
_CACHE_SLACK = 256
PROGRESS_MIN_NOTES = 1000  # a build that parses fewer notes ends before a progress line would help
FREEZE_AFTER_PARSED = 1000  # a build that parsed this many notes freezes what it keeps (see build_index)


def _silent(done: int, total: int, step: str) -> None:
    return None


def build_index(
    vault: Vault,
    *,
    full: bool = False,
    workers: int = 1,
    resident: bool = True,
    progress: Callable[[int, int, str], None] | None = None,
    checkpoint: Callable[[int, int, str], None] | None = None,
    memory: BuildMemory | None = None,
) -> BuildOutcome:
    """Build or update the index of `vault` (see _build); the cyclic GC pauses meanwhile.

    resident: keep the whole build state in this process for the next build (the sidecar).
    False suits a one-shot process (`kh index build`): when only some notes changed and the
    link graph did not, it reads from the previous build only what those notes need
    (`build_one_shot`) instead of loading the whole state.
    progress(done, total, step): called before each of the build's three long steps, only when
    at least PROGRESS_MIN_NOTES notes need parsing (a small update says nothing).
    checkpoint(done, total, phase): a job's report (core/jobs.py), called before the scan ("scan"),
    before each note or chunk parsed ("parse", notes parsed of those to parse) and once after
    parsing ("links"). It may raise (a Cancelled job): the build then stops before it has written
    anything or touched the kept state, its staging is discarded and the previous index stays.
    memory: the build states kept between builds (the sidecar's VaultIndex holds one); without
    it the build starts from what is on disk, as a new process does.
    """
    # The build allocates many small containers and frees nothing cyclic; with the collector on,
    # its full collections walk the whole kept state (~100 MB for 10,000 notes). Measured on the
    # realistic 10k vault (load ~8): a warm 1-note rebuild 105 ms CPU median, 121 ms p90 with it
    # paused vs 112 / 175 ms with it on; a full build 7.6-9.3 vs 9.1-9.9 s CPU.
    stagings: list[Path] = []  # gone after the commit; removed here if the build fails before it
    memory = memory if memory is not None else BuildMemory()
    try:
        with paused_gc():
            if not full and not resident and not memory.holds(str(vault.root)):
                from .one_shot import build_one_shot

                with jsoncodec.standard_library_only():
                    report = build_one_shot(vault)
                if report is not None:
                    return report
            outcome = _build(
                vault,
                full=full,
                workers=workers,
                stagings=stagings,
                memory=memory,
                progress=progress,
                checkpoint=checkpoint,
            )
            if outcome.reparsed >= FREEZE_AFTER_PARSED:
                # What the build keeps lives until the next build: out of the collector's walks
                # (core/memory.py), before the pause ends. Otherwise the first allocation after
                # it starts a young-generation collection that walks every object the build made
                # (8 ms CPU for 1,666 notes, 76 ms for 10,000 at load 10), of which it frees none.
                freeze_long_lived(collect_first=False)
            return outcome
    finally:
        for staging in stagings:
            discard_staging(staging)


def _build(
    vault: Vault,
    *,
    full: bool,
    workers: int,
    stagings: list[Path],
    memory: BuildMemory,
    progress: Callable[[int, int, str], None] | None = None,
    checkpoint: Callable[[int, int, str], None] | None = None,
) -> BuildOutcome:
    """Build or update the index of `vault`; returns counts, per-note errors and timings.

    workers: 1 parses in this process (the server's choice); 0 uses every core through forked
    worker processes when many notes need parsing (the CLI's choice); n uses n processes.
    """
    check = checkpoint or _silent
    check(0, 0, "scan")
    run = _Run(vault, full, state_for(vault, full, memory), time.perf_counter())
    files, to_read = run.scan()
    say = progress if progress is not None and len(to_read) >= PROGRESS_MIN_NOTES else _silent
    say(0, 3, f"parsing {len(to_read):,} notes")
    run.parse_changed(files, to_read, workers, stagings, checkpoint)
    # the last point where a cancel stops the build: from here on it updates the notes it keeps
    check(len(to_read), len(to_read), "links")
    say(1, 3, "resolving links")
    run.resolve_links()
    run.derive_graph()
    rows, new_layers, tree_changed = run.lay_out_rows()
    say(2, 3, "writing the index")
    manifest, tree = run.layer_files(rows, new_layers, tree_changed)
    pending = run.cache_files()
    generation = os.urandom(8).hex()
    run.out_files["build.json"] = run.build_json(generation, rows, new_layers)
    if run.state.walk.changed:
        run.out_files[WALK_FILE] = run.state.walk.saved(str(vault.root))
    written = write_index_files(vault, run.out_files, run.delete, staging=run.staging, staged=run.staged)
    memory.put(str(vault.root), run.next_state(generation, rows, new_layers, manifest, tree, pending))
    return BuildOutcome(
        notes=len(run.paths),
        headings=rows.headings,
        links=run.total_links,
        errors=run.errors,
        seconds=round(time.perf_counter() - run.started, 4),
        reparsed=run.reparsed,
        removed=len([r for r in run.delete if r.startswith("notes/")]),
        files_written=written,
        fallback_notes=rows.fallback,
    )


class _Run:
    """One build in progress: the previous build's state, and what each step leaves for the next."""

    def __init__(self, vault: Vault, full: bool, state: BuildState, started: float) -> None:
        self.vault = vault
        self.full = full
        self.state = state
        self.started = started
        self.errors: list[dict[str, Any]] = []
        self.notes: dict[str, IndexedNote] = {}  # path order
        self.touched: list[str] = []  # notes whose object is not the previous build's
        self.reparsed: int = 0
        self.paths: list[str] = []
        self.paths_key: tuple[str, ...] = ()  # the previous build's tuple itself when the paths are the same
        self.paths_fp: str = ""
        self.resolver: Resolver | None = None
        self.settings: dict[str, list[str]] = {}
        self.changed: int = 0  # notes whose manifest or cache line may differ
        self.total_links: int = 0
        self.links_out: dict[str, list[str]] = {}
        self.same_graph: bool = False
        self.links_in: dict[str, list[str]] = {}
        self.index_notes: list[str] = []
        self.categories: dict[str, list[list[str]]] = {}
        self.out_files: dict[str, bytes] = {}
        self.staged: list[str] = []  # files a worker already wrote into `staging`
        self.delete: list[str] = []
        self.staging: Path | None = None
        self.cache_parts: list[str] = []
        self.staged_lines: StagedLines | None = None
        self.in_order: bool = False  # `notes` holds the previous build's notes in path order, changed ones in place
        self.scan_files: list[NoteFile] = []
        self.scanned: tuple[str, ...] = ()  # the paths of `scan_files`

    def scan(self) -> tuple[list[NoteFile], list[NoteFile]]:
        """The vault's note files, and those whose size or mtime changed (the others are kept)."""
        problems: list[ScanProblem] = []
        files = list_note_files(self.vault, problems, memory=self.state.walk)
        # read once: the settings that leave notes out are those the manifest records
        self.settings = settings = index_settings(self.vault)
        if "exclude" in settings:
            files = [f for f in files if not excluded(f.path, settings)]
        self.errors = [{"path": p.path, "message": p.message, "line": None} for p in problems]
        old_files = self.state.files
        if old_files is not None and len(old_files) == len(files):
            # the sidecar: the same paths as its last build (then every other note is as it was)
            changed = [(f, g) for f, g in zip(files, old_files, strict=True) if f != g]
            if all(f.path == g.path for f, g in changed):
                self.notes = dict(self.state.notes)  # path order already; changed notes are replaced in place
                self.in_order = True
                return files, [f for f, _ in changed]
        to_read: list[NoteFile] = []
        old_notes = self.state.notes
        for fs in files:
            old = old_notes.get(fs.path)
            if old is not None and old.parsed.size == fs.size and old.parsed.mtime_ns == fs.mtime_ns:
                self.notes[fs.path] = old
            else:
                to_read.append(fs)
        return files, to_read

    def parse_changed(
        self,
        files: list[NoteFile],
        to_read: list[NoteFile],
        workers: int,
        stagings: list[Path],
        checkpoint: Callable[[int, int, str], None] | None = None,
    ) -> None:
        """Read and parse the changed notes; settle the paths, their resolver and fingerprint."""
        state = self.state
        # the paths of this scan; a note that cannot be read drops out below (and links are re-resolved)
        if self.in_order:
            scanned = state.paths_key  # scan() saw the previous scan's paths
        else:
            scanned = tuple(fs.path for fs in files)
            if scanned == state.paths_key:
                scanned = state.paths_key
        self.scan_files, self.scanned = files, scanned
        scan_resolver = state.resolver if scanned is state.paths_key and state.resolver is not None else None
        scan_fp = state.paths_fp if scanned is state.paths_key else ""
        parsed_notes: list[Parsed] = []
        if to_read:
            scan_resolver = scan_resolver or Resolver(scanned)
            scan_fp = scan_fp or paths_fingerprint(scanned)
            job = ParseJob(scan_resolver, scanned, scan_fp)
            job.checkpoint = checkpoint
            try:
                parsed_notes = read_and_parse(self.vault, to_read, state, workers, job)
            finally:
                self.staging, self.cache_parts, self.staged_lines = job.staging, job.cache_parts, job.lines
                if self.staging is not None:
                    stagings.append(self.staging)
        read_fail = False
        for fs, _size, sha, problem, parsed in parsed_notes:
            if problem is not None:
                self.errors.append({"path": fs.path, "message": problem, "line": None})
                read_fail = True
                self.notes.pop(fs.path, None)  # the others keep their order
                continue
            if parsed is None:
                old = state.notes.get(fs.path)
                assert old is not None and old.parsed.sha256 == sha
                self.notes[fs.path] = old.restamp(fs.size, fs.mtime_ns)
            else:
                self.reparsed += 1
                self.notes[fs.path] = parsed
            self.touched.append(fs.path)
        if (read_fail or to_read) and not self.in_order:
            self.notes = {p: self.notes[p] for p in scanned if p in self.notes}
        self.paths = list(self.notes)
        paths_key = scanned if not read_fail else tuple(self.paths)
        if paths_key == state.paths_key:
            paths_key = state.paths_key
        if paths_key is scanned and scan_resolver is not None:
            self.resolver = scan_resolver
        elif paths_key is state.paths_key and state.resolver is not None:
            self.resolver = state.resolver
        else:
            self.resolver = Resolver(self.paths)
        if paths_key is state.paths_key:
            self.paths_fp = state.paths_fp
        else:
            self.paths_fp = scan_fp if paths_key is scanned and scan_fp else paths_fingerprint(paths_key)
        self.paths_key = paths_key

    def resolve_links(self) -> None:
        """Links resolved again only for notes whose resolution is not for this set of paths."""
        assert self.resolver is not None
        state = self.state
        same_paths = self.paths_key is state.paths_key
        self.changed = len(self.touched) + (0 if same_paths else abs(len(state.notes) - len(self.notes)) + 1)
        if same_paths and state.links_out is not None:
            # every other note is the previous build's, resolved for these paths: only the touched change
            self.links_out, self.total_links = dict(state.links_out), state.total_links
            for p in self.touched:
                self.total_links += self._resolve(p).link_count - state.notes[p].link_count
            return
        for p in self.paths:
            self.total_links += self._resolve(p).link_count

    def _resolve(self, p: str) -> IndexedNote:
        """The note at `p` with its links resolved for this set of paths, its links_out recorded."""
        note = self.notes[p]
        if note.res_key is not self.paths_key:
            assert self.resolver is not None
            resolved, out = resolve_links(p, note.raw_links(), self.resolver)
            note.set_resolution(self.paths_key, self.paths_fp, resolved, out)
            self.changed += 1
        self.links_out[p] = note.links_out
        return note

    def derive_graph(self) -> None:
        """Backlinks, index notes and categories: derived again only when a link or an index note changed."""
        state, notes, settings = self.state, self.notes, self.settings
        same = state.in_memory and self.paths_key is state.paths_key and settings == state.settings
        for p in self.touched if same else ():
            old = state.notes[p]
            if notes[p].links_out != old.links_out or is_index_note(p, notes[p].parsed, settings) != is_index_note(
                p, old.parsed, settings
            ):
                same = False
                break
        self.same_graph = same
        if same:
            self.links_in, self.index_notes, self.categories = state.links_in, state.index_notes, state.categories
            return
        self.links_in = {p: [] for p in self.paths}
        for p in self.paths:
            for t in self.links_out[p]:
                self.links_in[t].append(p)
        hubs = folder_hubs(self.paths, self.links_out) if hubs_on(settings) else set()
        self.index_notes = [p for p in self.paths if p in hubs or is_index_note(p, notes[p].parsed, settings)]
        self.categories = category_chains(self.index_notes, self.links_out)

    def lay_out_rows(self) -> tuple[BuildRows, dict[str, str], bool]:
        """Every note's manifest line and build.json entries (only the touched notes' when the paths
        and the link graph are the previous build's); the new layer digests; whether the tree changed."""
        old_rows, old_notes, notes = self.state.rows, self.state.notes, self.notes
        index_set = set(self.index_notes)
        if not (self.same_graph and old_rows is not None and self.changed == len(self.touched)):
            rows = BuildRows({p: i for i, p in enumerate(self.paths)}, [], [], [], 0, 0, [])
            for p in self.paths:
                note = notes[p]
                line, entry = self._lay_out(p, note, p in index_set)
                parsed = note.parsed
                rows.manifest_lines.append(line)
                rows.layer_entries.append(entry)
                rows.file_entries.append(file_entry(parsed))
                rows.headings += parsed.heading_count
                rows.fallback += parsed.parser == "markdown-it"
                if parsed.error is not None:
                    rows.errors.append((p, parsed.error))
            self._report_errors(rows)
            return rows, {f"notes/{notes[p].parsed.id}.json": notes[p].digest for p in self.paths}, True
        rows = BuildRows(
            old_rows.position,
            list(old_rows.manifest_lines),
            list(old_rows.layer_entries),
            list(old_rows.file_entries),
            old_rows.headings,
            old_rows.fallback,
            [],
        )
        for p in self.touched:
            i, parsed, old = rows.position[p], notes[p].parsed, old_notes[p].parsed
            rows.manifest_lines[i], rows.layer_entries[i] = self._lay_out(p, notes[p], p in index_set)
            rows.file_entries[i] = file_entry(parsed)
            rows.headings += parsed.heading_count - old.heading_count
            rows.fallback += (parsed.parser == "markdown-it") - (old.parser == "markdown-it")
        touched_set = set(self.touched)
        rows.errors = [(p, e) for p, e in old_rows.errors if p not in touched_set]
        rows.errors += [(p, e) for p in self.touched if (e := notes[p].parsed.error) is not None]
        rows.errors.sort(key=lambda pe: pe[0])
        self._report_errors(rows)
        new_layers = dict(self.state.layers)
        for p in self.touched:
            new_layers[f"notes/{notes[p].parsed.id}.json"] = notes[p].digest
        tree_changed = any(
            (notes[p].parsed.title, notes[p].parsed.heading_count)
            != (old_notes[p].parsed.title, old_notes[p].parsed.heading_count)
            for p in self.touched
        )
        return rows, new_layers, tree_changed

    def _report_errors(self, rows: BuildRows) -> None:
        self.errors.extend({"path": p, "message": e["message"], "line": e["line"]} for p, e in rows.errors)

    def _lay_out(self, p: str, note: IndexedNote, is_index: bool) -> tuple[bytes, str]:
        """The note's manifest line and build.json layers entry; its layer goes out if it changed."""
        rel = f"notes/{note.parsed.id}.json"
        if self.state.layers.get(rel) != note.digest:
            if note.staged:
                self.staged.append(rel)
            else:
                if note.layer is None:
                    parsed = note.parsed
                    note.layer = note_layer_bytes(p, parsed.id, parsed.sha256, note.record(), note.resolved)
                self.out_files[rel] = note.layer
        chains = self.categories.get(p, [])
        links_in = self.links_in[p]
        key = (chains, is_index, links_in, note.links_out)
        if note.m_key != key:
            parts = (note.m_head, note.m_mid, note.m_tail)
            note.m_line = manifest_line(parts, chains, is_index, links_in, note.links_out)
            note.m_key = key
        return note.m_line, f'"{rel}":"{note.digest}"'

    def layer_files(
        self, rows: BuildRows, new_layers: dict[str, str], tree_changed: bool
    ) -> tuple[tuple[bytes, str], tuple[bytes, str]]:
        """manifest.json, tree.json and .gitignore (each written if its bytes changed), and the
        layers to delete; returns the manifest's and the tree's (bytes, digest)."""
        state, old_layers = self.state, self.state.layers
        manifest = manifest_bytes(rows.manifest_lines, self.settings)
        # In the sidecar the previous manifest is in memory and on disk: comparing bytes decides.
        # Its digest (8 MB: ~4 ms) is in build.json all the same: a new `kh index build` process
        # checks the manifest against it before patching it (one_shot.py).
        kept = state.manifest
        if kept is not None and kept[0] == manifest and kept[1]:
            manifest_digest = kept[1]
        else:
            manifest_digest = hashlib.sha256(manifest).hexdigest()
            if (kept is None or kept[0] != manifest) and old_layers.get("manifest.json") != manifest_digest:
                self.out_files["manifest.json"] = manifest
        new_layers["manifest.json"] = manifest_digest
        if state.tree is not None and self.paths_key is state.paths_key and not tree_changed:
            tree, tree_digest = state.tree
        else:
            tree = jsoncodec.dumps(tree_of([self.notes[p].parsed for p in self.paths]), sort_keys=True, newline=True)
            tree_digest = hashlib.sha256(tree).hexdigest()
        for rel, data, digest in (("tree.json", tree, tree_digest), (".gitignore", GITIGNORE, GITIGNORE_DIGEST)):
            new_layers[rel] = digest
            if old_layers.get(rel) != digest:
                self.out_files[rel] = data
        if new_layers.keys() != old_layers.keys():
            self.delete = sorted(r for r in old_layers if r not in new_layers)
        if self.full:
            stale = {r for r in list_index_files(self.vault, "notes") if r not in new_layers}
            self.delete = sorted(set(self.delete) | stale)
        return (manifest, manifest_digest), (tree, tree_digest)

    def cache_files(self) -> int:
        """The parse cache's parts to write and delete; returns the notes changed since it was written.

        cache/ (~25 MB for 10,000 notes) is a cache: its lines check themselves (size, mtime,
        sha256, paths fingerprint), so a process that keeps its state in memory rewrites it only
        after _CACHE_SLACK changed notes; a process that loaded it from disk rewrites it at once;
        a parallel build staged a part per chunk and adds the lines of every other note.
        """
        pending = self.state.cache_pending + self.changed
        if not (self.full or not self.state.in_memory or pending > _CACHE_SLACK or self.cache_parts):
            return pending
        rest = [note for note in map(self.notes.__getitem__, self.paths) if not note.c_staged]
        if self.staging is not None:  # a large build: the lines go out as they are made
            write_staged_lines(self.staging, REST_PART, (note.cache_line_kept_alone() for note in rest))
            self.staged.append(REST_PART)
        else:
            lines = [note.cache_line() for note in rest]
            self.out_files[REST_PART] = b"\n".join(lines) + b"\n" if lines else b""
        self.staged.extend(self.cache_parts)
        keep = {REST_PART, *self.cache_parts}
        old_parts = [r for r in list_index_files(self.vault, "cache") if r not in keep and r != WALK_FILE]
        self.delete = [*self.delete, *old_parts, LEGACY_CACHE]
        return 0

    def build_json(self, generation: str, rows: BuildRows, new_layers: dict[str, str]) -> bytes:
        """build.json (not a layer: generation first, see build_stamp; timings, stats, digests)."""
        files_json = ",".join(rows.file_entries)
        tail = (f'"{rel}":"{new_layers[rel]}"' for rel in ("manifest.json", "tree.json", ".gitignore"))
        layers_json = ",".join([*rows.layer_entries, *tail])
        return build_json_bytes(
            generation,
            len(self.paths),
            self.reparsed,
            time.perf_counter() - self.started,
            (rows.fallback, rows.headings, self.total_links),
            [[p, e["message"], e["line"]] for p, e in rows.errors],
            layers_json,
            files_json,
        )

    def next_state(
        self,
        generation: str,
        rows: BuildRows,
        new_layers: dict[str, str],
        manifest: tuple[bytes, str],
        tree: tuple[bytes, str],
        pending: int,
    ) -> BuildState:
        """What this process keeps for the next build, once the files are written."""
        # with the previous paths and notes, only the touched notes can hold a layer (the last build cleared the others)
        only_touched = self.in_order and self.paths_key is self.state.paths_key
        for p in self.touched if only_touched else self.paths:
            note = self.notes[p]
            note.layer = None  # written; rebuilt from the record if ever needed again
            note.staged = note.c_staged = False  # "in this build's staging folder"
        if self.staged_lines is not None:
            self.staged_lines.folder = index_dir(self.vault)
        sectioned = self._hand_sections_over()
        return BuildState(
            notes=self.notes,
            layers=new_layers,
            paths_key=self.paths_key,
            resolver=self.resolver,
            generation=generation,
            build_stat=build_stamp(self.vault)[0],
            manifest=manifest,
            tree=tree,
            rows=rows,
            paths_fp=self.paths_fp,
            settings=self.settings,
            in_memory=True,
            cache_pending=pending,
            links_in=self.links_in,
            index_notes=self.index_notes,
            categories=self.categories,
            walk=self.state.walk,
            files=self.scan_files if self.paths_key is self.scanned else None,
            links_out=self.links_out,
            total_links=self.total_links,
            sectioned=sectioned,
        )

    def _hand_sections_over(self) -> list[str]:
        """The notes parsed by this build that keep their sections for the search layer; the
        previous build's others drop theirs (they are the search layer's by now, or stale)."""
        touched = set(self.touched)
        for p in self.state.sectioned:
            note = self.notes.get(p)
            if note is not None and p not in touched and note.parsed.sections is not None:
                note.parsed = note.parsed.without_sections()
        return [p for p in self.touched if self.notes[p].parsed.sections is not None]
