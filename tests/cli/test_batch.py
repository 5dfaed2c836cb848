"""`kh batch plan`: it says on stderr what it will fetch and judge before it does, and a paid judge goes
ahead only with a yes at the terminal or `--yes`. (`kh batch approve` at a terminal: test_terminal.py;
its progress lines: test_progress.py.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ..conftest import use_machine_config
from ..support.batch_support import TODAY, git_vault, kh
from ..support.llm_standin import LLMStandIn


@pytest.mark.usefixtures("evidence_site")
def test_a_plan_says_what_it_will_fetch_and_a_paid_judge_needs_a_yes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = git_vault(tmp_path)
    free = kh("batch", "plan", str(vault), "--today", TODAY, check=True)
    assert "This canary plan will fetch 1 cited page(s) and judge" in free.stderr and "(offline, free)" in free.stderr

    standin = LLMStandIn().start()
    try:
        use_machine_config(
            monkeypatch,
            tmp_path,
            '[evidence]\nallow_private_hosts = ["127.0.0.1:8731"]\n'
            f'[judges.local]\nbase_url = "{standin.base_url}"\nmodel = "valid"\n',
        )
        (vault / ".harness" / "policy.toml").write_text('[judge]\nprofile = "local"\n', encoding="utf-8")
        plans = sorted((vault / ".harness").glob("plans/*.json"))
        refused = kh("batch", "plan", str(vault), "--today", TODAY)
        assert refused.returncode == 1 and "--yes" in refused.stderr
        assert "call(s) to the openai_compat judge" in refused.stderr
        assert standin.requests == [] and sorted((vault / ".harness").glob("plans/*.json")) == plans
        agreed = kh("batch", "plan", str(vault), "--today", TODAY, "--yes", "--json")
        assert agreed.returncode == 0, agreed.stderr
        assert len(standin.requests) == 1, json.loads(agreed.stdout)["targets"][0]["validator"]
    finally:
        standin.stop()
