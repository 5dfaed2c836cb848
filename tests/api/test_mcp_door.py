"""The MCP door through the official Python client: streamable HTTP on a real `kh serve` with the
agent token, and stdio on a real `kh mcp VAULT` with no sidecar running."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from mcp.client.session import ClientSession
from mcp_types import CallToolResult

from ..conftest import KH, Sidecar
from ..support.mcp_clients import error_of, over_http, over_stdio


def test_refusals_carry_the_error_code_message_and_detail(sidecar: Sidecar) -> None:
    async def work(session: ClientSession) -> list[CallToolResult]:
        return [
            await session.call_tool("harness_submit_result", {"task_id": "T-nope", "output": {}}),
            await session.call_tool("trust_badge", {"path": "../../etc/passwd.md"}),
            await session.call_tool("harness_review_packet", {"run_id": "R-nope"}),
            await session.call_tool("harness_submit_result", {"task_id": "T-nope", "output": "{not json"}),
            await session.call_tool("trust_badge", {"path": "Keywords/鮮度管理.md"}),
            await session.call_tool("index_search", {"query": "x", "limit": "many"}),
        ]

    submit, badge, review, not_json, fine, off_schema = over_http(sidecar, work)
    assert error_of(submit)["code"] == "not_found" and "T-nope" in error_of(submit)["message"]
    rejected = error_of(badge)
    assert rejected["code"] == "path_rejected" and "'..'" in rejected["message"]
    assert error_of(review)["code"] == "not_found" and "R-nope" in error_of(review)["message"]
    assert error_of(not_json)["code"] == "invalid_input" and "not JSON" in error_of(not_json)["message"]
    assert not fine.is_error and fine.structured_content is not None
    assert fine.structured_content["path"] == "Keywords/鮮度管理.md"
    schema = error_of(off_schema)
    assert schema["code"] == "invalid_request" and schema["detail"][0]["loc"] == ["limit"]
    assert "many" not in json.dumps(schema)  # the rejected value is the caller's, not echoed


def test_a_refusal_with_details_lists_them(sidecar: Sidecar) -> None:
    policy = sidecar.vault / ".harness" / "policy.toml"
    policy.write_text(policy.read_text(encoding="utf-8") + '\n[judge]\nbase_url = "https://evil.example/v1"\n')

    async def work(session: ClientSession) -> CallToolResult:
        return await session.call_tool("trust_audit", {})

    refused = error_of(over_http(sidecar, work))
    assert refused["code"] == "invalid_input" and "judge.base_url" in refused["message"]
    assert refused["detail"] == [
        {"key": "judge.base_url", "message": "belongs in the machine configuration, not the vault"}
    ]


def _vault_state(vault: Path) -> dict[str, tuple[int, bytes]]:
    """Every file of the vault, `.harness/` included: mtime and bytes."""
    return {
        p.relative_to(vault).as_posix(): (p.stat().st_mtime_ns, p.read_bytes()) for p in vault.rglob("*") if p.is_file()
    }


READ_ARGS: dict[str, dict[str, Any]] = {
    "trust_badge": {"path": "Keywords/鮮度管理.md"},
    "index_search": {"query": "GitHub"},
    "index_note_headings": {"path": "MOC/CI.md"},
    "index_read_section": {"path": "MOC/CI.md", "line": 1, "end_line": 3},
    "index_links": {"path": "MOC/CI.md"},
    "harness_run_status": {"run_id": "R-none"},
    "harness_review_packet": {"run_id": "R-none"},
    "validate": {
        "claims": [{"id": "C1", "text": "The sky is blue.", "source_ids": ["S1"]}],
        "evidence": [{"source_id": "S1", "url": "https://example.org/", "text": "The sky is blue."}],
    },
}


def test_every_tool_is_annotated_and_the_read_only_ones_change_nothing(example_vault: Path) -> None:
    subprocess.run([str(KH), "index", "build", str(example_vault)], check=True, capture_output=True)
    before = _vault_state(example_vault)

    async def work(session: ClientSession) -> tuple[list[Any], dict[str, CallToolResult]]:
        tools = (await session.list_tools()).tools
        calls = {}
        for tool in tools:
            if tool.annotations is not None and tool.annotations.read_only_hint:
                calls[tool.name] = await session.call_tool(tool.name, READ_ARGS.get(tool.name, {}))
        return tools, calls

    tools, calls = over_stdio(example_vault, work)
    for tool in tools:
        hints = tool.annotations
        assert hints is not None and hints.title, tool.name
        assert None not in (hints.read_only_hint, hints.destructive_hint, hints.idempotent_hint, hints.open_world_hint)
        assert hints.destructive_hint is False, tool.name  # no MCP tool rewrites or deletes a note
    writers = {t.name for t in tools if not t.annotations.read_only_hint}  # type: ignore[union-attr]
    assert writers == {
        "validate_note_dry_run",
        "harness_submit_result",
        "harness_advance_run",
        "judge_next_task",  # takes a task: writes its record under .harness/judge-tasks/, never a note
        "judge_submit",
        "index_build",  # writes .harness/index/ only
    }
    web = {t.name for t in tools if t.annotations.open_world_hint}  # type: ignore[union-attr]
    assert web == {"validate_note_dry_run", "harness_advance_run"}
    assert len(calls) == len(tools) - len(writers)
    ok = {name for name, result in calls.items() if not result.is_error}
    assert ok >= set(calls) - {"harness_run_status", "harness_review_packet", "judge_evidence"}, calls
    assert _vault_state(example_vault) == before  # not one byte, not one mtime
    by_name = {t.name: t for t in tools}
    assert "person" in (by_name["harness_advance_run"].description or "")
    assert "person" in (by_name["harness_review_packet"].description or "")


TOOLS_LIST_CAP = 14 * 1024  # issue 29: what every agent loads into its context before it starts


def test_tools_list_stays_under_14_kb_on_the_wire(sidecar: Sidecar) -> None:
    headers = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-06-18"}
    init = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
    }
    with sidecar.agent_client() as client:
        # /mcp keeps a session per client (so records can name the client from its handshake)
        opened = client.post("/mcp", json=init, headers=headers)
        assert opened.status_code == 200, opened.text
        headers["Mcp-Session-Id"] = opened.headers["mcp-session-id"]
        client.post("/mcp", json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers)
        response = client.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, headers=headers)
    assert response.status_code == 200, response.text
    tools = response.json()["result"]["tools"]
    assert len(tools) >= 19 and {"index_links", "index_changes"} <= {t["name"] for t in tools}
    assert len(response.content) <= TOOLS_LIST_CAP, len(response.content)
    print(f"tools/list: {len(tools)} tools, {len(response.content)} bytes")


_SERVE_THEN_MCP = """
import json, sys
from pathlib import Path
from fastapi.testclient import TestClient
from knowledge_harness.api.app import create_app
from knowledge_harness.settings import Settings

