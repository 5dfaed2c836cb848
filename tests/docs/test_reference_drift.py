"""The reference docs agree with the code: every `kh` command, HTTP route, MCP tool and plugin setting
is documented.

A new command, route, tool or setting without a line in README.md / docs/ fails here, not in a user's hands."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import anyio
import typer.main

from knowledge_harness.api.app import create_app
from knowledge_harness.api.mcp import build_mcp
from knowledge_harness.cli.root import app as cli_app
from knowledge_harness.settings import Settings

REPO = Path(__file__).resolve().parents[2]
DOCS = "\n".join(p.read_text(encoding="utf-8") for p in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))])
HTTP_DOC = (REPO / "docs" / "http-api.md").read_text(encoding="utf-8")
PLUGIN_SRC = REPO / "obsidian-plugin" / "src"


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


def _ts_block(source: str, opening: str) -> str:
    """The text between `opening` and the brace that closes the one it opens."""
    start = source.index(opening) + len(opening)
    depth = 1
    for index in range(start, len(source)):
        depth += {"{": 1, "}": -1}.get(source[index], 0)
        if depth == 0:
            return source[start:index]
    raise AssertionError(f"unclosed block after {opening!r}")


def _without_comments(code: str) -> str:
    return re.sub(r"/\*.*?\*/|//[^\n]*", "", code, flags=re.DOTALL)


def plugin_settings() -> dict[str, str]:
    """Every setting of the plugin (the fields of its two settings interfaces) with the English name
    the settings tab shows (settings.ts SETTING_NAMES → the en.ts catalogue)."""
    settings_ts = (PLUGIN_SRC / "settings.ts").read_text(encoding="utf-8")
    fields: list[str] = []
    for interface in ("SyncedSettings", "DeviceSettings"):
        body = _without_comments(_ts_block(settings_ts, f"export interface {interface} {{"))
        fields += re.findall(r"^\s*(?:readonly\s+)?(\w+)\??\s*:", body, flags=re.MULTILINE)
    names_ts = settings_ts[settings_ts.index("export const SETTING_NAMES") :]
    table = _without_comments(_ts_block(names_ts, "Object.freeze({"))
    message_keys = dict(re.findall(r'(\w+)\s*:\s*"([^"]+)"', table))
    assert sorted(message_keys) == sorted(fields), "SETTING_NAMES must name every field of the settings interfaces"
    en_ts = (PLUGIN_SRC / "i18n" / "en.ts").read_text(encoding="utf-8")
    catalogue = {
        key: json.loads(f'"{text}"') for key, text in re.findall(r'"([\w.]+)"\s*:\s*"((?:[^"\\]|\\.)*)"', en_ts)
    }
    return {field: catalogue[message_keys[field]] for field in fields}


def test_the_settings_are_read_from_the_plugin_source() -> None:
    settings = plugin_settings()
    assert settings["sidecarCommand"] == "Sidecar command" and settings["badgeScope"] == "Show trust badges on"
    assert len(settings) >= 8


def test_every_plugin_setting_is_in_the_install_guide_and_the_user_guide() -> None:
    install = (REPO / "docs" / "install.md").read_text(encoding="utf-8")
    guide = (REPO / "docs" / "user-guide.md").read_text(encoding="utf-8")
    names = plugin_settings().values()
    assert [name for name in names if f"| {name} |" not in install] == []  # a row of the settings table
    assert [name for name in names if f"**{name}**" not in guide] == []


def test_every_picture_in_docs_img_is_shown_and_every_shown_picture_exists() -> None:
    """docs/img holds the pictures `npm run screenshots` writes: none left unreferenced, none missing."""
    shown = set(re.findall(r"\]\((img/[^)\s]+)\)", DOCS))
    present = {f"img/{p.name}" for p in (REPO / "docs" / "img").glob("*.png")}
    assert sorted(shown - present) == []
    assert sorted(present - shown) == []
