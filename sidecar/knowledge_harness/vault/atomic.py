"""Atomic file replacement, shared by every writer in vault/.

A reader sees the old bytes or the new bytes, never a mix: write a temp file in the same
folder, optionally fsync it, rename it over the target, then fsync the folder so the rename
itself survives a crash.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any


def fsync_dir(folder: Path) -> None:
    """Flush a folder's entries (the rename); silently skipped where folders cannot be opened."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)


Pieces = Sequence[bytes | memoryview]
"""A file's bytes as consecutive pieces, written one after the other (never joined in memory)."""


def atomic_write(
    path: Path,
    data: bytes | Pieces,
    *,
    durable: bool = True,
    mode: int | None = None,
    before_replace: Callable[[], object] | None = None,
) -> None:
    """Replace `path` with `data` atomically; `durable=False` skips the fsyncs (rebuildable caches).

    `before_replace` runs after the temp file is written and before the rename: it may raise to
    leave `path` as it is (the note writer re-checks the note's hash there); the temp file goes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = _new_temp_file(path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            if isinstance(data, bytes):
                handle.write(data)
            else:
                handle.writelines(data)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        if mode is not None:
            tmp.chmod(mode)
        if before_replace is not None:
            before_replace()
        tmp.replace(path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    if durable:
        fsync_dir(path.parent)


def _new_temp_file(folder: Path) -> tuple[int, Path]:
    """A new file in `folder` that this call created (O_EXCL, mode 0600), as tempfile.mkstemp
    makes one; importing tempfile (and shutil with it) costs each `kh index build` process ~4 ms."""
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        tmp = folder / f".tmp-{os.urandom(6).hex()}"
        try:
            return os.open(tmp, flags, 0o600), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name in {folder}")


def pretty_json(value: Any) -> bytes:
    """JSON as the sidecar stores it: sorted keys, UTF-8, indented, final newline (clean git diffs)."""
    return (json.dumps(value, sort_keys=True, ensure_ascii=False, indent=2) + "\n").encode("utf-8")
