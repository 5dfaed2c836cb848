"""Hostile inputs against a real `kh serve`: how long they take and whether the sidecar stays responsive.

1. A 3 MB HTML page holding 100,000 links, cited by a note, under a 5 s fetch timeout: the
   dry-run's wall time and /health latency (polled every 50 ms) while it runs. Its text
   extraction takes far longer than 5 s; the worker process is killed at the deadline.
2. A 20 MB note holding over 500,000 headings: the size and time of one headings answer (the
   default page and a 5,000-heading page far into the note, which keeps its first 65,536 headings)
   and the sidecar's peak RSS.

`python -m bench hostile`
"""

from __future__ import annotations

import concurrent.futures
import statistics
import subprocess
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

from bench.sidecar import KH, TOKEN, serve, stop


def links_page(count: int = 100_000) -> bytes:
    head = "<!doctype html><html><head><meta charset='utf-8'><title>Links</title></head><body><article><ul>"
    items = "".join(f"<li><a href='/p/{i}'>{i}</a>" for i in range(count))
    return (head + items + "</ul></article></body></html>").encode()


def _site() -> ThreadingHTTPServer:
    body = links_page()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _links_page_figures(root: Path) -> list[dict[str, Any]]:
    site = _site()
    port = site.server_address[1]
    vault = root / "links"
    (vault / ".harness").mkdir(parents=True)
    (vault / ".harness/policy.toml").write_text("[evidence]\ntimeout_seconds = 5\n", encoding="utf-8")
    machine = root / "machine-config.toml"  # only the machine configuration allows a private host
    machine.write_text(f'[evidence]\nallow_private_hosts = ["127.0.0.1:{port}"]\n', encoding="utf-8")
    (vault / "n.md").write_text(
        f"---\nreferences:\n  - http://127.0.0.1:{port}/links\n---\n# N\n\nMount Fuji is 3,776 metres high.\n",
        encoding="utf-8",
    )
    proc, url = serve(vault, machine)
    latencies: list[float] = []
    done = threading.Event()

    def poll() -> None:
        with httpx.Client(base_url=url, timeout=120) as client:
            while not done.is_set():
                t0 = time.perf_counter()
                client.get("/health")
                latencies.append(time.perf_counter() - t0)
                done.wait(0.05)

    poller = threading.Thread(target=poll)
    poller.start()
    runs: list[float] = []
    error = ""
    try:
        with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {TOKEN}"}, timeout=300) as client:
            for _ in range(2):
                t0 = time.perf_counter()
                answer = client.post("/v1/trust/notes/n.md/validate", params={"dry_run": "true"}).json()
                runs.append(time.perf_counter() - t0)
                error = str(answer["sources"][0]["error"])
    finally:
        done.set()
        poller.join()
        stop(proc)
        site.shutdown()
    return [
        {
            "name": "3 MB / 100,000-link page: dry-run wall time (median of 2)",
            "value": f"{statistics.median(runs):.2f}",
            "unit": "s",
            "target": "≤ fetch timeout (5 s) + worker start",
        },
        {"name": "the page's source error", "value": error, "unit": ""},
        {
            "name": "/health latency while it runs (max)",
            "value": f"{max(latencies) * 1000:.0f}",
            "unit": "ms",
            "target": "≤ 250 ms",
        },
    ]


def _headings_figures(root: Path) -> list[dict[str, Any]]:
    vault = root / "headings"
    vault.mkdir()
    parts: list[str] = []
    size = i = 0
    while size < 19_900_000:
        chunk = f"# Heading number {i} with a few words\n## Sub {i}\nSome text [[x]] here.\n"
        parts.append(chunk)
        size += len(chunk)
        i += 1
    (vault / "huge.md").write_text("".join(parts), encoding="utf-8")
    subprocess.run([str(KH), "index", "build", str(vault)], check=True, capture_output=True)
    proc, url = serve(vault)
    figures: list[dict[str, Any]] = []
    try:
        with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {TOKEN}"}, timeout=300) as client:
            for label, params in (
                ("default page", {}),
                ("5,000 headings at offset 60,000", {"offset": 60_000, "limit": 5000}),
            ):
                t0 = time.perf_counter()
                answer = client.get("/v1/index/notes/huge.md/headings", params=params)
                seconds = time.perf_counter() - t0
                count = answer.json()["heading_count"]
                figures.append(
                    {
                        "name": f"20 MB note ({count:,} headings), {label}: answer size",
                        "value": f"{len(answer.content) / 1e6:.2f}",
                        "unit": "MB",
                        "target": "≤ 3 MB",
                    }
                )
                figures.append({"name": f"20 MB note, {label}: time", "value": f"{seconds:.2f}", "unit": "s"})
            figures.append(
                {
                    "name": "sidecar peak RSS after the headings answers",
                    "value": f"{_peak_rss_mb(proc.pid):.0f}",
                    "unit": "MB",
                    "target": "≤ 300 MB",
                }
            )
            # three large requests at once: two heading pages and a section found by its title
            asks = [
                ("/v1/index/notes/huge.md/headings", {}),
                ("/v1/index/notes/huge.md/headings", {"offset": 55_000, "limit": 5000}),
                ("/v1/index/notes/huge.md/section", {"heading": "Heading number 30000 with a few words"}),
            ]
            t0 = time.perf_counter()
            with concurrent.futures.ThreadPoolExecutor(3) as pool:
                codes = list(pool.map(lambda ask: client.get(ask[0], params=ask[1]).status_code, asks))
            figures.append(
                {
                    "name": f"three concurrent large requests (answers {', '.join(map(str, codes))}): time",
                    "value": f"{time.perf_counter() - t0:.2f}",
                    "unit": "s",
                }
            )
            figures.append(
                {
                    "name": "sidecar peak RSS after three concurrent large requests",
                    "value": f"{_peak_rss_mb(proc.pid):.0f}",
                    "unit": "MB",
                    "target": "≤ 300 MB",
                }
            )
    finally:
        stop(proc)
    return figures


def run() -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        figures = _links_page_figures(root) + _headings_figures(root)
    return {
        "title": "Hostile pages and notes against a running sidecar",
        "command": "python -m bench hostile",
        "figures": figures,
        "notes": (
            "Text extraction runs in a worker process killed at the page's deadline, so the page fails with "
            "extract_timeout and /health stays responsive. A headings answer is one page (at most 5,000 headings); "
            "a note layer over 8 MB is read as a stream (ijson's C parser) keeping only the page, so memory does not "
            "grow with the note or with concurrent requests."
        ),
    }
