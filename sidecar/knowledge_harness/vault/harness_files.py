"""Generated files under `VAULT/.harness/` (the reasoning index): atomic writes and consistent reads.

A first build writes the whole index into a temporary folder and renames it into place, so
the folder appears complete or not at all. Later builds replace only the files whose bytes
changed, each by temp file + rename, note layers first and `manifest.json` last, while
holding an exclusive `flock` on `.harness/index.lock`; readers hold the shared lock while
they read, so a reader sees the previous index or the new one, never a mixture.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import tempfile
import tomllib
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from .atomic import atomic_write
from .paths import Vault

INDEX_DIR = "index"
_LOCK = "index.lock"


def index_dir(vault: Vault) -> Path:
    return vault.harness_dir / INDEX_DIR


@contextlib.contextmanager
def _flock(vault: Vault, mode: int) -> Iterator[None]:
    vault.harness_dir.mkdir(parents=True, exist_ok=True)
    fd = os.open(vault.harness_dir / _LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, mode)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


@contextlib.contextmanager
def index_read_lock(vault: Vault) -> Iterator[None]:
    """Hold while reading several index files that must belong to the same build."""
    if not vault.harness_dir.is_dir():
        yield
        return
    with _flock(vault, fcntl.LOCK_SH):
        yield


def _write_file(path: Path, data: bytes) -> None:
    # The index is rebuildable from the vault: no fsync per file (the swap is still atomic).
    atomic_write(path, data, durable=False, mode=0o644)


def _order(rel: str) -> tuple[int, str]:
    # note layers first, the tree next, the manifest (the commit point) last, build metadata after
    rank = {"tree.json": 1, "manifest.json": 2, "build.json": 3, "cache.json": 3}.get(rel, 0)
    return (rank, rel)


def write_index_files(vault: Vault, files: Mapping[str, bytes], delete: Iterable[str] = ()) -> int:
    """Write `files` (paths relative to the index folder) and delete `delete`; returns files written.

    When the index folder does not exist yet it is built aside and renamed into place.
    """
    target = index_dir(vault)
    vault.harness_dir.mkdir(parents=True, exist_ok=True)
    with _flock(vault, fcntl.LOCK_EX):
        if not target.is_dir():
            staging = Path(tempfile.mkdtemp(dir=vault.harness_dir, prefix=".index-new-"))
            try:
                staging.chmod(0o755)  # the index is meant to be readable (agents, git)
                made: set[Path] = set()
                for rel in sorted(files, key=_order):
                    path = staging / rel
                    if path.parent not in made:
                        path.parent.mkdir(parents=True, exist_ok=True)
                        made.add(path.parent)
                    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
                    try:
                        os.write(fd, files[rel])
                    finally:
                        os.close(fd)
                staging.rename(target)
            except BaseException:
                shutil.rmtree(staging, ignore_errors=True)
                raise
            return len(files)
        for rel in sorted(files, key=_order):
            _write_file(target / rel, files[rel])
        for rel in delete:
            with contextlib.suppress(FileNotFoundError):
                (target / rel).unlink()
        return len(files)


def read_index_file(vault: Vault, rel: str) -> bytes | None:
    """The bytes of an index file (relative to the index folder), or None when it is missing."""
    try:
        return (index_dir(vault) / rel).read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        return None


def list_index_files(vault: Vault, sub: str) -> list[str]:
    folder = index_dir(vault) / sub
    try:
        return sorted(f"{sub}/{f.name}" for f in folder.iterdir() if not f.name.startswith("."))
    except FileNotFoundError:
        return []


def read_harness_toml(vault: Vault, name: str) -> dict[str, Any]:
    """A TOML settings file in `.harness/` (e.g. index.toml); {} when missing or invalid."""
    try:
        with (vault.harness_dir / name).open("rb") as handle:
            return tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError):
        return {}
