"""The index's files, `VAULT/.harness/index/`: where they are, how a build commits them and how
readers read them, all through the file layer's StagedFolder (vault/staged_folder.py).

A first build writes the whole index into a staging folder and renames it into place; later
builds replace only the files whose bytes changed, note layers first and `manifest.json` (the
commit point) last, under `.harness/index.lock`, which readers hold shared while they read.
A build that parses in worker processes lets each worker write its note layers and cache parts
straight into the staging folder (`new_index_staging`, `write_staged`) while it parses.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import BinaryIO

from ..vault.atomic import Pieces
from ..vault.paths import Vault
from ..vault.staged_folder import StagedFolder, discard_staging, write_staged, write_staged_lines

__all__ = [
    "WALK_FILE",
    "discard_staging",
    "index_dir",
    "index_read_lock",
    "list_index_files",
    "new_index_staging",
    "open_index_file",
    "read_index_file",
    "write_index_files",
    "write_staged",
    "write_staged_lines",
]

WALK_FILE = "cache/walk.json"  # the folders' listings, for the next process's walk (WalkMemory.saved)


def _index_folder(vault: Vault) -> StagedFolder:
    return StagedFolder(vault, "index", lock="index.lock", staging_prefix=".index-new-", subfolders=("notes", "cache"))


def index_dir(vault: Vault) -> Path:
    return _index_folder(vault).root


def _order(rel: str) -> tuple[int, str]:
    # note layers first, the tree next, the manifest (the commit point) last, build metadata after
    rank = 3 if rel.startswith("cache/") else {"tree.json": 1, "manifest.json": 2, "build.json": 3}.get(rel, 0)
    return (rank, rel)


@contextlib.contextmanager
def index_read_lock(vault: Vault) -> Iterator[None]:
    """Hold while reading several index files that must belong to the same build."""
    with _index_folder(vault).read_lock():
        yield


def new_index_staging(vault: Vault) -> Path:
    """An empty staging folder (with `notes/` and `cache/`) beside the index; stale ones of dead builds go."""
    return _index_folder(vault).new_staging()


def write_index_files(
    vault: Vault,
    files: Mapping[str, bytes | Pieces],
    delete: Iterable[str] = (),
    *,
    staging: Path | None = None,
    staged: Iterable[str] = (),
) -> int:
    """Write `files` and delete `delete` (paths relative to the index folder); returns files written.
    `staged` names files already written into `staging` (from `new_index_staging`)."""
    return _index_folder(vault).commit(files, delete, order=_order, staging=staging, staged=staged)


def read_index_file(vault: Vault, rel: str) -> bytes | None:
    """The bytes of an index file (relative to the index folder), or None when it is missing."""
    return _index_folder(vault).read(rel)


def open_index_file(vault: Vault, rel: str) -> BinaryIO | None:
    """An index file opened for reading (relative to the index folder), or None when it is missing."""
    return _index_folder(vault).open_for_reading(rel)


def list_index_files(vault: Vault, sub: str) -> list[str]:
    return _index_folder(vault).names(sub)
