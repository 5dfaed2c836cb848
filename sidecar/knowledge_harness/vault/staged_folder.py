"""A folder of generated files under `VAULT/.harness/` that readers see whole: atomic writes and
consistent reads (the reasoning index keeps its files in one, index/store.py).

A first write puts every file into a staging folder and renames it into place, so the folder
appears complete or not at all. Later writes replace only the files given, each by temp file +
rename in the order the owner chooses (the commit point last), while holding an exclusive
`flock` on the folder's lock file in `.harness/`; readers hold the shared lock while they read,
so a reader sees the previous files or the new ones, never a mixture.

Worker processes may write files straight into a staging folder (`new_staging`, `write_staged`)
before the commit (`commit(..., staging=, staged=)`) renames the folder into place, or moves the
staged files into the live folder under the lock. A staging folder left by a killed writer is
removed by the next one (its name carries the owner's pid).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from itertools import islice
from pathlib import Path
from typing import BinaryIO

from .atomic import Pieces, atomic_write
from .lock import flocked, pid_alive
from .paths import Vault


class StagedFolder:
    """VAULT/.harness/<name>, its lock file `.harness/<lock>` and its staging folders
    `.harness/<staging_prefix><pid>-…` (each made with `subfolders`); file names are relative to
    the folder (`notes/x.json`)."""

    def __init__(self, vault: Vault, name: str, *, lock: str, staging_prefix: str, subfolders: tuple[str, ...]) -> None:
        self.harness_dir = vault.harness_dir
        self.root = vault.harness_dir / name
        self._lock = lock
        self._staging_prefix = staging_prefix
        self._subfolders = subfolders  # made in every staging folder

    @contextlib.contextmanager
    def _flock(self, mode: int) -> Iterator[None]:
        self.harness_dir.mkdir(parents=True, exist_ok=True)
        with flocked(self.harness_dir / self._lock, mode):
            yield

    @contextlib.contextmanager
    def read_lock(self) -> Iterator[None]:
        """Hold while reading several files that must belong to the same commit."""
        if not self.harness_dir.is_dir():
            yield
            return
        with self._flock(fcntl.LOCK_SH):
            yield

    def _owner_alive(self, name: str) -> bool:
        pid = name[len(self._staging_prefix) :].split("-", 1)[0]
        return pid.isdigit() and pid_alive(int(pid))

    def new_staging(self) -> Path:
        """An empty staging folder (with its subfolders) beside the folder; stale ones of dead writers go."""
        import shutil  # here, not at the top: the one-shot `kh index build` never stages (start-up time)

        self.harness_dir.mkdir(parents=True, exist_ok=True)
        for entry in os.scandir(self.harness_dir):
            if entry.name.startswith(self._staging_prefix) and entry.is_dir() and not self._owner_alive(entry.name):
                shutil.rmtree(entry.path, ignore_errors=True)
        staging = self._new_folder(f"{self._staging_prefix}{os.getpid()}-")
        staging.chmod(0o755)  # generated files are meant to be readable (agents, git)
        for sub in self._subfolders:
            (staging / sub).mkdir(mode=0o755)
        return staging

    def _new_folder(self, prefix: str) -> Path:
        """A new folder of a name no one else has taken, as tempfile.mkdtemp makes it (whose import,
        with random's, cost a full build ~3 ms before its parse)."""
        while True:
            folder = self.harness_dir / f"{prefix}{os.urandom(6).hex()}"
            try:
                folder.mkdir(mode=0o700)
            except FileExistsError:
                continue
            return folder

    def commit(
        self,
        files: Mapping[str, bytes | Pieces],
        delete: Iterable[str] = (),
        *,
        order: Callable[[str], tuple[int, str]],
        staging: Path | None = None,
        staged: Iterable[str] = (),
    ) -> int:
        """Write `files` and delete `delete`, in `order`; returns the number of files written.

        `staged` names files already written into `staging` (from `new_staging`). When the folder
        does not exist yet, the staging folder becomes it by one rename; otherwise the staged files
        are moved into it. The staging folder is gone afterwards, whatever happens.
        """
        target = self.root
        self.harness_dir.mkdir(parents=True, exist_ok=True)
        staged = list(staged)
        try:
            with self._flock(fcntl.LOCK_EX):
                if not target.is_dir():
                    staging = staging or self.new_staging()
                    made: set[Path] = {staging, *(staging / sub for sub in self._subfolders)}
                    for rel in sorted(files, key=order):
                        path = staging / rel
                        if path.parent not in made:
                            path.parent.mkdir(parents=True, exist_ok=True)
                            made.add(path.parent)
                        write_staged(staging, rel, files[rel])
                    staging.rename(target)
                    staging = None
                    return len(files) + len(staged)
                staged.sort(key=order)  # only here: a new folder takes every staged file with one rename
                if staged:
                    assert staging is not None
                    for folder in {(target / rel).parent for rel in staged}:
                        folder.mkdir(exist_ok=True)
                    for rel in staged:  # in `order`: the commit point is never before what it names
                        (staging / rel).replace(target / rel)
                for rel in sorted(files, key=order):
                    # generated files are rebuildable: no fsync per file (the swap is still atomic)
                    atomic_write(target / rel, files[rel], durable=False, mode=0o644)
                for rel in delete:
                    with contextlib.suppress(FileNotFoundError):
                        (target / rel).unlink()
                return len(files) + len(staged)
        finally:
            discard_staging(staging)

    def read(self, rel: str) -> bytes | None:
        """The bytes of a file, or None when it is missing."""
        try:
            return (self.root / rel).read_bytes()
        except (FileNotFoundError, NotADirectoryError):
            return None

    def open_for_reading(self, rel: str) -> BinaryIO | None:
        """A file opened for reading, or None when it is missing. Files are replaced atomically,
        so the handle reads one commit's file to its end."""
        try:
            return (self.root / rel).open("rb")
        except (FileNotFoundError, NotADirectoryError):
            return None

    def names(self, sub: str) -> list[str]:
        """The files of a subfolder (`sub/<name>`, sorted, hidden ones left out); [] when it is missing."""
        folder = self.root / sub
        try:
            return sorted(f"{sub}/{f.name}" for f in folder.iterdir() if not f.name.startswith("."))
        except FileNotFoundError:
            return []


def write_staged(staging: Path, rel: str, data: bytes | Pieces) -> None:
    """Write one file (relative to the folder it will be part of) into a staging folder."""
    # a str path: `staging / rel` made a Path per file (~3 us, a build writes one per note)
    fd = os.open(f"{os.fspath(staging)}/{rel}", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        for piece in [data] if isinstance(data, bytes) else data:
            view = memoryview(piece)
            while view:
                view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def write_staged_lines(staging: Path, rel: str, lines: Iterable[bytes]) -> None:
    """Write lines, each followed by a newline, into a staging folder a few hundred at a time:
    the file (25 MB of cache lines for 10,000 notes) is never joined in memory."""
    rest = iter(lines)
    with open(staging / rel, "wb") as handle:
        while batch := list(islice(rest, 256)):
            handle.write(b"\n".join(batch) + b"\n")


def discard_staging(staging: Path | None) -> None:
    if staging is not None:
        import shutil

        shutil.rmtree(staging, ignore_errors=True)
