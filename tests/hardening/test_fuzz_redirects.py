"""Fuzzing the fetcher's redirect handling (red-team item 3: `302 Location: http:\\\\x` gave 500).

`redirect_target` either refuses a Location (FetchFailure `invalid_redirect`) or returns an
http(s) URL with a host that httpx builds a request for; and a real loopback server answering
`302` with arbitrary Location bytes only ever gives the fetcher a page with an error code and a
reason, never an exception. Short under `make test`, long under `make fuzz`.

The only stand-in: host names other than 127.0.0.1 do not resolve (no DNS lookups from tests).
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import anyio
import httpx
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from knowledge_harness.trust.policy import EvidencePolicy
from knowledge_harness.trust.validate import evidence
from knowledge_harness.trust.validate.evidence import Fetcher, FetchFailure, redirect_target
from tests.support.examples import examples

pytestmark = pytest.mark.fuzz

PIECES = [
    "http:",
    "https:",
    "//",
    "/",
    "\\",
    "\\\\",
    "[",
    "]",
    "::1",
    "@",
    ":",
    "%",
    "%zz",
    "?",
    "#",
    ".",
    "..",
    "x",
    "127.0.0.1",
    ":99999",
    " ",
    "\t",
    "\x00",
    "\r",
    "é",
    "ü.example",
    "xn--",
    "ftp:",
    "javascript:",
]
CLIENT = httpx.Client()
LOCATIONS = st.lists(st.sampled_from(PIECES) | st.text(max_size=4), max_size=8).map("".join)


@settings(max_examples=examples(0.6))
@given(location=LOCATIONS)
@example(location="http:\\\\x")
@example(location="https:\\x")
@example(location="http://[::1")
@example(location="//[")
@example(location="http://x:99999999/")
def test_a_location_is_a_clean_url_or_an_invalid_redirect(location: str) -> None:
    try:
        target = redirect_target("http://127.0.0.1:8000/a/b", location)
    except FetchFailure as failure:
        assert failure.code == "invalid_redirect" and failure.message
        return
    url = httpx.URL(target)
    assert url.scheme in ("http", "https") and url.host
    assert "\\" not in target and not any(c.isspace() or ord(c) < 32 for c in target)
    CLIENT.build_request("GET", target)


class RawRedirects:
    """A loopback server answering every request with `302 Location: <self.location>` (raw bytes)."""

    def __init__(self) -> None:
        self.location = b"/"
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                conn.settimeout(2)
                try:
                    conn.recv(65536)
                    conn.sendall(
                        b"HTTP/1.1 302 Found\r\nLocation: " + self.location + b"\r\nContent-Length: 0\r\n"
                        b"Connection: close\r\n\r\n"
                    )
                except OSError:
                    pass


@pytest.fixture(scope="module")
def raw_site() -> Iterator[RawRedirects]:
    site = RawRedirects()
    yield site
    site.sock.close()


@pytest.fixture
def no_dns(monkeypatch: pytest.MonkeyPatch) -> None:
    real = evidence._resolve

    async def loopback_only(host: str, port: int) -> list[evidence.IPAddress]:
        if host != "127.0.0.1":
            raise FetchFailure("dns_error", f"The host {host} could not be resolved.")
        return await real(host, port)

    monkeypatch.setattr(evidence, "_resolve", loopback_only)


@settings(max_examples=examples(0.12), suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(
    raw=st.lists(
        st.sampled_from([p.encode("utf-8") for p in PIECES if p not in "\r\n"]) | st.binary(max_size=4), max_size=8
    ).map(b"".join)
)
@example(raw=b"http:\\\\x")
@example(raw=b"https:\\x")
@example(raw=b"http://\xff\xfe/")
def test_any_location_bytes_end_as_a_page_with_a_reason(raw_site: RawRedirects, no_dns: None, raw: bytes) -> None:
    raw_site.location = raw.replace(b"\r", b"").replace(b"\n", b"")
    policy = EvidencePolicy(
        allow_private_hosts=[f"127.0.0.1:{raw_site.port}"], retries=0, max_redirects=2, timeout_seconds=3
    )
    page = anyio.run(Fetcher(policy, backoff_seconds=0).fetch, f"http://127.0.0.1:{raw_site.port}/start")
    assert page.error is not None and page.message, page  # every answer is a redirect: never usable text
