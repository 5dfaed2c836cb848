"""Cold start of `kh serve` (until the listening line and a 200 from /health) and its idle RSS."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

KH = Path(sys.executable).with_name("kh")


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def run(repeats: int = 5) -> dict[str, Any]:
    vault = Path(tempfile.mkdtemp()) / "vault"
    vault.mkdir()
    (vault / "a.md").write_text("# a\n")
    env = {**os.environ, "KH_TOKEN": "bench-token-0123456789abcdef"}
    starts: list[float] = []
    rss: list[float] = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            [str(KH), "serve", "--vault", str(vault), "--port", "0"], stdout=subprocess.PIPE, env=env
        )
        assert proc.stdout is not None
        port = json.loads(proc.stdout.readline())["port"]
        httpx.get(f"http://127.0.0.1:{port}/health").raise_for_status()
        starts.append(time.perf_counter() - t0)
        rss.append(_rss_mb(proc.pid))
        proc.terminate()
        proc.wait()
    return {
        "title": "Sidecar start-up and memory",
        "command": "python -m bench startup",
        "figures": [
            {"name": "cold start to first /health (median)", "value": f"{statistics.median(starts):.2f}", "unit": "s"},
            {"name": "idle RSS (median)", "value": f"{statistics.median(rss):.0f}", "unit": "MB", "target": "≤ 300 MB"},
        ],
        "notes": "Start-up is dominated by importing FastAPI and the MCP SDK.",
    }
