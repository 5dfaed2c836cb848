"""Partial support is shown: a plan writes how many of a note's claims its judge found supported,
the badge, the stale list and `kh audit` say "n of m claims supported" for a reviewed note, the audit
splits Fresh L2 into verified and reviewed, and `min_supported_share` lets a person require more.
A small real vault, a real local page and the real sidecar."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

from knowledge_harness.trust.audit.audit import below_share, claims_phrase, render_text, run_audit
from knowledge_harness.trust.policy import Policy, load_policy
from knowledge_harness.trust.schema import read_trust
from knowledge_harness.vault.catalog import NoteCatalog
from knowledge_harness.vault.paths import Vault

from ..conftest import start_sidecar, stop_sidecar
from ..support.cited_vault import vault_citing_one_page

NOTE = "Keywords/富士山.md"
# One sentence of five is on the page; the other four are neither on it nor contradicted by it.
CLAIMS = [
    "富士山の標高は3776メートルで、日本で最も高い山である。",
    "富士山は江戸時代に最後の噴火をしたと考えられている。",
    "頂上には郵便局があり、夏に営業している。",
    "登山道は吉田ルートを含めて四つある。",
    "世界文化遺産には二〇一三年に登録された。",
]
PAGE = "<p>富士山の標高は3776メートルで、日本で最も高い山である。</p><p>山梨県と静岡県にまたがる。</p>"


@pytest.fixture
def vault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    body = "# 富士山\n\n" + "\n".join(CLAIMS) + "\n"
    with vault_citing_one_page(tmp_path, monkeypatch, note=NOTE, title="富士山", page=PAGE, body=body) as root:
        yield root


def test_a_one_of_five_note_says_so_in_the_block_the_badge_the_stale_list_and_the_audit(vault: Path) -> None:
    before = (vault / NOTE).read_bytes()
    sidecar = start_sidecar(vault)
    try:
        with sidecar.client() as client:
            plan = client.post("/v1/batches", json={"notes": [NOTE]})
            assert plan.status_code == 200, plan.text
            body = plan.json()
            approved = client.post(
                f"/v1/batches/{body['plan_id']}/approve", json={"challenge": f"APPROVE_PRODUCTION {body['digest']}"}
            )
            assert approved.json()["result"] == "APPLIED", approved.text
            badge = client.get(f"/v1/trust/notes/{quote(NOTE)}").json()
            stale = client.get("/v1/trust/stale").json()
    finally:
        stop_sidecar(sidecar)
    assert (badge["status"], badge["level"], badge["fresh_l2"]) == ("reviewed", 2, True)
    assert (badge["claims_supported"], badge["claims_total"]) == (1, 5)
    assert stale["stale"] == []  # due in 90 days: in no list yet

    after = (vault / NOTE).read_bytes()
    # only the verification and evidence blocks were added; the counts sit right after the level
    assert after.endswith(before[before.index(b"---\n# ") + 4 :])
    block = re.search(rb"verification:\n((?:  .*\n)+)", after)
    assert block and block.group(1).startswith(
        b"  status: reviewed\n  level: 2\n  claims_supported: 1\n  claims_total: 5\n  validator: "
    )

    report = run_audit(NoteCatalog(Vault.open(vault)), load_policy(vault), today=dt.date.today())
    assert (report.fresh_l2, report.fresh_l2_verified, report.fresh_l2_reviewed) == (1, 0, 1)
    text = render_text(report)
    assert text.splitlines()[2] == "Fresh L2: 1"  # the design's lines stay where they were
    assert "Fresh L2 verified: 0, reviewed: 1" in text
    assert f"Reviewed with claim counts: 1 of 1\n  - {NOTE}: 1 of 5 claims supported\n" in text

    # a person who asks for half of the claims: the note no longer counts, and the audit says why
    (vault / ".harness" / "policy.toml").write_text("min_supported_share = 0.5\n", encoding="utf-8")
    strict = run_audit(NoteCatalog(Vault.open(vault)), load_policy(vault), today=dt.date.today())
    assert (strict.fresh_l2, strict.fresh_l2_reviewed) == (0, 0)
    [below] = strict.below_supported_share
    assert below.path == NOTE and "only 1 of 5 claims supported" in below.reason and "0.5" in below.reason
    assert f"  - {NOTE}: only 1 of 5 claims supported" in render_text(strict)


def test_a_reviewed_block_written_before_the_counts_shows_no_n_of_m_and_cannot_meet_a_required_share(
    tmp_path: Path,
) -> None:
    old = read_trust({"verification": {"status": "reviewed", "level": 2}}).verification
    counted = read_trust({"verification": {"status": "reviewed", "level": 2, "claims_supported": 3, "claims_total": 4}})
    assert claims_phrase(old) is None and claims_phrase(counted.verification) == "3 of 4 claims supported"
    default, strict = Policy(), Policy(min_supported_share=0.75)
    assert below_share(old, default) is None  # the design's mapping: any reviewed L2 counts
    assert (below_share(old, strict) or "").startswith("its claim counts were not recorded")
    assert below_share(counted.verification, strict) is None  # 3 of 4 meets 0.75
    # counts that cannot be true are not shown
    wrong = read_trust({"verification": {"status": "reviewed", "level": 2, "claims_supported": 5, "claims_total": 4}})
    assert claims_phrase(wrong.verification) is None
