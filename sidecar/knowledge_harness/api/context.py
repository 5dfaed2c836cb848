"""What every door needs for one vault: settings, the vault, its read catalog and the runtime memory."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from ..core.memory import Memory
from ..index.vault_index import VaultIndex
from ..settings import Settings
from ..trust.audit.audit import Auditor
from ..trust.validate.extraction import ExtractionPool
from ..vault.catalog import NoteCatalog
from ..vault.paths import Vault


class OneThread:
    """One worker thread, started on first use; `close()` ends it (a later use starts another: an
    app's lifespan may run more than once in tests)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None

    def executor(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix=self.name)
            return self._pool

    def close(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)


@dataclass(frozen=True, eq=False)
class Runtime:
    """Everything the sidecar keeps in memory between requests, besides the catalog's parse cache.

    Owned here, made for the vault in AppContext and closed when the app stops (its lifespan): the
    index memory (VaultIndex), the audit memory (Auditor), the text extraction workers and the thread
    the REST audit runs on. Each memory's class docstring says what it holds, the key and the
    bound. When each entry of `memories()` stops being used:

    - `audit` (trust/audit/audit.py's Auditor): per note, the facts of the catalog's Note object — until the
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

    index: VaultIndex
    auditor: Auditor
    extraction: ExtractionPool = field(default_factory=ExtractionPool)
    audit_thread: OneThread = field(default_factory=lambda: OneThread("kh-audit"))

    @classmethod
    def for_vault(cls, vault: Vault, catalog: NoteCatalog) -> Runtime:
        return cls(index=VaultIndex(vault), auditor=Auditor(catalog))

    def memories(self) -> dict[str, Memory]:
        return {"audit": self.auditor, "machine_config": self.auditor.machine_configs, **self.index.memories()}

    def sizes(self) -> dict[str, dict[str, int]]:
        return {name: memory.sizes() for name, memory in self.memories().items()}

    def describe(self) -> str:
        """One log line: `audit.note_facts=120 audit.policies=1 ...`."""
        return " ".join(f"{name}.{key}={n}" for name, sizes in self.sizes().items() for key, n in sizes.items())

    def clear(self) -> None:
        for memory in self.memories().values():
            memory.clear()

    def close(self) -> None:
        """What the app's lifespan does last: the audit thread ends, the workers are killed, the
        search layers closed."""
        self.audit_thread.close()
        self.extraction.close()
        self.index.close()


@dataclass
class AppContext:
    settings: Settings
    vault: Vault
    catalog: NoteCatalog
    request_shutdown: Callable[[], None] = field(default=lambda: None)
    mcp_transport: str = "http"  # "stdio" when `kh mcp` serves the tools
    runtime: Runtime = field(init=False)

    def __post_init__(self) -> None:
        self.runtime = Runtime.for_vault(self.vault, self.catalog)

    @classmethod
    def create(cls, settings: Settings) -> AppContext:
        vault = Vault.open(settings.vault)
        return cls(settings=settings, vault=vault, catalog=NoteCatalog(vault))

    @property
    def index(self) -> VaultIndex:
        return self.runtime.index

    @property
    def auditor(self) -> Auditor:
        return self.runtime.auditor
