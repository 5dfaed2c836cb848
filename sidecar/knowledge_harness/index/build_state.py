"""What a build keeps between builds: every note's state (IndexedNote), the build's rows and
digests (BuildState), the parse cache on disk (cache/*.jsonl) and the states kept in memory
(BuildMemory, held by the sidecar's VaultIndex)."""

from __future__ import annotations

import hashlib
import os
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

from ..core import jsoncodec
from ..vault.paths import NoteFile, Vault, WalkMemory
from .links import Resolver
from .record import NoteSections, ParsedNote, ResolvedLink, note_id, parsed_note
from .serialize import CACHE_FORMAT, INDEX_FORMAT, encode, manifest_parts, note_layer_bytes
from .store import WALK_FILE, index_dir, list_index_files, read_index_file

# cache/ holds one part per chunk of a parallel build (c00000.jsonl, …), written by whichever
# process parsed the chunk, and REST_PART with every other line; parts are read in name order
# and a later line for a path wins.
REST_PART = "cache/r.jsonl"
LEGACY_CACHE = "cache.json"  # the single-file cache of earlier versions: removed when the cache is written


class StagedLines:
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


class IndexedNote:
    """One note between builds: its parse (`parsed`, a frozen ParsedNote) and what the build derives
    from it and serializes, each kept so that a rebuild re-serializes only what changed:

    0. its links resolved against a set of paths (`res_key`, its fingerprint `res_fp`, `resolved`,
       `link_count`, `links_out`);
    1. the note layer, `notes/<id>.json`: `layer` (its bytes until written) and `digest`, made by
       `set_resolution` from the record and the resolved links;
    2. the manifest line: `m_head`, `m_mid`, `m_tail` hold what depends on this note alone
       (serialize.manifest_parts); `m_line` frames the values other notes give it (categories,
       index note, links in and out), and `m_key` is those values, to tell when to remake it;
    3. the cache line, `cache/*.jsonl` (`c_line`, see `cache_line`): header, record and the three
       manifest parts, from which a later process restores this object (`from_cache_line`).
    """

    __slots__ = (  # noqa: RUF023 - grouped by what they serve, as the docstring tells
        "parsed",
        # 0. links resolved against a set of paths
        "res_key",
        "res_fp",
        "resolved",
        "link_count",
        "links_out",
        # 1. the note layer
        "digest",
        "layer",
        "staged",
        # 2. the manifest line
        "m_head",
        "m_mid",
        "m_tail",
        "m_key",
        "m_line",
        # 3. the cache line
        "c_line",
        "c_ref",
        "c_staged",
    )

    def __init__(self, parsed: ParsedNote, parts: tuple[bytes, bytes, bytes]) -> None:
        # its record_json is None for a note a helper process parsed: `_materialize` unpacks it
        self.parsed = parsed
        self.m_head, self.m_mid, self.m_tail = parts
        self.res_key: object = None  # the paths tuple `resolved` was computed against
        self.res_fp = ""  # its fingerprint (paths_fingerprint), kept in the cache line
        self.resolved: list[ResolvedLink] = []
        self.link_count = 0  # len(resolved)
        self.links_out: list[str] = []
        self.digest = ""  # SHA-256 of the note layer for `resolved`
        self.layer: bytes | None = None  # its bytes, until written
        self.staged = False  # its bytes are in the build's staging folder (written by a worker)
        self.m_key: tuple[Any, ...] | None = None
        self.m_line = b""
        self.c_line = b""
        self.c_ref: tuple[StagedLines, str, int] | None = None  # where a helper's note has its line
        self.c_staged = False  # its current cache line is in a staged chunk part

    def _materialize(self) -> ParsedNote:
        """A note a helper parsed or the cache held arrives light; unpack the rest from its cache
        line on first use. Returns the complete ParsedNote."""
        parsed = self.parsed
        if parsed.record_json is None:
            if not self.c_line:
                assert self.c_ref is not None
                source, part, index = self.c_ref
                self.c_line = source.line(part, index)
            header, rec_json, _ = self.c_line.split(b"\t", 2)
            fields = jsoncodec.loads(header)
            self.resolved = [tuple(r) for r in fields[7]]
            parsed = self.parsed = parsed.with_record(rec_json, fields[8][5])
        return parsed

    def raw_links(self) -> list[list[Any]]:
        links = self._materialize().links
        assert links is not None
        return links

    def record(self) -> dict[str, Any]:
        return self._materialize().record()

    def set_resolution(self, key: object, fp: str, resolved: list[ResolvedLink], links_out: list[str]) -> None:
        """Adopt links resolved against the paths `key`; the note layer is rebuilt if they changed."""
        parsed = self._materialize()
        if fp != self.res_fp:
            self.res_fp, self.c_line, self.c_staged = fp, b"", False
        if self.res_key is not None and resolved == self.resolved and self.digest:
            self.res_key = key
            return
        self.res_key = key
        self.resolved = resolved
        self.link_count = len(resolved)
        self.links_out = links_out
        self.layer = note_layer_bytes(parsed.path, parsed.id, parsed.sha256, parsed.record(), resolved)
        self.digest = hashlib.sha256(self.layer).hexdigest()
        self.staged = False  # a staged copy would be of the old resolution
        self.c_line, self.c_staged = b"", False

    def restamp(self, size: int, mtime_ns: int) -> IndexedNote:
        """The same bytes under a new stat (a touched file): a copy, the old state stays intact."""
        parsed = self._materialize()
        twin = IndexedNote.__new__(IndexedNote)
        for name in IndexedNote.__slots__:
            setattr(twin, name, getattr(self, name))
        twin.parsed = parsed.restamped(size, mtime_ns)
        if size != parsed.size:
            twin.m_head, twin.m_mid, twin.m_tail = manifest_parts(
                parsed.path, parsed.id, parsed.sha256, size, parsed.record()
            )
            twin.m_key = None
        twin.c_line, twin.c_staged = b"", False
        return twin

    def cache_line(self) -> bytes:
        if not self.c_line and self.parsed.record_json is None:
            self._materialize()  # a helper's note: its line is in a chunk part
        if not self.c_line:
            p = self.parsed
            assert p.record_json is not None  # c_line is cleared only after _materialize
            header = [
                p.path,
                p.size,
                p.mtime_ns,
                p.sha256,
                self.digest,
                self.res_fp,
                self.links_out,
                self.resolved,
                [p.title, p.type, p.tags, p.heading_count, p.error, p.links, p.parser],
            ]
            self.c_line = b"\t".join((encode(header), p.record_json, self.m_head, self.m_mid, self.m_tail))
        return self.c_line

    def cache_line_kept_alone(self) -> bytes:
        """The cache line, which from now on is all this note keeps of its record and links (they
        are unpacked from it again on first use, as for a note loaded from the cache): a build of
        10,000 notes in one process otherwise holds each record twice, ~90 MB more."""
        line = self.cache_line()
        self.parsed = self.parsed.without_record()
        self.resolved = []
        return line

    @classmethod
    def from_cache_line(cls, line: bytes) -> IndexedNote:
        """A note as the cache line has it, light: the line itself is kept (it is the note's cache
        line while nothing changes) and the record and links are unpacked from it on first use,
        so a loaded state holds each note's parsed links at most once, and only where needed."""
        i1 = line.index(b"\t")
        i2 = line.index(b"\t", i1 + 1)
        i3 = line.index(b"\t", i2 + 1)
        i4 = line.index(b"\t", i3 + 1)
        path, size, mtime_ns, sha, digest, res_fp, links_out, resolved, lite = jsoncodec.loads(line[:i1])
        title, type_, tags, heading_count, error, _links, parser = lite  # the links: see _materialize
        parsed = ParsedNote(path, note_id(path), size, mtime_ns, sha, title, type_, tags, heading_count, error, parser)
        note = cls(parsed, (line[i2 + 1 : i3], line[i3 + 1 : i4], line[i4 + 1 :]))
        note.digest = digest
        note.res_fp = res_fp
        note.links_out = links_out
        note.link_count = len(resolved)
        note.c_line = line
        return note


