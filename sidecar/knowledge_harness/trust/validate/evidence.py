"""Fetching evidence pages safely: the SSRF guard, limits, retries, charset and main text.

`Fetcher(policy).fetch_all(urls)` returns one `FetchedPage` per URL and never raises for a bad
page: every failure is a `FetchedPage` with an `error` code and a one-sentence `message`.

The guard: only http(s) URLs without credentials; the host is resolved and EVERY address must be
public (not loopback, private, link-local, CGNAT, multicast, unspecified, reserved, IPv4-mapped
or NAT64-embedded private, or a cloud metadata address) unless the host ("host" or "host:port")
is allow-listed in the policy; metadata addresses are refused even when allow-listed. The
connection is pinned to the address that was checked (no second DNS lookup an attacker could
rebind), and the check runs again on every redirect hop, which are followed by hand.

Limits: per-attempt deadline (policy timeout), a body cap enforced while streaming and after
decompression (so a gzip bomb stops at the cap), at most `max_redirects` redirects, content types
text/html, application/xhtml+xml, text/plain. Retries (policy `retries`, exponential backoff) on
connection errors and HTTP 429/502/503/504 only. Concurrency: a global and a per-host limit.

This module returns data; snapshots are written by `trust/validate/snapshots.py` (through `vault/harness_store.py`).
"""

from __future__ import annotations

import codecs
import hashlib
import ipaddress
import re
import socket
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any
from urllib.parse import urljoin

import anyio
import httpx

from ... import __version__
from ...core.clock import now_utc_z
from ..policy import EvidencePolicy
from .extraction import ExtractionFailed, ExtractionPool, acquire_worker, extract_in_worker
from .main_text import tidy

USER_AGENT = f"KnowledgeHarness/{__version__} (evidence fetcher; +local)"
ALLOWED_CONTENT_TYPES = ("text/html", "application/xhtml+xml", "text/plain")
RETRY_STATUSES = frozenset({429, 502, 503, 504})
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
MAX_URL_CHARS = 2048
MARKUP_HEAD_CHARS = 256 * 1024

CGNAT = ipaddress.ip_network("100.64.0.0/10")
NAT64 = ipaddress.ip_network("64:ff9b::/96")
METADATA_ADDRESSES = frozenset(
    ipaddress.ip_address(a)
    for a in ("169.254.169.254", "169.254.170.2", "100.100.100.200", "192.0.0.192", "fd00:ec2::254")
)
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


class FetchFailure(Exception):
    """One URL could not be used as evidence; `code` is stable, `message` one sentence."""

    def __init__(self, code: str, message: str, *, status: int | None = None, retryable: bool = False) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
        self.retryable = retryable


@dataclass(slots=True)
class FetchedPage:
    url: str
    final_url: str | None = None
    status: int | None = None
    content_type: str | None = None
    charset: str | None = None
    text: str | None = None
    title: str | None = None
    published: str | None = None
    bytes: int = 0
    fetched_at: str = ""
    attempts: int = 0
    error: str | None = None
    message: str | None = None
    sha256: str | None = None
    redirects: list[str] = field(default_factory=list)
    reused: bool = False
    # the page's validators, kept with its snapshot: the next fetch asks "changed since?" with them
    etag: str | None = None
    last_modified: str | None = None
    # the server answered 304 Not Modified to a conditional request: the snapshot asked about stands
    not_modified: bool = False
    # the start of the decoded HTML, for callers that read the page's own metadata (not recorded)
    markup_head: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and self.text is not None

    def record(self) -> dict[str, Any]:
        """The JSON record kept next to a snapshot."""
        data = asdict(self)
        data.pop("text")
        data.pop("reused")
        data.pop("markup_head")
        data.pop("not_modified")
        return data


def _header(response: httpx.Response, name: str) -> str | None:
    value = response.headers.get(name, "").strip()
    return value[:512] if value and value.isprintable() else None  # echoed back in a request header


