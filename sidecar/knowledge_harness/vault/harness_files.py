"""Generated files under `VAULT/.harness/` (the reasoning index): atomic writes and consistent reads.

A first build writes the whole index into a staging folder and renames it into place, so
the folder appears complete or not at all. Later builds replace only the files whose bytes
changed, each by temp file + rename, note layers first and `manifest.json` last, while
holding an exclusive `flock` on `.harness/index.lock`; readers hold the shared lock while
they read, so a reader sees the previous index or the new one, never a mixture.

A build that parses in worker processes lets each worker write its note layers straight
into a staging folder (`new_index_staging`, `write_staged`) while it parses; the commit
(`write_index_files(..., staging=, staged=)`) then renames the folder into place, or moves
the staged layers into the live index under the lock. A staging folder left by a killed
build is removed by the next one (its name carries the owner's pid).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterable, Iterator, Mapping
from itertools import islice
from pathlib import Path
from typing import Any, BinaryIO

from ..core.tomlfile import read_toml
from ..errors import InputError
from .atomic import Pieces, atomic_write
from .paths import Vault

INDEX_DIR = "index"
_LOCK = "index.lock"
_STAGING_PREFIX = ".index-new-"


def index_dir(vault: Vault) -> Path:
    return vault.harness_dir / INDEX_DIR


@contextlib.contextmanager
def flocked(path: Path, mode: int) -> Iterator[None]:
    """Hold an flock (`fcntl.LOCK_SH` or `LOCK_EX`) on the file at `path` (created; its folder must exist)."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, mode)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def pid_alive(pid: object) -> bool:
    """Is `pid` a running process (another user's counts too)?"""
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@contextlib.contextmanager
def _flock(vault: Vault, mode: int) -> Iterator[None]:
    vault.harness_dir.mkdir(parents=True, exist_ok=True)
    with flocked(vault.harness_dir / _LOCK, mode):
        yield


@contextlib.contextmanager
def index_read_lock(vault: Vault) -> Iterator[None]:
    """Hold while reading several index files that must belong to the same build."""
    if not vault.harness_dir.is_dir():
        yield
        return
    with _flock(vault, fcntl.LOCK_SH):
        yield


def _write_file(path: Path, data: bytes | Pieces) -> None:
    # The index is rebuildable from the vault: no fsync per file (the swap is still atomic).
    atomic_write(path, data, durable=False, mode=0o644)


def _owner_alive(name: str) -> bool:
    pid = name[len(_STAGING_PREFIX) :].split("-", 1)[0]
    return pid.isdigit() and pid_alive(int(pid))


def new_index_staging(vault: Vault) -> Path:
    """An empty staging folder (with `notes/`) beside the index; stale ones of dead builds go."""
    import shutil  # here, not at the top: the one-shot `kh index build` never stages (start-up time)
    import tempfile

    vault.harness_dir.mkdir(parents=True, exist_ok=True)
    for entry in os.scandir(vault.harness_dir):
        if entry.name.startswith(_STAGING_PREFIX) and entry.is_dir() and not _owner_alive(entry.name):
            shutil.rmtree(entry.path, ignore_errors=True)
    staging = Path(tempfile.mkdtemp(dir=vault.harness_dir, prefix=f"{_STAGING_PREFIX}{os.getpid()}-"))
    staging.chmod(0o755)  # the index is meant to be readable (agents, git)
    for sub in ("notes", "cache"):
        (staging / sub).mkdir(mode=0o755)
    return staging


