"""URL identity: when two cited URLs name the same page, and which site a URL belongs to.

`normalize_url` is how the pipeline dedupes candidates and checks that a plan, a draft or a
revision cites only sources of the evidence packet: scheme and host lower-cased, a leading
`www.` and a trailing `.` dropped, default ports (80, 443) dropped, tracking parameters (`utm_*`, `fbclid`,
`gclid`, `ref_src`) removed and the rest sorted, a trailing `/` and the fragment dropped.
It is a comparison key, never a URL to fetch.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

_TRACKING = ("utm_", "fbclid", "gclid", "ref_src")


def _host(hostname: str | None) -> str:
    host = (hostname or "").lower().rstrip(".")  # "example.org." is the fully qualified example.org
    return host[4:] if host.startswith("www.") else host


def normalize_url(url: str) -> str:
    """The comparison key of a URL: the same page cited in two spellings gets one key."""
    parts = urlsplit(url.strip())
    host = _host(parts.hostname)
    netloc = host + (f":{parts.port}" if parts.port and parts.port not in (80, 443) else "")
    query = urlencode(sorted((k, v) for k, v in parse_qsl(parts.query) if not k.lower().startswith(_TRACKING)))
    path = parts.path.rstrip("/") or "/"
    return urlunsplit((parts.scheme.lower(), netloc, path, query, ""))


def domain_of(url: str) -> str:
    """The site of a URL: its host, lower-cased, without a leading `www.` (the per-domain limit)."""
    return _host(urlsplit(url).hostname)