def conditional_headers(record: Mapping[str, Any] | None) -> dict[str, str]:
    """If-None-Match / If-Modified-Since from a snapshot record's validators ({} when it kept none)."""
    headers: dict[str, str] = {}
    for key, header in (("etag", "If-None-Match"), ("last_modified", "If-Modified-Since")):
        value = (record or {}).get(key)
        if isinstance(value, str) and value and value.isprintable() and len(value) <= 512:
            headers[header] = value
    return headers


# -- the SSRF guard ------------------------------------------------------------------------------


def blocked_reason(address: IPAddress) -> str | None:
    """Why an address may not be fetched (None when it is a public unicast address)."""
    if address in METADATA_ADDRESSES:
        return "a cloud metadata address"
    if isinstance(address, ipaddress.IPv6Address):
        mapped = address.ipv4_mapped or address.sixtofour
        if mapped is None and address in NAT64:
            mapped = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
        if mapped is None and address.teredo:
            mapped = address.teredo[1]
        if mapped is not None:
            inner = blocked_reason(mapped)
            return f"an IPv6 address embedding {inner}" if inner else None
    if address.is_loopback:
        return "a loopback address"
    if address.is_unspecified:
        return "the unspecified address"
    if address.is_link_local:
        return "a link-local address"
    if address.is_multicast:
        return "a multicast address"
    if isinstance(address, ipaddress.IPv4Address) and address in CGNAT:
        return "a carrier-grade NAT address"
    if address.is_private:
        return "a private address"
    if address.is_reserved or not address.is_global:
        return "a reserved address"
    return None


def _split_allow_entry(entry: str) -> tuple[str, int | None]:
    entry = entry.strip().lower()
    if entry.startswith("["):
        host, _, rest = entry[1:].partition("]")
        return host, int(rest[1:]) if rest.startswith(":") and rest[1:].isdigit() else None
    if entry.count(":") == 1:
        host, _, port = entry.partition(":")
        return host, int(port) if port.isdigit() else None
    return entry, None


def host_allowed(allow: Sequence[str], host: str, port: int) -> bool:
    host = host.lower().strip("[]")
    for entry in allow:
        a_host, a_port = _split_allow_entry(entry)
        if a_host == host and (a_port is None or a_port == port):
            return True
    return False


@dataclass(frozen=True, slots=True)
class Target:
    url: httpx.URL  # what we connect to (host replaced by the checked address when pinned)
    host: str
    port: int
    host_header: str | None
    sni: str | None


async def _resolve(host: str, port: int) -> list[IPAddress]:
    try:
        return [ipaddress.ip_address(host)]
    except ValueError:
        pass
    try:
        infos = await anyio.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise FetchFailure("dns_error", f"The host {host} could not be resolved.") from exc
    addresses: list[IPAddress] = []
    for info in infos:
        raw = str(info[4][0]).split("%", 1)[0]
        addr = ipaddress.ip_address(raw)
        if addr not in addresses:
            addresses.append(addr)
    if not addresses:
        raise FetchFailure("dns_error", f"The host {host} has no address.")
    return addresses


def _said(exc: BaseException) -> str:
    """What a library error says, short and printable (it may quote a hostile server's bytes)."""
    text = str(exc).encode("unicode_escape").decode("ascii")
    return text[:160] or type(exc).__name__


# The fetch failures that mean the server answered something malformed, not that it is down.
MALFORMED_ANSWER_CODES = frozenset({"invalid_redirect", "invalid_response", "invalid_url"})

_BAD_LOCATION_CHARS = re.compile(r"[\x00-\x20\x7f-\x9f\\\s]")


def redirect_target(current: str, location: str) -> str:
    """Where a redirect leads: `location` resolved against `current`, or FetchFailure
    `invalid_redirect` for a Location no browser-independent reading agrees on (backslashes,
    whitespace, control characters, an unparsable host or port). Never raises anything else."""
    shown = location[:200].encode("unicode_escape").decode("ascii")
    bad = FetchFailure("invalid_redirect", f"The page redirects to a malformed address: {shown!r}.")
    location = location.strip(" \t")
    if not location or len(location) > MAX_URL_CHARS or _BAD_LOCATION_CHARS.search(location):
        raise bad
    try:
        target = urljoin(current, location)
        parsed = httpx.URL(target)
        _ = parsed.port  # an out-of-range port raises here
    except (ValueError, UnicodeError, httpx.InvalidURL) as exc:
        raise bad from exc
    if parsed.scheme not in ("http", "https") or not parsed.host:
        raise bad
    return target


