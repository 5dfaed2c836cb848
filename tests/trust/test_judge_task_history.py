"""A judge task keeps a bounded history: an agent that takes a task and drops its session again and
again leaves the last releases on record, not a file that grows until the task expires."""

from __future__ import annotations

import time
from pathlib import Path

from knowledge_harness.trust.validate.judge_tasks import JudgeTaskStore
from knowledge_harness.vault.paths import Vault


def test_the_releases_of_a_task_taken_and_dropped_many_times_are_bounded(tmp_path: Path) -> None:
    (tmp_path / "v").mkdir()
    store = JudgeTaskStore(Vault.open(tmp_path / "v"))
    task_id = store.post({"deadline": time.time() + 60}, {"s1": "Mount Fuji is 3,776 metres high."})
    for n in range(30):
        taken = store.take({"name": "agent:flaky", "client": "flaky", "session": f"s{n}"})
        assert taken is not None and taken["task_id"] == task_id
        assert store.release_session(f"s{n}", f"dropped {n}") == [task_id]
    released = store.read(task_id)["released"]
    assert len(released) == 20
    assert [r["why"] for r in released] == [f"dropped {n}" for n in range(10, 30)]
    assert store.read(task_id)["state"] == "open"
