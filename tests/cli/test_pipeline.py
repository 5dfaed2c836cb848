"""`kh pipeline`: every command's JSON, the person's commands at a terminal, refusals and exit codes;
`kh pipeline check-draft` on a draft from a real run and inside a blog repository."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from knowledge_harness.pipeline.contract import RECORD_KEYS

from ..conftest import KH
from ..support.part2_support import GOOD, git, make_blog, make_vault, pipeline, to_review_ready
from ..support.pipeline_helpers import packet_for, request_note, write_configs, write_note
from ..support.terminal import run_at_terminal


def _kh(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(KH), *args], capture_output=True, text=True, timeout=60)


def test_cli_commands(tmp_path: Path) -> None:
    vault = tmp_path / "v"
    write_note(
        vault,
        "Notes/yaml.md",
        "# YAML 1.2\n\nYAML 1.2 の core schema では真偽値は true/false だけ。Obsidian のプロパティ。\n",
    )
    write_note(
        vault, "Requests/q.md", request_note("Obsidian のプロパティは YAML 1.2 の真偽値として読まれるのか知りたい。")
    )
    write_configs(vault, pipeline_toml='[evidence]\nproviders = ["vault"]\n')
    captured = _kh("pipeline", "capture", str(vault), "Requests/q.md", "--json")
    assert captured.returncode == 0, captured.stderr
    out = json.loads(captured.stdout)
    assert set(out) == {"run_id", "state"} and out["state"] == "CAPTURED"
    run_id = out["run_id"]
    assert _kh("pipeline", "authorize", str(vault), run_id).returncode == 1  # a script is not a person
    at_terminal = run_at_terminal([str(KH), "pipeline", "authorize", str(vault), run_id], ["yes"], env=dict(os.environ))
    assert at_terminal.exit_code == 0, at_terminal.screen
    adv = json.loads(_kh("pipeline", "advance", str(vault), run_id, "--json").stdout)
    assert adv["state"] == "EVIDENCE_READY"
    status = json.loads(_kh("pipeline", "status", str(vault), run_id, "--json").stdout)
    assert set(status) == {"run_id", "state", "waiting_for", "records"}
    assert all(set(r) == set(RECORD_KEYS) for r in status["records"])
    listed = json.loads(_kh("pipeline", "list", str(vault), "--json").stdout)
    assert listed["runs"][0]["state"] == "EVIDENCE_READY"
    task = json.loads(_kh("pipeline", "task", "next", str(vault), "--json").stdout)["task"]
    bad = packet_for(task["inputs"]["sources"])
    bad["issues"][0]["facts"][0]["source_ids"] = ["S-nope"]
    (tmp_path / "bad.json").write_text(json.dumps(bad), encoding="utf-8")
    refused = _kh("pipeline", "task", "submit", str(vault), task["task_id"], "--file", str(tmp_path / "bad.json"))
    assert refused.returncode == 1 and "UNKNOWN_SOURCE_ID" in refused.stderr
    (tmp_path / "good.json").write_text(json.dumps(packet_for(task["inputs"]["sources"])), encoding="utf-8")
    ok = _kh("pipeline", "task", "submit", str(vault), task["task_id"], "--file", str(tmp_path / "good.json"))
    assert ok.returncode == 0, ok.stderr
    # refusals: a run that cannot be authorized, an unknown run
    write_note(vault, "Requests/no.md", request_note("公開しない質問です。", publishable="false"))
    rejected = json.loads(_kh("pipeline", "capture", str(vault), "Requests/no.md", "--json").stdout)
    assert rejected["state"] == "REJECTED"
    refused_auth = run_at_terminal(
        [str(KH), "pipeline", "authorize", str(vault), rejected["run_id"]], ["yes"], env=dict(os.environ)
    )
    assert refused_auth.exit_code == 1 and "kh: " in refused_auth.screen
    assert _kh("pipeline", "status", str(vault), "missing-run", "--json").returncode == 2


def test_check_draft_cli_json_and_exit_codes(tmp_path: Path) -> None:
    # a draft from a real run, with its manifest and packet: clean
    blog = make_blog(tmp_path)
    vault = make_vault(tmp_path, blog=blog)
    p = pipeline(vault)
    run_id = to_review_ready(p, vault)
    run_dir = vault / ".harness/runs/pipeline" / run_id
    (tmp_path / "packet.json").write_text(json.dumps(p.artifact(run_id, "evidence_packet")), encoding="utf-8")
    ok = _kh(
        "pipeline",
        "check-draft",
        str(run_dir / "draft.rst"),
        "--manifest",
        str(run_dir / "draft_manifest.json"),
        "--packet",
        str(tmp_path / "packet.json"),
        "--json",
    )
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert json.loads(ok.stdout) == {"errors": [], "warnings": []}
    # the same draft with one changed byte no longer matches its manifest
    changed = tmp_path / "changed.rst"
    changed.write_text((run_dir / "draft.rst").read_text(encoding="utf-8").replace("安全", "安心"), encoding="utf-8")
    bad = _kh("pipeline", "check-draft", str(changed), "--manifest", str(run_dir / "draft_manifest.json"), "--json")
    assert bad.returncode == 1
    found = {e["code"] for e in json.loads(bad.stdout)["errors"]}
    assert {"DRAFT_SHA_MISMATCH", "MANIFEST_MISMATCH"} <= found
    # a draft inside the blog repository: include rejected, local references resolved in the repo
    posts = blog / "docs" / "blog" / "posts"
    draft = posts / "draft.rst"
    draft.write_text(
        GOOD.replace(":doc:`other`", ":doc:`/docs/index` と :doc:`../../nothing`")
        + "\n.. include:: ../../../etc/passwd\n",
        encoding="utf-8",
    )
    result = _kh("pipeline", "check-draft", str(draft), "--json", "--posts", str(posts))
    assert result.returncode == 1
    data = json.loads(result.stdout)
    assert set(data) == {"errors", "warnings"}
    assert all(set(e) == {"code", "line", "message"} for e in data["errors"] + data["warnings"])
    assert ("DIRECTIVE_FORBIDDEN", 18) in {(e["code"], e["line"]) for e in data["errors"]}
    assert ("LOCAL_REF_MISSING", 16) in {(e["code"], e["line"]) for e in data["errors"]}
    assert not any(e["code"] == "LOCAL_REF_MISSING" and "index" in e["message"] for e in data["errors"])
    text_out = _kh("pipeline", "check-draft", str(draft))
    assert text_out.returncode == 1 and "error DIRECTIVE_FORBIDDEN" in text_out.stdout
    assert git(blog, "status", "--porcelain") == "?? docs/blog/posts/draft.rst"  # read only
    missing = _kh("pipeline", "check-draft", str(tmp_path / "nope.rst"), "--json")
    assert missing.returncode == 2 and missing.stderr.startswith("kh: ")


def test_v_shows_each_operation_of_the_pipeline_as_it_runs(tmp_path: Path) -> None:
    vault = tmp_path / "v"
    write_note(vault, "Notes/yaml.md", "# YAML 1.2\n\nYAML 1.2 の core schema では真偽値は true/false だけ。\n")
    write_note(vault, "Requests/q.md", request_note("YAML 1.2 の真偽値はどう読まれるのか知りたい。"))
    write_configs(vault, pipeline_toml='[evidence]\nproviders = ["vault"]\n')
    run_id = json.loads(_kh("pipeline", "capture", str(vault), "Requests/q.md", "--json").stdout)["run_id"]
    authorized = run_at_terminal(
        [str(KH), "-v", "pipeline", "authorize", str(vault), run_id], ["yes"], env=dict(os.environ)
    )
    assert authorized.exit_code == 0, authorized.screen
    assert "O-02: ADVANCE → AUTHORIZED in " in " ".join(authorized.screen.split()), authorized.screen
    told = _kh("-v", "pipeline", "advance", str(vault), run_id, "--json")
    assert json.loads(told.stdout)["state"] == "EVIDENCE_READY"
    said = [line.removeprefix(f"kh: knowledge_harness.pipeline.engine: {run_id} ") for line in told.stderr.splitlines()]
    assert "O-03: Screen Safety started" in said and "O-05: waits for its agent" in said, told.stderr
    assert any(line.startswith("O-04: ADVANCE → EVIDENCE_READY in ") for line in said), told.stderr
    quiet = _kh("pipeline", "advance", str(vault), run_id, "--json")
    assert json.loads(quiet.stdout)["state"] == "EVIDENCE_READY" and quiet.stderr == ""