async def check_url(url: str, allow: Sequence[str]) -> Target:
    """Validate a URL against the guard; returns where to connect (pinned when not allow-listed)."""
    if len(url) > MAX_URL_CHARS:
        raise FetchFailure("invalid_url", f"The URL is longer than {MAX_URL_CHARS} characters.")
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, ValueError) as exc:
        raise FetchFailure("invalid_url", f"Not a valid URL: {url[:200]}.") from exc
    if parsed.scheme not in ("http", "https"):
        raise FetchFailure("invalid_url", f"Only http and https URLs are fetched, not {parsed.scheme or 'none'}.")
    if not parsed.host:
        raise FetchFailure("invalid_url", "The URL has no host.")
    if parsed.userinfo:
        raise FetchFailure("invalid_url", "URLs with credentials are not fetched.")
    host = parsed.host.lower()
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    addresses = await _resolve(host, port)
    if host_allowed(allow, host, port):
        for addr in addresses:
            if addr in METADATA_ADDRESSES:
                raise FetchFailure("blocked_address", f"{host} resolves to a cloud metadata address ({addr}).")
        return Target(parsed, host, port, None, None)
    for addr in addresses:
        reason = blocked_reason(addr)
        if reason:
            raise FetchFailure(
                "blocked_address",
                f"Refused {host}:{port}: it resolves to {reason} ({addr}) and is not allow-listed in the policy.",
            )
    pinned = parsed.copy_with(host=str(addresses[0]))
    default_port = port == (443 if parsed.scheme == "https" else 80)
    host_header = parsed.host if default_port else f"{parsed.host}:{port}"
    if ":" in parsed.host and not parsed.host.startswith("["):
        host_header = f"[{parsed.host}]" if default_port else f"[{parsed.host}]:{port}"
    return Target(pinned, host, port, host_header, parsed.host if parsed.scheme == "https" else None)


# -- decoding -----------------------------------------------------------------------------------

_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([a-zA-Z0-9_\-:.]+)""", re.IGNORECASE)
_XML_ENCODING = re.compile(rb"""<\?xml[^>]+encoding\s*=\s*["']([a-zA-Z0-9_\-.]+)""", re.IGNORECASE)
_CHARSET_ALIASES = {
    "shift_jis": "cp932",
    "shift-jis": "cp932",
    "sjis": "cp932",
    "x-sjis": "cp932",
    "ms_kanji": "cp932",
    "windows-31j": "cp932",
    "csshiftjis": "cp932",
    "euc-jp": "euc_jp",
    "x-euc-jp": "euc_jp",
    "eucjp": "euc_jp",
    "iso-8859-1": "cp1252",
    "latin-1": "cp1252",
    "us-ascii": "utf-8",
    "ascii": "utf-8",
}


def normalize_charset(name: str | None) -> str | None:
    if not name:
        return None
    name = name.strip().strip("\"'").lower()
    name = _CHARSET_ALIASES.get(name, name)
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None


def _try_decode(body: bytes, charset: str) -> str | None:
    try:
        return body.decode(charset)
    except (UnicodeDecodeError, LookupError):
        return None


