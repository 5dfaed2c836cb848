"""What every door needs for one vault: settings, the vault, its read catalog and the runtime memory."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from .. import machine_config
from ..core.memory import Memory
from ..index import build_state, query, search
from ..settings import Settings
from ..trust import audit
from ..vault.catalog import NoteCatalog
from ..vault.paths import Vault


@dataclass(frozen=True)
class Runtime:
    """Everything the sidecar keeps in memory between requests, besides the catalog's parse cache.

    Each entry is one module's `MEMORY`; its class docstring says what it holds, the key and the
    bound. When each entry stops being used:

    - `audit` (trust/audit.py): per note, the facts of the catalog's Note object — until the
      file's size or mtime changes; the last audit report — until the policy, day, threshold,
      `.harness/runs/` or any note changes; the parsed policy per vault — until policy.toml's
      bytes or the machine configuration change; the last report's JSON — until another report.
    - `machine_config` (machine_config.py): the parsed machine configuration — until the file's
      mtime or size changes.
    - `index_build` (index/build_state.py): per vault, the last index build's state (every note's
      stat, hash and rows), so that the next build redoes only changed notes — used only while
      build.json on disk is the one that build wrote; at most 4 vaults.
    - `index_query` (index/query.py): per vault, the parsed manifest — until manifest.json's size
      or mtime changes; the last staleness answer — refreshed in the background once older than
      a few seconds; build.json's per-file stamps — until that file changes; at most 8 vaults.
    - `index_search` (index/search.py): the open search layers (SQLite files in the user cache) —
      a layer whose file was deleted is reopened, and each query first brings it in step with
      the manifest; at most 8 layers, the least recently used closed first. Each open layer
      remembers its terms' BM25 parts (at most 1,000,000 rows, 12 bytes each, the least recently
      used term first forgotten) and term counts — forgotten whenever the layer changes.

    Pure-function memos (`functools.lru_cache` on tokenizers and the config directory) keep no
    state of a vault and are not listed. `clear()` forgets everything: the next request recomputes.
    """

    audit: Memory = field(default_factory=lambda: audit.MEMORY)
    machine_config: Memory = field(default_factory=lambda: machine_config.MEMORY)
    index_build: Memory = field(default_factory=lambda: build_state.MEMORY)
    index_query: Memory = field(default_factory=lambda: query.MEMORY)
    index_search: Memory = field(default_factory=lambda: search.MEMORY)

    def memories(self) -> dict[str, Memory]:
        return {name: getattr(self, name) for name in self.__dataclass_fields__}

    def sizes(self) -> dict[str, dict[str, int]]:
        return {name: memory.sizes() for name, memory in self.memories().items()}

    def describe(self) -> str:
        """One log line: `audit.note_facts=120 audit.policies=1 ...`."""
        return " ".join(f"{name}.{key}={n}" for name, sizes in self.sizes().items() for key, n in sizes.items())

    def clear(self) -> None:
        for memory in self.memories().values():
            memory.clear()


@dataclass
class AppContext:
    settings: Settings
    vault: Vault
    catalog: NoteCatalog
    request_shutdown: Callable[[], None] = field(default=lambda: None)
    mcp_transport: str = "http"  # "stdio" when `kh mcp` serves the tools
    runtime: Runtime = field(default_factory=Runtime)

    @classmethod
    def create(cls, settings: Settings) -> AppContext:
        vault = Vault.open(settings.vault)
        return cls(settings=settings, vault=vault, catalog=NoteCatalog(vault))
