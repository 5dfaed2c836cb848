"""VaultIndex: what this process keeps in memory of one vault's reasoning index.

One object owns the build states (build_state.BuildMemory), the readers' memory of manifest,
staleness and build stamps (QueryMemory, here) and the open search layers (search.SearchMemory).
The sidecar's AppContext makes one per vault and closes it when the app stops; a CLI process makes
one; a call given none makes one for itself (then nothing is remembered after it returns).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ..core.memory import Memory
from ..vault.paths import Vault
from .build_state import BuildMemory
from .record import NoteSections
from .schema import CheckReport
from .search import SearchMemory

MEMORY_VAULTS = 8  # vaults remembered at once; the oldest is forgotten first


@dataclass(frozen=True, slots=True)
class StaleAnswer:
    """One vault-wide staleness answer: for which manifest, when, what, and how long the walk took."""

    manifest_key: str
    checked_at: float  # time.monotonic()
    report: CheckReport
    walk_seconds: float


def remember(table: dict[str, Any], key: str, value: Any) -> None:
    """Put `key` last in `table`, dropping the oldest keys beyond MEMORY_VAULTS."""
    table.pop(key, None)
    table[key] = value
    while len(table) > MEMORY_VAULTS:
        del table[next(iter(table))]


class BuildRecord(NamedTuple):
    """What the sidecar keeps of build.json: its stat, its notes' stamps, and whether the build
    reported no problem (then the vault was, when it was built, exactly its index)."""

    key: tuple[int, int]  # size, mtime_ns
    files: dict[str, list[int]]
    clean: bool
    seconds: float  # how long the build took (its scan was that long before the file was written)


@dataclass
class QueryMemory:
    """What reading the index keeps between calls, per vault, so that a query reads no file twice.

    - manifests: manifest.json's path -> ((size, mtime_ns), the parsed manifest with `by_path`
      and `linked_from` added). Invalidated when the file's size or mtime changes.
    - staleness: the vault's root -> StaleAnswer. Replaced when the manifest changes (by the
      build's own answer when it is known, `_as_built`, as old as the build's scan); refreshed in
      the background once older than STALENESS_SECONDS (see _throttled_check).
    - refreshing: the roots whose staleness is being refreshed now (one refresh at a time).
    - stamps: build.json's path -> _BuildRecord (its size and mtime, its per-file (size,
      mtime_ns) stamps, whether the build reported no problem). Invalidated when the file's size
      or mtime changes.
    - manifest_lines: manifest.json's path -> its note lines (bytes) -> their parsed entries (the
      same objects as in `manifests`), so that the next manifest parses only the lines that changed.
      Replaced with each manifest read; about the manifest's size in bytes.
    Keys are path strings. Bound: MEMORY_VAULTS vaults in each table, the oldest dropped first.
    """

    manifests: dict[str, tuple[tuple[int, int], dict[str, Any]]] = field(default_factory=dict)
    staleness: dict[str, StaleAnswer] = field(default_factory=dict)
    refreshing: set[str] = field(default_factory=set)
    stamps: dict[str, BuildRecord] = field(default_factory=dict)
    manifest_lines: dict[str, dict[bytes, Any]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    parsing: threading.Lock = field(default_factory=threading.Lock)  # held while a manifest is parsed

    def sizes(self) -> dict[str, int]:
        with self.lock:
            return {
                "manifests": len(self.manifests),
                "manifest_lines": sum(len(lines) for lines in self.manifest_lines.values()),
                "staleness": len(self.staleness),
                "stamps": len(self.stamps),
            }

    def clear(self) -> None:
        with self.lock:
            self.manifests.clear()
            self.manifest_lines.clear()
            self.staleness.clear()
            self.refreshing.clear()
            self.stamps.clear()


class VaultIndex:
    """The index memory of one vault (see the module docstring). Thread-safe: each part has its lock."""

    def __init__(self, vault: Vault) -> None:
        self.vault = vault
        self.build = BuildMemory()
        self.query = QueryMemory()
        self.search = SearchMemory()

    def memories(self) -> dict[str, Memory]:
        """Its parts by the names api/context.py's Runtime reports them under."""
        return {"index_build": self.build, "index_query": self.query, "index_search": self.search}

    def sizes(self) -> dict[str, int]:
        return {key: n for memory in self.memories().values() for key, n in memory.sizes().items()}

    def clear(self) -> None:
        """Forget everything (the open search layers are closed): the next call recomputes."""
        for memory in self.memories().values():
            memory.clear()

    def close(self) -> None:
        self.clear()

    def built_sections(self, path: str, sha256: str) -> NoteSections | None:
        """The sections the last build in this process parsed in the note with these bytes, if it
        kept them (search.vault_layer takes them instead of parsing the note again)."""
        state = self.build.get(str(self.vault.root))
        note = state.notes.get(path) if state is not None else None
        if note is None:
            return None
        parsed = note.parsed
        return parsed.sections if parsed.sha256 == sha256 else None


@contextmanager
def index_of(vault: Vault, index: VaultIndex | None) -> Iterator[VaultIndex]:
    """`index`, or one made for this call alone and closed after it (its search layer too)."""
    if index is not None:
        if index.vault.root != vault.root:
            raise ValueError(f"The index of {index.vault.root} was given for the vault {vault.root}.")
        yield index
        return
    own = VaultIndex(vault)
    try:
        yield own
    finally:
        own.close()