def decode_body(body: bytes, header_charset: str | None) -> tuple[str, str]:
    """Decode bytes: BOM, then the header's charset, a <meta> / XML declaration, UTF-8, then detection."""
    for bom, enc in ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16")):
        if body.startswith(bom):
            return body.decode(enc, errors="replace").lstrip("\ufeff"), enc
    candidates: list[str] = []
    for name in (header_charset,):
        norm = normalize_charset(name)
        if norm:
            candidates.append(norm)
    head = body[:4096]
    for pattern in (_META_CHARSET, _XML_ENCODING):
        m = pattern.search(head)
        if m:
            norm = normalize_charset(m.group(1).decode("ascii", "ignore"))
            if norm and norm not in candidates:
                candidates.append(norm)
    if "utf-8" not in candidates:
        candidates.append("utf-8")
    for charset in candidates:
        text = _try_decode(body, charset)
        if text is not None:
            return text, charset
    guessed: str | None = None
    try:
        from charset_normalizer import from_bytes

        best = from_bytes(body[:200_000]).best()
        guessed = normalize_charset(best.encoding) if best is not None else None
    except ImportError:  # pragma: no cover - charset-normalizer is a dependency
        guessed = None
    for charset in [c for c in (guessed, "cp932", "euc_jp") if c]:
        text = _try_decode(body, charset)
        if text is not None:
            return text, charset
    fallback = candidates[0]
    return body.decode(fallback, errors="replace"), fallback


def looks_binary(body: bytes) -> bool:
    head = body[:8192]
    if b"\x00" in head:
        return True
    if not head:
        return False
    controls = sum(1 for b in head if b < 9 or 13 < b < 32)
    return controls / len(head) > 0.05


# -- fetching -----------------------------------------------------------------------------------


class _Body:
    """Reads a streamed body, decompressing by hand so the cap applies to the decoded size."""

    def __init__(self, encoding: str, cap: int) -> None:
        self.cap = cap
        self.parts: list[bytes] = []
        self.size = 0
        self.raw_size = 0
        enc = encoding.strip().lower()
        self.decoder: Any = None
        if enc in ("gzip", "x-gzip"):
            self.decoder = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif enc == "deflate":
            self.decoder = zlib.decompressobj(zlib.MAX_WBITS | 32)
        elif enc not in ("", "identity"):
            raise FetchFailure("unsupported_encoding", f"The page uses the content encoding {enc!r}.")

    def _add(self, data: bytes) -> None:
        self.size += len(data)
        if self.size > self.cap:
            raise FetchFailure("too_large", f"The page is larger than the cap of {self.cap} bytes.")
        self.parts.append(data)

    def feed(self, chunk: bytes) -> None:
        self.raw_size += len(chunk)
        if self.raw_size > self.cap:
            raise FetchFailure("too_large", f"The page is larger than the cap of {self.cap} bytes.")
        if self.decoder is None:
            self._add(chunk)
            return
        try:
            data = self.decoder.decompress(chunk, self.cap - self.size + 1)
            self._add(data)
            while self.decoder.unconsumed_tail:
                data = self.decoder.decompress(self.decoder.unconsumed_tail, self.cap - self.size + 1)
                if not data:
                    break
                self._add(data)
        except zlib.error as exc:
            raise FetchFailure("decode_error", "The compressed body is corrupt.") from exc

    def value(self) -> bytes:
        return b"".join(self.parts)


