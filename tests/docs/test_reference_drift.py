"""The reference docs agree with the code: every `kh` command, HTTP route and MCP tool is documented.

A new command, route or tool without a line in README.md / docs/ fails here, not in a user's hands."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import anyio
import typer.main

from knowledge_harness.api.app import create_app
from knowledge_harness.api.mcp import build_mcp
from knowledge_harness.cli import app as cli_app
from knowledge_harness.settings import Settings

REPO = Path(__file__).resolve().parents[2]
DOCS = "\n".join(p.read_text(encoding="utf-8") for p in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))])
HTTP_DOC = (REPO / "docs" / "http-api.md").read_text(encoding="utf-8")


def _commands(group: Any, prefix: str = "kh") -> list[str]:
    if hasattr(group, "list_commands"):  # a group (typer vendors its own click); kh's root loads lazily
        ctx = group.context_class(group)
        found: list[str] = []
        for name in group.list_commands(ctx):
            command = group.get_command(ctx, name)
            if not getattr(command, "hidden", False):
                found += _commands(command, f"{prefix} {name}")
        return found
    return [prefix]


def test_every_kh_command_is_documented() -> None:
    commands = _commands(typer.main.get_command(cli_app))
    assert "kh init" in commands and "kh batch approve" in commands
    missing = [c for c in commands if not re.search(re.escape(c) + r"(?![\w-])", DOCS)]
    assert missing == []


def _shape(path: str) -> str:
    return re.sub(r"\{[^}]*\}", "{}", path.split("?", 1)[0]).rstrip("/")


def test_every_http_route_is_in_the_http_reference(tmp_path: Path) -> None:
    app = create_app(Settings(vault=tmp_path, token="t" * 32, agent_token="a" * 32))
    documented = {_shape(m) for m in re.findall(r"`(?:GET|POST|PUT|DELETE) (/[^` ]+)", HTTP_DOC)}
    documented |= {_shape(m) for m in re.findall(r"`(/v1/[^` ]+)`", HTTP_DOC)}
    routes = {_shape(path) for path in app.openapi()["paths"]}
    missing = sorted(
        r for r in routes if r not in documented and not any(r.startswith(d + "/") or r == d for d in documented)
    )
    assert missing == []


def test_every_mcp_tool_is_in_the_http_reference(tmp_path: Path) -> None:
    from knowledge_harness.api.context import AppContext

    settings = Settings(vault=tmp_path, token="t" * 32, agent_token="a" * 32)
    mcp = build_mcp(AppContext.create(settings))

    async def names() -> list[str]:
        return [tool.name for tool in await mcp.list_tools()]

    missing = [name for name in anyio.run(names) if f"`{name}`" not in HTTP_DOC]
    assert missing == []
