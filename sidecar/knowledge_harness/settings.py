"""One Settings object for a sidecar process: the vault, the listening address, limits, auth."""

from __future__ import annotations

import ipaddress
import os
import secrets
import stat
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from .errors import InputError

LOOPBACK_HOSTS = ("127.0.0.1", "::1", "localhost")
TOKEN_ENV = "KH_TOKEN"  # noqa: S105 - the name of the variable, not a secret
MIN_TOKEN_CHARS = 16


class Settings(BaseModel):
    model_config = ConfigDict(frozen=True)

    vault: Path
    host: str = "127.0.0.1"
    port: int = Field(default=8765, ge=0, le=65535)
    token: str = Field(min_length=MIN_TOKEN_CHARS, repr=False)
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
    if not address.is_loopback:
        raise InputError(f"Refusing to listen on {host}: only loopback (127.0.0.1 or ::1) is allowed.")
    return str(address)


def load_token(token_file: Path | None) -> str:
    """The bearer token: env KH_TOKEN wins; else the token file, created (mode 0600) when missing."""
    env = os.environ.get(TOKEN_ENV, "").strip()
    if env:
        if len(env) < MIN_TOKEN_CHARS:
            raise InputError(f"{TOKEN_ENV} is shorter than {MIN_TOKEN_CHARS} characters.")
        return env
    if token_file is None:
        raise InputError(f"No token: set {TOKEN_ENV} or pass --token-file.")
    if token_file.exists():
        mode = stat.S_IMODE(token_file.stat().st_mode)
        if mode & 0o077:
            raise InputError(f"The token file {token_file} is readable by others (mode {mode:o}); chmod 600 it.")
        token = token_file.read_text(encoding="utf-8").strip()
        if len(token) < MIN_TOKEN_CHARS:
            raise InputError(f"The token in {token_file} is shorter than {MIN_TOKEN_CHARS} characters.")
        return token
    token_file.parent.mkdir(parents=True, exist_ok=True)
    token = secrets.token_hex(32)
    fd = os.open(token_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(token + "\n")
    return token
