"""Plans: the candidate order, stage limits, the digest, tampering (`kh discover`: tests/cli/test_runs.py)."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from pathlib import Path
from typing import Any, get_args

import anyio
import pytest

from knowledge_harness.core.clock import parse_utc_z, utc_z
from knowledge_harness.errors import InputError, PlanTampered, Refused
from knowledge_harness.trust.approve import batch
from knowledge_harness.trust.approve import plan as plan_module
from knowledge_harness.trust.approve.models import PlanReason, StoredPlan
from knowledge_harness.trust.policy import load_policy
from knowledge_harness.trust.records import write_plan
from knowledge_harness.trust.validate.dry_run_models import DryRunReport
from knowledge_harness.vault.catalog import NoteCatalog
from knowledge_harness.vault.paths import Vault

from ..support.batch_support import TODAY, tree_bytes
from ..support.people import PERSON

DAY = dt.date.fromisoformat(TODAY)


def test_candidates_come_in_the_documented_order(example_vault: Path) -> None:
    vault = Vault.open(example_vault)
    found = batch.find_candidates(NoteCatalog(vault), load_policy(vault.root), DAY)
    reasons = [c.reason for c in found]
    assert reasons == sorted(reasons, key=["next_batch", "stale", "never_validated"].index)
    by_reason = {r: [c.path for c in found if c.reason == r] for r in ("next_batch", "stale", "never_validated")}
    assert by_reason["next_batch"] == ["Keywords/鮮度管理.md"]
    assert set(by_reason["stale"]) == {
        "Keywords/Map of Content.md",
        "Keywords/Markdown見出し.md",
        "Keywords/Properties（Obsidian）.md",
        "Keywords/Workers AI.md",  # its last validation fetched nothing: due again at once
        "Keywords/内部リンク.md",
    }
    assert by_reason["stale"][0] == "Keywords/Map of Content.md"  # the most overdue first (14 days)
    assert by_reason["never_validated"] == ["Keywords/Embedding.md", "Keywords/RAG.md"]
    # never a candidate: the malformed note, the note without http evidence, prepare/watch windows
    paths = {c.path for c in found}
    assert not paths & {"Keywords/Stage F.md", "Keywords/チャンキング.md", "Keywords/GitHub Actions.md"}


@pytest.mark.usefixtures("evidence_site")
def test_the_digest_is_the_sha256_of_the_plans_canonical_json(example_vault: Path) -> None:
    vault = Vault.open(example_vault)
    plan = anyio.run(lambda: batch.build_plan(vault, stage="pilot", today=DAY, out_of_order=True))
    assert len(plan.targets) == 8  # 1 next_batch + 5 stale + 2 never validated: pilot's 8
    stored = json.loads((example_vault / ".harness" / "plans" / f"{plan.plan_id}.json").read_bytes())
    body = {k: v for k, v in stored.items() if k != "digest"}
    canonical = json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode()
    assert stored["digest"] == hashlib.sha256(canonical).hexdigest()
    view = batch.plan_view(vault, StoredPlan.model_validate(stored))
    assert view.digest == stored["digest"][:12]
    created = parse_utc_z(view.created_at)
    assert parse_utc_z(view.expires_at) - created == dt.timedelta(hours=24)
    for target in stored["targets"]:
        assert target["sha256_before"] == hashlib.sha256((example_vault / target["path"]).read_bytes()).hexdigest()
        assert set(target["proposed"]) == {"verification", "evidence"}
        assert "findings" in target

    # the digest covers the proof: each finding's quotes and their offsets in the snapshot
    quoted = [f for t in stored["targets"] for f in t["findings"] if f["quotes"]]
    assert quoted
    edited = json.loads(json.dumps(stored))
    next(f for t in edited["targets"] for f in t["findings"] if f["quotes"])["quotes"][0]["end"] += 1
    assert batch.plan_digest(edited) != stored["digest"]

    # a plan edited after it was made is refused, nothing written
    stored["targets"][0]["proposed"]["verification"]["level"] = 3
    path = example_vault / ".harness" / "plans" / f"{plan.plan_id}.json"
    path.write_text(json.dumps(stored), encoding="utf-8")
    before = tree_bytes(example_vault)
    with pytest.raises(PlanTampered):
        batch.approve(vault, plan.plan_id, batch.expected_challenge(plan), actor=PERSON)
    assert tree_bytes(example_vault) == before


def test_stage_limits_cap_an_explicit_note_list(example_vault: Path) -> None:
    vault = Vault.open(example_vault)
    with pytest.raises(InputError, match="at most 1"):
        anyio.run(lambda: batch.build_plan(vault, stage="canary", notes=["Keywords/RAG.md", "Keywords/Embedding.md"]))
    with pytest.raises(InputError):
        anyio.run(lambda: batch.build_plan(vault, stage="bogus"))


def test_an_agents_judge_budget_counts_the_calls_of_todays_plans(tmp_path: Path) -> None:
    """`[agents] judge_calls_per_day` is spent by the plans made today (UTC) with the agent token:
    earlier days' plans, and plans that name no agent calls, spend none of it."""
    vault = Vault.open(tmp_path)
    today = dt.datetime(2026, 5, 2, 9, 30, tzinfo=dt.UTC)
    yesterday = today - dt.timedelta(days=1)
    for moment, calls in ((today, 3), (today + dt.timedelta(hours=1), 4), (yesterday, 5), (today, None)):
        plan_id, _ = batch.new_ids(moment)
        plan = {"plan_id": plan_id, "created_at": utc_z(moment)}
        if calls is not None:
            plan["agent_judge_calls"] = calls
        write_plan(vault, plan_id, plan)
    assert batch.agent_judge_calls_on(vault, today.date()) == 7
    assert batch.agent_judge_calls_on(vault, yesterday.date()) == 5

    def preview(calls: int) -> batch.PlanPreview:
        return batch.PlanPreview("canary", ["a.md"], 1, calls, "openai_compat", calls)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(plan_module, "now_utc", lambda: today)
        assert batch.require_agent_judge_budget(vault, preview(3), 10) == 3
        with pytest.raises(Refused) as refused:
            batch.require_agent_judge_budget(vault, preview(4), 10)
    assert refused.value.detail == {"judge": "openai_compat", "judge_calls": 4, "budget": 10, "used_today": 7}
    free = batch.PlanPreview("canary", ["a.md"], 1, 9, "lexical", 9)
    assert batch.require_agent_judge_budget(vault, free, 0) == 0


def test_every_reason_a_candidate_can_have_is_one_a_plan_target_can_have() -> None:
    """POST /v1/batches answers with PlanTarget: a plan with an `unrecorded` note must not fail its answer."""
    assert set(get_args(plan_module.Reason)) == set(get_args(PlanReason))


@pytest.mark.usefixtures("evidence_site")
def test_a_note_deleted_while_it_is_validated_is_skipped_not_the_whole_plan(
    example_vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = Vault.open(example_vault)
    gone, kept = "Keywords/RAG.md", "Keywords/Embedding.md"
    real_dry_run = plan_module.dry_run

    async def deleting(handle: Vault, path: str, **options: Any) -> DryRunReport:
        report = await real_dry_run(handle, path, **options)
        if path == gone:
            (example_vault / gone).unlink()  # the person deletes it while its pages are judged
        return report

    monkeypatch.setattr(plan_module, "dry_run", deleting)
    plan = anyio.run(lambda: batch.build_plan(vault, stage="pilot", notes=[gone, kept], today=DAY, out_of_order=True))
    assert [t.path for t in plan.targets] == [kept]
    assert [s.path for s in plan.skipped] == [gone]
    assert "deleted" in plan.skipped[0].reason
