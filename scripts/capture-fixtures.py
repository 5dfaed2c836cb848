#!/usr/bin/env python3
"""Record real sidecar responses for the plugin's view and modal tests.

Starts `kh serve` on a temporary copy of examples/vault (and the local evidence site on
127.0.0.1:8731 unless something already serves it there), drives the HTTP API the way the
plugin does, and writes each JSON answer to obsidian-plugin/tests/fixtures/recorded/<name>.json.
`index.json` there lists what was recorded and which routes the sidecar did not serve.

Run it again after the sidecar changes:  .venv/bin/python scripts/capture-fixtures.py
Never run by `make test`; the tests only read the recorded files.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "obsidian-plugin" / "tests" / "fixtures" / "recorded"
KH = Path(os.environ.get("KH_BIN") or ROOT / ".venv" / "bin" / "kh")
EVIDENCE_PORT = 8731
REQUEST_NOTE = "Requests/メタデータ限定更新の記事.md"


def port_open(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0


class Sidecar:
    def __init__(self, vault: Path) -> None:
        self.token = secrets.token_hex(32)
        env = {**os.environ, "KH_TOKEN": self.token}
        self.proc = subprocess.Popen(
            [str(KH), "serve", "--vault", str(vault), "--port", "0", "--exit-on-stdin-close"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            text=True,
        )
        assert self.proc.stdout is not None
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                raise SystemExit("kh serve exited before listening")
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if event.get("event") == "listening":
                self.base = f"http://127.0.0.1:{event['port']}"
                return
        raise SystemExit("kh serve did not print its listening line")

    def call(self, method: str, path: str, body: Any = None, query: dict[str, Any] | None = None) -> tuple[int, Any]:
        url = self.base + path
        if query:
            url += "?" + urllib.parse.urlencode(query)
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(url, data=data, method=method)  # noqa: S310 - http://127.0.0.1 only
        request.add_header("Authorization", f"Bearer {self.token}")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=120) as response:  # noqa: S310 - loopback
                text = response.read().decode()
                return response.status, json.loads(text) if text else None
        except urllib.error.HTTPError as error:
            text = error.read().decode()
            try:
                return error.code, json.loads(text)
            except ValueError:
                return error.code, text

    def stop(self) -> None:
        with contextlib.suppress(Exception):  # best effort; terminate below
            self.call("POST", "/v1/shutdown")
        if self.proc.stdin:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.terminate()
            self.proc.wait(timeout=5)


def quote(path: str) -> str:
    return urllib.parse.quote(path, safe="/")


def main() -> int:
    if not KH.exists():
        print(f"sidecar binary not found: {KH}", file=sys.stderr)
        return 2
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.glob("*.json"):
        old.unlink()
    recorded: dict[str, str] = {}
    missing: dict[str, str] = {}

    def save(name: str, route: str, status: int, body: Any) -> Any:
        if status >= 400:
            message = body.get("error", {}).get("message", "") if isinstance(body, dict) else str(body)
            missing[name] = f"{route} → {status} {message}"
            print(f"  - {name}: {route} answered {status}: {message}")
            return None
        (OUT / f"{name}.json").write_text(
            json.dumps(body, ensure_ascii=False, indent=2, sort_keys=True) + "\n", encoding="utf-8"
        )
        recorded[name] = route
        print(f"  + {name}: {route}")
        return body

    evidence = None
    if not port_open(EVIDENCE_PORT):
        evidence = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "http.server",
                str(EVIDENCE_PORT),
                "--bind",
                "127.0.0.1",
                "--directory",
                str(ROOT / "examples" / "evidence-site"),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(50):
            if port_open(EVIDENCE_PORT):
                break
            time.sleep(0.1)

    tmp = Path(tempfile.mkdtemp(prefix="kh-fixtures-"))
    vault = tmp / "vault"
    shutil.copytree(ROOT / "examples" / "vault", vault)
    sidecar = Sidecar(vault)
    try:
        s = sidecar
        save("health", "GET /health", *s.call("GET", "/health"))
        openapi_status, openapi = s.call("GET", "/openapi.json")
        served = set(openapi.get("paths", {})) if openapi_status == 200 else set()
        save("audit", "GET /v1/trust/audit", *s.call("GET", "/v1/trust/audit"))
        save("stale", "GET /v1/trust/stale", *s.call("GET", "/v1/trust/stale"))
        status, notes = s.call("GET", "/v1/notes")
        badges: dict[str, Any] = {}
        if status == 200:
            for note in notes["notes"]:
                code, badge = s.call("GET", f"/v1/trust/notes/{quote(note['path'])}")
                if code == 200:
                    badges[note["path"]] = badge
        save("badges", "GET /v1/trust/notes/{path} (every note)", 200 if badges else 404, badges)
        verified = next((p for p, b in badges.items() if b["status"] == "verified" and b["fresh_l2"]), None)
        if verified:
            save("note-verified", "GET /v1/notes/{path}", *s.call("GET", f"/v1/notes/{quote(verified)}"))
        disputed = next((p for p, b in badges.items() if b["status"] == "disputed"), None)
        if disputed:
            save("note-disputed", "GET /v1/notes/{path}", *s.call("GET", f"/v1/notes/{quote(disputed)}"))
        unverified = next(
            (
                p
                for p, b in badges.items()
                if b["status"] == "unverified" and b["evidence_capable"] and not b.get("error")
            ),
            None,
        )
        if unverified:
            save(
                "validate-unverified",
                "POST /v1/trust/notes/{path}/validate?dry_run=true",
                *s.call("POST", f"/v1/trust/notes/{quote(unverified)}/validate", query={"dry_run": "true"}),
            )
        if disputed:
            save(
                "validate-disputed",
                "POST /v1/trust/notes/{path}/validate?dry_run=true",
                *s.call("POST", f"/v1/trust/notes/{quote(disputed)}/validate", query={"dry_run": "true"}),
            )

        # reasoning index
        save("index-build", "POST /v1/index/build", *s.call("POST", "/v1/index/build"))
        save("index-check", "GET /v1/index/check", *s.call("GET", "/v1/index/check"))
        save(
            "index-search",
            "GET /v1/index/search?q=鮮度",
            *s.call("GET", "/v1/index/search", query={"q": "鮮度", "limit": 10}),
        )
        save(
            "index-headings",
            "GET /v1/index/notes/{path}/headings",
            *s.call("GET", f"/v1/index/notes/{quote('Keywords/鮮度管理.md')}/headings"),
        )

        # the approval gate: two plans (the second for the "another plan's digest" test), then approve the first
        plan = save("batch-plan", "POST /v1/batches (canary)", *s.call("POST", "/v1/batches", {"stage": "canary"}))
        save("batch-plan-other", "POST /v1/batches (pilot)", *s.call("POST", "/v1/batches", {"stage": "pilot"}))
        if plan:
            save("batch-get", "GET /v1/batches/{id}", *s.call("GET", f"/v1/batches/{quote(plan['plan_id'])}"))
            save(
                "batch-approve",
                "POST /v1/batches/{id}/approve",
                *s.call(
                    "POST",
                    f"/v1/batches/{quote(plan['plan_id'])}/approve",
                    {"challenge": f"APPROVE_PRODUCTION {plan['digest']}"},
                ),
            )
            save(
                "badges-after-approve",
                "GET /v1/trust/notes/{path} (targets)",
                200,
                {t["path"]: s.call("GET", f"/v1/trust/notes/{quote(t['path'])}")[1] for t in plan["targets"]},
            )

        # the pipeline: capture → authorize → advance → status
        run = save(
            "pipeline-capture", "POST /v1/pipeline/runs", *s.call("POST", "/v1/pipeline/runs", {"note": REQUEST_NOTE})
        )
        if run:
            rid = quote(run["run_id"])
            save("pipeline-status-captured", "GET /v1/pipeline/runs/{id}", *s.call("GET", f"/v1/pipeline/runs/{rid}"))
            save(
                "pipeline-authorize",
                "POST /v1/pipeline/runs/{id}/authorize",
                *s.call("POST", f"/v1/pipeline/runs/{rid}/authorize", {"via": "plugin"}),
            )
            save(
                "pipeline-advance",
                "POST /v1/pipeline/runs/{id}/advance",
                *s.call("POST", f"/v1/pipeline/runs/{rid}/advance"),
            )
            save("pipeline-status", "GET /v1/pipeline/runs/{id}", *s.call("GET", f"/v1/pipeline/runs/{rid}"))
            save("pipeline-list", "GET /v1/pipeline/runs", *s.call("GET", "/v1/pipeline/runs"))
            save("pipeline-task-next", "GET /v1/pipeline/tasks/next", *s.call("GET", "/v1/pipeline/tasks/next"))

        (OUT / "index.json").write_text(
            json.dumps(
                {
                    "comment": "Written by scripts/capture-fixtures.py from the real sidecar on a copy of examples/vault. Do not edit.",
                    "recorded": recorded,
                    "missing": missing,
                    "served_paths": sorted(served),
                },
                ensure_ascii=False,
                indent=2,
                sort_keys=True,
            )
            + "\n",
            encoding="utf-8",
        )
    finally:
        sidecar.stop()
        if evidence:
            evidence.terminate()
            evidence.wait(timeout=5)
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"recorded {len(recorded)} responses into {OUT.relative_to(ROOT)}; {len(missing)} not served")
    return 0


if __name__ == "__main__":
    sys.exit(main())
