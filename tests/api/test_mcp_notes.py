"""Links, backlinks, recent changes and notes as resources over MCP, and index tools on a vault
without an index: real `kh mcp` (stdio) and `kh serve` (HTTP) processes, the official client."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
from pathlib import Path
from typing import Any

from mcp.client.session import ClientSession
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, TextResourceContents

from ..conftest import KH, Sidecar
from ..support.mcp_clients import error_of, over_http, over_stdio


def _build(vault: Path) -> None:
    subprocess.run([str(KH), "index", "build", str(vault)], check=True, capture_output=True)


def _data(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


def test_index_links_names_backlinks_with_line_section_and_text(example_vault: Path) -> None:
    _build(example_vault)

    async def work(session: ClientSession) -> dict[str, Any]:
        return _data(await session.call_tool("index_links", {"path": "MOC/CI.md"}))

    links = over_stdio(example_vault, work)
    assert links["stale"] is False and links["source"] == "index"
    out = {(e["note"], e["line"]) for e in links["outgoing"]}
    assert ("Keywords/GitHub Actions.md", 13) in out
    actions = next(e for e in links["outgoing"] if e["note"] == "Keywords/GitHub Actions.md")
    assert actions["section"] == "パイプライン" and "GitHub Actions" in actions["text"]
    incoming = links["incoming"]
    assert [e["note"] for e in incoming] == ["MOC/技術.md"] and links["incoming_total"] == 1
    lines = (example_vault / "MOC" / "技術.md").read_text(encoding="utf-8").splitlines()
    assert "[[CI" in lines[incoming[0]["line"] - 1] and incoming[0]["text"] in lines[incoming[0]["line"] - 1]

    # A backlink written a second ago (no rebuild) is listed, from the file as it is now.
    edited = example_vault / "Keywords" / "冪等性.md"
    edited.write_text(edited.read_text(encoding="utf-8") + "\n## 関連\n\n[[CI|CI の MOC]] を見る。\n", encoding="utf-8")
    now = over_stdio(example_vault, work)
    assert now["stale"] is True
    fresh = [e for e in now["incoming"] if e["note"] == "Keywords/冪等性.md"]
    assert len(fresh) == 1 and fresh[0]["section"] == "関連" and "CI の MOC" in fresh[0]["text"]
    assert fresh[0]["line"] == len(edited.read_text(encoding="utf-8").splitlines())


def test_index_changes_lists_a_note_edited_a_second_ago_newest_first(example_vault: Path) -> None:
    _build(example_vault)
    edited = example_vault / "Keywords" / "RAG.md"
    edited.write_text(edited.read_text(encoding="utf-8") + "\nもう一行。\n", encoding="utf-8")
    added = example_vault / "Notes" / "新しいメモ.md"
    added.write_text("# 新しいメモ\n", encoding="utf-8")
    os.utime(edited, ns=(edited.stat().st_atime_ns, added.stat().st_mtime_ns - 1_000_000))  # RAG.md first
    (example_vault / "Keywords" / "Embedding.md").unlink()
    since = (dt.datetime.now(dt.UTC) - dt.timedelta(seconds=5)).isoformat()

    async def work(session: ClientSession) -> list[dict[str, Any]]:
        return [
            _data(await session.call_tool("index_changes", {"since": since})),
            _data(await session.call_tool("index_changes", {})),
            _data(await session.call_tool("index_changes", {"limit": 1})),
            error_of(await session.call_tool("index_changes", {"since": "yesterday"})),
        ]

    timed, built, paged, bad = over_stdio(example_vault, work)
    changes = [(c["path"], c["change"]) for c in timed["changes"]]
    assert changes == [
        ("Notes/新しいメモ.md", "added"),
        ("Keywords/RAG.md", "changed"),
        ("Keywords/Embedding.md", "removed"),
    ]
    assert timed["index"] == "stale" and timed["changes"][0]["mtime"] and timed["changes"][2]["mtime"] is None
    assert [(c["path"], c["change"]) for c in built["changes"]] == changes
    assert paged["total"] == 3 and len(paged["changes"]) == 1 and paged["next_cursor"] == "1"
    assert bad["code"] == "invalid_input"


def test_a_note_reads_back_as_a_resource_and_hostile_paths_are_refused_with_a_code(example_vault: Path) -> None:
    outside = example_vault.parent / "secret.md"
    outside.write_text("# secret\n", encoding="utf-8")
    (example_vault / "Notes" / "leak.md").symlink_to(outside)

    async def work(session: ClientSession) -> tuple[list[str], Any, dict[str, Any]]:
        templates = [t.uri_template for t in (await session.list_resource_templates()).resource_templates]
        read = await session.read_resource("harness://note/Keywords/鮮度管理.md")
        refusals: dict[str, Any] = {}
        for uri in (
            "harness://note/../secret.md",
            "harness://note/%2E%2E/secret.md",
            "harness://note/Notes/leak.md",
            "harness://note/.obsidian/app.md",
            "harness://note//etc/passwd.md",
            "harness://note/Keywords/none.md",
        ):
            try:
                await session.read_resource(uri)
                refusals[uri] = None
            except MCPError as exc:
                refusals[uri] = exc.data
        return templates, read, refusals

    templates, read, refusals = over_stdio(example_vault, work)
    assert "harness://note/{+path}" in templates
    content = read.contents[0]
    assert isinstance(content, TextResourceContents) and content.mime_type == "text/markdown"
    assert content.text == (example_vault / "Keywords" / "鮮度管理.md").read_text(encoding="utf-8")
    codes = {uri: (data or {}).get("code") for uri, data in refusals.items()}
    assert codes == {
        "harness://note/../secret.md": "path_rejected",
        "harness://note/%2E%2E/secret.md": "path_rejected",
        "harness://note/Notes/leak.md": "path_rejected",
        "harness://note/.obsidian/app.md": "path_rejected",
        "harness://note//etc/passwd.md": "path_rejected",
        "harness://note/Keywords/none.md": "not_found",
    }
    assert "# secret" not in str(refusals)  # a refusal never carries the file's content


def test_index_tools_without_an_index_say_how_to_build_it(sidecar: Sidecar) -> None:
    """Reading a note by path works without an index (parsed live), search falls back to plain
    search; the rest say how to build one, including the agent's own index_build tool."""
    calls = [
        ("index_tree", {}),
        ("index_links", {"path": "MOC/CI.md"}),
        ("index_changes", {}),
    ]
    live = [
        ("index_note_headings", {"path": "MOC/CI.md"}),
        ("index_read_section", {"path": "MOC/CI.md", "line": 1}),
        ("index_search", {"query": "CI"}),
    ]

    async def work(session: ClientSession) -> list[CallToolResult]:
        return [await session.call_tool(name, args) for name, args in calls + live]

    results = over_http(sidecar, work)
    for (name, _), result in zip(calls, results[: len(calls)], strict=True):
        error = error_of(result)
        assert error["code"] == "index_missing", name
        assert f"kh index build {sidecar.vault.resolve()}" in error["message"], name
        assert "index_build" in error["message"], name
    for (name, _), result in zip(live, results[len(calls) :], strict=True):
        assert not result.is_error, name
        assert result.structured_content and "CI" in str(result.structured_content), name
    with sidecar.agent_client() as client:
        rest = client.get("/v1/index/search", params={"q": "GitHub", "type": "moc"})  # a filter needs the index
        assert rest.status_code == 404 and rest.json()["error"]["code"] == "index_missing"
        assert "kh index build" in rest.json()["error"]["message"]
        plain = client.get("/v1/index/search", params={"q": "GitHub"}).json()
        assert plain["fallback"] == "plain" and "kh index build" in plain["reason"]
