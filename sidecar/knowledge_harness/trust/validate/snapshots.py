"""Evidence snapshots in VAULT/.harness/evidence/ — the only code that writes them.

Layout (content-addressed by the SHA-256 of the extracted text, JSON with sorted keys):
  .harness/evidence/<sha256>.txt            the extracted main text, UTF-8
  .harness/evidence/<sha256>.json           the record of the latest fetch that produced it:
                                            url, final_url, status, fetched_at, content_type,
                                            sha256, title, bytes, charset, published, ...
  .harness/evidence/urls/<sha256(url)>.json the latest successful record for that URL, so a
                                            re-validation can reuse a snapshot younger than the
                                            policy's snapshot_max_age_minutes
Writes are atomic (temp file + fsync + rename), through vault/harness_store.py.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
from pathlib import Path
from typing import Any

from ...core.clock import parse_utc_z
from ...vault.harness_store import HarnessFolder
from ...vault.paths import Vault

EVIDENCE_DIR = "evidence"
_HEX64 = re.compile(r"^[0-9a-f]{64}$")


def _json_bytes(value: Any) -> bytes:
    return (json.dumps(value, ensure_ascii=False, sort_keys=True, indent=2) + "\n").encode("utf-8")


def url_key(url: str) -> str:
    return hashlib.sha256(url.encode("utf-8")).hexdigest()


class EvidenceStore:
    def __init__(self, vault: Vault) -> None:
        self.folder = HarnessFolder(vault, EVIDENCE_DIR)
        self.urls = self.folder.sub("urls")
        self.root = self.folder.root

    def rel(self, path: Path) -> str:
        return path.relative_to(self.root.parent.parent).as_posix()

    def save(self, record: dict[str, Any], text: str) -> list[Path]:
        """Write the text and its records; returns the paths written."""
        data = text.encode("utf-8")
        sha = hashlib.sha256(data).hexdigest()
        record = {**record, "sha256": sha}
        written: list[Path] = []
        if not self.folder.exists(f"{sha}.txt"):
            written.append(self.folder.write(f"{sha}.txt", data))
        written.append(self.folder.write(f"{sha}.json", _json_bytes(record)))
        written.append(self.urls.write(f"{url_key(str(record.get('url', '')))}.json", _json_bytes(record)))
        return written

    def lookup(
        self, url: str, *, max_age: dt.timedelta, now: dt.datetime | None = None
    ) -> tuple[dict[str, Any], str] | None:
        """The latest snapshot of a URL when younger than max_age and intact, else None."""
        if max_age <= dt.timedelta(0):
            return None
        try:
            record = json.loads(self.urls.read_bytes(f"{url_key(url)}.json").decode("utf-8"))
            sha = str(record["sha256"])
            fetched = parse_utc_z(str(record["fetched_at"]))
        except (OSError, ValueError, KeyError, TypeError):
            return None
        if not _HEX64.match(sha) or record.get("url") != url:
            return None
        current = now or dt.datetime.now(dt.UTC)
        if fetched.tzinfo is None:
            fetched = fetched.replace(tzinfo=dt.UTC)
        if current - fetched > max_age:
            return None
        try:
            data = self.folder.read_bytes(f"{sha}.txt")
        except OSError:
            return None
        if hashlib.sha256(data).hexdigest() != sha:
            return None
        return record, data.decode("utf-8")