def new_note(
    path: str, size: int, mtime_ns: int, sha: str, rec: dict[str, Any], sections: NoteSections | None = None
) -> IndexedNote:
    parsed = parsed_note(path, size, mtime_ns, sha, rec, sections)
    return IndexedNote(parsed, manifest_parts(path, parsed.id, sha, size, rec))


class BuildState:
    """What a build leaves for the next one (kept in a BuildMemory by the sidecar, else loaded from disk)."""

    def __init__(
        self,
        *,
        notes: dict[str, IndexedNote] | None = None,
        layers: dict[str, str] | None = None,
        paths_key: tuple[str, ...] = (),
        resolver: Resolver | None = None,
        generation: str = "",
        build_stat: tuple[int, int, int] | None = None,
        manifest: tuple[bytes, str] | None = None,
        tree: tuple[bytes, str] | None = None,
        rows: BuildRows | None = None,
        paths_fp: str = "",
        settings: dict[str, list[str]] | None = None,
        in_memory: bool = False,
        cache_pending: int = 0,
        links_in: dict[str, list[str]] | None = None,
        index_notes: list[str] | None = None,
        categories: dict[str, list[list[str]]] | None = None,
        walk: WalkMemory | None = None,
        files: list[NoteFile] | None = None,
        links_out: dict[str, list[str]] | None = None,
        total_links: int = 0,
        sectioned: list[str] | None = None,
    ) -> None:
        self.notes: dict[str, IndexedNote] = {} if notes is None else notes
        # index-relative path -> sha256 of its bytes on disk
        self.layers: dict[str, str] = {} if layers is None else layers
        self.paths_key = paths_key
        self.resolver = resolver
        self.generation = generation
        self.build_stat = build_stat
        self.manifest = manifest  # bytes and digest
        self.tree = tree  # bytes and digest
        self.rows = rows  # per-note pieces of the last build, in path order
        self.paths_fp = paths_fp
        self.settings: dict[str, list[str]] = {} if settings is None else settings
        self.in_memory = in_memory  # kept by this process since its last build (else loaded from disk)
        self.cache_pending = cache_pending  # notes changed since the cache was last written
        self.links_in: dict[str, list[str]] = {} if links_in is None else links_in
        self.index_notes: list[str] = [] if index_notes is None else index_notes
        self.categories: dict[str, list[list[str]]] = {} if categories is None else categories
        # what an in-memory state adds, so that the next build in this process touches only what changed:
        self.walk: WalkMemory = WalkMemory() if walk is None else walk  # the folders' listings (vault/paths.py)
        self.files = files  # the scan that gave `paths_key`, in its order
        self.links_out = links_out  # every note's links_out, in path order
        self.total_links = total_links
        # the notes whose ParsedNote keeps its sections for the search layer: this build's parses
        self.sectioned: list[str] = [] if sectioned is None else sectioned


