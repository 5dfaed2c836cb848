"""AppContext.runtime lists what the sidecar keeps in memory; its sizes follow the vault, clear() forgets.

In process (Starlette's TestClient): the audit fills the context's Auditor, the debug log line
reports the sizes, and after clear() the next audit recomputes the same answer. Each context owns
its memories (no module keeps one), and the app's lifespan closes them.
"""

from __future__ import annotations

import importlib
import logging
import pkgutil
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

import knowledge_harness
from knowledge_harness.api.app import create_app
from knowledge_harness.api.context import AppContext
from knowledge_harness.settings import Settings

TOKEN = "runtime-token-0123456789abcdef"
NOTE = "---\ntitle: N{n}\nprovenance:\n  source: web\n---\n# N{n}\n\nSee https://example.org/{n}.\n"


@pytest.fixture
def client(tmp_path: Path) -> tuple[TestClient, AppContext]:
    root = tmp_path / "vault"
    root.mkdir()
    for n in range(4):
        (root / f"ノート{n}.md").write_text(NOTE.format(n=n), encoding="utf-8")
    settings = Settings(vault=root, host="127.0.0.1", port=0, token=TOKEN)
    ctx = AppContext.create(settings)
    app = create_app(settings, ctx)
    return TestClient(app, base_url="http://127.0.0.1", headers={"Authorization": f"Bearer {TOKEN}"}), ctx


def _module_memories() -> dict[str, object]:
    """Every module-level `MEMORY` in the sidecar package, by module name."""
    found: dict[str, object] = {}
    for info in pkgutil.walk_packages(knowledge_harness.__path__, "knowledge_harness."):
        module = importlib.import_module(info.name)
        if hasattr(module, "MEMORY"):
            found[info.name] = module.MEMORY
    return found


def test_each_context_owns_its_memories_and_no_module_keeps_one(
    client: tuple[TestClient, AppContext], tmp_path: Path
) -> None:
    _, ctx = client
    assert _module_memories() == {}
    assert ctx.runtime.memories()["audit"] is ctx.auditor
    assert ctx.runtime.memories()["index_search"] is ctx.index.search
    listed = [id(memory) for memory in ctx.runtime.memories().values()]
    assert len(set(listed)) == len(listed)
    other = AppContext.create(Settings(vault=ctx.vault.root, host="127.0.0.1", port=0, token=TOKEN))
    assert not {id(memory) for memory in other.runtime.memories().values()} & set(listed)
    assert list(other.runtime.memories()) == list(ctx.runtime.memories())
    for name in ctx.runtime.memories():
        assert name in (type(ctx.runtime).__doc__ or ""), name  # the docstring states its invalidation rule


def test_the_lifespan_closes_the_search_layers_and_the_audit_thread(client: tuple[TestClient, AppContext]) -> None:
    http, ctx = client
    (ctx.vault.root / ".harness").mkdir(exist_ok=True)
    with http:
        assert http.post("/v1/index/build").status_code == 200
        assert http.get("/v1/index/search", params={"q": "N1"}).json()["hits"]
        assert http.get("/v1/trust/audit", params={"today": "2026-12-02"}).status_code == 200
        assert ctx.runtime.sizes()["index_search"]["open_layers"] == 1
        thread = ctx.runtime.audit_thread.executor()
    assert ctx.runtime.sizes()["index_search"]["open_layers"] == 0
    assert thread._shutdown


def test_sizes_follow_the_audit_and_clear_forgets(
    client: tuple[TestClient, AppContext], caplog: pytest.LogCaptureFixture
) -> None:
    http, ctx = client
    ctx.runtime.clear()
    assert set(ctx.runtime.sizes()["audit"].values()) == {0}
    with caplog.at_level(logging.DEBUG, logger="knowledge_harness.api.routes.trust"):
        first = http.get("/v1/trust/audit", params={"today": "2026-12-02"})
    assert first.status_code == 200
    sizes = ctx.runtime.sizes()["audit"]
    assert sizes == {"note_facts": 4, "audit_reports": 1, "policies": 1, "audit_bodies": 1}
    assert "audit.note_facts=4 audit.audit_reports=1" in caplog.text
    (ctx.vault.root / "ノート0.md").unlink()
    http.get("/v1/trust/audit", params={"today": "2026-12-02"})
    assert ctx.runtime.sizes()["audit"]["note_facts"] == 3  # pruned to the notes on disk
    ctx.runtime.clear()
    assert set(ctx.runtime.sizes()["audit"].values()) == {0}
    assert ctx.runtime.sizes()["machine_config"] == {"machine_configs": 0}
    again = http.get("/v1/trust/audit", params={"today": "2026-12-02"})
    assert again.json() == http.get("/v1/trust/audit", params={"today": "2026-12-02"}).json()
    assert again.json()["raw"] == 3
