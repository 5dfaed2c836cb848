"""Hostile evidence against a real `kh serve`: pages whose text is too slow to extract, and notes citing
more text than one validation may judge. Each is a per-note reason; the sidecar keeps answering and a
batch plan still plans the other notes (`kh validate` on the same notes: tests/cli/test_validate.py)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import Sidecar, start_sidecar, stop_sidecar
from tests.support.evidence_site import EvidenceSite
from tests.support.hostile_evidence import (
    BIG,
    GOOD,
    MALFORMED,
    SLOW,
    machine_config_env,
    note_citing,
    write_hostile_vault,
)


@pytest.fixture(scope="module")
def site() -> Iterator[EvidenceSite]:
    with EvidenceSite() as running:
        yield running


@pytest.fixture(scope="module")
def served(site: EvidenceSite, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sidecar]:
    vault = write_hostile_vault(tmp_path_factory.mktemp("hostile") / "vault", site)
    running = start_sidecar(vault, env=machine_config_env(vault))
    try:
        yield running
    finally:
        stop_sidecar(running)


def _notes(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*.md")}


def test_too_much_evidence_is_a_per_note_reason_not_an_internal_error(served: Sidecar) -> None:
    before = _notes(served.vault)
    with served.client() as client:
        r = client.post(f"/v1/trust/notes/{BIG}/validate", params={"dry_run": "true"})
        assert r.status_code == 422, r.text
        error = r.json()["error"]
        assert error["code"] == "evidence_too_large"
        assert "6 cited pages hold" in error["message"] and "5,000,000" in error["message"]
        assert error["detail"]["characters"] > error["detail"]["limit"] == 5_000_000
        assert client.get("/health").status_code == 200
        assert client.post(f"/v1/trust/notes/{GOOD}/validate", params={"dry_run": "true"}).status_code == 200
    assert _notes(served.vault) == before


def test_a_plan_with_one_note_over_the_limit_plans_the_others(served: Sidecar) -> None:
    with served.client() as client:
        r = client.post("/v1/batches", json={"stage": "pilot", "notes": [BIG, GOOD], "out_of_order": True})
    assert r.status_code == 200, r.text
    plan = r.json()
    assert [t["path"] for t in plan["targets"]] == [GOOD]
    [skip] = plan["skipped"]
    assert skip["path"] == BIG and "(evidence_too_large)" in skip["reason"]


def test_a_page_too_slow_to_extract_fails_alone_while_the_sidecar_answers(served: Sidecar) -> None:
    answers: list[int] = []
    done = threading.Event()

    def poll_health() -> None:
        with httpx.Client(base_url=served.url, timeout=30) as health:
            while not done.is_set():
                answers.append(health.get("/health").status_code)
                done.wait(0.1)

    poller = threading.Thread(target=poll_health)
    poller.start()
    try:
        with served.client() as client:
            r = client.post(f"/v1/trust/notes/{SLOW}/validate", params={"dry_run": "true"})
    finally:
        done.set()
        poller.join()
    assert r.status_code == 200, r.text
    sources = {s["url"].rsplit("/", 1)[-1]: s for s in r.json()["sources"]}
    assert sources["links"]["ok"] is False and sources["links"]["error"] == "extract_timeout"
    assert sources["links"]["verdict"] == "fetch_failed"
    assert sources["fuji"]["ok"] is True
    assert answers and set(answers) == {200}  # /health answered all along (its latency: bench, not here)


MIXED = "Keywords/Mixed.md"


def test_a_source_is_supported_only_when_all_its_claims_are(served: Sidecar, site: EvidenceSite) -> None:
    text = "Mount Fuji is 3,776 metres high.\n\nMount Fuji is a giant cake made of cheese and chocolate."
    (served.vault / MIXED).write_text(note_citing("Mixed", text, [f"{site.url}/en/fuji"]), encoding="utf-8")
    with served.client() as client:
        r = client.post(f"/v1/trust/notes/{MIXED}/validate", params={"dry_run": "true"})
    assert r.status_code == 200, r.text
    report = r.json()
    verdicts = sorted(f["verdict"] for f in report["findings"] if f["source_id"] == "s1")
    assert verdicts == ["supported", "unsupported"], report["findings"]
    [source] = report["sources"]
    assert source["verdict"] == "unsupported"
    [proposed] = report["proposed"]["evidence"]["sources"]
    assert proposed["verdict"] == "unsupported"


def test_malformed_redirects_and_heads_are_a_per_note_finding(served: Sidecar) -> None:
    """Red-team item 3: `302 Location: http:\\\\x` (and `https:\\x`, a broken IPv6 host, a bad head)
    answered 500 on the dry run and on the whole `POST /v1/batches`."""
    before = _notes(served.vault)
    with served.client() as client:
        r = client.post(f"/v1/trust/notes/{MALFORMED}/validate", params={"dry_run": "true"})
        assert r.status_code == 200, r.text
        report = r.json()
        errors = {
            s["url"].rsplit("/", 2)[-2] + "/" + s["url"].rsplit("/", 1)[-1]: s["error"] for s in report["sources"]
        }
        assert errors["bad-location/0"] == errors["bad-location/1"] == "invalid_redirect"  # http:\\\\x, https:\\x
        assert errors["bad-location/3"] == errors["bad-location/6"] == "invalid_redirect"
        assert all(not s["ok"] and s["message"] for s in report["sources"])
        assert report["proposed"]["evidence"]["status"] == "unreachable"
        assert client.get("/health").status_code == 200
        plan = client.post("/v1/batches", json={"stage": "pilot", "notes": [MALFORMED, GOOD], "out_of_order": True})
    assert plan.status_code == 200, plan.text
    body = plan.json()
    assert [t["path"] for t in body["targets"]] == [GOOD]  # the other note's plan is intact
    assert body["targets"][0]["proposed"]["evidence"]["status"] == "grounded"
    [skip] = body["skipped"]
    assert skip["path"] == MALFORMED and "(evidence_unreachable)" in skip["reason"]
    assert "invalid_redirect" in skip["reason"] and "malformed address" in skip["reason"]
    assert _notes(served.vault) == before
