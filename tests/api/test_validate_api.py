"""POST /v1/validate, the dry-run route and the MCP `validate` tool against a real `kh serve`,
with a real local evidence site allow-listed in the test vault's policy."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import pytest
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

from tests.conftest import Sidecar, start_sidecar, stop_sidecar
from tests.support.evidence_site import EvidenceSite

EV = "Mount Fuji is 3,776 metres high. It is the highest mountain in Japan."


@pytest.fixture(scope="module")
def site() -> Iterator[EvidenceSite]:
    running = EvidenceSite(slow_seconds=3).start()
    try:
        yield running
    finally:
        running.stop()


def _vault(root: Path, site: EvidenceSite) -> Path:
    (root / ".harness").mkdir(parents=True)
    # 5 s: a loaded CI machine may take more than a second to fetch and extract even a small page.
    (root / ".harness/policy.toml").write_text("[evidence]\ntimeout_seconds = 5\n", encoding="utf-8")
    (root.parent / "machine-config.toml").write_text(
        f'[evidence]\nallow_private_hosts = ["{site.allow_entry}"]\n', encoding="utf-8"
    )
    (root / "Keywords").mkdir()
    (root / "Keywords/富士山.md").write_text(
        "---\nprovenance: {origin: ai_generated, generator: claude}\nverification: {status: reviewed, level: 1}\n"
        f"references:\n  - {site.url}/ja/fuji\n---\n# 富士山\n\n"
        "富士山の標高は3776メートルである。\n最後の噴火は1708年の宝永噴火である。\n",
        encoding="utf-8",
    )
    (root / "Keywords/Missing.md").write_text(
        "---\nverification: {status: reviewed, level: 1}\n---\n# Missing\n\n"
        "Mount Fuji is the highest mountain in Japan.\n\n## References\n\n"
        f"- {site.url}/404\n- {site.url}/to-metadata\n",
        encoding="utf-8",
    )
    return root


@pytest.fixture(scope="module")
def served(site: EvidenceSite, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sidecar]:
    vault = _vault(tmp_path_factory.mktemp("validate") / "vault", site)
    running = start_sidecar(vault, env={"KH_CONFIG": str(vault.parent / "machine-config.toml")})
    try:
        yield running
    finally:
        stop_sidecar(running)


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_validate_answers_the_contract_schema(served: Sidecar) -> None:
    body = {
        "claims": [
            {"id": "a", "text": "Mount Fuji is 3,776 metres high."},
            {"id": "b", "text": "Mount Fuji is 3,876 metres high.", "source_ids": ["s1"]},
        ],
        "evidence": [{"source_id": "s1", "url": "https://example.org/fuji", "text": EV}],
    }
    with served.client() as client:
        r = client.post("/v1/validate", json=body)
    assert r.status_code == 200, r.text
    data = r.json()
    assert set(data) == {"verdict", "score", "confidence", "findings", "validator"}
    assert data["verdict"] == "fail"
    assert [f["verdict"] for f in data["findings"]] == ["supported", "contradicted"]
    # the contract's fields, plus the quote gate's (quotes with offsets, reason_code, judged, self_judged)
    assert {"claim_id", "verdict", "source_id", "quote", "reason"} <= set(data["findings"][0])
    assert data["findings"][0]["quotes"][0]["text"] in EV
    assert data["validator"]["name"] == "lexical"


def test_validate_without_evidence_text_is_unverifiable(served: Sidecar) -> None:
    body = {
        "claims": [{"id": "a", "text": "x is y"}],
        "evidence": [{"source_id": "s", "url": "u", "text": None, "fetch_error": "timeout"}],
    }
    with served.client() as client:
        assert client.post("/v1/validate", json=body).json()["verdict"] == "unverifiable"


def _error(r: httpx.Response) -> dict[str, Any]:
    err = r.json()["error"]
    assert err["code"] and err["message"]
    return dict(err)


def test_hostile_bodies(served: Sidecar) -> None:
    with served.client() as client:
        many = {"claims": [{"id": str(i), "text": "c"} for i in range(10_000)], "evidence": []}
        r = client.post("/v1/validate", json=many)
        assert r.status_code == 422 and _error(r)["code"] == "invalid_request"
        huge = (
            b'{"claims": [{"id": "a", "text": "b"}], "evidence": [{"source_id": "s", "text": "'
            + b"x" * (50 * 1024 * 1024)
            + b'"}]}'
        )
        r = client.post("/v1/validate", content=huge, headers={"Content-Type": "application/json"})
        assert r.status_code == 413 and _error(r)["code"] == "payload_too_large"
        deep = b'{"claims": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
        r = client.post("/v1/validate", content=deep, headers={"Content-Type": "application/json"})
        assert r.status_code == 422 and "nested" in json.dumps(_error(r))
        r = client.post("/v1/validate", content=b"{not json", headers={"Content-Type": "application/json"})
        assert r.status_code == 422
        r = client.post("/v1/validate", json={"claims": [{"id": "a", "text": "b"}], "options": {"judge": "nope"}})
        assert r.status_code == 400 and "nope" in _error(r)["message"]
    with served.client(token=False) as client:
        assert client.post("/v1/validate", json={"claims": []}).status_code == 401


def test_note_dry_run_writes_only_snapshots(served: Sidecar) -> None:
    before = _files(served.vault)
    with served.client() as client:
        r = client.post("/v1/trust/notes/Keywords/富士山.md/validate", params={"dry_run": "true"})
    assert r.status_code == 200, r.text
    report = r.json()
    assert report["result"]["verdict"] == "fail"
    assert [f["verdict"] for f in report["findings"]] == ["supported", "contradicted"]
    assert "1707" in report["findings"][1]["quote"]
    assert report["proposed"]["verification"]["status"] == "disputed"
    assert report["proposed"]["verification"]["level"] == 1
    assert report["proposed"]["evidence"]["status"] == "grounded"
    after = _files(served.vault)
    changed = {k for k in after if before.get(k) != after[k]}
    assert changed and all(k.startswith(".harness/evidence/") for k in changed)
    assert set(report["snapshots_written"]) <= changed


def test_note_with_missing_pages_stays_l1(served: Sidecar) -> None:
    with served.client() as client:
        r = client.post("/v1/trust/notes/Keywords/Missing.md/validate?dry_run=true")
    report = r.json()
    assert report["result"]["verdict"] == "unverifiable"
    assert [s["error"] for s in report["sources"]] == ["http_404", "blocked_address"]
    assert report["proposed"]["verification"]["level"] == 1
    assert report["proposed"]["verification"]["status"] == "unverified"
    assert report["proposed"]["evidence"]["status"] == "unreachable"


def test_note_route_refuses_without_dry_run_and_bad_paths(served: Sidecar) -> None:
    with served.client() as client:
        assert client.post("/v1/trust/notes/Keywords/富士山.md/validate").status_code == 400
        assert client.post("/v1/trust/notes/Keywords/none.md/validate?dry_run=true").status_code == 404


async def _mcp(served: Sidecar, token: bool, call: dict[str, Any] | None) -> tuple[list[str], Any]:
    headers = {"Authorization": f"Bearer {served.agent_token}"} if token else {}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30) as http,
        streamable_http_client(f"{served.url}/mcp", http_client=http) as streams,
        ClientSession(streams[0], streams[1]) as session,
    ):
        await session.initialize()
        tools = [t.name for t in (await session.list_tools()).tools]
        result = await session.call_tool("validate", call) if call else None
        return tools, result


def test_mcp_validate_tool(served: Sidecar) -> None:
    call = {
        "claims": [{"id": "a", "text": "Mount Fuji is the highest mountain in Japan."}],
        "evidence": [{"source_id": "s1", "url": "https://example.org/fuji", "text": EV}],
    }
    tools, result = anyio.run(_mcp, served, True, call)
    assert "validate" in tools and "validate_note_dry_run" in tools
    assert not result.is_error
    data = result.structured_content
    assert data["verdict"] == "pass" and data["findings"][0]["verdict"] == "supported"


def test_mcp_without_token_is_refused(served: Sidecar) -> None:
    # the SDK reports the 401 as an MCPError ("Server returned an error response") in an exception group
    with pytest.raises(BaseExceptionGroup) as info:
        anyio.run(_mcp, served, False, None)
    assert "Server returned an error response" in repr(info.value)
    with httpx.Client(timeout=10) as client:
        r = client.post(f"{served.url}/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert r.status_code == 401
