"""`kh discover` (read-only discovery for cron): its JSON and text report, and the one file it writes.
(`kh runs show` and `kh prov export` are driven by the approval-gate tests in tests/trust/.)"""

from __future__ import annotations

import json
from pathlib import Path

from ..support.batch_support import TODAY, kh, tree_bytes


def test_discovery_writes_only_its_own_file(example_vault: Path) -> None:
    before = tree_bytes(example_vault)
    harness_before = sorted(p.relative_to(example_vault).as_posix() for p in (example_vault / ".harness").rglob("*"))
    result = kh("discover", str(example_vault), "--json", "--today", TODAY, check=True)
    report = json.loads(result.stdout)
    assert report["counts"]["candidates"] == 8
    assert report["counts"]["next_batch"] == 1 and report["counts"]["prepare"] == 1 and report["counts"]["watch"] == 1
    assert [w["path"] for w in report["windows"]["next_batch"]] == ["Keywords/鮮度管理.md"]
    assert report["never_validated"] == ["Keywords/Embedding.md", "Keywords/RAG.md"]
    assert tree_bytes(example_vault) == before
    harness_after = sorted(p.relative_to(example_vault).as_posix() for p in (example_vault / ".harness").rglob("*"))
    assert set(harness_after) - set(harness_before) == {".harness/discovery.json"}
    assert json.loads((example_vault / ".harness" / "discovery.json").read_bytes()) == report
    text = kh("discover", str(example_vault), "--today", TODAY, check=True).stdout
    assert "Candidates: 8" in text and "APPROVE_PRODUCTION" in text
