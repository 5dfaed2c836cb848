"""Every git command of the sidecar runs through here, with nothing of the repository's own that runs
a command.

A repository's `.git/config` (a vault's synced `.git/` included) can name programs git starts by
itself: `core.fsmonitor` on every command that reads the index (`git status`), hooks, clean/smudge
filters for the paths `.gitattributes` names, `remote.*.uploadpack` on a fetch. So git always runs
with hooks off (`core.hooksPath` to the null device), `core.fsmonitor=false`, a protocol allow-list
(file, https, ssh; never `ext::`), no commit signing, no automatic gc or maintenance, and the
repository's own filter drivers emptied (an empty `filter.<name>.clean` is no filter); `-z` and
`core.quotePath=false` keep Japanese names as bytes. Inherited variables that would point git at
another repository or add settings are dropped.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

GIT_TIMEOUT = 60
# `-c` settings of every git command (and, through GIT_CONFIG_COUNT, of the git that gh starts).
SAFE_GIT_CONFIG: tuple[tuple[str, str], ...] = (
    ("core.quotePath", "false"),
    ("core.hooksPath", os.devnull),
    ("core.fsmonitor", "false"),
    ("protocol.allow", "never"),
    ("protocol.file.allow", "always"),
    ("protocol.https.allow", "always"),
    ("protocol.ssh.allow", "always"),
    ("commit.gpgSign", "false"),
    ("gc.auto", "0"),
    ("maintenance.auto", "false"),
)
# Keys of a repository's own configuration that run a command and that a later `-c` does not
# reliably reset (multi-valued, or an empty value means something else).
COMMAND_KEYS = re.compile(
    r"^(core\.(sshcommand|gitproxy|askpass|alternaterefscommand)"
    r"|credential\..*helper|remote\..*\.vcs|uploadpack\.packobjectshook)$"
)
# A filter driver's commands: emptied on the command line (an empty value runs nothing).
_FILTER_KEY = re.compile(r"^filter\.(.+)\.(clean|smudge|process)$")
_DROPPED_ENV = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_CONFIG_PARAMETERS")


def clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in _DROPPED_ENV and not k.startswith("GIT_CONFIG_")}


def safe_config_env() -> dict[str, str]:
    """SAFE_GIT_CONFIG as environment variables: every git a child process starts reads them as `-c`."""
    env = {**clean_env(), "GIT_TERMINAL_PROMPT": "0", "GIT_CONFIG_COUNT": str(len(SAFE_GIT_CONFIG))}
    for i, (key, value) in enumerate(SAFE_GIT_CONFIG):
        env[f"GIT_CONFIG_KEY_{i}"] = key
        env[f"GIT_CONFIG_VALUE_{i}"] = value
    return env


_SAFE_ARGS = tuple(arg for key, value in SAFE_GIT_CONFIG for arg in ("-c", f"{key}={value}"))


def _bare_run(
    root: Path,
    args: tuple[str, ...],
    timeout: float,
    *,
    overrides: list[str] | None = None,
    data: bytes | None = None,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """`git -c <safe settings> [overrides] -C root args…` with the cleaned environment."""
    return subprocess.run(
        ["git", *_SAFE_ARGS, *(overrides or ()), "-C", str(root), *args],
        input=data,
        capture_output=True,
        timeout=timeout,
        env={**clean_env(), "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", **(env or {})},
        check=False,
    )


def local_config_names(root: Path, *, timeout: float = GIT_TIMEOUT) -> set[str]:
    """The (lower-cased) names the repository's own configuration sets, includes followed: `.git/config`
    and, with `extensions.worktreeConfig`, `.git/config.worktree` (which `--local` does not list)."""
    names = _config_names(root, "--local", timeout)
    if "extensions.worktreeconfig" in names:
        names |= _config_names(root, "--worktree", timeout)
    return names


def _config_names(root: Path, scope: str, timeout: float) -> set[str]:
    proc = _bare_run(root, ("config", scope, "--includes", "--null", "--name-only", "--list"), timeout)
    if proc.returncode != 0:
        return set()
    return {n.decode("utf-8", "replace").lower() for n in proc.stdout.split(b"\x00") if n}


def command_settings(root: Path) -> list[str]:
    """The repository's own settings that run a command and cannot be turned off from the command line."""
    return sorted(n for n in local_config_names(root) if COMMAND_KEYS.match(n))


def _filter_overrides(root: Path, timeout: float) -> list[str]:
    overrides: list[str] = []
    for name in sorted(local_config_names(root, timeout=timeout)):
        match = _FILTER_KEY.match(name)
        if match:
            overrides += ["-c", f"filter.{match.group(1)}.{match.group(2)}="]
    return overrides


def run_git(
    root: Path,
    *args: str,
    data: bytes | None = None,
    env: dict[str, str] | None = None,
    timeout: float = GIT_TIMEOUT,
) -> subprocess.CompletedProcess[bytes]:
    """`git -c <safe settings> -C root args…`; the exit code is the caller's to judge. Raises OSError
    (no git) and subprocess.TimeoutExpired as they come."""
    return _bare_run(root, args, timeout, overrides=_filter_overrides(root, timeout), data=data, env=env)


def find_program(name: str) -> str | None:
    """The program on PATH (git, gh) or None: the pipeline's blog repository asks here, in the file layer,
    because shutil is imported only below pipeline/ (pyproject's import contract)."""
    return shutil.which(name)


@contextlib.contextmanager
def scratch_git_index() -> Iterator[dict[str, str]]:
    """A private, temporary git index for building a tree without a work tree (`read-tree`, `update-index`,
    `write-tree`): the environment that points git at it; the folder is removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="kh-blog-index-") as tmp:
        yield {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
