"""Author, dates and target version from a page's own metadata: JSON-LD, meta tags, `<time>`.

O-04 stores what the page says about itself and where it said it (`metadata_from`), never a
guess: a field no rule finds stays 未確認. Only the start of the markup is read
(`HEAD_BYTES`), so a hostile page costs a bounded amount of parsing in the sidecar process.
Order of preference per field (the first hit wins):

- author: JSON-LD `author` (a name, an object's `name`, or a list of them), then the meta tags
  `author`, `dc.creator`, `dcterms.creator`, `citation_author`, `article:author` (a URL is not a name);
- published: JSON-LD `datePublished`, then `article:published_time`, `dc.date`, `dcterms.created`,
  `dc.date.issued`, `citation_publication_date`, `citation_date`, `date`, `pubdate`, then a
  `<time itemprop="datePublished" datetime>`, then the first other `<time datetime>`;
- modified: JSON-LD `dateModified`, then `article:modified_time`, `og:updated_time`,
  `dcterms.modified`, `last-modified`, then `<time itemprop="dateModified" datetime>`;
- version: JSON-LD `softwareVersion` or `version`, then the meta tags `version`, `docsearch:version`,
  `docs:version`, `software-version`, `product-version`;
- publisher: JSON-LD `publisher`, then `og:site_name`, `application-name`, `dc.publisher`,
  `citation_publisher` (else O-04 names the domain).

Dates are kept as `YYYY-MM-DD` (a value that does not start with a calendar date is ignored).
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any

HEAD_BYTES = 256 * 1024
_MAX_JSON_LD = 200_000
_MAX_VALUE = 200

AUTHOR_META = ("author", "dc.creator", "dcterms.creator", "citation_author", "article:author")
PUBLISHED_META = (
    "article:published_time",
    "dc.date",
    "dcterms.created",
    "dc.date.issued",
    "citation_publication_date",
    "citation_date",
    "date",
    "pubdate",
)
MODIFIED_META = ("article:modified_time", "og:updated_time", "dcterms.modified", "last-modified")
PUBLISHER_META = ("og:site_name", "application-name", "dc.publisher", "citation_publisher")
VERSION_META = ("version", "docsearch:version", "docs:version", "software-version", "product-version")

_DATE = re.compile(r"^\s*(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})")


@dataclass
class PageMetadata:
    author: str | None = None
    published: str | None = None
    modified: str | None = None
    version: str | None = None
    publisher: str | None = None
    found_in: dict[str, str] = field(default_factory=dict)  # field -> where it was found


def normalize_date(value: Any) -> str | None:
    """`YYYY-MM-DD` of a value that starts with a calendar date, else None."""
    if not isinstance(value, str):
        return None
    match = _DATE.match(value)
    if not match:
        return None
    try:
        return dt.date(int(match.group(1)), int(match.group(2)), int(match.group(3))).isoformat()
    except ValueError:
        return None


def _clean(value: Any) -> str | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        return None
    text = " ".join(value.split())
    return text[:_MAX_VALUE] or None


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.meta: dict[str, str] = {}
        self.json_ld: list[str] = []
        self.times: list[tuple[str, str]] = []  # (itemprop, datetime)
        self._in_json_ld = False
        self._buffer: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k.lower(): (v or "") for k, v in attrs}
        if tag == "meta":
            key = (a.get("name") or a.get("property") or a.get("itemprop") or a.get("http-equiv") or "").lower()
            if key and a.get("content") and key not in self.meta:
                self.meta[key] = a["content"]
        elif tag == "script" and a.get("type", "").lower().strip() == "application/ld+json":
            self._in_json_ld = True
            self._buffer = []
        elif tag == "time" and a.get("datetime"):
            self.times.append((a.get("itemprop", "").lower(), a["datetime"]))

    def handle_data(self, data: str) -> None:
        if self._in_json_ld:
            self._buffer.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script" and self._in_json_ld:
            self._in_json_ld = False
            self.json_ld.append("".join(self._buffer)[:_MAX_JSON_LD])


def _objects(value: Any) -> list[dict[str, Any]]:
    """Every JSON-LD object, flattening lists and `@graph`."""
    out: list[dict[str, Any]] = []
    stack = [value]
    while stack and len(out) < 200:
        item = stack.pop(0)
        if isinstance(item, list):
            stack[:0] = item
        elif isinstance(item, dict):
            out.append(item)
            if isinstance(item.get("@graph"), list):
                stack[:0] = item["@graph"]
    return out


def _author_name(value: Any) -> str | None:
    if isinstance(value, list):
        names = [n for n in (_author_name(v) for v in value[:10]) if n]
        return ", ".join(names) or None
    if isinstance(value, dict):
        return _clean(value.get("name"))
    name = _clean(value)
    return None if name is None or name.startswith(("http://", "https://")) else name


def extract_page_metadata(markup: str) -> PageMetadata:
    collector = _Collector()
    try:
        collector.feed(markup[:HEAD_BYTES])
        collector.close()
    except (AssertionError, ValueError):  # html.parser gives up on some broken markup; keep what it saw
        pass
    meta = PageMetadata()

    def put(name: str, value: str | None, where: str) -> None:
        if value and getattr(meta, name) is None:
            setattr(meta, name, value)
            meta.found_in[name] = where

    for raw in collector.json_ld:
        try:
            data = json.loads(raw)
        except ValueError:
            continue
        for obj in _objects(data):
            put("author", _author_name(obj.get("author")), "json-ld:author")
            put("published", normalize_date(obj.get("datePublished")), "json-ld:datePublished")
            put("modified", normalize_date(obj.get("dateModified")), "json-ld:dateModified")
            for key in ("softwareVersion", "version"):
                put("version", _clean(obj.get(key)), f"json-ld:{key}")
            put("publisher", _author_name(obj.get("publisher")), "json-ld:publisher")
    for key in AUTHOR_META:
        put("author", _author_name(collector.meta.get(key)), f"meta:{key}")
    for key in PUBLISHED_META:
        put("published", normalize_date(collector.meta.get(key)), f"meta:{key}")
    for key in MODIFIED_META:
        put("modified", normalize_date(collector.meta.get(key)), f"meta:{key}")
    for key in VERSION_META:
        put("version", _clean(collector.meta.get(key)), f"meta:{key}")
    for key in PUBLISHER_META:
        put("publisher", _clean(collector.meta.get(key)), f"meta:{key}")
    for itemprop, value in collector.times:
        if itemprop == "datepublished":
            put("published", normalize_date(value), "time[itemprop=datePublished]")
        elif itemprop == "datemodified":
            put("modified", normalize_date(value), "time[itemprop=dateModified]")
    plain = [value for itemprop, value in collector.times if itemprop != "datemodified"]
    for value in plain[:1]:
        put("published", normalize_date(value), "time[datetime]")
    return meta
