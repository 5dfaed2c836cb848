"""Hostile evidence against a real `kh serve` and `kh validate`: pages whose text is too slow to
extract, and notes citing more text than one validation may judge. Each is a per-note reason;
the sidecar keeps answering and a batch plan still plans the other notes."""

from __future__ import annotations

import os
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import KH, Sidecar, start_sidecar, stop_sidecar
from tests.support.evidence_site import EvidenceSite

GOOD = "Keywords/Fuji.md"
BIG = "Keywords/Big.md"
SLOW = "Keywords/Slow.md"


@pytest.fixture(scope="module")
def site() -> Iterator[EvidenceSite]:
    running = EvidenceSite().start()
    try:
        yield running
    finally:
        running.stop()


def _note(title: str, text: str, urls: list[str]) -> str:
    refs = "".join(f"  - {u}\n" for u in urls)
    return f"---\nprovenance: {{origin: ai_generated}}\nreferences:\n{refs}---\n# {title}\n\n{text}\n"


def _vault(root: Path, site: EvidenceSite) -> Path:
    (root / ".harness").mkdir(parents=True)
    (root / ".harness/policy.toml").write_text("[evidence]\ntimeout_seconds = 2\n", encoding="utf-8")
    (root.parent / "machine-config.toml").write_text(  # only the machine configuration allows a private host
        f'[evidence]\nallow_private_hosts = ["{site.allow_entry}"]\n', encoding="utf-8"
    )
    (root / "Keywords").mkdir()
    fuji = "Mount Fuji is 3,776 metres high. It is the highest mountain in Japan."
    (root / GOOD).write_text(_note("Fuji", fuji, [f"{site.url}/en/fuji"]), encoding="utf-8")
    big = [f"{site.url}/big/{n}" for n in range(6)]
    (root / BIG).write_text(_note("Big", "Mountains and lakes fill space.", big), encoding="utf-8")
    slow = [f"{site.url}/links", f"{site.url}/en/fuji"]
    (root / SLOW).write_text(_note("Slow", fuji, slow), encoding="utf-8")
    return root


def _machine(vault: Path) -> dict[str, str]:
    return {"KH_CONFIG": str(vault.parent / "machine-config.toml")}


@pytest.fixture(scope="module")
def served(site: EvidenceSite, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sidecar]:
    vault = _vault(tmp_path_factory.mktemp("hostile") / "vault", site)
    running = start_sidecar(vault, env=_machine(vault))
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


def test_kh_validate_prints_one_line_and_no_traceback(served: Sidecar) -> None:
    result = subprocess.run(
        [str(KH), "validate", str(served.vault), BIG, "--dry-run"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, **_machine(served.vault)},
    )
    assert result.returncode == 2, result.stdout
    assert "Traceback" not in result.stderr and "ValidationError" not in result.stderr
    [line] = result.stderr.strip().splitlines()
    assert line.startswith("kh: The note's 6 cited pages hold ") and "(evidence_too_large)" in line


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
    (served.vault / MIXED).write_text(_note("Mixed", text, [f"{site.url}/en/fuji"]), encoding="utf-8")
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
