"""The HTTP API's guards on a real `kh serve` on loopback: token, Host check, CORS, body limit, the shutdown
route (the command's own options, refusals and exits are in tests/cli/test_serve.py)."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from tests.conftest import Sidecar, start_sidecar, stop_sidecar


@pytest.fixture
def server(small_vault: Path) -> Sidecar:
    running = start_sidecar(small_vault)
    yield running  # type: ignore[misc]
    stop_sidecar(running)


def test_health_needs_no_token(server: Sidecar) -> None:
    response = httpx.get(f"{server.url}/health")
    assert response.status_code == 200
    assert response.json()["status"] == "ok"
    assert response.json()["version"]


def test_notes_without_token_is_401_with_json_error(server: Sidecar) -> None:
    response = httpx.get(f"{server.url}/v1/notes")
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "unauthorized"


def test_notes_with_wrong_token_is_401(server: Sidecar) -> None:
    response = httpx.get(f"{server.url}/v1/notes", headers={"Authorization": "Bearer wrong-token-0123456789"})
    assert response.status_code == 401


def test_notes_with_token_lists_every_note(server: Sidecar) -> None:
    with server.client() as client:
        response = client.get("/v1/notes")
    assert response.status_code == 200
    body = response.json()
    assert [n["path"] for n in body["notes"]] == ["a.md", "フォルダ/日本語.md"]
    assert body["total"] == 2
    assert body["next_cursor"] is None


def test_openapi_document_needs_the_token(server: Sidecar) -> None:
    assert httpx.get(f"{server.url}/openapi.json").status_code == 401
    with server.client() as client:
        assert client.get("/openapi.json").json()["info"]["title"] == "Knowledge Harness sidecar"


def test_foreign_host_header_is_421(server: Sidecar) -> None:
    response = httpx.get(f"{server.url}/health", headers={"Host": "evil.example"})
    assert response.status_code == 421
    with server.client() as client:
        assert client.get("/v1/notes", headers={"Host": "evil.example"}).status_code == 421


def test_loopback_host_with_another_port_is_421(server: Sidecar) -> None:
    response = httpx.get(f"{server.url}/health", headers={"Host": f"127.0.0.1:{server.port + 1}"})
    assert response.status_code == 421


def test_localhost_host_name_is_accepted(server: Sidecar) -> None:
    response = httpx.get(f"{server.url}/health", headers={"Host": f"localhost:{server.port}"})
    assert response.status_code == 200


def test_obsidian_origin_gets_cors_headers(server: Sidecar) -> None:
    response = httpx.get(f"{server.url}/health", headers={"Origin": "app://obsidian.md"})
    assert response.headers["access-control-allow-origin"] == "app://obsidian.md"
    preflight = httpx.options(
        f"{server.url}/v1/notes",
        headers={"Origin": "app://obsidian.md", "Access-Control-Request-Method": "GET"},
    )
    assert preflight.status_code == 204
    assert "Authorization" in preflight.headers["access-control-allow-headers"]


def test_other_origins_get_no_cors_headers(server: Sidecar) -> None:
    response = httpx.get(f"{server.url}/health", headers={"Origin": "https://evil.example"})
    assert "access-control-allow-origin" not in response.headers
    preflight = httpx.options(f"{server.url}/v1/notes", headers={"Origin": "https://evil.example"})
    assert preflight.status_code == 403
    assert "access-control-allow-origin" not in preflight.headers


def test_oversized_body_is_413_and_server_keeps_serving(server: Sidecar) -> None:
    with server.client() as client:
        response = client.post("/v1/shutdown", content=b"x" * (3 * 1024 * 1024))
        assert response.status_code == 413
        assert response.json()["error"]["code"] == "payload_too_large"

        def chunks():  # no Content-Length: the limit is enforced while reading
            for _ in range(40):
                yield b"y" * 100_000

        response = client.post("/v1/shutdown", content=chunks())
        assert response.status_code == 413
        assert client.get("/v1/notes").status_code == 200


def test_unknown_route_answers_in_the_error_shape(server: Sidecar) -> None:
    with server.client() as client:
        response = client.get("/v1/nothing-here")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_shutdown_endpoint_stops_the_server(small_vault: Path) -> None:
    running = start_sidecar(small_vault)
    with running.client() as client:
        assert client.post("/v1/shutdown").status_code == 202
    assert running.process.wait(timeout=15) == 0
    stop_sidecar(running)
