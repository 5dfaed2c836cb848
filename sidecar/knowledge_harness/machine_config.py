"""The machine configuration: what a vault file must never decide.

Vault files are synced, shared and written by agents, so endpoints, the names of the
environment variables holding keys, and network allowances live here, in the user's config
directory (`platformdirs`), or in the file named by `KH_CONFIG`. The vault's policy keeps vault
semantics and may only *choose* a judge profile defined here. See docs/security.md.

```toml
[evidence]
allow_private_hosts = ["127.0.0.1:8731"]   # host:port pairs the fetcher may reach on private addresses

[judges.local]                  # a judge profile; a vault chooses it with [judge] profile = "local"
backend = "openai_compat"
base_url = "http://127.0.0.1:11434/v1"
model = "qwen2.5:7b-instruct"
api_key_env = "OPENAI_API_KEY"  # the NAME of the variable holding the key
timeout_seconds = 60

[agents.openai_compat]          # the pipeline's openai_compat agent backend
base_url = "http://127.0.0.1:8000/v1"
model = "some-model"

[search]
searxng_url = "http://127.0.0.1:8888"

[blogs.main]                    # a blog repository the pipeline may write to; a vault names it
repo = "/home/me/blog"          # with [blog] name = "main" (absolute path, ~ allowed)
remote = "origin"               # fetched before merge checks; unset: local merges only
pull_request = "none"           # none | gh
```
"""

from __future__ import annotations

import functools
import hashlib
import ipaddress
import os
import secrets
import stat
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

import platformdirs
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from .core.tomlfile import read_toml
from .errors import InputError

CONFIG_ENV = "KH_CONFIG"
APP_NAME = "knowledge-harness"
CONFIG_FILE = "config.toml"
# The sidecar's own credentials: never sent anywhere, so no endpoint may be given them as its key.
RESERVED_KEY_VARIABLES = frozenset({"KH_TOKEN", "KH_AGENT_TOKEN"})
MIN_TOKEN_CHARS = 16


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _check_endpoint(url: str) -> str:
    """An endpoint is https, or plain http on a loopback address (a local model server)."""
    url = url.strip()
    parts = urlsplit(url)
    if parts.scheme == "https" and parts.hostname:
        return url
    if parts.scheme == "http" and parts.hostname:
        host = parts.hostname
        if host == "localhost":
            return url
        try:
            if ipaddress.ip_address(host).is_loopback:
                return url
        except ValueError:
            pass
        raise ValueError(f"{url!r} is plain http on a non-loopback host; use https")
    raise ValueError(f"{url!r} is not an http(s) URL")


def _check_key_env(name: str | None) -> str | None:
    if name is None:
        return None
    name = name.strip()
    if name in RESERVED_KEY_VARIABLES:
        raise ValueError(f"{name} holds the sidecar's own credential and can never be sent as an API key")
    if not name.replace("_", "").isalnum():
        raise ValueError(f"{name!r} is not an environment variable name")
    return name


class Endpoint(_Strict):
    """An OpenAI-compatible chat-completions endpoint."""

    base_url: str | None = None
    model: str | None = None
    api_key_env: str | None = None
    timeout_seconds: float | None = Field(default=None, gt=0, le=3600)

    @field_validator("base_url")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        return None if value is None else _check_endpoint(value)

    @field_validator("api_key_env")
    @classmethod
    def _key(cls, value: str | None) -> str | None:
        return _check_key_env(value)


class JudgeProfile(Endpoint):
    backend: str = Field(default="openai_compat", min_length=1)


# The fetch caps a vault policy may set are clamped to these (docs/security.md): a synced file
# must not turn one cited page into minutes of download and gigabytes of memory.
DEFAULT_MAX_FETCH_BYTES = 5 * 1024 * 1024
DEFAULT_MAX_FETCH_TIMEOUT = 30.0


