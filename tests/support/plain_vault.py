"""A vault of plain notes that nobody prepared for the product, citing a page of a local site.

`local_site` serves one page whose sentences support the note; `write_plain_vault` writes the
vault: a note with a `## Sources` section (no frontmatter) and a daily note."""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

NOTE = "Notes/YAML front matter.md"
PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>YAML front matter</title></head>
<body><article><h1>YAML front matter</h1>
<p>YAML front matter is a block of YAML at the top of a text file, between two lines of three dashes.
Static site generators such as Jekyll read it to set variables for a page.</p>
<p>Obsidian uses the same format for note properties, so a note can carry a title, tags and aliases in its
front matter.</p></article></body></html>
"""


@contextmanager
def local_site(folder: Path) -> Iterator[str]:
    """Serve the page on a free loopback port; yields "127.0.0.1:PORT"."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "yaml-front-matter.html").write_text(PAGE, encoding="utf-8")
    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(folder))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def write_plain_vault(vault: Path, site: str) -> Path:
    (vault / "Notes").mkdir(parents=True)
    (vault / "Daily").mkdir()
    (vault / NOTE).write_text(
        "# YAML front matter\n\n"
        "YAML front matter is a block of YAML at the top of a text file, between two lines of three dashes.\n"
        "Obsidian uses the same format for note properties, so a note can carry a title, tags and aliases "
        "in its front matter.\n\n"
        f"## Sources\n- http://{site}/yaml-front-matter.html\n",
        encoding="utf-8",
    )
    (vault / "Daily" / "2026-12-01.md").write_text("Read about [[YAML front matter]] today.\n", encoding="utf-8")
    return vault


def write_ordinary_notes(root: Path) -> Path:
    """Notes as people write them: sources in a `## Sources` section or a "Sources:" line, no provenance."""
    (root / "Research").mkdir(parents=True)
    (root / "日記").mkdir()
    (root / "Research" / "asyncio.md").write_text(
        "# asyncio のタイムアウト\n\nasyncio.timeout() で期限を設定する。\n\n## Sources\n\n"
        "- https://docs.python.org/3/library/asyncio-task.html\n",
        encoding="utf-8",
    )
    (root / "Research" / "git.md").write_text(
        "# Git quotePath\n\ncore.quotePath=false shows UTF-8 names.\n\nSources: https://git-scm.com/docs/git-config\n",
        encoding="utf-8",
    )
    (root / "日記" / "2026-12-01.md").write_text("# 2026-12-01\n\n散歩した。\n", encoding="utf-8")
    return root
