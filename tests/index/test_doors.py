"""The index service behind REST (/v1/index) and the MCP tools (the kh CLI door: tests/cli/test_index.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import httpx2
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from tests.conftest import Sidecar

from knowledge_harness.index.build import build_index
from knowledge_harness.vault.paths import Vault


def test_rest_builds_searches_walks_and_reads_the_original_markdown(sidecar: Sidecar) -> None:
    with sidecar.client() as client:
        plain = client.get("/v1/index/search", params={"q": "x"})  # no index yet: plain search
        assert plain.status_code == 200 and plain.json()["fallback"] == "plain"
        assert client.get("/v1/index/check").json()["status"] == "missing"
        # the plugin gave up on its request and cancelled its job first: the build stops before it writes
        assert client.post("/v1/jobs/plugin-index-0001/cancel").json()["cancel_requested"] is True
        refused = client.post("/v1/index/build", headers={"X-KH-Job": "plugin-index-0001"})
        assert refused.status_code == 409 and refused.json()["error"]["code"] == "cancelled", refused.text
        assert client.get("/v1/jobs/plugin-index-0001").json()["state"] == "cancelled"
        assert client.get("/v1/index/check").json()["status"] == "missing"
        built = client.post("/v1/index/build", headers={"X-KH-Job": "plugin-index-0002"})
        assert built.status_code == 200 and built.json()["notes"] > 0
        job = client.get("/v1/jobs/plugin-index-0002").json()
        notes = built.json()["notes"]
        assert (job["state"], job["done"], job["total"], job["step"]) == ("finished", notes, notes, "links")
        assert job["action"] == "POST /v1/index/build"
        assert client.get("/v1/index/check").json()["status"] == "fresh"
        tree = client.get("/v1/index/tree", params={"depth": 1}).json()
        assert tree["stale"] is False and tree["tree"]["kind"] == "folder"
        hits = client.get("/v1/index/search", params={"q": "CI", "type": "moc"}).json()
        assert hits["hits"] and hits["hits"][0]["path"] == "MOC/CI.md"
        path = hits["hits"][0]["path"]
        heads = client.get(f"/v1/index/notes/{path}/headings").json()
        first = heads["headings"][0]
        section = client.get(f"/v1/index/notes/{path}/section", params={"heading": first["title"]}).json()
        assert section["line"] == first["line"] and section["text"].startswith("#")
        assert client.get("/v1/index/search", headers={"Authorization": ""}).status_code == 401
        assert client.get("/v1/index/notes/../x.md/headings").status_code in (400, 404)
    (sidecar.vault / "MOC" / "CI.md").write_text("# CI moved\n", encoding="utf-8")
    index = sidecar.vault / ".harness" / "index"
    before = {p: p.read_bytes() for p in index.rglob("*") if p.is_file()}
    with sidecar.client() as client:
        client.post("/v1/jobs/plugin-index-0003/cancel")
        refused = client.post("/v1/index/build", headers={"X-KH-Job": "plugin-index-0003"})
        assert refused.status_code == 409 and refused.json()["error"]["code"] == "cancelled"
        assert {p: p.read_bytes() for p in index.rglob("*") if p.is_file()} == before  # the last index stays
        stale = client.get(f"/v1/index/notes/{path}/headings").json()
        assert stale["stale"] is True and stale["note_changed"] is True and stale["source"] == "live"
        assert stale["headings"][0]["title"] == "CI moved"


async def _mcp_session(sidecar: Sidecar, calls: list[tuple[str, dict[str, Any]]]) -> tuple[list[str], list[Any], str]:
    headers = {"Authorization": f"Bearer {sidecar.agent_token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30) as http,
        streamable_http_client(f"{sidecar.url}/mcp", http_client=http) as streams,
        ClientSession(streams[0], streams[1]) as session,
    ):
        await session.initialize()
        tools = [t.name for t in (await session.list_tools()).tools]
        results = [(await session.call_tool(name, args)).structured_content for name, args in calls]
        prompt = await session.get_prompt("reasoning_index_reading_order")
        text = prompt.messages[0].content.text  # type: ignore[union-attr]
        return tools, results, text


def test_mcp_tools_follow_the_reading_order_and_explain_it(sidecar: Sidecar) -> None:
    build_index(Vault.open(sidecar.vault))  # the index the MCP tools read
    calls = [
        ("index_search", {"query": "GitHub"}),
        ("index_tree", {"depth": 1}),
        ("index_check", {}),
    ]
    tools, results, order = anyio.run(_mcp_session, sidecar, calls)
    assert {"index_search", "index_tree", "index_note_headings", "index_read_section", "index_check"} <= set(tools)
    search, tree, check = results
    assert search["hits"] and search["stale"] is False
    assert tree["tree"]["kind"] == "folder" and check["status"] == "fresh"
    assert "index_note_headings" in order and "original Markdown" in order
    path = search["hits"][0]["path"]
    _, (heads, section), _ = anyio.run(
        _mcp_session,
        sidecar,
        [("index_note_headings", {"path": path}), ("index_read_section", {"path": path, "line": 1, "end_line": 3})],
    )
    assert heads["path"] == path and heads["source"] == "index"
    assert section["line"] == 1 and section["end_line"] <= 3


def test_every_door_asks_search_the_same_bounded_question(sidecar: Sidecar) -> None:
    build_index(Vault.open(sidecar.vault))
    too_long = "x" * 21  # a trust filter is at most 20 characters at every door
    with sidecar.client() as client:
        assert client.get("/v1/index/search", params={"q": "CI", "trust": too_long}).status_code == 422
        rest = client.get("/v1/index/search", params={"q": "CI", "type": "moc", "limit": 1}).json()
    _, (mcp_hits,), _ = anyio.run(_mcp_session, sidecar, [("index_search", {"query": "CI", "type": "moc", "limit": 1})])
    assert [h["path"] for h in mcp_hits["hits"]] == [h["path"] for h in rest["hits"]] == ["MOC/CI.md"]
    assert mcp_hits["hits"][0]["trust"] == rest["hits"][0]["trust"]
    kh = Path(sys.executable).with_name("kh")
    cli = subprocess.run(
        [str(kh), "index", "search", str(sidecar.vault), "CI", "--trust", too_long],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert cli.returncode == 2 and cli.stderr.startswith("kh: Search trust:"), cli.stderr
