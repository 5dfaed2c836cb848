"""Who acted: the principal behind every approval, authorization, answer, decision and record.

A door (REST route, MCP tool, CLI command) authenticates the caller and builds one `Actor`;
services receive it and write `actor.name` into records, never a name the caller chose. Only a
door that proved the person (the person token, or an interactive terminal) may build a person
actor; everything an agent token or `kh mcp` reaches is agent scope.
"""

from __future__ import annotations

import os
import pwd
from typing import Literal

from pydantic import BaseModel, ConfigDict

Scope = Literal["person", "agent"]
Via = Literal["terminal", "http", "plugin", "mcp-http", "mcp-stdio", "program"]
# which credential proved the caller: the person token, the agent token, or none (a local process:
# `kh mcp` launched by the client over stdio, `kh` at a terminal)
Token = Literal["person", "agent", "none"]


class Actor(BaseModel):
    model_config = ConfigDict(frozen=True)

    scope: Scope
    name: str
    via: Via
    client: str | None = None  # what the client declared (MCP clientInfo name, an HTTP User-Agent)
    client_version: str | None = None
    token: Token = "none"  # noqa: S105 - a credential kind, not a secret

    @property
    def is_person(self) -> bool:
        return self.scope == "person"

    @property
    def producer(self) -> Literal["human", "agent"]:
        return "human" if self.is_person else "agent"


def os_account_name() -> str:
    """The OS account running this process (pwd, not $USER: an environment variable is not proof)."""
    try:
        return pwd.getpwuid(os.getuid()).pw_name
    except KeyError:
        return f"uid-{os.getuid()}"


def person(via: Via) -> Actor:
    """The person at this machine. Call only from a door that verified the person credential or a terminal."""
    name = os_account_name()
    return Actor(scope="person", name=f"{name} via Obsidian" if via == "plugin" else name, via=via)


def agent(
    via: Via, client_name: str | None = None, *, client_version: str | None = None, token: Token | None = None
) -> Actor:
    """An AI agent; `client_name` is what the client declared (MCP clientInfo), never trusted as a person."""
    clean = (client_name or "").strip()[:80] or None
    version = (client_version or "").strip()[:40] or None
    kind: Token = token if token is not None else ("agent" if via in ("http", "mcp-http") else "none")
    return Actor(
        scope="agent",
        name=f"agent:{clean}" if clean else "agent",
        via=via,
        client=clean,
        client_version=version,
        token=kind,
    )
