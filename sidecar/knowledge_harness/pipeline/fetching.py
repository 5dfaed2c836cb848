"""Fetching evidence pages for O-04, behind a small protocol so the shared fetcher can plug in.

`EvidenceFetcher.fetch(url)` fetches ONE attempt; O-04 owns the retry budget (seed: two extra
tries per URL). `default_fetcher(vault_root)` uses the shared trust fetcher when it offers a
one-URL entry point, else the guarded httpx fetcher below, which honours the vault policy's
`[evidence]` section (allow_private_hosts, timeout, size and redirect caps).
"""

from __future__ import annotations

import hashlib
import html
import ipaddress
import re
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol
from urllib.parse import urljoin, urlsplit

import httpx

from ..core.clock import now_utc_z
from ..trust.policy import EvidencePolicy, load_policy
from .page_metadata import PageMetadata, extract_page_metadata

TEXT_TYPES = ("text/html", "text/plain", "application/xhtml+xml", "text/markdown", "application/json", "text/xml")


@dataclass(frozen=True, slots=True)
class Fetched:
    url: str
    final_url: str
    ok: bool
    transient: bool
    status: int | None
    title: str
    text: str
    content_type: str
    error: str | None
    fetched_at: str
    metadata: PageMetadata | None = None  # author, dates, version from the page's own markup

    @property
    def sha256(self) -> str | None:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest() if self.ok else None


class EvidenceFetcher(Protocol):
    def fetch(self, url: str) -> Fetched: ...


def _fail(url: str, error: str, *, transient: bool, status: int | None = None) -> Fetched:
    return Fetched(url, url, False, transient, status, "", "", "", error, now_utc_z())


_TAG = re.compile(r"<[^>]+>")
_DROP = re.compile(r"<(script|style|noscript|template)\b.*?</\1\s*>", re.S | re.I)
_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.S | re.I)


def html_to_text(markup: str) -> tuple[str, str]:
    title_match = _TITLE.search(markup)
    title = html.unescape(_TAG.sub("", title_match.group(1))).strip() if title_match else ""
    body = _DROP.sub(" ", markup)
    body = re.sub(r"<(br|p|div|li|h[1-6]|tr|section|article)\b[^>]*>", "\n", body, flags=re.I)
    text = html.unescape(_TAG.sub(" ", body))
    lines = [re.sub(r"[ \t\u3000]+", " ", line).strip() for line in text.splitlines()]
    return title, "\n".join(line for line in lines if line)


class GuardedHttpFetcher:
    """One GET with an SSRF guard applied to the first URL and every redirect."""

    def __init__(
        self,
        *,
        allow_private_hosts: list[str] | None = None,
        timeout: float = 10.0,
        max_bytes: int = 5 * 1024 * 1024,
        max_redirects: int = 5,
    ) -> None:
        self.allow = {h.lower() for h in (allow_private_hosts or [])}
        self.timeout = timeout
        self.max_bytes = max_bytes
        self.max_redirects = max_redirects

    def _guard(self, url: str) -> str | None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            return "only http(s) URLs are fetched"
        host = parts.hostname.lower()
        port = parts.port or (443 if parts.scheme == "https" else 80)
        if host in self.allow or f"{host}:{port}" in self.allow:
            return None
        try:
            infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except socket.gaierror as exc:
            return f"DNS lookup failed: {exc.strerror}"
        for info in infos:
            address = ipaddress.ip_address(info[4][0])
            if not address.is_global or address.is_multicast:
                return f"refusing a non-public address ({address}) for {host}"
        return None

    def fetch(self, url: str) -> Fetched:
        current = url
        try:
            with httpx.Client(timeout=self.timeout, follow_redirects=False, trust_env=False) as client:
                for _ in range(self.max_redirects + 1):
                    refusal = self._guard(current)
                    if refusal:
                        return _fail(url, refusal, transient=refusal.startswith("DNS lookup failed: Temporary"))
                    with client.stream("GET", current, headers={"User-Agent": "knowledge-harness/0.1"}) as resp:
                        if resp.status_code in (301, 302, 303, 307, 308) and "location" in resp.headers:
                            current = urljoin(current, resp.headers["location"])
                            continue
                        if resp.status_code == 429 or resp.status_code >= 500:
                            return _fail(url, f"HTTP {resp.status_code}", transient=True, status=resp.status_code)
                        if resp.status_code >= 400:
                            return _fail(url, f"HTTP {resp.status_code}", transient=False, status=resp.status_code)
                        ctype = resp.headers.get("content-type", "").split(";")[0].strip().lower()
                        if ctype and not ctype.startswith(TEXT_TYPES):
                            return _fail(
                                url, f"unsupported content type {ctype}", transient=False, status=resp.status_code
                            )
                        chunks: list[bytes] = []
                        size = 0
                        for chunk in resp.iter_bytes():
                            size += len(chunk)
                            if size > self.max_bytes:
                                return _fail(url, "the page is too large", transient=False, status=resp.status_code)
                            chunks.append(chunk)
                        raw = b"".join(chunks).decode(resp.encoding or "utf-8", errors="replace")
                        metadata = None
                        if "html" in ctype or raw.lstrip().lower().startswith(("<!doctype html", "<html")):
                            title, text = html_to_text(raw)
                            metadata = extract_page_metadata(raw)
                        else:
                            title, text = "", raw.strip()
                        if not text:
                            return _fail(url, "the page has no text", transient=False, status=resp.status_code)
                        return Fetched(
                            url, current, True, False, resp.status_code, title, text, ctype, None, now_utc_z(), metadata
                        )
                return _fail(url, "too many redirects", transient=False)
        except (httpx.TimeoutException, httpx.NetworkError, httpx.RemoteProtocolError) as exc:
            return _fail(url, f"{type(exc).__name__}: {exc}", transient=True)
        except httpx.HTTPError as exc:
            return _fail(url, f"{type(exc).__name__}: {exc}", transient=False)


TRANSIENT_CODES = frozenset({"connect_error", "timeout", "read_error", "http_429"})


class TrustFetcher:
    """Adapter onto the shared evidence fetcher (trust/evidence.py): SSRF guard, charset, main text.

    One attempt per call (the policy's own retries set to 0): O-04 owns the seed's retry budget.
    """

    def __init__(self, policy: EvidencePolicy) -> None:
        self.policy = policy.model_copy(update={"retries": 0})

    def fetch(self, url: str) -> Fetched:
        import anyio

        from ..trust.evidence import Fetcher

        page = anyio.run(Fetcher(self.policy, backoff_seconds=0).fetch, url)
        if page.ok and page.text:
            return Fetched(
                url,
                page.final_url or url,
                True,
                False,
                page.status,
                page.title or "",
                page.text,
                page.content_type or "",
                None,
                page.fetched_at or now_utc_z(),
                extract_page_metadata(page.markup_head) if page.markup_head else None,
            )
        code = page.error or "error"
        transient = code in TRANSIENT_CODES or (page.status is not None and page.status >= 500)
        return Fetched(
            url,
            page.final_url or url,
            False,
            transient,
            page.status,
            "",
            "",
            page.content_type or "",
            f"{code}: {page.message or ''}".strip(),
            page.fetched_at or now_utc_z(),
        )


def default_fetcher(vault_root: Path) -> EvidenceFetcher:
    """The shared trust fetcher configured from the vault policy's [evidence] section."""
    return TrustFetcher(load_policy(vault_root).evidence)
