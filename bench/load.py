"""Load: 32 concurrent clients against a real `kh serve` on a generated 10,000-note vault.

Two phases of 30 s each (closed loop: every client sends its next request as soon as the last
one is answered), all on 127.0.0.1:
- badge: `GET /v1/trust/notes/{path}` over random notes (what the plugin asks when a note opens);
- audit: `GET /v1/trust/audit` (the dashboard).
Reported per phase: requests/s, p50 / p99 latency, errors (non-200 or transport), and the
sidecar's peak RSS (VmHWM from /proc). The client is a minimal asyncio HTTP/1.1 client in this process, or `wrk`
when it is installed (a C client leaves more of the CPU to the sidecar on a small machine).

Environment: KH_LOAD_SECONDS (default 30), KH_LOAD_CLIENTS (32), KH_LOAD_NOTES (10000),
KH_LOAD_CLIENT=python|wrk (default: wrk when on PATH).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import re
import shutil
import subprocess
import tempfile
import time
import urllib.parse
from pathlib import Path
from typing import Any

import httpx

from bench.make_vault import make_vault
from bench.sidecar import TOKEN, serve, stop

BADGE_P99_TARGET_MS = 20.0
RSS_TARGET_MB = 300.0


def _proc_kb(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def _percentile(sorted_values: list[float], q: float) -> float:
    if not sorted_values:
        return float("nan")
    k = min(len(sorted_values) - 1, max(0, round(q * (len(sorted_values) - 1))))
    return sorted_values[k]


class _Connection:
    """One keep-alive HTTP/1.1 connection: a minimal client (httpx costs the client more CPU per
    request than the sidecar spends answering a badge, which skews a 2-core measurement)."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def get(self, url: str) -> int:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        assert self.reader is not None
        request = f"GET {url} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\nAuthorization: Bearer {TOKEN}\r\n\r\n"
        self.writer.write(request.encode("ascii"))
        head = await self.reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ", 2)[1])
        headers = dict(line.split(":", 1) for line in lines[1:] if ":" in line)
        headers = {k.strip().lower(): v.strip() for k, v in headers.items()}
        if "content-length" not in headers:
            raise ConnectionError("response without Content-Length")
        await self.reader.readexactly(int(headers["content-length"]))
        if headers.get("connection", "").lower() == "close":
            await self.close()
        return status

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            with contextlib.suppress(OSError):
                await self.writer.wait_closed()
        self.reader = self.writer = None


async def _python_phase(base: str, urls: list[str], clients: int, seconds: float, rng: random.Random) -> dict[str, Any]:
    latencies: list[float] = []
    errors: list[str] = []
    failed = 0  # transport errors (no latency recorded)
    parsed = urllib.parse.urlsplit(base)
    host, port = parsed.hostname or "127.0.0.1", parsed.port or 80
    deadline = time.perf_counter() + seconds

    async def one_client(seed: int) -> None:
        local = random.Random(seed)
        connection = _Connection(host, port)
        try:
            while time.perf_counter() < deadline:
                url = urls[local.randrange(len(urls))]
                t0 = time.perf_counter()
                try:
                    status = await connection.get(url)
                except (OSError, ValueError, asyncio.IncompleteReadError, asyncio.LimitOverrunError) as exc:
                    nonlocal failed
                    failed += 1
                    errors.append(f"{type(exc).__name__} {url}")
                    await connection.close()
                    continue
                if status != 200:
                    errors.append(f"{status} {url}")
                latencies.append((time.perf_counter() - t0) * 1000)
        finally:
            await connection.close()

    started = time.perf_counter()
    await asyncio.gather(*(one_client(rng.randrange(2**32)) for _ in range(clients)))
    elapsed = time.perf_counter() - started
    latencies.sort()
    return {
        "requests": len(latencies) + failed,
        "rps": (len(latencies) + failed) / elapsed,
        "p50": _percentile(latencies, 0.50),
        "p99": _percentile(latencies, 0.99),
        "errors": len(errors),
        "error_samples": errors[:5],
    }


def _run_async(coro: Any) -> Any:
    try:
        import uvloop  # the client's own loop: faster when uvicorn[standard] is installed

        loop_factory = uvloop.new_event_loop
    except ImportError:
        loop_factory = None
    with asyncio.Runner(loop_factory=loop_factory) as runner:
        return runner.run(coro)


_WRK_SCRIPT = """
local paths = {}
for line in io.lines(os.getenv("KH_WRK_PATHS")) do paths[#paths + 1] = line end
math.randomseed(42)
request = function()
  return wrk.format("GET", paths[math.random(#paths)], {["Authorization"] = "Bearer %s"})
end
done = function(summary, latency, requests)
  io.write(string.format("KHJSON {\\"requests\\": %%d, \\"p50\\": %%f, \\"p99\\": %%f, \\"errors\\": %%d, \\"seconds\\": %%f}\\n",
    summary.requests, latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout + summary.errors.status,
    summary.duration / 1e6))
end
"""