token, agent = "door-token-0123456789abcdef0123", "door-agent-0123456789abcdef0123"
app = create_app(Settings(vault=Path(sys.argv[1]), host="127.0.0.1", port=0, token=token, agent_token=agent))
def sdk_loaded():
    return any(m == "mcp" or m.startswith("mcp.") for m in sys.modules)
with TestClient(app, base_url="http://127.0.0.1", headers={"Authorization": f"Bearer {token}"}) as client:
    health = client.get("/health").status_code
    badge = client.get("/v1/trust/notes/Keywords/鮮度管理.md").status_code
    before = sdk_loaded()
    hello = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "door-test", "version": "1"}}}
    accept = {"Accept": "application/json, text/event-stream", "Authorization": f"Bearer {agent}"}
    first = client.post("/mcp", json=hello, headers=accept)
    second = client.post("/mcp", json={**hello, "id": 2}, headers=accept)
    print(json.dumps({"health": health, "badge": badge, "before": before, "after": sdk_loaded(),
                      "first": [first.status_code, first.json().get("result", {}).get("serverInfo", {}).get("name")],
                      "second": second.status_code}))
"""


def test_the_mcp_sdk_is_loaded_by_the_first_mcp_request_and_rest_never_waits_for_it(example_vault: Path) -> None:
    """`kh serve` answers REST without importing the MCP SDK (a third of its start-up); /mcp builds it once."""
    out = subprocess.run(
        [sys.executable, "-c", _SERVE_THEN_MCP, str(example_vault)], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen["health"] == 200 and seen["badge"] == 200
    assert seen["before"] is False and seen["after"] is True
    assert seen["first"] == [200, "knowledge-harness"] and seen["second"] == 200
