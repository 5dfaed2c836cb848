"""Cold start of `kh serve` (until the listening line and a 200 from /health) and its idle RSS, and
how long short `kh` commands take in a new process (as a ratio to `python -c pass`)."""

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


def _median_seconds(argv: list[str], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        subprocess.run(argv, capture_output=True, check=False)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def _cli_figures(vault: Path, repeats: int) -> list[dict[str, Any]]:
    subprocess.run([str(KH), "index", "build", str(vault)], capture_output=True, check=True)
    python = _median_seconds([sys.executable, "-c", "pass"], repeats)
    figures: list[dict[str, Any]] = [{"name": "`python -c pass` (median)", "value": f"{python:.3f}", "unit": "s"}]
    for label, argv, target in (
        ("`kh --help`", [str(KH), "--help"], "≤ 0.4 s"),
        ("`kh index check` (1-note vault)", [str(KH), "index", "check", str(vault)], "≤ 0.6 s"),
    ):
        seconds = _median_seconds(argv, repeats)
        figures.append(
            {
                "name": f"{label} in a new process (median; {seconds / python:.0f}x `python -c pass`)",
                "value": f"{seconds:.2f}",
                "unit": "s",
                "target": target,
            }
        )
    return figures


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
    cli = _cli_figures(vault, repeats)
    return {
        "title": "Sidecar start-up and memory",
        "command": "python -m bench startup",
        "figures": [
            {"name": "cold start to first /health (median)", "value": f"{statistics.median(starts):.2f}", "unit": "s"},
            {"name": "idle RSS (median)", "value": f"{statistics.median(rss):.0f}", "unit": "MB", "target": "≤ 300 MB"},
            *cli,
        ],
        "notes": (
            "Start-up is dominated by importing FastAPI and the routes' models. The MCP SDK is imported by "
            "the first request to /mcp (api/mcp_door.py; it was a third of start-up: 1.61 s and 101 MB on "
            "2026-12-04). `kh` imports a command's module only when that command runs, so short commands do "
            "not pay for the web stack."
        ),
    }
