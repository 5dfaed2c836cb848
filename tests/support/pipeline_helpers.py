"""Helpers for the pipeline tests: tmp vaults, real local HTTP servers, config files."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from knowledge_harness.pipeline.run_store import RunStore

Handler = Callable[[str, dict[str, list[str]], bytes], tuple[int, str, bytes]]


@dataclass
class LocalServer:
    """A real HTTP server on 127.0.0.1 (port 0) answering through a Python function."""

    port: int
    hits: list[str] = field(default_factory=list)

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"


@contextmanager
def local_server(handler: Handler) -> Iterator[LocalServer]:
    state = LocalServer(0)

    class _H(BaseHTTPRequestHandler):
        def _serve(self, body: bytes) -> None:
            parts = urlsplit(self.path)
            state.hits.append(self.path)
            status, ctype, payload = handler(parts.path, parse_qs(parts.query), body)
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def do_GET(self) -> None:
            self._serve(b"")

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            self._serve(self.rfile.read(length))

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), _H)
    state.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


def html_page(title: str, body: str) -> bytes:
    return f"<!doctype html><html><head><title>{title}</title></head><body><p>{body}</p></body></html>".encode()


def searxng_json(results: list[dict[str, str]]) -> bytes:
    """The shape of SearXNG's JSON API answer (`/search?format=json`)."""
    return json.dumps({"query": "", "number_of_results": len(results), "results": results}).encode()


def write_note(vault: Path, rel: str, text: str) -> None:
    path = vault / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def request_note(question: str, *, publishable: str | None = "true", extra: str = "", title: str = "検索の依頼") -> str:
    lines = ["---", "harness: request", f"title: {title}"]
    if publishable is not None:
        lines.append(f"publishable: {publishable}")
    if extra:
        lines.append(extra)
    lines += ["---", question, ""]
    return "\n".join(lines)


def write_configs(
    vault: Path,
    *,
    pipeline_toml: str = "",
    allow: list[str] | None = None,
    searxng_url: str | None = None,
    agent_endpoint: tuple[str, str] | None = None,
) -> None:
    """The vault's pipeline.toml, and the machine configuration (beside the vault, named by KH_CONFIG
    for the rest of the test) with what a vault file may not decide: allowed hosts and endpoints."""
    harness = vault / ".harness"
    harness.mkdir(parents=True, exist_ok=True)
    if pipeline_toml:
        (harness / "pipeline.toml").write_text(pipeline_toml, encoding="utf-8")
    hosts = ", ".join(json.dumps(h) for h in ["127.0.0.1:8731", *(allow or [])])
    machine = f"[evidence]\nallow_private_hosts = [{hosts}]\n"
    if searxng_url:
        machine += f"[search]\nsearxng_url = {json.dumps(searxng_url)}\n"
    if agent_endpoint:
        machine += f"[agents.openai_compat]\nbase_url = {json.dumps(agent_endpoint[0])}\nmodel = {json.dumps(agent_endpoint[1])}\n"
    current = Path(os.environ.get("KH_CONFIG", ""))
    if current.is_file():  # blogs registered before (part2_support.register_blog) stay registered
        text = current.read_text(encoding="utf-8")
        machine += text[text.index("[blogs.") :] if "\n[blogs." in text else ""
    path = vault.parent / f"{vault.name}-machine-config.toml"
    path.write_text(machine, encoding="utf-8")
    os.environ["KH_CONFIG"] = str(path)  # restored after the test by the conftest fixture


def snapshot(vault: Path) -> dict[str, str]:
    """Every file under .harness/ with its SHA-256."""
    import hashlib

    out = {}
    for path in sorted((vault / ".harness").rglob("*")):
        if path.is_file() and path.name != ".lock":
            out[path.relative_to(vault).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def harness_text(vault: Path) -> str:
    return "\n".join(
        p.read_text(encoding="utf-8", errors="replace") for p in (vault / ".harness").rglob("*") if p.is_file()
    )


def run_files(vault: Path, run_id: str) -> dict[str, str]:
    from knowledge_harness.vault.paths import Vault

    return RunStore(Vault.open(vault)).list_files(run_id)


SUMMARY_JA = "この出典は論点の前提となる仕様と、その挙動の違いを説明している。"


def packet_for(sources: list[dict[str, Any]]) -> dict[str, Any]:
    """A valid O-05 packet citing the given evidence sources."""
    usable = [s for s in sources if s["source_class"] in ("primary", "secondary")]
    sid = usable[0]["source_id"]
    return {
        "issues": [
            {
                "issue_id": "I1",
                "title": "中心的な論点",
                "facts": [{"id": "F1", "statement": "出典が述べている事実。", "source_ids": [sid]}],
                "inferences": [{"id": "N1", "statement": "事実から推測できること。", "source_ids": [sid]}],
                "unknowns": [{"id": "U1", "statement": "対象バージョンは未確認。", "source_ids": [sid]}],
                "reactions": [],
                "contradictions": [],
            }
        ],
        "uncertainties": [
            {"id": "X1", "item": "対象バージョンが未確認", "impact": "記事では版を限定する", "source_ids": [sid]}
        ],
        "past_articles": None,
        "source_summaries": [{"source_id": sid, "summary_ja": SUMMARY_JA}],
    }
