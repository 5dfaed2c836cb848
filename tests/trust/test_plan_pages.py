"""Plans judge today's pages: a cited page's snapshot keeps its validators (ETag / Last-Modified), the
next plan asks the page whether it changed (If-None-Match) even inside the snapshot window, judges the
new text when it did and reuses the snapshot on 304. The real local evidence site."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from knowledge_harness.trust.approve import batch
from knowledge_harness.trust.approve.models import StoredPlan
from knowledge_harness.trust.validate.snapshots import EvidenceStore
from knowledge_harness.vault.paths import Vault

from ..conftest import use_machine_config
from ..support.evidence_site import EvidenceSite

FUJI = "<p>富士山の標高は3776メートルで、日本で最も高い山である。</p>"
FUJI_CHANGED = "<p>富士山の標高は3776メートルではなく、日本で最も高い山でもない。</p>"


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[EvidenceSite]:
    with EvidenceSite() as running:
        use_machine_config(monkeypatch, tmp_path, f'[evidence]\nallow_private_hosts = ["{running.allow_entry}"]\n')
        yield running


def _vault(root: Path, url: str) -> Vault:
    (root / ".harness").mkdir(parents=True)
    (root / "Keywords").mkdir()
    (root / "Keywords" / "富士山.md").write_text(
        "---\nprovenance:\n  origin: ai_generated\nreferences:\n"
        f"  - {url}\n---\n# 富士山\n\n富士山の標高は3776メートルで、日本で最も高い山である。\n",
        encoding="utf-8",
    )
    return Vault.open(root)


def test_a_plan_made_right_after_its_page_changed_judges_the_new_text(tmp_path: Path, site: EvidenceSite) -> None:
    url = f"{site.url}/changing"
    vault = _vault(tmp_path / "vault", url)
    site.changing_text = FUJI

    def plan() -> StoredPlan:
        made: StoredPlan = anyio.run(lambda: batch.build_plan(vault, stage="canary"))
        return made

    assert plan().targets[0].verdict == "pass"
    record, _ = EvidenceStore(vault).lookup(url, max_age=dt.timedelta(days=1)) or ({}, "")
    assert str(record.get("etag", "")).startswith('"')  # the validator is kept with the snapshot

    told = batch.preview_plan(vault).describe()
    assert "fetch 1 cited page(s) (1 of them only if changed since their snapshot" in told

    site.changing_text = FUJI_CHANGED  # the page changes a moment later, well inside the snapshot window
    assert plan().targets[0].verdict != "pass"  # the new text was judged, without --refetch
    assert site.not_modified == 0

    unchanged = plan()  # nothing changed since: the server says 304 and the snapshot is reused
    assert site.not_modified == 1
    assert unchanged.targets[0].verdict != "pass"
    assert site.hits["/changing"] == 3
