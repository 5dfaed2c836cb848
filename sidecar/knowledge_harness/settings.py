"""One Settings object for a sidecar process: the vault, the listening address, limits, auth."""

from __future__ import annotations

import ipaddress
import os
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from .errors import InputError
from .machine_config import MIN_TOKEN_CHARS, agent_token_path, ensure_token_file

LOOPBACK_HOSTS = ("127.0.0.1", "::1", "localhost")
TOKEN_ENV = "KH_TOKEN"  # noqa: S105 - the name of the variable, not a secret
AGENT_TOKEN_ENV = "KH_AGENT_TOKEN"  # noqa: S105 - the name of the variable, not a secret


class Settings(BaseModel):
    model_config = ConfigDict(frozen=True)

    vault: Path
    host: str = "127.0.0.1"
    port: int = Field(default=8765, ge=0, le=65535)
    token: str = Field(min_length=MIN_TOKEN_CHARS, repr=False)  # the person credential
    agent_token: str | None = Field(default=None, min_length=MIN_TOKEN_CHARS, repr=False)
    # where this sidecar's agent token comes from, told to a client that brings the wrong token
    agent_token_source: str = "`kh agent-token VAULT`"  # noqa: S105 - where the token is, not a token
    max_body_bytes: int = Field(default=2 * 1024 * 1024, gt=0)
    allowed_origins: tuple[str, ...] = ("app://obsidian.md",)
    page_limit: int = Field(default=500, gt=0)


def require_loopback(host: str) -> str:
    """Refuse any bind address that is not loopback: the sidecar is never on the network."""
    if host == "localhost":
        return "127.0.0.1"
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError as exc:
        raise InputError(f"Refusing to listen on {host!r}: only 127.0.0.1 or ::1 are allowed.") from exc
    if str(address) not in ("127.0.0.1", "::1"):
        # 127.0.0.2 is loopback too, but the Host check, the plugin and the docs know only these two
        raise InputError(f"Refusing to listen on {host}: only 127.0.0.1 or ::1 (loopback) are allowed.")
    return str(address)


def token_from_env(name: str) -> str | None:
    env = os.environ.get(name, "").strip()
    if env and len(env) < MIN_TOKEN_CHARS:
        raise InputError(f"{name} is shorter than {MIN_TOKEN_CHARS} characters.")
    return env or None


def load_token(token_file: Path | None) -> str:
    """The person token: env KH_TOKEN wins; else the token file, created (mode 0600) when missing."""
    env = token_from_env(TOKEN_ENV)
    if env:
        return env
    if token_file is None:
        raise InputError(f"No token: set {TOKEN_ENV} or pass --token-file.")
    return ensure_token_file(token_file)


def agent_token_source(agent_token_file: Path | None, vault: Path) -> str:
    """Where the agent token `load_agent_token` returns comes from, in words an agent can act on."""
    if token_from_env(AGENT_TOKEN_ENV):
        return f"{AGENT_TOKEN_ENV} in the sidecar's environment"
    if agent_token_file is not None:
        return f"the file {agent_token_file.resolve()} (the sidecar's --agent-token-file)"
    return f"`kh agent-token {vault.resolve()}` (the file {agent_token_path(vault)})"


def load_agent_token(agent_token_file: Path | None, vault: Path, person_token: str) -> str:
    """The agent token: env KH_AGENT_TOKEN wins; else --agent-token-file; else the vault's agent
    token in the user's config directory (`kh agent-token`), created when missing."""
    token = token_from_env(AGENT_TOKEN_ENV) or ensure_token_file(agent_token_file or agent_token_path(vault))
    if token == person_token:
        raise InputError("The agent token must differ from the person token.")
    return token