class Fetcher:
    """Fetches evidence URLs under one EvidencePolicy (limits shared across calls)."""

    def __init__(
        self, policy: EvidencePolicy, *, backoff_seconds: float = 0.5, workers: ExtractionPool | None = None
    ) -> None:
        self.policy = policy
        # the extraction workers: the owner's (the sidecar's, a pipeline run's), else this fetcher's own
        self.workers = workers if workers is not None else ExtractionPool()
        self.backoff_seconds = backoff_seconds
        self._global = anyio.Semaphore(policy.concurrency)
        self._per_host: dict[str, anyio.Semaphore] = {}

    def _host_limit(self, url: str) -> anyio.Semaphore:
        try:
            host = httpx.URL(url).host.lower()
        except (httpx.InvalidURL, ValueError):
            host = ""
        if host not in self._per_host:
            self._per_host[host] = anyio.Semaphore(self.policy.per_domain_concurrency)
        return self._per_host[host]

    def _client(self) -> httpx.AsyncClient:
        timeout = httpx.Timeout(self.policy.timeout_seconds)
        return httpx.AsyncClient(
            follow_redirects=False,
            timeout=timeout,
            trust_env=False,  # no proxies from the environment: the guard must see the real target
            headers={
                "User-Agent": USER_AGENT,
                "Accept": "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.1",
                "Accept-Encoding": "gzip, deflate",
            },
        )

    async def fetch_all(
        self, urls: Sequence[str], validators: Mapping[str, Mapping[str, Any]] | None = None
    ) -> list[FetchedPage]:
        """`validators`: url → the snapshot record whose `etag` / `last_modified` make the request
        conditional (If-None-Match / If-Modified-Since); a 304 comes back as `not_modified`."""
        results: list[FetchedPage | None] = [None] * len(urls)
        known = validators or {}
        async with self._client() as client:

            async def one(index: int, url: str) -> None:
                results[index] = await self.fetch(url, client=client, validators=known.get(url))

            async with anyio.create_task_group() as tg:
                for index, url in enumerate(urls):
                    tg.start_soon(one, index, url)
        return [
            r if r is not None else FetchedPage(url=u, error="internal") for r, u in zip(results, urls, strict=True)
        ]

    async def fetch(
        self, url: str, *, client: httpx.AsyncClient | None = None, validators: Mapping[str, Any] | None = None
    ) -> FetchedPage:
        if client is None:
            async with self._client() as own:
                return await self.fetch(url, client=own, validators=validators)
        conditional = conditional_headers(validators)
        page = FetchedPage(url=url)
        async with self._global, self._host_limit(url):
            for attempt in range(self.policy.retries + 1):
                page = FetchedPage(url=url, fetched_at=now_utc_z(), attempts=attempt + 1)
                try:
                    started = anyio.current_time()
                    with anyio.fail_after(self.policy.timeout_seconds):
                        html = await self._attempt(client, page, conditional)
                    if html is not None:
                        left = self.policy.timeout_seconds - (anyio.current_time() - started)
                        await self._extract(page, html, left)
                    return page
                except FetchFailure as failure:
                    page.error, page.message = failure.code, failure.message
                    page.status = failure.status if failure.status is not None else page.status
                    if not failure.retryable or attempt >= self.policy.retries:
                        if failure.retryable:
                            page.message = f"{failure.message} Gave up after {attempt + 1} attempts."
                        return page
                except TimeoutError:
                    page.error = "timeout"
                    page.message = f"No complete answer within {self.policy.timeout_seconds:g} s."
                    return page
                except (ValueError, UnicodeError, LookupError, httpx.InvalidURL) as exc:
                    # whatever else a hostile answer makes the parsing raise is this page's failure,
                    # never the whole validation's or the batch plan's
                    page.error = "invalid_response"
                    page.message = f"The page's answer could not be read ({type(exc).__name__})."
                    return page
                await anyio.sleep(self.backoff_seconds * (2**attempt))
        return page

    async def _extract(self, page: FetchedPage, html: str, seconds: float) -> None:
        """The main text of an HTML page, in a worker process killed when `seconds` run out.

        The time left of the page's fetch timeout bounds the extraction (starting a cold
        worker is not counted); over it, or when the worker dies, the page fails.
        """
        timed_out = FetchFailure(
            "extract_timeout",
            f"Extracting the page's text did not finish within the {self.policy.timeout_seconds:g} s "
            "fetch timeout; the extraction was stopped.",
            status=page.status,
        )
        if seconds <= 0:
            raise timed_out
        try:
            worker = await acquire_worker(self.workers)
        except ExtractionFailed as failure:
            raise FetchFailure("extract_failed", failure.message, status=page.status) from failure
        try:
            with anyio.fail_after(seconds):
                extracted, title, published = await extract_in_worker(self.workers, worker, html, page.final_url)
        except TimeoutError as exc:
            raise timed_out from exc
        except ExtractionFailed as failure:
            raise FetchFailure("extract_failed", failure.message, status=page.status) from failure
        self._set_text(page, extracted, title, published)

    def _set_text(self, page: FetchedPage, extracted: str, title: str | None, published: str | None) -> None:
        if not extracted.strip():
            raise FetchFailure("empty", "No text could be extracted from the page.", status=page.status)
        page.text = extracted
        page.title = title
        page.published = published
        page.sha256 = hashlib.sha256(extracted.encode("utf-8")).hexdigest()

    async def _attempt(
        self, client: httpx.AsyncClient, page: FetchedPage, conditional: Mapping[str, str] | None = None
    ) -> str | None:
        """One try (with redirects); the decoded HTML still to extract, or None when done."""
        current = page.url
        for _hop in range(self.policy.max_redirects + 1):
            target = await check_url(current, self.policy.allow_private_hosts)
            headers = {"Host": target.host_header} if target.host_header else {}
            if current == page.url:  # the validators belong to the cited address, not to a redirect's
                headers.update(conditional or {})
            extensions = {"sni_hostname": target.sni} if target.sni else {}
            request = client.build_request("GET", target.url, headers=headers, extensions=extensions)
            try:
                response = await client.send(request, stream=True)
            except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
                raise FetchFailure(
                    "connect_error", f"Could not connect to {target.host}:{target.port}.", retryable=True
                ) from exc
            except httpx.TimeoutException as exc:
                raise FetchFailure("timeout", f"{target.host} did not answer in time.") from exc
            except httpx.InvalidURL as exc:  # httpx reads a redirect's Location before we do
                raise FetchFailure(
                    "invalid_redirect", f"The page redirects to a malformed address ({_said(exc)})."
                ) from exc
            except httpx.HTTPError as exc:
                raise FetchFailure("http_error", f"The request failed: {type(exc).__name__} ({_said(exc)}).") from exc
            try:
                page.status = response.status_code
                page.final_url = current
                if response.status_code in REDIRECT_STATUSES:
                    location = response.headers.get("location")
                    if not location:
                        raise FetchFailure(
                            "http_error", "A redirect without a Location header.", status=response.status_code
                        )
                    current = redirect_target(current, location)
                    page.redirects.append(current)
                    continue
                if response.status_code == 304 and conditional:
                    page.not_modified = True
                    return None
                if response.status_code in RETRY_STATUSES:
                    raise FetchFailure(
                        f"http_{response.status_code}",
                        f"The server answered HTTP {response.status_code}.",
                        status=response.status_code,
                        retryable=True,
                    )
                if response.status_code >= 400:
                    raise FetchFailure(
                        f"http_{response.status_code}",
                        f"The server answered HTTP {response.status_code}.",
                        status=response.status_code,
                    )
                if response.status_code != 200:
                    raise FetchFailure(
                        "http_error", f"Unexpected HTTP status {response.status_code}.", status=response.status_code
                    )
                page.etag = _header(response, "etag")
                page.last_modified = _header(response, "last-modified")
                return await self._read(response, page)
            finally:
                await response.aclose()
        raise FetchFailure("too_many_redirects", f"More than {self.policy.max_redirects} redirects.")

    async def _read(self, response: httpx.Response, page: FetchedPage) -> str | None:
        content_type = response.headers.get("content-type", "")
        mime, _, params = content_type.partition(";")
        mime = mime.strip().lower()
        page.content_type = mime or None
        if mime not in ALLOWED_CONTENT_TYPES:
            raise FetchFailure(
                "unsupported_content_type",
                f"The content type {mime or 'none'} is not supported (text/html, application/xhtml+xml, text/plain).",
                status=response.status_code,
            )
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self.policy.max_bytes:
            raise FetchFailure(
                "too_large", f"The page declares {declared} bytes, over the cap of {self.policy.max_bytes}."
            )
        body = _Body(response.headers.get("content-encoding", ""), self.policy.max_bytes)
        async for chunk in response.aiter_raw():
            body.feed(chunk)
        raw = body.value()
        page.bytes = len(raw)
        if not raw.strip():
            raise FetchFailure("empty", "The page is empty.", status=response.status_code)
        if looks_binary(raw):
            raise FetchFailure("binary_content", f"The page is served as {mime} but its body is binary.")
        header_charset = None
        for param in params.split(";"):
            key, _, value = param.partition("=")
            if key.strip().lower() == "charset":
                header_charset = value
        text, charset = decode_body(raw, header_charset)
        page.charset = charset
        if mime != "text/plain":
            page.markup_head = text[:MARKUP_HEAD_CHARS]
            return text  # extracted by _extract, in a worker process
        self._set_text(page, tidy(text), None, None)
        return None
