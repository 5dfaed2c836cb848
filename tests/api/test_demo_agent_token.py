"""The demo's agent token works: a sidecar served the way `make run` / `make demo-pipeline` serve it
accepts on /mcp the token `kh agent-token VAULT` prints, and the person token's 403 on /mcp says
where this sidecar's agent token comes from."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import httpx

from ..conftest import KH, PERSON_TOKEN, start_sidecar, stop_sidecar

MCP_INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def test_kh_agent_token_prints_the_token_the_running_sidecar_accepts(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "note.md").write_text("# note\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "KH_AGENT_TOKEN"}
    env |= {"KH_TOKEN": PERSON_TOKEN, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    sidecar = start_sidecar(vault, PERSON_TOKEN, env=env, agent_token=None)
    port = sidecar.port
    try:
        printed = subprocess.run(
            [str(KH), "agent-token", str(vault), "--port", str(port), "--json"],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
        token = json.loads(printed.stdout)["token"]
        url = f"http://127.0.0.1:{port}/mcp"
        accepted = httpx.post(url, json=MCP_INIT, headers={**MCP_HEADERS, "Authorization": f"Bearer {token}"})
        assert accepted.status_code == 200, accepted.text
        person = httpx.post(url, json=MCP_INIT, headers={**MCP_HEADERS, "Authorization": f"Bearer {PERSON_TOKEN}"})
        assert person.status_code == 403
        message = person.json()["error"]["message"]
        assert f"kh agent-token {vault.resolve()}" in message and "agent-tokens" in message
    finally:
        stop_sidecar(sidecar)