def write_staged(staging: Path, rel: str, data: bytes | Pieces) -> None:
    """Write one index file (relative to the index folder) into a staging folder."""
    fd = os.open(staging / rel, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
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


def _order(rel: str) -> tuple[int, str]:
    # note layers first, the tree next, the manifest (the commit point) last, build metadata after
    rank = 3 if rel.startswith("cache/") else {"tree.json": 1, "manifest.json": 2, "build.json": 3}.get(rel, 0)
    return (rank, rel)


def write_index_files(
    vault: Vault,
    files: Mapping[str, bytes | Pieces],
    delete: Iterable[str] = (),
    *,
    staging: Path | None = None,
    staged: Iterable[str] = (),
) -> int:
    """Write `files` and delete `delete` (paths relative to the index folder); returns files written.

    `staged` names files already written into `staging` (from `new_index_staging`). When the
    index folder does not exist yet, the staging folder becomes it by one rename; otherwise the
    staged files are moved into it. The staging folder is gone afterwards, whatever happens.
    """
    target = index_dir(vault)
    vault.harness_dir.mkdir(parents=True, exist_ok=True)
    staged = sorted(staged, key=_order)
    try:
        with _flock(vault, fcntl.LOCK_EX):
            if not target.is_dir():
                staging = staging or new_index_staging(vault)
                made: set[Path] = {staging, staging / "notes"}
                for rel in sorted(files, key=_order):
                    path = staging / rel
                    if path.parent not in made:
                        path.parent.mkdir(parents=True, exist_ok=True)
                        made.add(path.parent)
                    write_staged(staging, rel, files[rel])
                staging.rename(target)
                staging = None
                return len(files) + len(staged)
            if staged:
                assert staging is not None
                for folder in {(target / rel).parent for rel in staged}:
                    folder.mkdir(exist_ok=True)
                for rel in staged:  # note layers before the manifest, the commit point (see _order)
                    (staging / rel).replace(target / rel)
            for rel in sorted(files, key=_order):
                _write_file(target / rel, files[rel])
            for rel in delete:
                with contextlib.suppress(FileNotFoundError):
                    (target / rel).unlink()
            return len(files) + len(staged)
    finally:
        discard_staging(staging)


def read_index_file(vault: Vault, rel: str) -> bytes | None:
    """The bytes of an index file (relative to the index folder), or None when it is missing."""
    try:
        return (index_dir(vault) / rel).read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        return None


def open_index_file(vault: Vault, rel: str) -> BinaryIO | None:
    """An index file opened for reading (relative to the index folder), or None when it is missing.

    Index files are replaced atomically, so the handle reads one build's file to its end."""
    try:
        return (index_dir(vault) / rel).open("rb")
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
        return read_toml(vault.harness_dir / name, what=name) or {}
    except InputError:
        return {}


# Obsidian's core Templates plugin and the Templater plugin keep their template folder here
_TEMPLATE_SETTINGS = (
    (".obsidian/templates.json", "folder"),
    (".obsidian/plugins/templater-obsidian/data.json", "templates_folder"),
)
_MAX_SETTINGS_BYTES = 1 << 20


def template_folders(vault: Vault) -> list[str]:
    """The vault's template folders, as Obsidian's Templates and Templater settings name them
    (vault-relative, without slashes at the ends); [] when neither is set or readable."""
    import json

    out: set[str] = set()
    for rel, key in _TEMPLATE_SETTINGS:
        path = vault.root / rel
        try:
            if path.stat().st_size > _MAX_SETTINGS_BYTES:
                continue
            data = json.loads(path.read_bytes())
        except (OSError, ValueError):
            continue
        folder = data.get(key) if isinstance(data, dict) else None
        if isinstance(folder, str) and folder.strip("/ "):
            out.add(folder.strip("/ "))
    return sorted(out)


def excluded_notes(vault: Vault, index_toml: dict[str, Any] | None = None) -> list[str]:
    """The folders and notes that are no notes to index or audit: the template folders
    (`template_folders`) and `.harness/index.toml`'s `exclude` list (vault-relative, sorted);
    `index_toml`: that file as the caller already read it (read here when None).

    The one rule for both the index and the audit: a template's `{{date}}` placeholders are no
    note's malformed YAML."""
    conf = read_harness_toml(vault, "index.toml") if index_toml is None else index_toml
    section = conf.get("index", conf)
    listed = section.get("exclude", []) if isinstance(section, dict) else []
    exclude = {str(e).strip("/") for e in listed if str(e).strip("/")} if isinstance(listed, list) else set()
    exclude.update(template_folders(vault))
    return sorted(exclude)


def is_excluded_note(path: str, exclude: list[str] | tuple[str, ...]) -> bool:
    """Whether a note lies in (or is) one of `excluded_notes`' folders or notes."""
    return any(path == e or path.startswith(e + "/") for e in exclude)
