"""Fetching evidence pages for O-04, behind a small protocol (`EvidenceFetcher`) that tests replace.

`EvidenceFetcher.fetch(url)` fetches ONE attempt; O-04 owns the retry budget (two extra tries
per URL by default). `default_fetcher(vault_root)` adapts the shared trust fetcher
(trust/validate/evidence.py: the SSRF guard on every address and redirect, charset, main text), configured
by the vault policy's `[evidence]` section and the machine configuration's allow_private_hosts.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from ..core.clock import now_utc_z
from ..trust.policy import EvidencePolicy, load_policy
from .page_metadata import PageMetadata, extract_page_metadata


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


TRANSIENT_CODES = frozenset({"connect_error", "timeout", "read_error", "http_429"})


class TrustFetcher:
    """Adapter onto the shared evidence fetcher (trust/validate/evidence.py): SSRF guard, charset, main text.

    One attempt per call (the policy's own retries set to 0): O-04 owns the retry budget.
    """

    def __init__(self, policy: EvidencePolicy) -> None:
        from ..trust.validate.extraction import ExtractionPool

        self.policy = policy.model_copy(update={"retries": 0})
        self.workers = ExtractionPool()  # warm extraction workers for this fetcher's next pages

    def fetch(self, url: str) -> Fetched:
        import anyio

        from ..trust.validate.evidence import Fetcher

        page = anyio.run(Fetcher(self.policy, backoff_seconds=0, workers=self.workers).fetch, url)
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
