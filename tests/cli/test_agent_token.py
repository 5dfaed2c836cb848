"""`kh agent-token`: the lines that connect Claude Code, Codex and Claude Desktop to `kh mcp`, and the
Desktop entry really starts it."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from ..conftest import KH, copy_example_vault


def test_agent_token_prints_the_stdio_lines_and_the_desktop_entry_starts_kh_mcp(tmp_path: Path) -> None:
    vault = tmp_path / "my vault"
    copy_example_vault(vault)
    shown = subprocess.run([str(KH), "agent-token", str(vault), "--json"], capture_output=True, text=True, check=True)
    stdio = json.loads(shown.stdout)["stdio"]
    assert stdio["claude_command"] == f"claude mcp add kh -- kh mcp '{vault.resolve()}'"
    assert stdio["codex_command"] == f"codex mcp add kh -- kh mcp '{vault.resolve()}'"
    entry = json.loads(stdio["claude_desktop_config"])["mcpServers"]["kh"]
    assert entry["args"] == ["mcp", str(vault.resolve())] and Path(entry["command"]).is_absolute()

    async def launch_as_claude_desktop() -> list[str]:
        params = StdioServerParameters(command=entry["command"], args=entry["args"], env=dict(os.environ))
        async with (
            stdio_client(params) as streams,
            ClientSession(streams[0], streams[1]) as session,
        ):
            await session.initialize()
            notes = await session.call_tool("list_notes", {"limit": 500})
            assert notes.structured_content is not None
            return [n["path"] for n in notes.structured_content["notes"]]

    assert "Keywords/鮮度管理.md" in anyio.run(launch_as_claude_desktop)
