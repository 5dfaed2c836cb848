"""The dry run's answer leaves every door byte for byte as before (tests/api/golden/dry-run-*): REST
(`POST /v1/trust/notes/{path}/validate?dry_run=true`), MCP (`validate_note_dry_run`: its text and its
structured content) and the CLI (`kh validate VAULT NOTE --dry-run`, with `--json` and without).

A small vault cites pages of a local site this test serves (the shared example site may be served by
another worktree's session too, with other files and other Last-Modified dates). Each door gets its own
copy of the vault and dry-runs three times: a note with trust blocks whose page is fetched, the same
note again (its snapshot reused), and a note without trust blocks whose pages cannot be read (one
answers 404, one is on a host the machine configuration does not allow). Only what the clock and the
site's free port put in an answer differ from run to run (when a page was fetched, today's date, the
date the note is due, the port and the hashes of the URLs); they are named in the text before it is
compared (`_steady`), nothing else is. Regenerate with KH_WRITE_GOLDEN=1 only when the answer changes on
purpose.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import anyio
import pytest
from mcp_types import TextContent

from ..conftest import KH, start_sidecar, stop_sidecar, use_machine_config
from ..support.pipeline_helpers import LocalServer, html_page, local_server
from ..support.standin_agent import stdio_agent

GOLDEN = Path(__file__).with_name("golden")
FETCHED = "Keywords/富士山.md"
UNREADABLE = "Keywords/Gone.md"
# (case, note): the second FETCHED reads the snapshot the first one wrote (the page sends no validators)
CASES = (("fetched", FETCHED), ("reused", FETCHED), ("unreadable", UNREADABLE))
PAGE = (
    "富士山は静岡県と山梨県にまたがる活火山である。富士山の標高は3776メートルである。2013年に世界文化遺産に登録された。"
)
FUJI = """---
title: 富士山
provenance:
  origin: ai_generated
  generator: claude
verification:
  status: verified
  level: 2
  validator: lexical-1
  last_validated: 2026-11-10
  revalidate_after: 2027-02-08
  content_sha256: 0000000000000000000000000000000000000000000000000000000000000000
  references_sha256: 1111111111111111111111111111111111111111111111111111111111111111
  run_id: run-20261110-stage-f
evidence:
  status: grounded
  source_count: 1
  sources:
    - url: {url}
      snapshot_sha256: 2222222222222222222222222222222222222222222222222222222222222222
      fetched_at: 2026-11-10T07:46:30Z
      verdict: supported
references:
  - {url}
---
# 富士山

富士山は静岡県と山梨県にまたがる活火山である。

- 富士山の標高は3876メートルである。
- 富士山は1990年に世界自然遺産に登録された。
"""
GONE = """---
references:
  - {url}
  - http://127.0.0.1:9/not-allowed.html
---
# Gone

The page this note cites was removed from the site.
"""
_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z")


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[LocalServer]:
    def serve(path: str, query: dict[str, list[str]], body: bytes) -> tuple[int, str, bytes]:
        if path == "/fuji.html":
            return 200, "text/html; charset=utf-8", html_page("富士山", PAGE)
        return 404, "text/plain", b"gone"

    with local_server(serve) as server:
        use_machine_config(monkeypatch, tmp_path, f'[evidence]\nallow_private_hosts = ["127.0.0.1:{server.port}"]\n')
        yield server


def _vault(root: Path, site: LocalServer) -> Path:
    (root / ".harness").mkdir(parents=True)
    (root / ".harness" / "policy.toml").write_text("[evidence]\nretries = 0\n", encoding="utf-8")
    (root / "Keywords").mkdir()
    (root / FETCHED).write_text(FUJI.format(url=site.url("/fuji.html")), encoding="utf-8")
    (root / UNREADABLE).write_text(GONE.format(url=site.url("/gone.html")), encoding="utf-8")
    return root


def _run_values(report: dict[str, Any], site: LocalServer) -> dict[str, str]:
    """What the clock and the site's port put in a report, each → the name it is compared under."""
    names: dict[str, str] = {f"127.0.0.1:{site.port}": "127.0.0.1:<port>"}
    proposed = report["proposed"]
    for source in [*report["sources"], *((proposed["evidence"] or {}).get("sources") or [])]:
        names[str(source["fetched_at"])] = "<fetched_at>"
    for key in ("last_validated", "revalidate_after", "references_sha256"):
        value = (proposed["verification"] or {}).get(key)
        if value is not None:
            names[str(value)] = f"<{key}>"
    for written in report["snapshots_written"]:
        if "/urls/" in written:
            names[Path(written).stem] = "<url_sha256>"
    return names


def _check(name: str, text: str, report: dict[str, Any], site: LocalServer) -> None:
    for value, placeholder in sorted(_run_values(report, site).items(), key=lambda item: -len(item[0])):
        text = text.replace(value, placeholder)
    golden = GOLDEN / name
    if os.environ.get("KH_WRITE_GOLDEN"):
        golden.parent.mkdir(exist_ok=True)
        golden.write_text(text, encoding="utf-8")
    assert text == golden.read_text(encoding="utf-8"), name


def test_the_dry_run_leaves_rest_as_before(tmp_path: Path, site: LocalServer) -> None:
    sidecar = start_sidecar(_vault(tmp_path / "vault", site))
    try:
        with sidecar.client() as client:
            for case, note in CASES:
                answer = client.post(f"/v1/trust/notes/{quote(note)}/validate", params={"dry_run": "true"})
                assert answer.status_code == 200, answer.text
                assert answer.headers["content-type"] == "application/json"
                _check(f"dry-run-rest-{case}.json", answer.content.decode("utf-8"), answer.json(), site)
    finally:
        stop_sidecar(sidecar)


def test_the_dry_run_leaves_mcp_as_before(tmp_path: Path, site: LocalServer) -> None:
    vault = _vault(tmp_path / "vault", site)

    async def over_mcp() -> list[tuple[str, str]]:
        answers = []
        async with stdio_agent(vault) as session:
            for _case, note in CASES:
                result = await session.call_tool("validate_note_dry_run", {"path": note})
                assert not result.is_error and len(result.content) == 1
                (text,) = result.content
                assert isinstance(text, TextContent)
                structured = json.dumps(result.structured_content, ensure_ascii=False, indent=2)
                answers.append((text.text, structured))
        return answers

    for (case, _note), (text, structured) in zip(CASES, anyio.run(over_mcp), strict=True):
        report = json.loads(text)
        _check(f"dry-run-mcp-{case}.json", text, report, site)
        _check(f"dry-run-mcp-{case}.structured.json", structured, report, site)


def test_the_dry_run_leaves_the_cli_as_before(tmp_path: Path, site: LocalServer) -> None:
    vault = _vault(tmp_path / "vault", site)
    for case, note in CASES:
        shown = subprocess.run(
            [str(KH), "validate", str(vault), note, "--dry-run", "--json"], capture_output=True, text=True, timeout=120
        )
        assert shown.returncode == 0, shown.stderr
        report = json.loads(shown.stdout)
        _check(f"dry-run-cli-{case}.json", shown.stdout, report, site)
        # the text the person reads (run just after: its fetch times are the clock's as well)
        told = subprocess.run(
            [str(KH), "validate", str(vault), note, "--dry-run"], capture_output=True, text=True, timeout=120
        )
        assert told.returncode == 0, told.stderr
        _check(f"dry-run-cli-{case}.txt", _TIMESTAMP.sub("<fetched_at>", told.stdout), report, site)
