"""Records behind every level (docs/audit.md, "Records"): a note counts at its written level only
while a record holds the digest of its trust blocks — the successful run that wrote them, or a
person's adoption. Hand-written, copied and later-edited blocks are `unrecorded` and count as L0."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest
import yaml

from knowledge_harness import actors
from knowledge_harness.trust.approve import batch
from knowledge_harness.trust.audit.audit import badge_of, run_audit
from knowledge_harness.trust.policy import Policy
from knowledge_harness.trust_view import live_trust
from knowledge_harness.vault.catalog import NoteCatalog
from knowledge_harness.vault.paths import Vault

from ..support.audit_vault import TODAY, NoteSpec, adopt_all, write_vault
from ..support.batch_support import git_vault, kh, run_record

PERSON = actors.person("terminal")


def _blocks_digest_by_hand(note: Path) -> str:
    """The digest from the note's text alone (PyYAML, json): not the code's own reading."""
    front = note.read_text(encoding="utf-8").split("---\n")[1]
    data = yaml.safe_load(front)
    blocks = {"verification": data["verification"], "evidence": data.get("evidence")}
    text = json.dumps(blocks, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def test_a_hand_written_verified_block_is_unrecorded_and_counts_as_l0_until_adopted(tmp_path: Path) -> None:
    vault = write_vault(tmp_path / "v", [NoteSpec("kw/hand.md")], adopted=False)  # correct hashes, no record
    catalog = NoteCatalog(Vault.open(vault))
    report = run_audit(catalog, Policy(), today=TODAY)
    assert (report.evidence_capable, report.fresh_l2) == (1, 0)
    assert [(u.path, u.level) for u in report.unrecorded] == [("kw/hand.md", 2)]
    badge = badge_of(catalog, Policy(), catalog.note("kw/hand.md"), TODAY)
    assert (badge.level, badge.counted_level, badge.record, badge.fresh, badge.fresh_l2) == (
        2,
        0,
        "unrecorded",
        False,
        False,
    )
    assert badge.record_reason and "hand-written" in badge.record_reason
    summary = live_trust(catalog, TODAY)("kw/hand.md")
    assert summary is not None and not summary.fresh  # search sees the same
    assert [c.reason for c in batch.find_candidates(catalog, Policy(), TODAY)] == ["unrecorded"]

    adopt_all(vault)
    catalog = NoteCatalog(Vault.open(vault))
    badge = badge_of(catalog, Policy(), catalog.note("kw/hand.md"), TODAY)
    assert (badge.record, badge.counted_level, badge.fresh_l2) == ("adopted", 2, True)
    assert run_audit(catalog, Policy(), today=TODAY).fresh_l2 == 1
    record = json.loads(next((vault / ".harness" / "adoptions").glob("adopt-*.json")).read_bytes())
    assert record["adopted_by"] == actors.os_account_name()
    assert record["notes"][0]["blocks_sha256"] == _blocks_digest_by_hand(vault / "kw/hand.md")

    # an edit of the adopted block (a later date typed by hand) is no longer what the person vouched for
    note = vault / "kw/hand.md"
    note.write_text(note.read_text(encoding="utf-8").replace("validator: lexical-1", "validator: lexical-2"), "utf-8")
    catalog = NoteCatalog(Vault.open(vault))
    badge = badge_of(catalog, Policy(), catalog.note("kw/hand.md"), TODAY)
    assert (badge.record, badge.counted_level, badge.fresh) == ("unrecorded", 0, False)


@pytest.mark.usefixtures("evidence_site")
def test_a_run_records_the_digest_of_what_it_wrote_and_only_that_counts(tmp_path: Path) -> None:
    vault = git_vault(tmp_path)
    plan = json.loads(kh("batch", "plan", str(vault), "--json", check=True).stdout)  # canary, dated by the clock
    handle = Vault.open(vault)
    run = batch.approve(handle, plan["plan_id"], f"APPROVE_PRODUCTION {plan['digest'][:12]}", actor=PERSON)
    assert run["run_status"] == "SUCCEEDED"
    path = plan["targets"][0]["path"]
    entry = run_record(vault, plan["run_id"])["files"][0]
    assert entry["blocks_sha256"] == _blocks_digest_by_hand(vault / path)

    def badge(p: str = path) -> tuple[str, int]:
        catalog = NoteCatalog(Vault.open(vault))
        b = badge_of(catalog, Policy(), catalog.note(p), TODAY)
        return b.record, b.counted_level

    level = plan["targets"][0]["proposed"]["verification"]["level"]
    assert badge() == ("recorded", level)

    # a run recorded before runs kept the digest is read from its plan's values, then from its bytes
    record_file = vault / ".harness" / "runs" / f"{plan['run_id']}.json"
    legacy = json.loads(record_file.read_bytes())
    del legacy["files"][0]["blocks_sha256"]
    record_file.write_text(json.dumps(legacy), encoding="utf-8")
    assert badge() == ("recorded", level)
    (vault / ".harness" / "plans" / f"{plan['plan_id']}.json").unlink()
    assert badge() == ("recorded", level)

    # the run's id copied into another adopted note: that run did not write it
    other = vault / "Keywords" / "PageIndex.md"
    assert badge("Keywords/PageIndex.md")[0] == "adopted"
    text = other.read_text(encoding="utf-8")
    copied = "\n".join(
        f"  run_id: {plan['run_id']}" if line.startswith("  run_id:") else line for line in text.split("\n")
    )
    other.write_text(copied, encoding="utf-8")
    assert badge("Keywords/PageIndex.md") == ("unrecorded", 0)

    # the records deleted: what the run wrote is no longer backed by anything
    shutil.rmtree(vault / ".harness" / "runs")
    assert badge() == ("unrecorded", 0)
    report = run_audit(NoteCatalog(Vault.open(vault)), Policy(), today=TODAY)
    assert path in {u.path for u in report.unrecorded}
    assert path not in report.windows.next_batch + report.windows.prepare + report.windows.watch


def test_an_adoption_file_edited_in_place_is_read_again(tmp_path: Path) -> None:
    vault = write_vault(tmp_path / "v", [NoteSpec("kw/hand.md")], adopted=False)
    adopt_all(vault)
    catalog = NoteCatalog(Vault.open(vault))
    assert badge_of(catalog, Policy(), catalog.note("kw/hand.md"), TODAY).record == "adopted"

    folder = vault / ".harness" / "adoptions"
    before = folder.stat()
    adoption = next(folder.glob("adopt-*.json"))
    record = json.loads(adoption.read_bytes())
    record["notes"] = []
    with adoption.open("r+b") as handle:  # the same file rewritten: the folder's listing does not change
        handle.truncate(0)
        handle.write(json.dumps(record).encode("utf-8"))
    os.utime(folder, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert folder.stat().st_mtime_ns == before.st_mtime_ns

    badge = badge_of(catalog, Policy(), catalog.note("kw/hand.md"), TODAY)  # the same catalog, its cache warm
    assert (badge.record, badge.counted_level) == ("unrecorded", 0)
