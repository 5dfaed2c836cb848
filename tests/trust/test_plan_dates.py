"""A plan is dated by this machine's clock: a `--today` plan is a rehearsal that is never approved, and an
approval on a day outside the plan's window writes nothing. A small real vault and a real local page."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from knowledge_harness.errors import Refused
from knowledge_harness.trust.approve import batch
from knowledge_harness.trust.approve.models import StoredPlan
from knowledge_harness.vault.paths import Vault

from ..support.batch_support import TODAY, fixture_now, kh
from ..support.cited_vault import vault_citing_one_page
from ..support.people import PERSON

FUJI = "富士山の標高は3776メートルで、日本で最も高い山である。"


@pytest.fixture
def fuji(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Vault]:
    body = f"# 富士山\n\n{FUJI}\n"
    with vault_citing_one_page(
        tmp_path, monkeypatch, note="Keywords/富士山.md", title="富士山", page=FUJI, body=body
    ) as root:
        yield Vault.open(root)


def _note(vault: Vault) -> bytes:
    return (vault.root / "Keywords" / "富士山.md").read_bytes()


def test_a_plan_dated_by_anything_but_the_clock_is_a_rehearsal_that_is_never_approved(fuji: Vault) -> None:
    before = _note(fuji)
    rehearsal: StoredPlan = anyio.run(lambda: batch.build_plan(fuji, today=dt.date(2099, 1, 1)))
    assert batch.plan_view(fuji, rehearsal).rehearsal is True
    with pytest.raises(Refused, match=r"rehearsal dated 2099-01-01.*nothing was written"):
        batch.approve(fuji, rehearsal.plan_id, batch.expected_challenge(rehearsal), actor=PERSON)
    assert _note(fuji) == before
    shown = kh("batch", "plan", str(fuji.root), "--today", "2099-01-01")
    assert shown.returncode == 0, shown.stderr
    assert "REHEARSAL as of 2099-01-01" in shown.stdout and "kh batch approve" not in shown.stdout


def test_approval_takes_the_machines_date_within_the_plans_window(fuji: Vault) -> None:
    before = _note(fuji)
    made: StoredPlan = anyio.run(lambda: batch.build_plan(fuji, now=fixture_now()))
    assert made.today == TODAY and not batch.plan_view(fuji, made, now=fixture_now()).rehearsal
    typed = batch.expected_challenge(made)
    for wrong in (fixture_now() - dt.timedelta(days=1), fixture_now() - dt.timedelta(hours=1)):
        with pytest.raises(Refused, match="outside the window"):  # a clock set back: the plan is from its future
            batch.approve(fuji, made.plan_id, typed, actor=PERSON, now=wrong)
    assert _note(fuji) == before
    record = batch.approve(fuji, made.plan_id, typed, actor=PERSON, now=fixture_now() + dt.timedelta(hours=2))
    assert record["run_status"] == "SUCCEEDED"
    assert f"last_validated: {TODAY}" in _note(fuji).decode()
