"""The badge and audit routes' fast paths give the same answers as the plain computations.

In process (Starlette's TestClient, no lifespan): the badge is served from the catalog's cache
and serialized straight from the model; an audit report is reused only while the policy, the
day, the threshold and every note's (size, mtime) are unchanged.
"""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from knowledge_harness.api.app import create_app
from knowledge_harness.api.context import AppContext
from knowledge_harness.settings import Settings
from knowledge_harness.trust.audit.audit import Auditor, current_policy, note_badge, run_audit
from knowledge_harness.trust.policy import load_policy
from knowledge_harness.vault.catalog import NoteCatalog
from knowledge_harness.vault.paths import Vault

TOKEN = "fast-path-token-0123456789abcdef"
KEYWORD = "---\ntitle: K{n}\nprovenance:\n  source: web\n---\n# K{n}\n\nSee https://example.org/{n}.\n"
PLAIN = "# Plain\n\nNo provenance.\n"


def _touch_later(path: Path) -> None:
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    (root / "k").mkdir(parents=True)
    for n in range(3):
        (root / "k" / f"{n}.md").write_text(KEYWORD.format(n=n), encoding="utf-8")
    (root / "plain.md").write_text(PLAIN, encoding="utf-8")
    (root / "日本語.md").write_text("# 日本語\n", encoding="utf-8")
    return root


def _client(vault: Path) -> tuple[TestClient, AppContext]:
    settings = Settings(vault=vault, host="127.0.0.1", port=0, token=TOKEN)
    ctx = AppContext.create(settings)
    app = create_app(settings, ctx)
    client = TestClient(app, base_url="http://127.0.0.1", headers={"Authorization": f"Bearer {TOKEN}"})
    return client, ctx


@pytest.mark.parametrize("path", ["k/0.md", "plain.md", "日本語.md"])
def test_badge_body_is_the_models_json(vault: Path, path: str) -> None:
    client, ctx = _client(vault)
    response = client.get(f"/v1/trust/notes/{path}")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    expected = note_badge(ctx.catalog, load_policy(vault), path).model_dump(mode="json")
    assert response.json() == expected
    dated = client.get(f"/v1/trust/notes/{path}", params={"today": "2030-01-01"})
    assert dated.json() == note_badge(ctx.catalog, load_policy(vault), path, today=dt.date(2030, 1, 1)).model_dump(
        mode="json"
    )


def test_badge_sees_an_edit_and_keeps_its_errors(vault: Path) -> None:
    client, _ = _client(vault)
    assert client.get("/v1/trust/notes/plain.md").json()["keyword"] is False
    (vault / "plain.md").write_text(KEYWORD.format(n=9), encoding="utf-8")
    _touch_later(vault / "plain.md")
    assert client.get("/v1/trust/notes/plain.md").json()["keyword"] is True
    missing = client.get("/v1/trust/notes/nope.md")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"
    assert client.get("/v1/trust/notes/plain.txt").status_code == 400
    assert client.get("/v1/trust/notes/plain.md", params={"today": "not-a-date"}).status_code == 422


def test_audit_route_matches_run_audit_and_follows_edits(vault: Path) -> None:
    client, _ = _client(vault)
    first = client.get("/v1/trust/audit")
    assert first.status_code == 200 and first.headers["content-type"] == "application/json"
    fresh = run_audit(NoteCatalog(Vault.open(vault)), load_policy(vault)).model_dump(mode="json")
    assert first.json() == fresh and fresh["raw"] == 3
    (vault / "k" / "3.md").write_text(KEYWORD.format(n=3), encoding="utf-8")
    assert client.get("/v1/trust/audit").json()["raw"] == 4
    assert client.get("/v1/trust/audit", params={"today": "2031-02-03"}).json()["today"] == "2031-02-03"
    assert client.get("/v1/trust/audit", params={"threshold": 0.5}).json()["threshold"] == 0.5


def test_run_audit_reuses_a_report_only_while_nothing_changed(vault: Path) -> None:
    catalog = NoteCatalog(Vault.open(vault))
    auditor = Auditor(catalog)  # the sidecar's: it keeps the parsed policy
    policy = current_policy(vault, auditor=auditor)
    day = dt.date(2026, 6, 1)
    report = run_audit(catalog, policy, today=day)
    assert run_audit(catalog, policy, today=day) is report
    assert run_audit(catalog, policy, today=day + dt.timedelta(days=1)) is not report
    again = run_audit(catalog, policy, today=day)
    assert again == report and run_audit(catalog, policy, today=day) is again

    note = vault / "k" / "1.md"
    note.write_text(PLAIN, encoding="utf-8")  # same day, same policy: a note changed
    _touch_later(note)
    edited = run_audit(catalog, policy, today=day)
    assert edited is not again and edited.raw == 2

    (vault / "k" / "1.md").unlink()
    assert run_audit(catalog, policy, today=day) is not edited
    removed = run_audit(catalog, policy, today=day)
    (vault / "new.md").write_text(KEYWORD.format(n=7), encoding="utf-8")
    added = run_audit(catalog, policy, today=day)
    assert added is not removed and added.raw == removed.raw + 1

    (vault / ".harness").mkdir()
    (vault / ".harness" / "policy.toml").write_text("threshold = 0.5\n", encoding="utf-8")
    changed = current_policy(vault, auditor=auditor)
    assert changed.threshold == 0.5 and changed is current_policy(vault, auditor=auditor)
    assert run_audit(catalog, changed, today=day).threshold == 0.5


def test_current_policy_follows_the_file(vault: Path) -> None:
    auditor = Auditor(NoteCatalog(Vault.open(vault)))
    default = current_policy(vault, auditor=auditor)
    assert default == load_policy(vault) and current_policy(vault, auditor=auditor) is default
    (vault / ".harness").mkdir()
    policy_file = vault / ".harness" / "policy.toml"
    policy_file.write_text("threshold = 0.25\n", encoding="utf-8")
    assert current_policy(vault, auditor=auditor).threshold == 0.25
    policy_file.write_text("threshold = 0.75\n", encoding="utf-8")  # same size, same mtime tick
    assert current_policy(vault, auditor=auditor).threshold == 0.75
    policy_file.write_text("nonsense = [\n", encoding="utf-8")
    with pytest.raises(Exception, match="not valid TOML"):
        current_policy(vault, auditor=auditor)
    policy_file.unlink()
    assert current_policy(vault, auditor=auditor) == default
    assert current_policy(vault) == default and current_policy(vault) is not current_policy(vault)  # none kept


def test_cors_and_body_handling_unchanged_in_process(vault: Path) -> None:
    client, _ = _client(vault)
    origin = "app://obsidian.md"
    with_origin = client.get("/v1/trust/notes/k/0.md", headers={"Origin": origin})
    assert with_origin.status_code == 200
    assert with_origin.headers["access-control-allow-origin"] == origin
    assert "access-control-allow-origin" not in client.get("/v1/trust/notes/k/0.md").headers
    assert client.get("/v1/trust/notes/k/0.md", headers={"Host": "evil.example"}).status_code == 421
    assert client.get("/v1/trust/notes/k/0.md", headers={"Authorization": "Bearer nope"}).status_code == 401

    def chunks():  # no Content-Length: the limit is enforced while reading
        for _ in range(3000):
            yield b"x" * 1024

    assert client.post("/v1/validate", content=chunks()).status_code == 413