def _wrk_phase(base: str, urls: list[str], clients: int, seconds: float, work: Path) -> dict[str, Any]:
    paths_file = work / "paths.txt"
    paths_file.write_text("\n".join(urls) + "\n", encoding="utf-8")
    script = work / "load.lua"
    script.write_text(_WRK_SCRIPT % TOKEN, encoding="utf-8")
    out = subprocess.run(
        ["wrk", "-t2", f"-c{clients}", f"-d{int(seconds)}s", "--timeout", "30s", "-s", str(script), base],
        capture_output=True,
        text=True,
        env={**os.environ, "KH_WRK_PATHS": str(paths_file)},
        timeout=seconds + 60,
        check=True,
    ).stdout
    match = re.search(r"KHJSON (\{.*\})", out)
    if match is None:
        raise RuntimeError(f"wrk printed no summary: {out[-500:]}")
    data = json.loads(match.group(1))
    return {
        "requests": data["requests"],
        "rps": data["requests"] / data["seconds"],
        "p50": data["p50"],
        "p99": data["p99"],
        "errors": data["errors"],
        "error_samples": [],
    }


def run() -> dict[str, Any]:
    seconds = float(os.environ.get("KH_LOAD_SECONDS", "30"))
    clients = int(os.environ.get("KH_LOAD_CLIENTS", "32"))
    notes = int(os.environ.get("KH_LOAD_NOTES", "10000"))
    client_kind = os.environ.get("KH_LOAD_CLIENT") or ("wrk" if shutil.which("wrk") else "python")
    work = Path(tempfile.mkdtemp(prefix="kh-load-"))
    vault = work / "vault"
    vault.mkdir()
    make_vault(vault, notes, seed=0)
    rel_paths = sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*.md"))
    badge_urls = [f"/v1/trust/notes/{urllib.parse.quote(p)}" for p in rel_paths]
    proc, base = serve(vault)
    try:
        headers = {"Authorization": f"Bearer {TOKEN}"}
        t0 = time.perf_counter()
        first = httpx.get(f"{base}/v1/trust/audit", headers=headers, timeout=300)
        first.raise_for_status()
        cold_audit = time.perf_counter() - t0
        idle_rss = _proc_kb(proc.pid, "VmRSS") / 1024
        rng = random.Random(0)
        phases: dict[str, dict[str, Any]] = {}
        for name, urls in (("badge", badge_urls), ("audit", ["/v1/trust/audit"])):
            if client_kind == "wrk":
                phases[name] = _wrk_phase(base, urls, clients, seconds, work)
            else:
                phases[name] = _run_async(_python_phase(base, urls, clients, seconds, rng))
        alive = proc.poll() is None
        peak_rss = _proc_kb(proc.pid, "VmHWM") / 1024
    finally:
        stop(proc)
        shutil.rmtree(work, ignore_errors=True)

    badge, audit = phases["badge"], phases["audit"]
    figures = [
        {"name": "badge: requests/s", "value": f"{badge['rps']:.0f}", "unit": "req/s"},
        {"name": "badge: p50", "value": f"{badge['p50']:.1f}", "unit": "ms"},
        {"name": "badge: p99", "value": f"{badge['p99']:.1f}", "unit": "ms", "target": "≤ 20 ms"},
        {"name": "badge: errors", "value": str(badge["errors"]), "unit": f"of {badge['requests']}", "target": "0"},
        {"name": "audit: requests/s", "value": f"{audit['rps']:.1f}", "unit": "req/s"},
        {"name": "audit: p50", "value": f"{audit['p50']:.0f}", "unit": "ms"},
        {"name": "audit: p99", "value": f"{audit['p99']:.0f}", "unit": "ms"},
        {"name": "audit: errors", "value": str(audit["errors"]), "unit": f"of {audit['requests']}", "target": "0"},
        {"name": "first audit after start (cold catalog)", "value": f"{cold_audit:.2f}", "unit": "s"},
        {"name": "sidecar RSS after the first audit", "value": f"{idle_rss:.0f}", "unit": "MB"},
        {"name": "sidecar peak RSS (VmHWM)", "value": f"{peak_rss:.0f}", "unit": "MB", "target": "≤ 300 MB"},
    ]
    verdicts = [
        f"badge p99 {'met' if badge['p99'] <= BADGE_P99_TARGET_MS else 'MISSED'}",
        f"errors {'none' if badge['errors'] + audit['errors'] == 0 else 'SOME'}",
        f"RSS {'met' if peak_rss <= RSS_TARGET_MB else 'MISSED'}",
        "sidecar alive at the end" if alive else "SIDECAR DIED",
    ]
    samples = badge["error_samples"] + audit["error_samples"]
    notes_text = (
        f"{clients} concurrent clients, closed loop, {seconds:.0f} s per endpoint, client: {client_kind}, "
        f"vault: bench/make_vault.py with {len(rel_paths)} notes (seed 0). Latency is measured at the client, "
        "so on a small machine it includes the time the load generator itself waits for the CPU. "
        + "; ".join(verdicts)
        + "."
        + (f" Error samples: {samples}." if samples else "")
    )
    return {
        "title": "Load: badge and audit under 32 concurrent clients",
        "command": "python -m bench load",
        "figures": figures,
        "notes": notes_text,
        "raw": {"phases": phases, "peak_rss_mb": peak_rss, "client": client_kind, "notes": len(rel_paths)},
    }