class MachineEvidence(_Strict):
    allow_private_hosts: list[str] = Field(default_factory=list)
    max_bytes: int = Field(default=DEFAULT_MAX_FETCH_BYTES, ge=1024, le=100 * 1024 * 1024)
    max_timeout_seconds: float = Field(default=DEFAULT_MAX_FETCH_TIMEOUT, gt=0, le=300)
    max_redirects: int = Field(default=5, ge=0, le=20)
    max_concurrency: int = Field(default=8, ge=1, le=64)

    @field_validator("allow_private_hosts")
    @classmethod
    def _clean_hosts(cls, value: list[str]) -> list[str]:
        cleaned = [h.strip().lower() for h in value]
        if any(not h or "/" in h or " " in h for h in cleaned):
            raise ValueError('entries must be "host" or "host:port"')
        return cleaned


class MachineAgents(_Strict):
    openai_compat: Endpoint = Field(default_factory=Endpoint)
    # calls a day to a paid (model) judge that plans made with the agent token may spend; 0: none
    judge_calls_per_day: int = Field(default=0, ge=0, le=1_000_000)


class MachineSearch(_Strict):
    searxng_url: str | None = None

    @field_validator("searxng_url")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        return None if value is None else _check_endpoint(value)


class MachineBlog(_Strict):
    """A blog repository the person registered: the pipeline's git runs only in one of these."""

    repo: str = Field(min_length=1, max_length=4096)
    remote: str | None = Field(default=None, min_length=1, max_length=100, pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
    pull_request: Literal["none", "gh"] = "none"

    @field_validator("repo")
    @classmethod
    def _absolute(cls, value: str) -> str:
        path = Path(value).expanduser()
        if not path.is_absolute():
            raise ValueError(f"{value!r} is not an absolute path")
        return str(path)

    def repo_path(self) -> Path:
        return Path(self.repo).resolve()


class MachineConfig(_Strict):
    evidence: MachineEvidence = Field(default_factory=MachineEvidence)
    judge: Endpoint = Field(default_factory=Endpoint)  # the endpoint of `[judge] backend = "openai_compat"`
    judges: dict[str, JudgeProfile] = Field(default_factory=dict)
    agents: MachineAgents = Field(default_factory=MachineAgents)
    search: MachineSearch = Field(default_factory=MachineSearch)
    blogs: dict[str, MachineBlog] = Field(default_factory=dict)


@functools.lru_cache(maxsize=8)
def _config_dir_for(xdg_config_home: str | None) -> Path:
    # XDG_CONFIG_HOME wins on every platform: older platformdirs ignore it on macOS, and every
    # version on Windows, so a test's (or a person's) throwaway config home would not hold.
    if xdg_config_home and Path(xdg_config_home).is_absolute():
        return Path(xdg_config_home) / APP_NAME
    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))


def config_dir() -> Path:
    # platformdirs works it out anew on every call (~60 µs): the badge route asks per request.
    return _config_dir_for(os.environ.get("XDG_CONFIG_HOME"))


def config_path() -> Path:
    return _config_path_for(os.environ.get(CONFIG_ENV, "").strip(), os.environ.get("XDG_CONFIG_HOME"))


@functools.lru_cache(maxsize=8)
def _config_path_for(override: str, xdg_config_home: str | None) -> Path:
    # Worked out once per environment: the badge route asks on every request.
    return Path(override).expanduser() if override else _config_dir_for(xdg_config_home) / CONFIG_FILE


_EMPTY = MachineConfig()
MAX_CACHED_CONFIGS = 8


