"""`kh mcp VAULT`: the MCP tools over stdio with no sidecar running, through the official Python client;
stdout carries only the protocol."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from mcp.client.session import ClientSession
from mcp_types import CallToolResult

from ..conftest import KH
from ..support.mcp_clients import error_of, over_stdio


def test_kh_mcp_serves_the_same_tools_over_stdio_without_a_sidecar(example_vault: Path) -> None:
    async def work(session: ClientSession) -> tuple[set[str], CallToolResult, CallToolResult]:
        names = {t.name for t in (await session.list_tools()).tools}
        badge = await session.call_tool("trust_badge", {"path": "Keywords/鮮度管理.md"})
        refused = await session.call_tool("harness_submit_result", {"task_id": "T-nope", "output": {}})
        return names, badge, refused

    names, badge, refused = over_stdio(example_vault, work)
    assert {"list_notes", "trust_badge", "index_search", "harness_next_task"} <= names
    assert not badge.is_error and badge.structured_content is not None
    assert badge.structured_content["path"] == "Keywords/鮮度管理.md"
    assert error_of(refused)["code"] == "not_found"


def test_kh_mcp_keeps_stdout_for_the_protocol_and_exits_when_stdin_closes(example_vault: Path) -> None:
    proc = subprocess.Popen(
        [str(KH), "mcp", str(example_vault), "--log-level", "debug"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
    }
    out, err = proc.communicate((json.dumps(init) + "\n").encode(), timeout=30)
    assert proc.returncode == 0, err.decode()
    lines = out.decode().splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["result"]["serverInfo"]["name"] == "knowledge-harness"
    assert err  # debug logs went to stderr, not into the protocol stream
