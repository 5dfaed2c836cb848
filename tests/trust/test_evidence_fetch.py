"""Evidence fetching against a real local evidence site with hostile pages (tests/support/evidence_site.py)."""

from __future__ import annotations

import datetime as dt
import gc
import ipaddress
import multiprocessing
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from knowledge_harness.trust.policy import EvidencePolicy, Policy
from knowledge_harness.trust.validate.evidence import FetchedPage, Fetcher, blocked_reason, decode_body, host_allowed
from knowledge_harness.trust.validate.extraction import (
    MAX_IDLE,
    ExtractionFailed,
    ExtractionPool,
    acquire_worker,
    extract_in_worker,
)
from knowledge_harness.trust.validate.snapshots import EvidenceStore
from knowledge_harness.trust.validate.validation_service import collect_evidence
from knowledge_harness.vault.paths import Vault
from tests.support.evidence_site import EvidenceSite

# the fetch timeout: the slow pages outlast it, the normal ones (a new extraction worker included) must not,
# also on a loaded two-core machine, where a 1-second timeout once cut a normal page short
TIMEOUT = 3.0


@pytest.fixture(scope="module")
def site() -> Iterator[EvidenceSite]:
    running = EvidenceSite(slow_seconds=TIMEOUT + 2).start()
    try:
        yield running
    finally:
        running.stop()


def _policy(site: EvidenceSite, **kw: object) -> EvidencePolicy:
    base: dict[str, object] = {
        "allow_private_hosts": [site.allow_entry],
        "timeout_seconds": TIMEOUT,
        "max_bytes": 1024 * 1024,
    }
    base.update(kw)
    return EvidencePolicy.model_validate(base)


def _fetch(site: EvidenceSite, path: str, *, workers: ExtractionPool | None = None, **kw: object) -> FetchedPage:
    fetcher = Fetcher(_policy(site, **kw), backoff_seconds=0.05, workers=workers)

    async def run() -> FetchedPage:
        return await fetcher.fetch(site.url + path)

    return anyio.run(run)


@pytest.mark.parametrize(
    ("path", "needle", "charset"),
    [
        ("/ja/fuji", "標高は3776メートル", "utf-8"),
        ("/en/fuji", "It is 3,776 metres high", "utf-8"),
        ("/ja/sjis", "高さは333メートル", "cp932"),
        ("/ja/sjis-meta", "豊臣秀吉", "cp932"),
        ("/ja/eucjp", "日本最大の湖", None),
        ("/plain", "The Shinkansen began service in 1964.", "utf-8"),
        ("/gzip", "highest mountain in Japan", "utf-8"),
        ("/to-fuji", "highest mountain in Japan", "utf-8"),
    ],
)
def test_pages_are_fetched_decoded_and_extracted(
    site: EvidenceSite, path: str, needle: str, charset: str | None
) -> None:
    page = _fetch(site, path)
    assert page.ok, page.message
    assert page.text is not None and needle in page.text
    if charset:
        assert page.charset == charset
    assert page.sha256 and len(page.sha256) == 64
    assert "ホーム | 山の事典" not in page.text  # boilerplate navigation dropped


def test_title_final_url_and_published_date(site: EvidenceSite) -> None:
    page = _fetch(site, "/ja/fuji")
    assert page.title == "富士山"
    assert page.published == "2024-05-01"
    redirected = _fetch(site, "/to-fuji")
    assert redirected.final_url == site.url + "/en/fuji"


@pytest.mark.parametrize(
    ("path", "error"),
    [
        ("/404", "http_404"),
        ("/slow", "timeout"),
        ("/endless", "too_large"),
        ("/bomb", "too_large"),
        ("/loop", "too_many_redirects"),
        ("/to-metadata", "blocked_address"),
        ("/to-loopback", "blocked_address"),
        ("/binary", "binary_content"),
        ("/empty", "empty"),
        ("/pdf", "unsupported_content_type"),
    ],
)
def test_hostile_pages_fail_cleanly(site: EvidenceSite, path: str, error: str) -> None:
    page = _fetch(site, path)
    assert not page.ok
    assert page.error == error, page.message
    assert page.message


def test_404_is_not_retried(site: EvidenceSite) -> None:
    assert _fetch(site, "/404").attempts == 1


def test_502_then_200_is_retried(site: EvidenceSite) -> None:
    page = _fetch(site, "/flaky")
    assert page.ok and page.attempts == 2


def test_always_503_gives_up_after_two_retries(site: EvidenceSite) -> None:
    before = site.hits.get("/always503", 0)
    page = _fetch(site, "/always503")
    assert page.error == "http_503" and page.attempts == 3
    assert site.hits["/always503"] - before == 3


def test_not_allow_listed_site_is_refused(site: EvidenceSite) -> None:
    page = _fetch(site, "/en/fuji", allow_private_hosts=[])
    assert page.error == "blocked_address"
    assert "loopback" in (page.message or "")
    other_port = _fetch(site, "/en/fuji", allow_private_hosts=["127.0.0.1:1"])
    assert other_port.error == "blocked_address"


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1",
        "10.1.2.3",
        "172.16.0.1",
        "192.168.1.1",
        "169.254.169.254",
        "100.64.0.1",
        "100.100.100.200",
        "224.0.0.1",
        "0.0.0.0",
        "::1",
        "::",
        "fe80::1",
        "fc00::1",
        "fd00:ec2::254",
        "ff02::1",
        "::ffff:127.0.0.1",
        "::ffff:169.254.169.254",
        "64:ff9b::a00:1",
        "2002:7f00:1::",
    ],
)
def test_guard_refuses_non_public_addresses(address: str) -> None:
    assert blocked_reason(ipaddress.ip_address(address)) is not None


