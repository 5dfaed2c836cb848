"""Scope verification: which files changed during a run, by snapshot and by git.

A lesson learned: a scope check that compares git's output with UTF-8 names must ask git for
unquoted names (`core.quotePath=false`) and NUL-separated records (`-z`), or Japanese file
names come back as octal escapes and look like unknown changes. Names are compared in NFC.
"""

from __future__ import annotations

import fnmatch
import hashlib
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel

from ..errors import HarnessError
from .paths import Vault, nfc, printable_path
from .safe_git import GIT_TIMEOUT, run_git

# Files the sidecar itself writes during a run; never counted as out-of-scope changes.
SIDECAR_DIR = ".harness"
# Files Obsidian rewrites by itself while it is open (the layout of panes and tabs): a run that
# sees them change has not been interfered with. The policy may add more, under .obsidian/ only.
OBSIDIAN_SELF_WRITTEN = (".obsidian/workspace.json", ".obsidian/workspace-mobile.json", ".obsidian/workspaces.json")


def is_ignored(path: str, patterns: tuple[str, ...]) -> bool:
    return any(fnmatch.fnmatchcase(path, pattern) for pattern in patterns)


@dataclass(frozen=True, slots=True)
class FileState:
    size: int
    mtime_ns: int
    sha256: str


Snapshot = dict[str, FileState]


def _walk(root: Path) -> list[Path]:
    found: list[Path] = []
    for folder, dirs, files in os.walk(root, followlinks=False):
        rel_folder = Path(folder).relative_to(root)
        dirs[:] = [d for d in dirs if not (rel_folder == Path() and d in (".git", SIDECAR_DIR))]
        found.extend(Path(folder) / name for name in files)
    return found


def snapshot(vault: Vault) -> Snapshot:
    """path (NFC, vault-relative) → size, mtime, SHA-256 of every file except .git/ and .harness/."""
    result: Snapshot = {}
    for path in _walk(vault.root):
        try:
            st = path.lstat()
            digest = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else ""
        except OSError:
            continue
        result[printable_path(vault.rel(path))] = FileState(st.st_size, st.st_mtime_ns, digest)
    return result


def changed_between(before: Snapshot, after: Snapshot) -> set[str]:
    changed = {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)}
    return changed


def is_git_repository(root: Path) -> bool:
    if shutil.which("git") is None:
        return False
    try:
        result = run_git(root, "rev-parse", "--is-inside-work-tree", timeout=GIT_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return result.returncode == 0 and result.stdout.strip() == b"true"


def _git_out(vault: Vault, *args: str) -> bytes:
    try:
        proc = run_git(vault.root, *args)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise HarnessError(f"git {args[0]} failed in the vault: {exc}.") from exc
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise HarnessError(f"git {args[0]} failed in the vault: {err[-1] if err else proc.returncode}.")
    return proc.stdout


def git_changed_paths(vault: Vault) -> set[str]:
    """Vault-relative NFC paths that git reports as modified, added, deleted or untracked.

    Through safe_git: the vault's own `.git/config` runs nothing (fsmonitor, filters, hooks);
    submodules are not entered (their configuration would be theirs)."""
    porcelain = _git_out(
        vault, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--ignore-submodules=all", "--", "."
    )
    top = _git_out(vault, "rev-parse", "--show-toplevel").decode("utf-8", "surrogateescape").strip()
    prefix = Path(os.path.realpath(vault.root)).relative_to(os.path.realpath(top)).as_posix()
    prefix = "" if prefix == "." else prefix + "/"
    records = porcelain.split(b"\0")
    paths: set[str] = set()
    i = 0
    while i < len(records):
        record = records[i]
        i += 1
        if len(record) < 4:
            continue
        status, name = record[:2].decode("ascii", "replace"), record[3:].decode("utf-8", "surrogateescape")
        if "R" in status or "C" in status:
            i += 1  # the rename source follows as its own record
        rel = nfc(name)
        if prefix and rel.startswith(prefix):
            rel = rel[len(prefix) :]
        if rel.startswith(SIDECAR_DIR + "/") or rel == SIDECAR_DIR:
            continue
        paths.add(rel)
    return paths


class ScopeReport(BaseModel):
    ok: bool
    expected: list[str]
    changed: list[str]
    unexpected: list[str]
    missing: list[str]
    git_checked: bool
    git_changed: list[str]
    git_unexpected: list[str]
    message: str


def verify_scope(
    vault: Vault,
    before: Snapshot,
    expected: set[str],
    *,
    git_before: set[str] | None = None,
    ignore: tuple[str, ...] = OBSIDIAN_SELF_WRITTEN,
) -> ScopeReport:
    """Compare the vault now with `before`: the changed set must equal `expected` exactly.

    With git, paths that git reports changed now but did not before the run must also be
    within `expected` (files already dirty before the run are the person's own edits).
    Paths matching `ignore` (Obsidian's own layout files) are not counted either way.
    """
    after = snapshot(vault)
    changed = {p for p in changed_between(before, after) if p in expected or not is_ignored(p, ignore)}
    unexpected = sorted(changed - expected)
    missing = sorted(expected - changed)
    git_checked = git_before is not None
    git_now: set[str] = git_changed_paths(vault) if git_checked else set()
    git_new = {p for p in git_now - (git_before or set()) if p in expected or not is_ignored(p, ignore)}
    git_unexpected = sorted(git_new - expected)
    ok = not unexpected and not missing and not git_unexpected
    if ok:
        message = f"Scope verified: exactly the {len(expected)} planned file(s) changed."
    else:
        parts = []
        if unexpected:
            parts.append(f"{len(unexpected)} file(s) changed outside the plan: {', '.join(unexpected[:5])}")
        if missing:
            parts.append(f"{len(missing)} planned file(s) did not change: {', '.join(missing[:5])}")
        if git_unexpected:
            parts.append(f"git reports {len(git_unexpected)} unexpected change(s): {', '.join(git_unexpected[:5])}")
        message = "Scope verification failed: " + "; ".join(parts) + "."
    return ScopeReport(
        ok=ok,
        expected=sorted(expected),
        changed=sorted(changed),
        unexpected=unexpected,
        missing=missing,
        git_checked=git_checked,
        git_changed=sorted(git_now),
        git_unexpected=git_unexpected,
        message=message,
    )
