"""A vault of one AI-generated note citing one page served on loopback (the machine allows that host)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from ..conftest import use_machine_config
from .pipeline_helpers import html_page, local_server


@contextmanager
def vault_citing_one_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *, note: str, title: str, page: str, body: str
) -> Iterator[Path]:
    """`note` (under its folder) cites `/page`, which serves `page` as the HTML body titled `title`."""

    def serve(path: str, query: dict[str, list[str]], request_body: bytes) -> tuple[int, str, bytes]:
        return 200, "text/html; charset=utf-8", html_page(title, page)

    with local_server(serve) as server:
        use_machine_config(monkeypatch, tmp_path, f'[evidence]\nallow_private_hosts = ["127.0.0.1:{server.port}"]\n')
        root = tmp_path / "vault"
        (root / ".harness").mkdir(parents=True)
        (root / note).parent.mkdir(parents=True, exist_ok=True)
        head = f"---\nprovenance:\n  origin: ai_generated\nreferences:\n  - {server.url('/page')}\n---\n"
        (root / note).write_text(head + body, encoding="utf-8")
        yield root