@pytest.mark.parametrize("address", ["93.184.216.34", "8.8.8.8", "2606:4700:4700::1111"])
def test_guard_allows_public_addresses(address: str) -> None:
    assert blocked_reason(ipaddress.ip_address(address)) is None


def test_allow_list_entries() -> None:
    assert host_allowed(["127.0.0.1:8731"], "127.0.0.1", 8731)
    assert not host_allowed(["127.0.0.1:8731"], "127.0.0.1", 8732)
    assert host_allowed(["localhost"], "LOCALHOST", 80)
    assert host_allowed(["[::1]:9000"], "::1", 9000)


@pytest.mark.parametrize(
    "url", ["file:///etc/passwd", "ftp://example.org/", "http://user:pw@example.org/", "http:///x"]
)
def test_invalid_urls(url: str) -> None:
    fetcher = Fetcher(EvidencePolicy())

    async def run() -> FetchedPage:
        return await fetcher.fetch(url)

    assert anyio.run(run).error == "invalid_url"


def test_charset_detection_without_declaration() -> None:
    text = "日本語の文章です。東京タワーは1958年に完成した。" * 5
    for enc in ("shift_jis", "euc_jp", "utf-8"):
        decoded, _ = decode_body(text.encode(enc), None)
        assert decoded == text


def test_fetch_all_keeps_order_and_mixes_results(site: EvidenceSite) -> None:
    fetcher = Fetcher(_policy(site), backoff_seconds=0.05)
    urls = [site.url + p for p in ("/en/fuji", "/404", "/ja/fuji", "/to-metadata")]

    async def run() -> list[FetchedPage]:
        return await fetcher.fetch_all(urls)

    pages = anyio.run(run)
    assert [p.url for p in pages] == urls
    assert [p.ok for p in pages] == [True, False, True, False]


def test_snapshots_are_content_addressed_and_reused(site: EvidenceSite, tmp_path: Path) -> None:
    vault = Vault.open(tmp_path)
    policy = Policy.model_validate({"evidence": _policy(site).model_dump()})
    urls = [site.url + "/ja/fuji", site.url + "/404"]

    async def run() -> tuple[list[FetchedPage], list[str]]:
        return await collect_evidence(vault, urls, policy, backoff_seconds=0.05)

    pages, written = anyio.run(run)
    sha = pages[0].sha256
    assert sha and f".harness/evidence/{sha}.txt" in written and f".harness/evidence/{sha}.json" in written
    assert (tmp_path / ".harness/evidence" / f"{sha}.txt").read_text(encoding="utf-8") == pages[0].text
    record = EvidenceStore(vault).lookup(urls[0], max_age=dt.timedelta(days=7))
    assert record is not None
    assert {"url", "final_url", "status", "fetched_at", "content_type", "sha256", "title", "bytes"} <= set(record[0])
    hits = site.hits["/ja/fuji"]
    again, written_again = anyio.run(run)
    assert again[0].reused and again[0].text == pages[0].text and written_again == []
    assert site.hits["/ja/fuji"] == hits  # served from the snapshot
    assert not again[1].ok  # a failure is never snapshotted, so it is fetched again
    later = dt.datetime.now(dt.UTC) + dt.timedelta(days=8)
    assert EvidenceStore(vault).lookup(urls[0], max_age=dt.timedelta(days=7), now=later) is None


def test_slow_extraction_is_stopped_at_the_fetch_timeout_and_the_worker_killed(site: EvidenceSite) -> None:
    """/links takes many seconds to extract: the worker process is killed when the timeout runs out."""
    gc.collect()  # other tests' fetchers, and with them their pools' idle workers, are gone
    workers = ExtractionPool()
    policy = _policy(site, max_bytes=5 * 1024 * 1024)
    urls = [site.url + "/links", site.url + "/en/fuji"]

    async def run() -> list[FetchedPage]:
        return await Fetcher(policy, backoff_seconds=0.05, workers=workers).fetch_all(urls)

    links, fuji = anyio.run(run)
    assert links.error == "extract_timeout", links.message
    assert links.message and "was stopped" in links.message
    assert links.text is None and links.attempts == 1  # not retried
    assert fuji.ok and "3,776 metres" in (fuji.text or "")
    # the killed worker is gone; only idle workers remain, and they still extract
    assert len(multiprocessing.active_children()) <= MAX_IDLE
    assert workers.idle() == len(multiprocessing.active_children())
    assert _fetch(site, "/ja/fuji", workers=workers).ok
    workers.close()
    assert workers.idle() == 0 and multiprocessing.active_children() == []


def test_a_fetchers_own_workers_end_with_it(site: EvidenceSite) -> None:
    gc.collect()
    assert _fetch(site, "/en/fuji").ok  # its fetcher, and the pool it made, are gone after the call
    gc.collect()
    assert multiprocessing.active_children() == []


def test_a_worker_that_dies_fails_its_page_and_the_next_page_gets_a_new_one(site: EvidenceSite) -> None:
    workers = ExtractionPool()

    async def run() -> tuple[str, str | None]:
        worker = await acquire_worker(workers)
        worker.process.kill()
        worker.process.join()
        try:
            await extract_in_worker(workers, worker, "<html><body><p>text</p></body></html>", None)
        except ExtractionFailed as failure:
            return "failed", failure.message
        return "ok", None

    status, message = anyio.run(run)
    assert status == "failed" and message == "The text extraction worker stopped unexpectedly."
    assert workers.idle() == 0  # the dead worker did not go back
    assert _fetch(site, "/en/fuji", workers=workers).ok
    workers.close()