class BuildRows:
    """What the last build wrote for each note, aligned with its paths: a rebuild in which only
    some notes changed and the link graph did not replaces just their rows."""

    def __init__(
        self,
        position: dict[str, int],
        manifest_lines: list[bytes],
        layer_entries: list[str],
        file_entries: list[str],
        headings: int,
        fallback: int,
        errors: list[tuple[str, dict[str, Any]]],
    ) -> None:
        self.position = position
        self.manifest_lines = manifest_lines
        self.layer_entries = layer_entries  # '"notes/<id>.json":"<digest>"' of build.json's layers
        self.file_entries = file_entries  # '"<path>":[size,mtime_ns]' of build.json's files
        self.headings = headings
        self.fallback = fallback  # notes parsed by markdown-it
        self.errors = errors  # (path, error) of notes with one


class BuildMemory:
    """The build states this process keeps, so that the next build of a vault starts from them.

    Holds: one BuildState per vault (every note's IndexedNote, the last build's rows, digests,
    link graph and resolver: about 100 MB for 10,000 notes).
    Key: the vault's root folder as a string.
    Bound: at most `max_vaults` states; putting one more drops the least recently built.
    Invalidation: a state is used only while build.json on disk is still the one it wrote (same
    generation, inode, size and mtime: see `state_for`); any other writer makes the next build
    load from disk instead. `clear()` forgets everything (as a new process would).
    """

    def __init__(self, max_vaults: int = 4) -> None:
        self.max_vaults = max_vaults
        self._states: OrderedDict[str, BuildState] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, root: str) -> BuildState | None:
        with self._lock:
            return self._states.get(root)

    def holds(self, root: str) -> bool:
        with self._lock:
            return root in self._states

    def put(self, root: str, state: BuildState) -> None:
        with self._lock:
            self._states[root] = state
            self._states.move_to_end(root)
            while len(self._states) > self.max_vaults:
                self._states.popitem(last=False)

    def sizes(self) -> dict[str, int]:
        with self._lock:
            return {
                "vault_states": len(self._states),
                "indexed_notes": sum(len(s.notes) for s in self._states.values()),
            }

    def clear(self) -> None:
        with self._lock:
            self._states.clear()


