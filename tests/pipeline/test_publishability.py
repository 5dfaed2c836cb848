"""Publishability is the person's: an agent can neither answer it through the note nor through the API,
the record names who answered and how, and the authorize prompt shows the request and that answer."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from knowledge_harness.actors import os_account_name

from ..conftest import KH, start_sidecar, stop_sidecar
from ..support.pipeline_helpers import request_note, write_configs, write_note
from ..support.terminal import run_at_terminal

QUESTION = "Obsidian のプロパティは YAML 1.2 の真偽値として読まれるのかを知りたい。"


def test_an_agent_cannot_answer_publishability_and_the_person_can(tmp_path: Path) -> None:
    vault = tmp_path / "v"
    write_note(vault, "Requests/q.md", request_note(QUESTION, publishable=None, title="真偽値の依頼"))
    write_configs(vault, pipeline_toml='[evidence]\nproviders = ["vault"]\n')
    sidecar = start_sidecar(vault)
    agent = sidecar.agent_client()
    try:
        with sidecar.client() as person:
            created = agent.post("/v1/pipeline/runs", json={"note": "Requests/q.md"})
            assert created.status_code == 201, created.text
            run_id = created.json()["run_id"]
            assert created.json()["waiting_for"] == "human:Q-01 publishability"

            # the agent writes the answer into the note and captures again: refused, nothing changes
            write_note(vault, "Requests/q.md", request_note(QUESTION, publishable="true", title="真偽値の依頼"))
            refused = agent.post("/v1/pipeline/runs", json={"note": "Requests/q.md"})
            assert refused.status_code == 403, refused.text
            assert "publishable" in refused.json()["error"]["message"] and "Q-01" in refused.json()["error"]["message"]
            # nor can it answer through the answer door
            assert (
                agent.post(
                    f"/v1/pipeline/runs/{run_id}/answers", json={"question_id": "Q-01", "answer": "publishable"}
                ).status_code
                == 403
            )
            # nor set it when capturing a question
            api = agent.post("/v1/pipeline/runs", json={"question": QUESTION, "publishable": True})
            assert api.status_code == 403 and "publishability" in api.json()["error"]["message"]

            detail = person.get(f"/v1/pipeline/runs/{run_id}/detail").json()
            assert detail["state"] == "CAPTURED" and detail["waiting_for"] == "human:Q-01 publishability"
            assert detail["questions"][0]["answer"] is None
            shown = person.get(f"/v1/pipeline/runs/{run_id}/authorization").json()
            assert shown["publishable"] is None and shown["publishability_ja"] == "未回答（Q-01）"

            # the person answers: the record names who and how
            answered = person.post(
                f"/v1/pipeline/runs/{run_id}/answers",
                json={"question_id": "Q-01", "answer": "publishable", "via": "plugin"},
            )
            assert answered.status_code == 200, answered.text
            detail = person.get(f"/v1/pipeline/runs/{run_id}/detail").json()
            question = detail["questions"][0]
            assert question["answered_by"] == f"{os_account_name()} via Obsidian"
            assert question["answered_via"] == "plugin"
            request = person.get(f"/v1/pipeline/runs/{run_id}/artifacts/request").json()
            assert request["publishable"] is True
            assert request["publishability"]["how"] == "answer"
            assert request["publishability"]["by"] == f"{os_account_name()} via Obsidian"
            o01 = [r for r in detail["records"] if r["operation"] == "O-01"][-1]
            assert o01["result"] == "ADVANCE" and "回答" in o01["summary_ja"]

            shown = person.get(f"/v1/pipeline/runs/{run_id}/authorization").json()
            assert shown["title"] == "真偽値の依頼" and "YAML 1.2" in shown["excerpt"]
            assert shown["publishable"] is True
            assert shown["publishability_en"] == f"publishable — answered by {os_account_name()} via Obsidian (plugin)"

            # the person capturing a question with `publishable` is the person's answer
            mine = person.post("/v1/pipeline/runs", json={"question": QUESTION, "publishable": True})
            assert mine.status_code == 201 and mine.json()["waiting_for"] == "authorization"
            by = person.get(f"/v1/pipeline/runs/{mine.json()['run_id']}/authorization").json()["publishability"]
            assert (by["how"], by["by"], by["via"]) == ("api_at_capture", os_account_name(), "http")
    finally:
        agent.close()
        stop_sidecar(sidecar)


def test_a_note_changed_after_capture_counts_only_when_the_person_captures_it(tmp_path: Path) -> None:
    vault = tmp_path / "v"
    write_note(vault, "Requests/q.md", request_note(QUESTION, publishable=None, title="真偽値の依頼"))
    write_configs(vault, pipeline_toml='[evidence]\nproviders = ["vault"]\n')
    env = dict(os.environ)
    first = run_at_terminal([str(KH), "pipeline", "capture", str(vault), "Requests/q.md", "--json"], [], env=env)
    run_id = first.record["run_id"]
    write_note(vault, "Requests/q.md", request_note(QUESTION, publishable="true", title="真偽値の依頼"))

    # a script (no terminal) captures the changed note: refused, the question stays open
    script = subprocess.run(
        [str(KH), "pipeline", "capture", str(vault), "Requests/q.md", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        start_new_session=True,
    )
    assert script.returncode == 1 and "publishable" in script.stderr, script.stderr
    run_json = json.loads((vault / ".harness/runs/pipeline" / run_id / "run.json").read_text(encoding="utf-8"))
    assert run_json["publishability"] is None and run_json["questions"][0]["answer"] is None

    # the person at a terminal captures it: that is their answer, and the question is answered
    again = run_at_terminal([str(KH), "pipeline", "capture", str(vault), "Requests/q.md", "--json"], [], env=env)
    assert again.exit_code == 0, again.screen
    run_json = json.loads((vault / ".harness/runs/pipeline" / run_id / "run.json").read_text(encoding="utf-8"))
    assert run_json["publishability"]["how"] == "note_recaptured"
    assert run_json["publishability"]["by"] == os_account_name()
    assert run_json["questions"][0]["answer"] == "publishable"
    assert run_json["waiting_for"] == "authorization"

    # the authorize prompt shows the request, an excerpt and who answered publishability
    shown = run_at_terminal([str(KH), "pipeline", "authorize", str(vault), run_id], ["no"], env=env)
    assert shown.exit_code == 1
    screen = shown.screen.replace("\r\n", "\n")
    assert "真偽値の依頼" in screen and "YAML 1.2" in screen
    assert f"公開してよい — {os_account_name()} が依頼ノートを再取り込み（terminal）" in screen