@dataclass(eq=False)
class MachineConfigMemory:
    """The parsed machine configuration, per file path (KH_CONFIG or the user's config directory).

    Key: the path. An entry is valid while the file's (mtime_ns, size) is unchanged (one stat per
    call), so an edit is seen on the next request. Bound: 8 paths, cleared whole when full (a
    process normally reads one). `load_machine_config` hands out the same object while the entry
    is valid: callers (trust/audit/audit.py's policy cache) rely on that identity.
    """

    configs: dict[Path, tuple[tuple[int, int], MachineConfig]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def get(self, path: Path, key: tuple[int, int]) -> MachineConfig | None:
        with self.lock:
            cached = self.configs.get(path)
        return cached[1] if cached is not None and cached[0] == key else None

    def put(self, path: Path, key: tuple[int, int], config: MachineConfig) -> None:
        with self.lock:
            if len(self.configs) >= MAX_CACHED_CONFIGS:
                self.configs.clear()
            self.configs[path] = (key, config)

    def sizes(self) -> dict[str, int]:
        return {"machine_configs": len(self.configs)}

    def clear(self) -> None:
        with self.lock:
            self.configs.clear()


def load_machine_config(memory: MachineConfigMemory | None = None) -> MachineConfig:
    """The machine configuration; a missing file is the empty configuration (nothing allowed).

    `memory` (the sidecar's Auditor holds one) keeps the parsed file while it is unchanged; without
    it the file is parsed on every call."""
    path = config_path()
    try:
        st = path.stat()
    except FileNotFoundError:
        return _EMPTY  # one object, so callers may cache what they derive from it by identity
    except OSError as exc:
        raise InputError(f"Cannot read the machine configuration {path}: {exc.strerror}.") from exc
    key = (st.st_mtime_ns, st.st_size)
    cached = memory.get(path, key) if memory is not None else None
    if cached is not None:
        return cached
    data = read_toml(path, what=f"the machine configuration {path}")
    if data is None:  # removed since the stat above
        return _EMPTY
    try:
        config = MachineConfig.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise InputError(f"Invalid key {where!r} in the machine configuration {path}: {first['msg']}.") from exc
    if memory is not None:
        memory.put(path, key, config)
    return config


# -- the agent credential ------------------------------------------------------------------------
def agent_token_path(vault_root: Path) -> Path:
    """One agent token per vault, kept in the user's config directory (never in the vault)."""
    real = os.path.realpath(vault_root)
    digest = hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return config_dir() / "agent-tokens" / f"{digest}.token"


def read_token_file(path: Path) -> str:
    """A token from a file that only its owner can read."""
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        raise InputError(f"The token file {path} is readable by others (mode {mode:o}); chmod 600 it.")
    token = path.read_text(encoding="utf-8").strip()
    if len(token) < MIN_TOKEN_CHARS:
        raise InputError(f"The token in {path} is shorter than {MIN_TOKEN_CHARS} characters.")
    return token


def ensure_token_file(path: Path) -> str:
    """Read the token file, or create it (mode 0600, a new random token) when it is missing."""
    if path.exists():
        return read_token_file(path)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    token = secrets.token_hex(32)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process created it first
        return read_token_file(path)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(token + "\n")
    return token


class AgentConnection(BaseModel):
    """How an AI agent connects to this vault's sidecar over MCP, ready to paste."""

    token: str
    mcp_url: str
    claude_command: str
    codex_command: str
    codex_config: str
    token_file: str | None = None


def agent_connection(token: str, mcp_url: str, token_file: Path | None = None) -> AgentConnection:
    return AgentConnection(
        token=token,
        mcp_url=mcp_url,
        claude_command=(
            f'claude mcp add --transport http knowledge-harness {mcp_url} --header "Authorization: Bearer {token}"'
        ),
        codex_command=(
            f"export KH_AGENT_TOKEN={token}\n"
            f"codex mcp add knowledge-harness --url {mcp_url} --bearer-token-env-var KH_AGENT_TOKEN"
        ),
        codex_config=(f'[mcp_servers.knowledge-harness]\nurl = "{mcp_url}"\nbearer_token_env_var = "KH_AGENT_TOKEN"\n'),
        token_file=str(token_file) if token_file else None,
    )
