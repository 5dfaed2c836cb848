"""The first look at one's own vault over HTTP (GET /v1/trust/init, POST /v1/trust/init/write) and
the candidates of the next batch (GET /v1/trust/candidates), against `kh serve` as a real subprocess.

The report is the one `kh init VAULT --json` prints; only the person token writes the policy, only
the rule the person saw, and never over an existing policy without `force`.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import httpx
import pytest

from tests.conftest import KH, Sidecar, start_sidecar, stop_sidecar
from tests.support.plain_vault import write_ordinary_notes


@pytest.fixture
def served(tmp_path: Path) -> Sidecar:
    running = start_sidecar(write_ordinary_notes(tmp_path / "vault"))
    yield running  # type: ignore[misc]
    stop_sidecar(running)


def _kh_json(*args: str) -> dict[str, object]:
    done = subprocess.run([str(KH), *args], capture_output=True, text=True, timeout=60, check=True)
    loaded: dict[str, object] = json.loads(done.stdout)
    return loaded


def test_the_report_is_kh_init_json_and_writes_nothing(served: Sidecar) -> None:
    with served.client() as person, served.agent_client() as agent:
        report = person.get("/v1/trust/init")
        assert report.status_code == 200, report.text
        assert agent.get("/v1/trust/init").json() == report.json()  # reading is not a person's act
    cli = _kh_json("init", str(served.vault), "--json")
    # kh init also reports the index notes it finds (the reasoning index's part, not the trust report's)
    index_notes = cli.pop("index_notes")
    assert isinstance(index_notes, dict) and "by_name" in index_notes
    assert report.json() == cli
    body = report.json()
    assert body["counted_now"]["evidence_capable"] == 0
    assert body["counted_with_proposal"]["evidence_capable"] == 1
    assert body["proposed_rule"]["folders"] == ["Research"] and body["policy_exists"] is False
    assert not (served.vault / ".harness" / "policy.toml").exists()


def test_the_agent_token_cannot_write_the_policy(served: Sidecar) -> None:
    with served.agent_client() as agent:
        proposed = agent.get("/v1/trust/init").json()["proposed_toml"]
        refused = agent.post("/v1/trust/init/write", json={"proposed_toml": proposed})
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "person_required"
    assert not (served.vault / ".harness" / "policy.toml").exists()


def test_the_person_writes_the_rule_they_saw_and_the_audit_counts_it(served: Sidecar) -> None:
    with served.client() as person:
        proposed = person.get("/v1/trust/init").json()["proposed_toml"]
        assert person.get("/v1/trust/audit").json()["evidence_capable"] == 0
        written = person.post("/v1/trust/init/write", json={"proposed_toml": proposed})
        assert written.status_code == 200, written.text
        audit = person.get("/v1/trust/audit").json()
        again = person.get("/v1/trust/init").json()
    body = written.json()
    assert body["written"] is True and '+folders = ["Research"]' in body["diff"]
    policy = (served.vault / ".harness" / "policy.toml").read_text(encoding="utf-8")
    assert proposed in policy
    assert (audit["raw"], audit["evidence_capable"]) == (2, 1)
    assert again["policy_exists"] is True and again["counted_now"]["evidence_capable"] == 1


def test_an_existing_policy_is_kept_unless_forced_and_then_only_keywords_change(served: Sidecar) -> None:
    policy = served.vault / ".harness" / "policy.toml"
    policy.parent.mkdir(exist_ok=True)
    policy.write_text("ttl_days = 30\n\n[keywords]\nprovenance = true\n\n[stages]\npilot = 4\n", encoding="utf-8")
    before = policy.read_bytes()
    with served.client() as person:
        proposed = person.get("/v1/trust/init").json()["proposed_toml"]
        refused = person.post("/v1/trust/init/write", json={"proposed_toml": proposed})
        assert refused.status_code == 409 and refused.json()["error"]["code"] == "refused"
        assert policy.read_bytes() == before
        forced = person.post("/v1/trust/init/write", json={"proposed_toml": proposed, "force": True})
    assert forced.status_code == 200, forced.text
    text = policy.read_text(encoding="utf-8")
    assert text.startswith("ttl_days = 30\n") and "[stages]\npilot = 4\n" in text
    assert 'folders = ["Research"]' in text


def test_a_proposal_that_changed_since_it_was_shown_is_refused(served: Sidecar) -> None:
    with served.client() as person:
        shown = person.get("/v1/trust/init").json()["proposed_toml"]
        (served.vault / "Notes").mkdir()
        (served.vault / "Notes" / "tls.md").write_text(
            "# TLS\n\n## References\n\n- https://www.rfc-editor.org/rfc/rfc8446\n", encoding="utf-8"
        )
        stale = person.post("/v1/trust/init/write", json={"proposed_toml": shown})
        bad = person.post("/v1/trust/init/write", json={"proposed_toml": shown, "extra": 1})
    assert stale.status_code == 412 and stale.json()["error"]["code"] == "precondition_failed"
    assert 'folders = ["Notes", "Research"]' in stale.json()["error"]["detail"]["proposed_toml"]
    assert bad.status_code == 422
    assert not (served.vault / ".harness" / "policy.toml").exists()


def test_candidates_are_what_kh_discover_lists_and_nothing_is_written(served: Sidecar) -> None:
    with served.client() as person:
        before = person.get("/v1/trust/candidates")
        assert before.status_code == 200 and before.json()["candidates"] == []
        proposed = person.get("/v1/trust/init").json()["proposed_toml"]
        person.post("/v1/trust/init/write", json={"proposed_toml": proposed}).raise_for_status()
    with served.agent_client() as agent:
        after = agent.get("/v1/trust/candidates", params={"today": "2026-12-04"}).json()
    assert after["today"] == "2026-12-04"
    assert after["candidates"] == [
        {"path": "Research/asyncio.md", "reason": "never_validated", "days_left": None, "triggers": []}
    ]
    assert after["counts"] == {"next_batch": 0, "stale": 0, "provisional": 0, "unrecorded": 0, "never_validated": 1}
    assert not (served.vault / ".harness" / "discovery.json").exists()
    discovered = _kh_json("discover", str(served.vault), "--json", "--today", "2026-12-04")
    assert discovered["candidates"] == after["candidates"]


def test_the_routes_need_a_token(served: Sidecar) -> None:
    for path in ("/v1/trust/init", "/v1/trust/candidates"):
        assert httpx.get(f"{served.url}{path}").status_code == 401
    assert httpx.post(f"{served.url}/v1/trust/init/write", json={"proposed_toml": ""}).status_code == 401
