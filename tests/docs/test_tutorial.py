"""docs/tutorial.md, walked as a reader would: every `sh` block runs, in order, on a vault of plain
notes that cite a page of a local evidence site, and the note ends at L2, approved at a terminal.

The reader's two substitutions are made the way a reader makes them: `<plan-id>` is copied from
the plan the previous block printed, and the digest is typed at the approval prompt."""

from __future__ import annotations

import functools
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from knowledge_harness.vault.frontmatter import find_frontmatter
from knowledge_harness.vault.yamlsafe import load_mapping
from tests.conftest import use_machine_config
from tests.support.terminal import run_at_terminal

REPO = Path(__file__).resolve().parents[2]
TUTORIAL = REPO / "docs" / "tutorial.md"
BLOCK = re.compile(r"^```sh\n(.*?)^```", re.S | re.M)
NOTE = "Notes/YAML front matter.md"
PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>YAML front matter</title></head>
<body><article><h1>YAML front matter</h1>
<p>YAML front matter is a block of YAML at the top of a text file, between two lines of three dashes.
Static site generators such as Jekyll read it to set variables for a page.</p>
<p>Obsidian uses the same format for note properties, so a note can carry a title, tags and aliases in its
front matter.</p></article></body></html>
"""


@pytest.fixture
def site(tmp_path: Path) -> Iterator[str]:
    root = tmp_path / "site"
    root.mkdir()
    (root / "yaml-front-matter.html").write_text(PAGE, encoding="utf-8")
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(SimpleHTTPRequestHandler, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def own_vault(tmp_path: Path, site: str) -> Path:
    """A vault nobody here prepared for the product: plain notes, one with a Sources section."""
    vault = tmp_path / "MyVault"
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


def test_the_tutorial_takes_a_plain_vault_to_its_first_l2_note(
    own_vault: Path, site: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_machine_config(monkeypatch, tmp_path, f'[evidence]\nallow_private_hosts = ["{site}"]\n')
    blocks = BLOCK.findall(TUTORIAL.read_text(encoding="utf-8"))
    assert len(blocks) >= 8
    body_before = (own_vault / NOTE).read_bytes()
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "VAULT": str(own_vault),
        "NOTE": NOTE,
    }
    env.pop("KH_TOKEN", None)
    outputs: list[str] = []
    for block in blocks:
        if "<plan-id>" in block:
            plan = re.search(r"^Plan (plan-\S+)", outputs[-1], re.M)
            digest = re.search(r"^Digest: ([0-9a-f]{12})$", outputs[-1], re.M)
            assert plan and digest, outputs[-1]
            script = block.replace("<plan-id>", plan.group(1))
            run = run_at_terminal(
                ["/bin/bash", "-c", f"cd {REPO} && {script}"], [f"APPROVE_PRODUCTION {digest.group(1)}"], env=env
            )
            assert run.exit_code == 0, run.screen
            assert run.record["run_status"] == "SUCCEEDED" and run.record["result"] == "APPLIED"
            outputs.append(run.screen)
            continue
        done = subprocess.run(
            ["/bin/bash", "-euo", "pipefail", "-c", block],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, (block, done.stdout, done.stderr)
        outputs.append(done.stdout + done.stderr)

    by_command = dict(zip(blocks, outputs, strict=True))
    init_then_audit = next(out for block, out in by_command.items() if "--write" in block)
    assert "Evidence-capable: 1" in init_then_audit
    assert "Fresh L2: 0" in init_then_audit
    final_audit = next(out for block, out in by_command.items() if block.strip() == 'kh audit "$VAULT"')
    assert "Fresh L2: 1" in final_audit
    assert "Next batch (due in 0-7 days): 1" in outputs[-1]  # 85 days on, the note is due within the week

    raw = (own_vault / NOTE).read_bytes()
    span = find_frontmatter(raw)
    assert span is not None
    verification = load_mapping(raw[span.yaml_start : span.yaml_end].decode("utf-8"))["verification"]
    assert verification["level"] == 2 and verification["status"] == "verified"
    assert raw.endswith(body_before)  # the note's own text is untouched; only the frontmatter is new
