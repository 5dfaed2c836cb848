"""O-04 against real local HTTP servers: a stand-in speaking SearXNG's JSON API and evidence pages."""

from __future__ import annotations

from pathlib import Path

from knowledge_harness.pipeline.contract import State
from knowledge_harness.pipeline.engine import Pipeline
from knowledge_harness.vault.paths import Vault

from ..support.people import PERSON
from ..support.pipeline_helpers import html_page, local_server, request_note, searxng_json, write_configs, write_note

QUESTION = "Obsidian のプロパティは YAML 1.2 として読まれるのか知りたい。"


def _authorized_run(vault: Path) -> tuple[Pipeline, str]:
    write_note(vault, "Requests/q.md", request_note(QUESTION))
    p = Pipeline(Vault.open(vault))
    run_id = p.capture_note("Requests/q.md").run_id
    p.authorize(run_id, actor=PERSON)
    return p, run_id


def test_web_search_classification_dedupe_domain_cap_and_metrics(tmp_path: Path) -> None:
    vault = tmp_path / "v"
    queries: list[str] = []

    def pages(path: str, q: dict[str, list[str]], body: bytes) -> tuple[int, str, bytes]:
        if path.startswith("/same"):
            return 200, "text/html", html_page("Same", "YAML 1.2 core schema の説明。同じ本文。")
        if path.startswith("/gone"):
            return 404, "text/plain", b"gone"
        return 200, "text/html", html_page(f"Page {path}", f"YAML 1.2 の真偽値の説明 {path}")

    with local_server(pages) as site:

        def search(path: str, q: dict[str, list[str]], body: bytes) -> tuple[int, str, bytes]:
            queries.append(q.get("q", [""])[0])
            results = [{"url": site.url(f"/p{i}"), "title": f"P{i}", "content": "snippet"} for i in range(1, 6)]
            results += [
                {"url": site.url("/same-a"), "title": "A", "content": ""},
                {"url": site.url("/same-b"), "title": "B", "content": ""},
                {"url": site.url("/p1?utm_source=x"), "title": "dup url", "content": ""},
                {"url": site.url("/c1", host="localhost"), "title": "C1", "content": ""},
                {"url": site.url("/gone", host="localhost"), "title": "Gone", "content": ""},
            ]
            return 200, "application/json", searxng_json(results)

        with local_server(search) as searx:
            write_configs(
                vault,
                pipeline_toml=(
                    '[evidence]\nproviders = []\nprimary_domains = ["127.0.0.1"]\ncommunity_domains = ["localhost"]\n'
                ),
                allow=[f"127.0.0.1:{site.port}", f"localhost:{site.port}"],
                searxng_url=searx.url(""),
            )
            p, run_id = _authorized_run(vault)
            status = p.advance(run_id)
    assert status.state == State.EVIDENCE_READY, status.records[-1]
    o04 = status.records[-1]
    evidence = p.artifact(run_id, "evidence_set")
    classes = [(s["domain"], s["source_class"]) for s in evidence["sources"]]
    assert classes.count(("127.0.0.1", "primary")) == 3  # per-domain cap
    assert ("localhost", "community") in classes
    assert {"DOMAIN_CAP_APPLIED", "DUPLICATES_REMOVED", "FETCH_FAILED", "EVIDENCE_COLLECTED"} <= set(
        o04["reason_codes"]
    )
    m = evidence["metrics"]
    assert m["searches"] <= 12 and len(queries) == m["searches"]
    assert m["adopted"] == len(evidence["sources"]) <= 12
    assert m["duplicates"] >= 1 and m["unreachable"] >= 1
    assert any("取得不能" in u["item"] for u in o04["uncertainties"])
    assert all(s["url"] and s["fetched_at"] for s in evidence["sources"])


def test_fetch_limit_of_twenty(tmp_path: Path) -> None:
    vault = tmp_path / "v"

    def pages(path: str, q: dict[str, list[str]], body: bytes) -> tuple[int, str, bytes]:
        if path.startswith("/bad"):
            return 404, "text/plain", b""
        return 200, "text/html", html_page(path, f"本文 {path}")

    with local_server(pages) as site:
        results = [{"url": site.url(f"/bad{i}"), "title": "x", "content": ""} for i in range(25)]
        results += [{"url": site.url(f"/ok{i}"), "title": "x", "content": ""} for i in range(5)]

        with local_server(lambda path, q, body: (200, "application/json", searxng_json(results))) as searx:
            write_configs(
                vault,
                pipeline_toml="[evidence]\nproviders = []\nper_domain = 50\n",
                allow=[f"127.0.0.1:{site.port}"],
                searxng_url=searx.url(""),
            )
            p, run_id = _authorized_run(vault)
            status = p.advance(run_id)
    m = p.artifact(run_id, "evidence_set")["metrics"]
    assert m["fetched_urls"] == 20
    assert status.state == State.HOLD  # 20 fetches, all 404: nothing at all
    assert status.records[-2]["reason_codes"][0] == "EVIDENCE_NONE"
    assert "LIMIT_REACHED" in status.records[-2]["reason_codes"]


def test_no_evidence_at_all_holds(tmp_path: Path) -> None:
    vault = tmp_path / "v"
    with local_server(lambda path, q, body: (200, "application/json", searxng_json([]))) as searx:
        write_configs(vault, pipeline_toml='[evidence]\nproviders = ["vault"]\n', searxng_url=searx.url(""))
        p, run_id = _authorized_run(vault)
        status = p.advance(run_id)
    assert status.state == State.HOLD
    assert [(r["operation"], r["result"]) for r in status.records][-2:] == [("O-04", "HOLD"), ("O-13", "HOLD")]
    assert status.records[-2]["reason_codes"][0] == "EVIDENCE_NONE"
    assert status.waiting_for is None


def test_transient_failure_is_retryable_then_resumes(tmp_path: Path) -> None:
    vault = tmp_path / "v"
    calls = {"n": 0}

    def flaky(path: str, q: dict[str, list[str]], body: bytes) -> tuple[int, str, bytes]:
        calls["n"] += 1
        if calls["n"] <= 3:  # first try + 2 retries fail
            return 503, "text/plain", b"busy"
        return 200, "text/html", html_page("Docs", "YAML 1.2 core schema の真偽値は true/false だけ。")

    with local_server(flaky) as site:
        results = [{"url": site.url("/doc"), "title": "Docs", "content": "snippet"}]
        with local_server(lambda path, q, body: (200, "application/json", searxng_json(results))) as searx:
            write_configs(
                vault,
                pipeline_toml="[evidence]\nproviders = []\n",
                allow=[f"127.0.0.1:{site.port}"],
                searxng_url=searx.url(""),
            )
            p, run_id = _authorized_run(vault)
            first = p.advance(run_id)
            assert first.state == State.SCREENED
            assert first.records[-1]["result"] == "RETRYABLE_ERROR"
            assert first.waiting_for == "retry:O-04"
            assert calls["n"] == 3  # one try and two retries
            resumed = p.advance(run_id)
    assert resumed.state == State.EVIDENCE_READY
    o04s = [r for r in resumed.records if r["operation"] == "O-04"]
    assert [r["result"] for r in o04s] == ["RETRYABLE_ERROR", "ADVANCE"]
    assert resumed.waiting_for is not None and resumed.waiting_for.startswith("agent:O-05")
