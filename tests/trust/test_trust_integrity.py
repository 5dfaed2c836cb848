"""Trust records never overstate: provisional writes, unreachable evidence, pages as they are now,
stages in order, and L3 — each on a small real vault with a real local web server."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from knowledge_harness.errors import Refused
from knowledge_harness.trust.approve import batch
from knowledge_harness.trust.approve.batch import progressive_size
from knowledge_harness.trust.approve.models import BatchRun, StoredPlan
from knowledge_harness.trust.audit.audit import iter_states, note_badge, run_audit
from knowledge_harness.trust.policy import load_policy
from knowledge_harness.trust.validate.dry_run_models import DryRunReport
from knowledge_harness.trust.validate.validation_service import dry_run
from knowledge_harness.vault.catalog import NoteCatalog
from knowledge_harness.vault.paths import Vault

from ..conftest import use_machine_config
from ..support.batch_support import (
    TODAY,
    challenge_of,
    fixture_now,
    git_vault,
    kh,
    plan_json,
    spawn_approval,
    wait_for,
)
from ..support.people import PERSON
from ..support.pipeline_helpers import LocalServer, html_page, local_server

FUJI = "富士山の標高は3776メートルで、日本で最も高い山である。"
FUJI_CHANGED = "富士山の標高は3776メートルではなく、日本で最も高い山でもない。"


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[LocalServer, dict[str, Any]]]:
    """A page whose answer the test changes: {"status": 200, "text": …}."""
    page: dict[str, Any] = {"status": 200, "text": FUJI}

    def serve(path: str, query: dict[str, list[str]], body: bytes) -> tuple[int, str, bytes]:
        return int(page["status"]), "text/html; charset=utf-8", html_page("富士山", str(page["text"]))

    with local_server(serve) as server:
        use_machine_config(monkeypatch, tmp_path, f'[evidence]\nallow_private_hosts = ["127.0.0.1:{server.port}"]\n')
        yield server, page


def _vault(root: Path, url: str, policy: str = "") -> Vault:
    (root / ".harness").mkdir(parents=True)
    (root / ".harness" / "policy.toml").write_text(policy + "[evidence]\nretries = 0\n", encoding="utf-8")
    (root / "Keywords").mkdir()
    (root / "Keywords" / "富士山.md").write_text(
        f"---\nprovenance:\n  origin: ai_generated\nreferences:\n  - {url}\n---\n# 富士山\n\n{FUJI}\n",
        encoding="utf-8",
    )
    return Vault.open(root)


def _plan_and_approve(vault: Vault, stage: str = "canary", **options: Any) -> dict[str, Any]:
    async def plan() -> StoredPlan:
        return await batch.build_plan(vault, stage=stage, now=fixture_now(), **options)

    made = anyio.run(plan)
    return batch.approve(vault, made.plan_id, batch.expected_challenge(made), actor=PERSON, now=fixture_now())


def _wait_for_the_first_write(vault: Path, plan: dict[str, Any]) -> None:
    run = vault / ".harness" / "runs" / f"{plan['run_id']}.json"
    wait_for(
        lambda: (
            run.exists()
            and any(f["result"] == "APPLIED" for f in batch.show_run(Vault.open(vault), plan["run_id"])["files"])
        ),
        what="the first write",
    )


def _audit(vault: Vault) -> Any:
    return run_audit(NoteCatalog(vault), load_policy(vault.root), today=dt.date.fromisoformat(TODAY))


def test_a_transient_fetch_failure_brings_the_note_back_within_a_day(
    tmp_path: Path, site: tuple[LocalServer, dict[str, Any]]
) -> None:
    server, page = site
    vault = _vault(tmp_path / "vault", server.url("/fuji"))
    page["status"] = 502

    record = _plan_and_approve(vault)

    assert record["run_status"] == "SUCCEEDED"
    written = (vault.root / "Keywords" / "富士山.md").read_text(encoding="utf-8")
    assert "revalidate_after: 2026-12-03" in written  # today + retry_unreachable_days (1), not 90 days
    assert "error: http_502" in written
    report = _audit(vault)
    assert [(s.path, s.triggers) for s in report.stale] == [("Keywords/富士山.md", ["evidence_unreachable"])]
    assert [c.path for c in batch.find_candidates(NoteCatalog(vault), load_policy(vault.root), report.today)] == [
        "Keywords/富士山.md"
    ]


def test_a_page_that_is_gone_is_evidence_missing(tmp_path: Path, site: tuple[LocalServer, dict[str, Any]]) -> None:
    server, page = site
    vault = _vault(tmp_path / "vault", server.url("/fuji"))
    page["status"] = 404
    _plan_and_approve(vault)
    assert [s.triggers for s in _audit(vault).stale] == [["evidence_missing"]]


def test_a_cited_page_is_judged_as_it_is_now(tmp_path: Path, site: tuple[LocalServer, dict[str, Any]]) -> None:
    server, page = site
    vault = _vault(tmp_path / "vault", server.url("/fuji"))

    def judged(**options: Any) -> DryRunReport:
        async def run() -> DryRunReport:
            return await dry_run(vault, "Keywords/富士山.md", **options)

        return anyio.run(run)

    first = judged()
    assert first.result.verdict == "pass"
    page["text"] = FUJI_CHANGED
    within_window = judged()
    assert within_window.sources[0].reused_snapshot is True  # 10 minutes: the same fetch
    refetched = judged(refetch=True)
    assert refetched.sources[0].reused_snapshot is False
    assert refetched.result.verdict != "pass"
    assert refetched.sources[0].snapshot_sha256 != first.sources[0].snapshot_sha256

    # Once the window has passed, the page is fetched again without asking.
    (vault.root / ".harness" / "policy.toml").write_text(
        "[evidence]\nretries = 0\nsnapshot_max_age_minutes = 0\n", encoding="utf-8"
    )
    page["text"] = FUJI
    again = judged()
    assert again.sources[0].reused_snapshot is False and again.result.verdict == "pass"


def test_every_claim_supported_by_a_primary_domain_is_l3(
    tmp_path: Path, site: tuple[LocalServer, dict[str, Any]]
) -> None:
    server, _ = site
    vault = _vault(tmp_path / "vault", server.url("/fuji"), 'primary_domains = ["127.0.0.1"]\n')

    async def run() -> DryRunReport:
        return await dry_run(vault, "Keywords/富士山.md")

    report = anyio.run(run)
    assert report.result.verdict == "pass"
    assert (report.proposed.verification or {})["level"] == 3

    (vault.root / ".harness" / "policy.toml").write_text('primary_domains = ["docs.python.org"]\n', encoding="utf-8")
    assert (anyio.run(run).proposed.verification or {})["level"] == 2  # supported, but not by a primary source


def test_stages_go_in_order_unless_overridden_and_the_override_is_recorded(tmp_path: Path) -> None:
    vault = git_vault(tmp_path)
    refused = kh("batch", "plan", str(vault), "--stage", "progressive", "--today", TODAY)
    assert refused.returncode == 1 and "canary" in refused.stderr and "Traceback" not in refused.stderr
    assert "pilot" in kh("batch", "plan", str(vault), "--stage", "pilot", "--today", TODAY).stderr

    with pytest.raises(Refused, match="canary"):
        anyio.run(lambda: batch.build_plan(Vault.open(vault), stage="pilot", today=dt.date.fromisoformat(TODAY)))
    plan = plan_json(vault, "--stage", "pilot", "--out-of-order")
    assert plan["out_of_order"] is True
    record = batch.approve(Vault.open(vault), plan["plan_id"], challenge_of(plan), actor=PERSON, now=fixture_now())
    assert record["out_of_order"] is True and record["stage"] == "pilot"


def test_a_progressive_batch_is_sized_to_the_next_coverage_step(tmp_path: Path) -> None:
    vault = git_vault(tmp_path)
    report = _audit(Vault.open(vault))
    # the example vault: 22 evidence-capable notes, 11 Fresh L2 (50 %): the next step is 80 % = 18
    assert (report.evidence_capable, report.fresh_l2) == (22, 11)
    assert progressive_size(report) == 7
    assert progressive_size(report.model_copy(update={"fresh_l2": 2})) == 4  # to 25 % = 6
    assert progressive_size(report.model_copy(update={"fresh_l2": 18})) == 4  # past 80 %: the rest


def test_notes_written_by_a_failed_run_are_provisional_until_a_run_succeeds(tmp_path: Path) -> None:
    vault = git_vault(tmp_path)
    before = json.loads(kh("audit", str(vault), "--json", "--today", TODAY, check=True).stdout)
    plan = plan_json(vault)
    target = plan["targets"][0]["path"]
    proc = spawn_approval(vault, plan["plan_id"], challenge_of(plan), env={"KH_TEST_PAUSE_AFTER_WRITE": "3"})
    _wait_for_the_first_write(vault, plan)
    home = vault / "ホーム.md"
    home.write_bytes(home.read_bytes() + "\n別のプロセスによる編集\n".encode())
    assert proc.wait().exit_code == 1

    audit = json.loads(kh("audit", str(vault), "--json", "--today", TODAY, check=True).stdout)
    assert audit["provisional"] == [{"path": target, "run_id": plan["run_id"]}]
    assert audit["fresh_l2"] <= before["fresh_l2"]
    badge = note_badge(NoteCatalog(Vault.open(vault)), load_policy(vault), target, today=dt.date.fromisoformat(TODAY))
    assert badge.provisional_run_id == plan["run_id"] and not badge.fresh_l2
    text = kh("audit", str(vault), "--today", TODAY).stdout
    assert f"Provisional: 1\n  - {target}: written by run {plan['run_id']}" in text
    candidates = batch.find_candidates(NoteCatalog(Vault.open(vault)), load_policy(vault), dt.date.fromisoformat(TODAY))
    assert any(c.path == target and c.reason == "provisional" for c in candidates)

    # a later successful run re-verifies the note
    again = plan_json(vault, "--notes", target)
    record = batch.approve(Vault.open(vault), again["plan_id"], challenge_of(again), actor=PERSON, now=fixture_now())
    assert record["run_status"] == "SUCCEEDED"
    after = json.loads(kh("audit", str(vault), "--json", "--today", TODAY, check=True).stdout)
    assert after["provisional"] == []
    assert target not in {s["path"] for s in after["stale"]}


def test_an_approval_survives_obsidian_rewriting_its_workspace_but_not_a_note(tmp_path: Path) -> None:
    vault = git_vault(tmp_path)
    (vault / ".obsidian").mkdir(exist_ok=True)
    workspace = vault / ".obsidian" / "workspace.json"
    workspace.write_text('{"main": {}}', encoding="utf-8")
    plan = plan_json(vault)
    proc = spawn_approval(vault, plan["plan_id"], challenge_of(plan), env={"KH_TEST_PAUSE_AFTER_WRITE": "3"})
    _wait_for_the_first_write(vault, plan)
    workspace.write_text('{"main": {"active": "Keywords/RAG.md"}}', encoding="utf-8")  # Obsidian, by itself
    run = proc.wait()
    assert run.exit_code == 0, run.screen
    assert run.record["run_status"] == "SUCCEEDED" and run.record["scope"]["ok"]


def test_a_requested_note_far_from_its_deadline_is_planned_with_a_warning(tmp_path: Path) -> None:
    vault = git_vault(tmp_path)
    plan = plan_json(vault, "--notes", "Keywords/PageIndex.md")
    target = plan["targets"][0]
    assert target["reason"] == "requested" and target["days_left"] > 30
    assert plan["warnings"] == [
        f"Keywords/PageIndex.md is due in {target['days_left']} days (more than 30): it does not need revalidation yet."
    ]
    shown = kh("batch", "show", str(vault), plan["plan_id"], check=True).stdout
    assert f"due in {target['days_left']} days" in shown and "warning: Keywords/PageIndex.md" in shown


@pytest.mark.usefixtures("evidence_site")
@pytest.mark.parametrize("bom", [False, True])
@pytest.mark.parametrize("newline", ["\n", "\r\n"])
@pytest.mark.parametrize("frontmatter", [False, True])
def test_a_written_note_is_fresh_whatever_its_bom_line_endings_and_frontmatter(
    tmp_path: Path, bom: bool, newline: str, frontmatter: bool
) -> None:
    root = tmp_path / "vault"
    (root / "Keywords").mkdir(parents=True)
    lines = [
        "# 鮮度管理",
        "",
        "鮮度管理は、ノートの情報が古くなっていないかを確かめる運用である。",
        "",
        "## 参考資料",
        "",
        "- http://127.0.0.1:8731/freshness.html",
        "",
    ]
    if frontmatter:
        lines = ["---", "provenance:", "  origin: ai_generated", "---", *lines]
    data = ("\ufeff" if bom else "") + newline.join(lines)
    (root / "Keywords" / "note.md").write_bytes(data.encode("utf-8"))
    vault = Vault.open(root)

    async def plan() -> StoredPlan:
        return await batch.build_plan(vault, notes=["Keywords/note.md"], now=fixture_now())

    made = anyio.run(plan)
    record = batch.approve(vault, made.plan_id, batch.expected_challenge(made), actor=PERSON, now=fixture_now())
    assert record["run_status"] == "SUCCEEDED"
    state = next(s for s in iter_states(NoteCatalog(vault), load_policy(root), dt.date.fromisoformat(TODAY)))
    assert "content_changed" not in state.triggers and "references_changed" not in state.triggers


def test_a_canary_that_proved_nothing_does_not_unlock_the_pilot(tmp_path: Path) -> None:
    vault = git_vault(tmp_path)
    plan = plan_json(vault)  # canary: one note
    note = vault / plan["targets"][0]["path"]
    note.write_bytes(note.read_bytes() + b"\nedited after the plan\n")  # the person edits it meanwhile
    record = batch.approve(Vault.open(vault), plan["plan_id"], challenge_of(plan), actor=PERSON, now=fixture_now())
    assert record["run_status"] == "SUCCEEDED" and [f["result"] for f in record["files"]] == ["REFUSED"]
    assert not batch.proves_something(BatchRun.model_validate(record))
    refused = kh("batch", "plan", str(vault), "--stage", "pilot", "--today", TODAY)
    assert refused.returncode == 1 and "proves nothing" in refused.stderr
    # a run that applied a note at L1 only (a page that answered 404) proves nothing either
    l1 = {**record, "files": [{**record["files"][0], "result": "APPLIED", "verdict": "unverifiable"}]}
    assert not batch.proves_something(BatchRun.model_validate(l1))
    assert batch.proves_something(BatchRun.model_validate({**l1, "files": [{**l1["files"][0], "verdict": "pass"}]}))


def test_a_plan_says_which_snapshots_it_reuses_and_refetch_judges_the_page_as_it_is_now(
    tmp_path: Path, site: tuple[LocalServer, dict[str, Any]]
) -> None:
    server, page = site
    vault = _vault(tmp_path / "vault", server.url("/fuji"))
    day = dt.date.fromisoformat(TODAY)

    def plan(**options: Any) -> StoredPlan:
        return anyio.run(lambda: batch.build_plan(vault, stage="canary", today=day, **options))

    assert "fetch 1 cited page(s) and judge" in batch.preview_plan(vault, today=day).describe()
    assert plan().targets[0].verdict == "pass"
    page["text"] = FUJI_CHANGED  # the page changes right after
    told = batch.preview_plan(vault, today=day).describe()
    assert "fetch 0 cited page(s), reuse 1 snapshot(s) fetched" in told and "--refetch" in told
    assert "fetch 1 cited page(s) and judge" in batch.preview_plan(vault, today=day, refetch=True).describe()
    assert plan(refetch=True).targets[0].verdict != "pass"  # the new text is judged
