"""The reference URLs a note cites.

A note's references are the union of
1. its `references` property: a list (or a single value) of URL strings or mappings with a `url`;
2. every http(s) URL inside its references section: the body section under a heading whose text
   is References, Sources, 参考資料, 参考文献 or 出典 (any level, case-insensitive), up to the next
   heading of the same or a higher level. Fenced code inside the section is skipped.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from typing import Any

REFERENCE_HEADINGS = frozenset({"references", "sources", "参考資料", "参考文献", "出典"})
_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*(?:#+[ \t]*)?$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
URL_PATTERN = re.compile(r"https?://[^\s<>()\[\]\"'`]+")
_TRAILING = ".,;:!?。、）」』】"


def clean_url(url: str) -> str:
    return url.rstrip(_TRAILING)


def property_references(properties: dict[str, Any] | None) -> list[str]:
    if not properties:
        return []
    value = properties.get("references")
    items: Iterable[Any] = value if isinstance(value, list) else ([] if value is None else [value])
    urls: list[str] = []
    for item in items:
        if isinstance(item, str) and item.strip():
            urls.append(item.strip())
        elif isinstance(item, dict) and isinstance(item.get("url"), str) and item["url"].strip():
            urls.append(item["url"].strip())
    return urls


def section_references(body: str) -> list[str]:
    urls: list[str] = []
    in_section_level = 0
    fence: str | None = None
    for line in body.splitlines():
        fence_match = _FENCE.match(line)
        if fence is not None:
            if fence_match and fence_match.group(1)[0] == fence[0] and len(fence_match.group(1)) >= len(fence):
                fence = None
            continue
        if fence_match:
            fence = fence_match.group(1)
            continue
        heading = _HEADING.match(line)
        if heading:
            level = len(heading.group(1))
            title = heading.group(2).strip().strip("*_").strip().lower()
            if in_section_level and level <= in_section_level:
                in_section_level = 0
            if not in_section_level and title in REFERENCE_HEADINGS:
                in_section_level = level
            continue
        if in_section_level:
            urls.extend(clean_url(u) for u in URL_PATTERN.findall(line))
    return urls


def note_references(properties: dict[str, Any] | None, body: str) -> list[str]:
    """Deduplicated references in first-seen order."""
    seen: dict[str, None] = {}
    for url in [*property_references(properties), *section_references(body)]:
        seen.setdefault(url, None)
    return list(seen)


def references_sha256(urls: Iterable[str]) -> str:
    """Public (docs/design/trust.md): SHA-256 of the reference URLs, deduplicated, sorted, joined with newline, UTF-8."""
    return hashlib.sha256("\n".join(sorted(set(urls))).encode("utf-8")).hexdigest()


def is_evidence_url(url: str) -> bool:
    return url.lower().startswith(("http://", "https://"))
