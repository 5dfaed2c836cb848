"""The main text of an HTML page (trafilatura, else the whole body's text), tidied and capped.

Run in the extraction worker processes (trust/validate/extraction.py), which import only this module and
what it needs; trust/validate/evidence.py uses `tidy` for plain-text pages.
"""

from __future__ import annotations

import re

MAX_TEXT_CHARS = 1_000_000

_WS = re.compile(r"[ \t\u3000]+")
_BLANKS = re.compile(r"\n{3,}")


def tidy(text: str) -> str:
    lines = [_WS.sub(" ", line).strip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    return _BLANKS.sub("\n\n", "\n".join(lines)).strip()[:MAX_TEXT_CHARS]


def _fallback_html_text(html: str) -> tuple[str, str | None]:
    import lxml.html  # type: ignore[import-untyped]

    try:
        root = lxml.html.document_fromstring(html)
    except Exception:  # lxml raises several types on garbage
        return "", None
    for bad in root.xpath("//script|//style|//noscript|//template"):
        bad.getparent().remove(bad)
    title_el = root.find(".//title")
    title = title_el.text_content().strip() if title_el is not None else None
    body = root.find(".//body")
    return tidy((body if body is not None else root).text_content()), title or None


def extract_main_text(html: str, url: str | None) -> tuple[str, str | None, str | None]:
    """(text, title, published) of an HTML page: trafilatura, falling back to the whole body text."""
    text = ""
    title: str | None = None
    published: str | None = None
    try:
        import trafilatura

        doc = trafilatura.bare_extraction(
            html,
            url=url,
            with_metadata=True,
            favor_recall=True,
            include_comments=False,
            include_tables=True,
            date_extraction_params={"extensive_search": False, "original_date": True},
        )
    except Exception:  # trafilatura raises assorted errors on hostile markup
        doc = None
    if doc is not None:
        text = tidy(getattr(doc, "text", None) or "")
        title = getattr(doc, "title", None) or None
        published = getattr(doc, "date", None) or None
    if not text:
        fb_text, fb_title = _fallback_html_text(html)
        text = fb_text
        title = title or fb_title
    return text, title, published