def load_state(vault: Vault) -> BuildState:
    state = BuildState()
    build_raw = read_index_file(vault, "build.json")
    parts = [p for p in list_index_files(vault, "cache") if p.endswith(".jsonl")]
    if build_raw is None or not parts:
        return state
    try:
        build = jsoncodec.loads(build_raw)
        if build.get("format") != INDEX_FORMAT or build.get("cache_format") != CACHE_FORMAT:
            return state
        files = build.get("files", {})
        state.paths_key = tuple(sorted(files))
        state.walk = WalkMemory.loaded(read_index_file(vault, WALK_FILE), str(vault.root), files)
        fp = paths_fingerprint(state.paths_key)
        for part in parts:
            for line in (read_index_file(vault, part) or b"").split(b"\n"):
                if line.startswith(b"["):
                    note = IndexedNote.from_cache_line(line)
                    path = note.parsed.path
                    if path in files:  # the cache may be older than build.json (see _CACHE_SLACK)
                        note.res_key = state.paths_key if note.res_fp == fp else None
                        state.notes[path] = note
        state.paths_fp = fp
        state.layers = dict(build.get("layers", {}))
        state.generation = str(build.get("generation", ""))
    except (ValueError, TypeError, UnicodeDecodeError):
        return BuildState()
    return state


_GENERATION_PREFIX = b'{"generation":"'


def paths_fingerprint(paths: tuple[str, ...]) -> str:
    return hashlib.sha256("\n".join(paths).encode("utf-8", "surrogatepass")).hexdigest()[:16]


def build_stamp(vault: Vault) -> tuple[tuple[int, int, int] | None, str]:
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


def state_for(vault: Vault, full: bool, memory: BuildMemory) -> BuildState:
    """The state the next build starts from: this process's own while build.json is still the one it
    wrote, else what is on disk (nothing for a full build). The folders' listings (`walk`) depend
    on the vault's files alone, never on the index: a state loaded afresh keeps them."""
    cached = memory.get(str(vault.root))
    if full:
        state = BuildState()
    else:
        stamp, generation = build_stamp(vault)
        if cached is not None and cached.generation and cached.generation == generation and cached.build_stat == stamp:
            return cached
        state = load_state(vault)
    if cached is not None:
        state.walk = cached.walk
    return state
