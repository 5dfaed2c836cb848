"""POST /v1/trust/badges against `kh serve` as a real subprocess: many badges in one request.

Each path's badge is the same object GET /v1/trust/notes/{path} answers; a path without a badge
lands in `errors` with the code the single route would give; more than the documented maximum is
refused as a whole (422), and the token is required.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from knowledge_harness.api.routes.trust import MAX_BADGE_PATHS
from tests.conftest import Sidecar, start_sidecar, stop_sidecar

KEYWORD = "---\ntitle: K\nprovenance:\n  source: web\n---\n# K\n\nSee https://example.org/k.\n"


@pytest.fixture
def server(tmp_path: Path) -> Sidecar:
    vault = tmp_path / "vault"
    (vault / "k").mkdir(parents=True)
    (vault / "k" / "one.md").write_text(KEYWORD, encoding="utf-8")
    (vault / "plain.md").write_text("# Plain\n\nA diary entry.\n", encoding="utf-8")
    (vault / "フォルダ").mkdir()
    (vault / "フォルダ" / "日本語.md").write_text("# 日本語\n", encoding="utf-8")
    running = start_sidecar(vault)
    yield running  # type: ignore[misc]
    stop_sidecar(running)


def test_batch_answers_each_path_like_the_single_badge_route(server: Sidecar) -> None:
    paths = ["k/one.md", "plain.md", "フォルダ/日本語.md"]
    with server.client() as client:
        batch = client.post("/v1/trust/badges", json={"paths": paths})
        assert batch.status_code == 200
        body = batch.json()
        assert body["errors"] == {}
        assert sorted(body["badges"]) == sorted(paths)
        for path in paths:
            single = client.get(f"/v1/trust/notes/{path}")
            assert body["badges"][path] == single.json()
    assert body["badges"]["plain.md"]["evidence_capable"] is False


def test_missing_and_rejected_paths_are_reported_per_path(server: Sidecar) -> None:
    with server.client() as client:
        body = client.post("/v1/trust/badges", json={"paths": ["plain.md", "gone.md", "../x.md", "plain.txt"]}).json()
        single_codes = {
            path: client.get(f"/v1/trust/notes/{path}").json()["error"]["code"] for path in ["gone.md", "plain.txt"]
        }
    assert list(body["badges"]) == ["plain.md"]
    assert body["errors"]["gone.md"]["code"] == single_codes["gone.md"] == "not_found"
    assert body["errors"]["plain.txt"]["code"] == single_codes["plain.txt"]
    assert body["errors"]["../x.md"]["code"] == "path_rejected"
    for error in body["errors"].values():
        assert error["message"]


def test_duplicates_are_answered_once_and_today_is_honoured(server: Sidecar) -> None:
    with server.client() as client:
        body = client.post("/v1/trust/badges", json={"paths": ["plain.md", "plain.md"], "today": "2030-01-01"}).json()
        single = client.get("/v1/trust/notes/plain.md", params={"today": "2030-01-01"}).json()
    assert body["badges"] == {"plain.md": single}


def test_more_than_the_maximum_is_refused_whole(server: Sidecar) -> None:
    with server.client() as client:
        at_limit = client.post("/v1/trust/badges", json={"paths": ["plain.md"] * MAX_BADGE_PATHS})
        over = client.post("/v1/trust/badges", json={"paths": ["plain.md"] * (MAX_BADGE_PATHS + 1)})
    assert at_limit.status_code == 200
    assert over.status_code == 422
    assert "error" in over.json()


def test_batch_needs_the_token(server: Sidecar) -> None:
    response = httpx.post(f"{server.url}/v1/trust/badges", json={"paths": ["plain.md"]})
    assert response.status_code == 401
