"""A folder under VAULT/.harness/ as a wing's store sees it: the one way its files are read and written.

The stores themselves live with their wings (trust/ keeps its evidence snapshots, judge ledger and judge
tasks); they name files in their folder, and this primitive keeps every name inside it, writes
atomically (vault/atomic.py) and lists, creates and removes files. A name is one plain file name:
no folder separators, no `..`, nothing hidden (the temp files of atomic writes start with a dot).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from ..errors import InputError
from .atomic import atomic_write, fsync_dir
from .paths import Vault


class HarnessFolder:
    """VAULT/.harness/<parts...>; created on the first write."""

    def __init__(self, vault: Vault, *parts: str) -> None:
        for part in parts:
            _check_name(part)
        self.root = vault.harness_dir.joinpath(*parts)

    def sub(self, name: str) -> HarnessFolder:
        folder = object.__new__(HarnessFolder)
        folder.root = self.root / _check_name(name)
        return folder

    def path(self, name: str) -> Path:
        return self.root / _check_name(name)

    def ensure(self) -> Path:
        self.root.mkdir(parents=True, exist_ok=True)
        return self.root

    def read_bytes(self, name: str) -> bytes:
        """The file's bytes; OSError (FileNotFoundError) as open() raises it."""
        return self.path(name).read_bytes()

    def read_text(self, name: str) -> str:
        """The file as UTF-8 text (universal newlines, as Path.read_text); OSError as open() raises it."""
        return self.path(name).read_text(encoding="utf-8")

    def exists(self, name: str) -> bool:
        return self.path(name).exists()

    def write(self, name: str, data: bytes, *, durable: bool = True) -> Path:
        """Replace the file atomically (temp file, fsync, rename), creating the folder."""
        path = self.path(name)
        atomic_write(path, data, durable=durable)
        return path

    def create_new(self, name: str, data: bytes) -> bool:
        """Create the file with `data` only if it does not exist yet (O_EXCL), durably; False if it did."""
        self.ensure()
        path = self.path(name)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            return False
        try:
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        fsync_dir(self.root)
        return True

    def append(self, name: str, data: bytes) -> None:
        """Append `data` to the file (created when missing, with its folder) and flush it to disk."""
        self.ensure()
        with self.path(name).open("ab") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())

    def all_files(self) -> list[tuple[str, bytes]]:
        """Every file below the folder (relative POSIX path, bytes), sorted by path; the temp files of
        writes in progress are left out."""
        return [
            (path.relative_to(self.root).as_posix(), path.read_bytes())
            for path in sorted(self.root.rglob("*"))
            if path.is_file() and not path.name.startswith(".tmp-")
        ]

    def remove(self, name: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.path(name).unlink()

    def names(self, pattern: str) -> list[str]:
        """The names of the files matching a glob pattern, sorted; none when the folder is missing."""
        if not self.root.is_dir():
            return []
        return sorted(p.name for p in self.root.glob(pattern))

    def entries(self) -> Iterator[os.DirEntry[str]]:
        """The folder's entries with their cached stat (os.scandir); none when the folder is missing."""
        try:
            listing = os.scandir(self.root)
        except FileNotFoundError:
            return
        with listing:
            yield from listing


def _check_name(name: str) -> str:
    if not name or name.startswith(".") or "/" in name or "\\" in name or "\0" in name:
        raise InputError(f"{name!r} is not a plain file name inside the vault's .harness folder.")
    return name
