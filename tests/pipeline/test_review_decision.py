"""O-10 … O-13 as GitHub makes them: dates reserved across open runs, merges seen after fetching the
remote (squash and rebase by content), every decision naming its Review Packet, the pull request
checked with gh, the decision wait, conflicting decisions, O-12 checking its references, and the
policy proposals a person accepts or declines. Real git repositories on disk (a bare repository
stands for GitHub); `gh` is a local stand-in executable that speaks gh's JSON (GitHub cannot be
reached from the tests)."""

from __future__ import annotations

import datetime as dt
import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from knowledge_harness.errors import Conflict, DecisionRefused, InputError, PersonRequired
from knowledge_harness.pipeline.agents import AgentTask
from knowledge_harness.pipeline.contract import State
from knowledge_harness.pipeline.engine import Pipeline
from knowledge_harness.pipeline.ops.o11_decide import RESUME_CONFLICT, RESUME_TIMEOUT
from knowledge_harness.pipeline.ops.o12_feedback import comment_ref_problem
from knowledge_harness.pipeline.ops.o13_record import RESUME, resume_condition
from knowledge_harness.pipeline.proposals import ProposalBook
from knowledge_harness.vault.paths import Vault

from ..conftest import KH, start_sidecar, stop_sidecar
from ..support.part2_support import (
    CLOCK,
    QUESTION,
    draft_output,
    git,
    judge_output,
    make_blog,
    make_vault,
    merge,
    pipeline,
    plan_output,
    review_output,
    to_review_ready,
    validate_output,
)
from ..support.people import AGENT, PERSON
from ..support.pipeline_helpers import packet_for, request_note, run_files, snapshot, write_note
from ..support.terminal import run_at_terminal


def _awaiting_decision(tmp_path: Path) -> tuple[Path, Path, Pipeline, str]:
    """A blog, a vault publishing to it, and a run there waiting for a person's publication decision."""
    blog = make_blog(tmp_path)
    vault = make_vault(tmp_path, blog=blog)
    p = pipeline(vault)
    return blog, vault, p, to_review_ready(p, vault)


def open_task(p: Pipeline, run_id: str, operation: str) -> AgentTask:
    """The open task of one run (other runs may have open tasks too)."""
    for task in p.detail(run_id)["tasks"]:
        if task["status"] == "open" and task["operation"] == operation:
            return p.get_task(task["task_id"])
    raise AssertionError(f"run {run_id} has no open {operation} task: {p.status(run_id)}")


def to_o10_task(p: Pipeline, vault: Path, note: str) -> tuple[str, AgentTask]:
    write_note(vault, note, request_note(QUESTION))
    run_id = p.capture_note(note).run_id
    p.authorize(run_id, actor=PERSON)
    assert p.advance(run_id).state == State.EVIDENCE_READY
    task = open_task(p, run_id, "O-05")
    p.submit(task.task_id, packet_for(task.inputs["sources"]))
    p.submit(open_task(p, run_id, "O-06").task_id, judge_output())
    plan = open_task(p, run_id, "O-07")
    p.submit(plan.task_id, plan_output(plan))
    p.submit(open_task(p, run_id, "O-08").task_id, draft_output())
    p.submit(open_task(p, run_id, "O-09").task_id, validate_output())
    return run_id, open_task(p, run_id, "O-10")


def sha_of(p: Pipeline, run_id: str) -> str:
    return str(p.review(run_id)["review_packet_sha256"])


def with_remote(tmp_path: Path, blog: Path) -> Path:
    """A bare repository standing for GitHub, with the blog's main branch pushed to it."""
    remote = tmp_path / "github.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    git(blog, "remote", "add", "origin", str(remote))
    git(blog, "push", "-q", "origin", "main")
    return remote


def merge_on_github(tmp_path: Path, remote: Path, branch: str, how: str) -> None:
    """What GitHub's merge button does, in a clone of the remote: squash or rebase (new commits, same
    content), then the base branch is pushed. The blog repository itself is never pulled."""
    clone = tmp_path / f"github-{how}"
    if not clone.exists():
        git(tmp_path, "clone", "-q", str(remote), str(clone))
    git(clone, "fetch", "-q", "origin")
    git(clone, "checkout", "-q", "main")
    git(clone, "reset", "-q", "--hard", "origin/main")
    if how == "squash":
        git(clone, "merge", "-q", "--squash", f"origin/{branch}")
        git(clone, "commit", "-q", "-m", f"Squashed {branch}")
    else:
        (clone / "README").write_text("another change landed first\n", encoding="utf-8")
        git(clone, "add", "README")
        git(clone, "commit", "-q", "-m", "unrelated")
        git(clone, "cherry-pick", f"origin/{branch}")
    git(clone, "push", "-q", "origin", "main")


# -- publication dates -------------------------------------------------------------------------------------


def test_two_runs_reviewed_the_same_day_get_different_dates_and_a_held_run_frees_its_date(tmp_path: Path) -> None:
    blog = make_blog(tmp_path)  # 2026-03-02 is taken by a post; the run date is 2026-03-01 (Asia/Tokyo)
    vault = make_vault(tmp_path, blog=blog)
    p = pipeline(vault)
    run_a, task_a = to_o10_task(p, vault, "Requests/a.md")
    run_b, task_b = to_o10_task(p, vault, "Requests/b.md")
    # both O-10 tasks are open at once: the second is offered the next free date, not the same one
    assert task_a.inputs["publication_date"] == "2026-03-03"
    assert task_b.inputs["publication_date"] == "2026-03-04"
    p.submit(task_b.task_id, review_output("二つ目の記事"))
    p.submit(task_a.task_id, review_output("一つ目の記事"))
    cand_a = p.artifact(run_a, "publication_candidate")
    cand_b = p.artifact(run_b, "publication_candidate")
    assert (cand_a["publication_date"], cand_b["publication_date"]) == ("2026-03-03", "2026-03-04")
    assert cand_a["path"].endswith("2026-03-03-obsidian-yaml12-booleans.rst")
    assert cand_b["path"].endswith("2026-03-04-obsidian-yaml12-booleans.rst")
    # a third run while both candidates wait for review: neither date is reused
    run_c, task_c = to_o10_task(p, vault, "Requests/c.md")
    assert task_c.inputs["publication_date"] == "2026-03-05"
    # run A is not published (HOLD): its date is free again for a run reviewed afterwards
    p.decide(
        run_a, "公開しない", instructions="今回は見送ります。", review_packet_sha256=sha_of(p, run_a), actor=PERSON
    )
    assert p.status(run_a).state == State.HOLD
    _, task_d = to_o10_task(p, vault, "Requests/d.md")
    assert task_d.inputs["publication_date"] == "2026-03-03"
    # run C's open task keeps its date: preparing it again offers the same inputs (no stale task)
    p.submit(task_c.task_id, review_output("三つ目の記事"))
    assert p.artifact(run_c, "publication_candidate")["publication_date"] == "2026-03-05"


# -- merges as GitHub makes them ------------------------------------------------------------------------


@pytest.mark.parametrize("how", ["squash", "rebase"])
def test_a_merge_made_on_github_is_recognised_after_fetching(tmp_path: Path, how: str) -> None:
    blog = make_blog(tmp_path)
    remote = with_remote(tmp_path, blog)
    vault = make_vault(tmp_path, blog=blog, machine_blog='remote = "origin"\n')
    p = pipeline(vault)
    run_id = to_review_ready(p, vault)
    cand = p.artifact(run_id, "publication_candidate")
    sha = sha_of(p, run_id)
    git(blog, "push", "-q", "origin", cand["branch"])  # the PR's branch on GitHub
    # not merged anywhere yet: approval refused with the ref it looked at
    with pytest.raises(Conflict) as early:
        p.decide(run_id, "approve", commit=cand["commit"], review_packet_sha256=sha, actor=PERSON)
    assert early.value.detail is not None and early.value.detail["reason"] == "MERGE_NOT_FOUND"
    assert early.value.detail["base_ref"] == "refs/remotes/origin/main"
    merge_on_github(tmp_path, remote, cand["branch"], how)
    # the blog repository was not pulled: its main knows nothing of the merge, and ancestry alone never sees it
    assert git(blog, "rev-parse", "main") == cand["base_commit"]
    ancestry = subprocess.run(
        ["git", "-C", str(remote), "merge-base", "--is-ancestor", cand["commit"], "main"], check=False
    )
    assert ancestry.returncode == 1
    # once merged, 「公開しない」 is refused (it would record HOLD for a published article)
    before = snapshot(vault)
    with pytest.raises(DecisionRefused) as contradictory:
        p.decide(run_id, "reject", instructions="やめます。", review_packet_sha256=sha, actor=PERSON)
    assert contradictory.value.detail["reason"] == "DECISION_CONTRADICTORY" and snapshot(vault) == before
    result = p.decide(run_id, "approve", commit=cand["commit"][:10], review_packet_sha256=sha, actor=PERSON)
    assert result["message_ja"] == "公開を承認しました"
    status = p.status(run_id)
    assert status.state == State.APPROVED
    o11 = next(r for r in status.records if r["operation"] == "O-11")
    assert o11["reason_codes"] == ["DECISION_APPROVED", "MERGED_BY_CONTENT"]
    verified = p.artifact(run_id, "publication_decision")["verified"]
    assert verified["merged"] is True and verified["merged_how"] == "content"
    assert verified["base_ref"] == "refs/remotes/origin/main"
    assert verified["base_head"] == git(remote, "rev-parse", "main") != cand["base_commit"]
    assert verified["published_sha256"] == cand["sha256"]


def test_a_local_merge_commit_still_counts_by_ancestry(tmp_path: Path) -> None:
    blog, _, p, run_id = _awaiting_decision(tmp_path)
    cand = p.artifact(run_id, "publication_candidate")
    merge(blog, cand["branch"])
    p.decide(run_id, "approve", commit=cand["commit"], review_packet_sha256=sha_of(p, run_id), actor=PERSON)
    verified = p.artifact(run_id, "publication_decision")["verified"]
    assert verified["merged_how"] == "ancestor" and verified["base_ref"] == "refs/heads/main"


# -- every decision names its Review Packet ---------------------------------------------------------------


def test_a_decision_without_the_packet_sha_is_refused_at_every_door(tmp_path: Path) -> None:
    _, vault, p, run_id = _awaiting_decision(tmp_path)
    before = snapshot(vault)
    with pytest.raises(DecisionRefused) as refused:
        p.decide(run_id, "reject", instructions="今回は見送ります。", actor=PERSON)
    assert refused.value.detail["reason"] == "DECISION_INCOMPLETE"
    cli = run_at_terminal(
        [str(KH), "pipeline", "decide", str(vault), run_id, "--choice", "公開しない", "--instructions", "見送ります。"],
        ["yes"],
        env=dict(os.environ),
    )
    assert cli.exit_code == 1 and "DECISION_INCOMPLETE" in cli.screen
    sidecar = start_sidecar(vault)
    try:
        with sidecar.client() as client:
            answer = client.post(f"/v1/pipeline/runs/{run_id}/decision", json={"choice": "policy"})
            assert answer.status_code == 422 and answer.json()["error"]["detail"]["reason"] == "DECISION_INCOMPLETE"
    finally:
        stop_sidecar(sidecar)
    assert p.status(run_id).state == State.REVIEW_READY and snapshot(vault) == before
    # with the SHA-256 the same reject is recorded, and the record names the candidate commit and resume condition
    p.decide(run_id, "reject", instructions="今回は見送ります。", review_packet_sha256=sha_of(p, run_id), actor=PERSON)
    decision = p.artifact(run_id, "publication_decision")
    assert decision["review_packet_sha256"] == sha_of(p, run_id)
    assert decision["verified"]["candidate_commit"] == p.artifact(run_id, "publication_candidate")["commit"]
    assert decision["resume_condition_ja"].startswith("再開条件:")
    outcome = p.artifact(run_id, "outcome")
    assert outcome["resume_condition_ja"] == decision["resume_condition_ja"]
    assert decision["resume_condition_ja"] in (vault / ".harness/runs/pipeline" / run_id / "HANDOFF.md").read_text(
        encoding="utf-8"
    )


# -- the pull request, checked with gh ---------------------------------------------------------------------

GH_STAND_IN = r'''#!PYTHON
"""A local stand-in for the gh CLI: the subcommands the sidecar uses, answering with gh's JSON."""
import json, os, subprocess, sys

STATE = os.environ["KH_TEST_GH_STATE"]
args = sys.argv[1:]
with open(STATE, encoding="utf-8") as handle:
    state = json.load(handle)
calls = state.setdefault("calls", [])
calls.append(args)

def save():
    with open(STATE, "w", encoding="utf-8") as handle:
        json.dump(state, handle)

def opt(name):
    return args[args.index(name) + 1] if name in args else None

if args[:1] == ["--version"]:
    print("gh version 2.0.0 (stand-in)")
elif args[:2] == ["pr", "list"]:
    head = opt("--head")
    found = [url for url, pr in state.get("prs", {}).items() if pr["head"] == head]
    print(found[0] if found else "")
elif args[:2] == ["pr", "create"]:
    number = 7 + len(state.setdefault("prs", {}))
    url = f"https://github.com/example/blog/pull/{number}"
    state["prs"][url] = {"number": number, "head": opt("--head"), "base": opt("--base"), "state": "OPEN"}
    print(url)
elif args[:2] == ["pr", "view"]:
    pr = state.get("prs", {}).get(args[2])
    if pr is None:
        print(f"no pull requests found for {args[2]}", file=sys.stderr)
        sys.exit(1)
    oid = subprocess.run(["git", "rev-parse", "refs/heads/" + pr["head"]], capture_output=True, text=True).stdout.strip()
    view = {
        "number": pr["number"], "url": args[2], "baseRefName": pr["base"], "headRefName": pr["head"],
        "headRefOid": oid, "state": pr["state"], "mergedAt": "2026-03-01T02:00:00Z" if pr["state"] == "MERGED" else None,
    }
    view.update(pr.get("override", {}))
    fields = opt("--json").split(",")
    print(json.dumps({k: view[k] for k in fields}))
else:
    print("unknown command: " + " ".join(args), file=sys.stderr)
    sys.exit(1)
save()
'''


@pytest.fixture
def gh_stand_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`gh` on PATH is the stand-in; returns its state file (PRs it knows, calls it got)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    gh = bin_dir / "gh"
    gh.write_text(GH_STAND_IN.replace("#!PYTHON", f"#!{sys.executable}"), encoding="utf-8")
    gh.chmod(gh.stat().st_mode | stat.S_IXUSR)
    state = tmp_path / "gh-state.json"
    state.write_text("{}", encoding="utf-8")
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("KH_TEST_GH_STATE", str(state))
    return state


def _gh_state(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _set_pr(path: Path, url: str, **changes: Any) -> None:
    data = _gh_state(path)
    data["prs"][url].update(changes)
    path.write_text(json.dumps(data), encoding="utf-8")


def test_with_gh_the_pull_request_is_recorded_and_verified(tmp_path: Path, gh_stand_in: Path) -> None:
    blog = make_blog(tmp_path)
    remote = with_remote(tmp_path, blog)
    vault = make_vault(tmp_path, blog=blog, machine_blog='pull_request = "gh"\n')  # remote: origin (gh pushes there)
    p = pipeline(vault)
    run_id = to_review_ready(p, vault)
    cand = p.artifact(run_id, "publication_candidate")
    url = "https://github.com/example/blog/pull/7"
    assert cand["pr_url"] == url and cand["pr_number"] == 7 and cand["pr_repository"] == "example/blog"
    assert p.review(run_id)["review_packet"]["pr_number"] == 7
    assert "PULL_REQUEST_PREPARED" in p.status(run_id).records[-1]["reason_codes"]
    assert git(remote, "rev-parse", cand["branch"]) == cand["commit"]  # the branch was pushed for the PR
    sha = sha_of(p, run_id)
    before = snapshot(vault)
    with pytest.raises(DecisionRefused) as other_pr:
        p.decide(
            run_id, "reject", review_packet_sha256=sha, pr_url="https://github.com/example/blog/pull/8", actor=PERSON
        )
    assert other_pr.value.detail["reason"] == "DECISION_PR_MISMATCH" and snapshot(vault) == before
    # GitHub says the PR is still open: no approval, whatever git says
    merge_on_github(tmp_path, remote, cand["branch"], "squash")
    with pytest.raises(Conflict):
        p.decide(run_id, "approve", commit=cand["commit"], review_packet_sha256=sha, actor=PERSON)
    _set_pr(gh_stand_in, url, state="MERGED")
    p.decide(run_id, "approve", commit=cand["commit"], review_packet_sha256=sha, pr_url=url, actor=PERSON)
    assert p.status(run_id).state == State.APPROVED
    decision = p.artifact(run_id, "publication_decision")
    assert decision["pr_url"] == url and decision["verified"]["pr_url"] == url
    assert decision["verified"]["pull_request"] == {
        "number": 7,
        "url": url,
        "base": "main",
        "head": cand["branch"],
        "head_commit": cand["commit"],
        "state": "MERGED",
        "merged_at": "2026-03-01T02:00:00Z",
    }
    assert ["pr", "view", url, "--json", "number,url,baseRefName,headRefName,headRefOid,state,mergedAt"] in _gh_state(
        gh_stand_in
    )["calls"]


def test_a_pull_request_that_differs_from_the_prepared_one_holds_the_run(tmp_path: Path, gh_stand_in: Path) -> None:
    blog = make_blog(tmp_path)
    with_remote(tmp_path, blog)
    vault = make_vault(tmp_path, blog=blog, machine_blog='pull_request = "gh"\n')
    p = pipeline(vault)
    run_id = to_review_ready(p, vault)
    url = p.artifact(run_id, "publication_candidate")["pr_url"]
    _set_pr(gh_stand_in, url, override={"headRefName": "someone-else/branch", "baseRefName": "release"})
    result = p.decide(
        run_id, "reject", instructions="見送ります。", review_packet_sha256=sha_of(p, run_id), actor=PERSON
    )
    status = p.status(run_id)
    assert status.state == State.HOLD
    assert next(r for r in status.records if r["operation"] == "O-11")["reason_codes"] == ["PR_MISMATCH"]
    mismatch = result["decision"]["verified"]["pull_request_mismatch"]
    assert mismatch["head"]["github"] == "someone-else/branch" and mismatch["base"]["prepared"] == "main"
    assert p.artifact(run_id, "outcome")["resume_condition_ja"] == RESUME["PR_MISMATCH"]
    # gh failing is no fact: the decision is refused so the person can try again
    run_2 = to_review_ready(p, vault, "Requests/other.md")
    (tmp_path / "bin" / "gh").write_text("#!/bin/sh\necho 'gh: network down' >&2\nexit 1\n", encoding="utf-8")
    with pytest.raises(DecisionRefused) as down:
        p.decide(run_2, "reject", review_packet_sha256=sha_of(p, run_2), actor=PERSON)
    assert down.value.detail["reason"] == "PR_UNVERIFIED" and p.status(run_2).state == State.REVIEW_READY


# -- the decision wait -----------------------------------------------------------------------------------


def test_no_decision_within_the_wait_holds_the_run_with_its_resume_condition(tmp_path: Path) -> None:
    blog = make_blog(tmp_path)
    vault = make_vault(tmp_path, blog=blog, extra_toml="[decision]\nwait_days = 2\n")
    now = [CLOCK]
    p = Pipeline(Vault.open(vault), clock=lambda: now[0])
    run_id = to_review_ready(p, vault)
    merged_run = to_review_ready(p, vault, "Requests/merged.md")
    assert "2日以内に判断がなければ" in p.review(run_id)["review_packet"]["markdown"]
    now[0] = CLOCK + dt.timedelta(days=2) - dt.timedelta(seconds=1)
    assert p.advance(run_id).state == State.REVIEW_READY  # not yet
    merge(blog, p.artifact(merged_run, "publication_candidate")["branch"])
    now[0] = CLOCK + dt.timedelta(days=2)
    status = p.advance(run_id)
    assert status.state == State.HOLD and status.waiting_for is None
    o11 = status.records[-2]
    assert (o11["operation"], o11["result"], o11["reason_codes"], o11["producer"]) == (
        "O-11",
        "HOLD",
        ["DECISION_TIMEOUT"],
        "program",
    )
    assert RESUME_TIMEOUT in o11["summary_ja"]
    assert p.artifact(run_id, "decision_timeout")["deadline"] == "2026-03-03T01:00:00Z"
    assert p.artifact(run_id, "outcome")["resume_condition_ja"] == RESUME_TIMEOUT
    files = run_files(vault, run_id)
    assert p.advance(run_id).state == State.HOLD and run_files(vault, run_id) == files  # recorded once
    # a candidate merged but not yet approved is never called unpublished: it keeps waiting for the person
    waiting = p.advance(merged_run)
    assert waiting.state == State.REVIEW_READY and waiting.waiting_for == "human:Q-01 publication_decision"
    cand = p.artifact(merged_run, "publication_candidate")
    p.decide(merged_run, "approve", commit=cand["commit"], review_packet_sha256=sha_of(p, merged_run), actor=PERSON)
    assert p.status(merged_run).state == State.APPROVED


# -- a second, conflicting decision -----------------------------------------------------------------------


def test_a_second_conflicting_decision_holds_the_run_and_keeps_both(tmp_path: Path) -> None:
    _, vault, p, run_id = _awaiting_decision(tmp_path)
    sha = sha_of(p, run_id)
    revise = {
        "choice": "今回だけ修正を求める",
        "instructions": "B2 の結論をもう少し丁寧に説明してください。",
        "blocks": ["B2"],
        "review_packet_sha256": sha,
        "via": "plugin",
    }
    reject = {"choice": "公開しない", "instructions": "やはり公開しません。", "review_packet_sha256": sha}
    sidecar = start_sidecar(vault)
    try:
        with sidecar.client() as client:
            first = client.post(f"/v1/pipeline/runs/{run_id}/decision", json=revise)
            assert first.status_code == 200 and first.json()["status"]["state"] == "REVISION"
            second = client.post(f"/v1/pipeline/runs/{run_id}/decision", json=reject)
            assert second.status_code == 200, second.text
            data = second.json()
            assert data["status"]["state"] == "HOLD" and data["record"]["reason_codes"] == ["DECISION_CONFLICT"]
            assert data["decision"]["resume_condition_ja"] == RESUME_CONFLICT
            files = run_files(vault, run_id)
            again = client.post(f"/v1/pipeline/runs/{run_id}/decision", json=reject)
            assert again.json()["record"] == data["record"] and run_files(vault, run_id) == files  # idempotent
            # after the run ended, a third different decision changes nothing (409) and is only logged
            late = client.post(
                f"/v1/pipeline/runs/{run_id}/decision",
                json={"choice": "policy", "instructions": "方針を決めたい。", "review_packet_sha256": sha},
            )
            assert late.status_code == 409 and late.json()["error"]["detail"]["reason"] == "DECISION_CONFLICT"
    finally:
        stop_sidecar(sidecar)
    conflict = p.artifact(run_id, "decision_conflict")
    assert [d["choice"] for d in conflict["decisions"]] == ["revise", "reject"]
    assert conflict["decisions"][0]["instructions"] == revise["instructions"]
    assert p.next_task() is None  # the revision that was under way is void
    events = [e for e in Pipeline(Vault.open(vault)).store.read_history(run_id) if e["event"] == "conflicting_decision"]
    assert [(e["choice"], e["recorded"]) for e in events] == [("reject", True), ("policy", False)]
    outcome = p.artifact(run_id, "outcome")
    assert outcome["final_state"] == "HOLD" and outcome["resume_condition_ja"] == RESUME_CONFLICT


def test_a_refused_second_decision_names_the_state_the_run_really_stays_in(tmp_path: Path) -> None:
    # the run moved on to REVISION; a malformed second decision on the same packet is refused, and the
    # refusal must not say the run still waits for a publication decision
    _, vault, p, run_id = _awaiting_decision(tmp_path)
    sha = sha_of(p, run_id)
    p.decide(
        run_id,
        "revise",
        instructions="B2 の結論をもう少し丁寧に説明してください。",
        blocks=["B2"],
        review_packet_sha256=sha,
        actor=PERSON,
    )
    state = p.status(run_id).state
    assert state == State.REVISION
    files = run_files(vault, run_id)
    with pytest.raises(DecisionRefused) as refused:
        p.decide(run_id, "公開するかもしれない", review_packet_sha256=sha, actor=PERSON)
    assert "実行はREVISIONのままです" in refused.value.message
    assert "REVIEW_READY" not in refused.value.message
    assert refused.value.detail["state"] == "REVISION"
    assert p.status(run_id).state == State.REVISION and run_files(vault, run_id) == files  # nothing written


# -- O-12 checks the references instead of copying them -----------------------------------------------------


def test_comment_references_must_point_into_the_candidates_pull_request() -> None:
    pr = "https://github.com/example/blog/pull/7"
    assert comment_ref_problem(None, pr) is None
    assert comment_ref_problem("1234567", None) is None
    assert comment_ref_problem(f"{pr}#issuecomment-99", pr) is None
    assert comment_ref_problem(f"{pr}/files#discussion_r12", pr) is None
    assert comment_ref_problem(f"{pr}#pullrequestreview-5", pr) is None
    assert comment_ref_problem("https://github.com/example/blog/pull/8#issuecomment-99", pr) is not None
    assert comment_ref_problem("https://github.com/other/blog/pull/7#issuecomment-99", pr) is not None
    assert comment_ref_problem(f"{pr}#issuecomment-99", None) is not None
    assert comment_ref_problem("see the chat", pr) is not None


def test_o12_holds_when_the_decisions_references_do_not_match(tmp_path: Path) -> None:
    blog = make_blog(tmp_path)
    vault = make_vault(tmp_path, blog=blog)
    p = pipeline(vault)

    def revise(run_id: str, **extra: Any) -> None:
        p.decide(
            run_id,
            "revise",
            instructions="B1 をもっと短くしてください。",
            blocks=["B1"],
            review_packet_sha256=sha_of(p, run_id),
            actor=PERSON,
            **extra,
        )

    # a comment of another pull request: not this candidate's feedback
    run_a = to_review_ready(p, vault, "Requests/a.md")
    revise(run_a, comment_ref="https://github.com/example/blog/pull/8#issuecomment-1")
    status = p.status(run_a)
    assert status.state == State.HOLD and p.next_task() is None
    o12 = status.records[-2]
    assert (o12["operation"], o12["reason_codes"]) == ("O-12", ["REVISION_REFERENCE_MISMATCH"])
    assert "GitHub参照" in o12["summary_ja"] and "再開条件" in o12["summary_ja"]
    # the run's branch moved after the review: the reviewed commit is no longer what a revision would change
    run_b = to_review_ready(p, vault, "Requests/b.md")
    cand = p.artifact(run_b, "publication_candidate")
    git(blog, "checkout", "-q", cand["branch"])
    (blog / "extra.txt").write_text("pushed by someone\n", encoding="utf-8")
    git(blog, "add", "extra.txt")
    git(blog, "commit", "-q", "-m", "extra")
    git(blog, "checkout", "-q", "main")
    revise(run_b, comment_ref="123")
    o12 = p.status(run_b).records[-2]
    assert o12["reason_codes"] == ["REVISION_REFERENCE_MISMATCH"] and "branchの先頭" in o12["summary_ja"]
    # matching references: the revision runs and its manifest keeps what was verified
    run_c = to_review_ready(p, vault, "Requests/c.md")
    revise(run_c, comment_ref="4242")
    task = open_task(p, run_c, "O-12")
    new_b1 = "YAML 1.2 では true と false だけが真偽値です。\n\n対象バージョンは未確認です。"
    p.submit(
        task.task_id,
        {"revisions": [{"block_id": "B1", "rst": new_b1, "packet_refs": ["F1", "X1"], "change_summary_ja": "短く"}]},
    )
    verified = p.artifact(run_c, "revision_manifest")["references_verified"]
    cand_c = p.artifact(run_c, "publication_candidate")
    assert verified["candidate_commit"] == verified["verified_commit"] == verified["branch_head"] == cand_c["commit"]
    assert verified["comment_ref"] == "4242" and verified["draft_sha256"] == cand_c["draft_sha256"]


# -- policy proposals: records a person accepts or declines ------------------------------------------------


def test_policy_proposals_are_accepted_or_declined_by_a_person_only(tmp_path: Path) -> None:
    _, vault, p, run_id = _awaiting_decision(tmp_path)
    p.decide(
        run_id,
        "policy",
        instructions="AI生成記事の表記方針を決めたい。",
        policy_options=["記事冒頭に毎回明記する", "フッターだけに明記する"],
        review_packet_sha256=sha_of(p, run_id),
        actor=PERSON,
    )
    assert p.status(run_id).state == State.HOLD
    # a proposal written to DECISIONS.md before records were kept is listed too
    legacy = "\n<!-- proposal:legacy-one -->\n## 提案: 古い提案\n\n- 問題: 以前の書式。\n"
    with (vault / ".harness" / "DECISIONS.md").open("a", encoding="utf-8") as handle:
        handle.write(legacy)
    listed = subprocess.run(
        [str(KH), "pipeline", "policy", "list", str(vault), "--json"], capture_output=True, text=True, timeout=60
    )
    assert listed.returncode == 0, listed.stderr
    proposals = {pr.proposal_id: pr for pr in ProposalBook(Vault.open(vault)).list("open")}
    pid = next(k for k in proposals if k.startswith("policy-"))
    assert set(proposals) == {pid, "legacy-one"}
    assert {x["proposal_id"] for x in json.loads(listed.stdout)["proposals"]} == {pid, "legacy-one"}
    proposal = proposals[pid]
    assert proposal.kind == "policy" and proposal.source_runs == [run_id] and proposal.status == "open"
    assert proposal.options == ["記事冒頭に毎回明記する", "フッターだけに明記する"]
    # an agent cannot decide, at any door
    with pytest.raises(PersonRequired):
        ProposalBook(Vault.open(vault)).decide(pid, accept=True, actor=AGENT, now="2026-03-01T00:00:00Z", option=1)
    scripted = run_at_terminal(
        [str(KH), "pipeline", "policy", "accept", str(vault), pid, "--option", "1"], ["no"], env=dict(os.environ)
    )
    assert scripted.exit_code == 1 and ProposalBook(Vault.open(vault)).get(pid).status == "open"
    sidecar = start_sidecar(vault)
    try:
        with sidecar.agent_client() as agent:
            denied = agent.post(f"/v1/pipeline/policy-proposals/{pid}/accept", json={"option": 1})
            assert denied.status_code == 403 and denied.json()["error"]["code"] == "person_required"
            assert agent.get("/v1/pipeline/policy-proposals").status_code == 200
        # the person at the terminal accepts option 2
        accepted = run_at_terminal(
            [str(KH), "pipeline", "policy", "accept", str(vault), pid, "--option", "2", "--note", "フッターで十分。"],
            ["yes"],
            env=dict(os.environ),
        )
        assert accepted.exit_code == 0, accepted.screen
        with sidecar.client() as client:
            listed_api = client.get("/v1/pipeline/policy-proposals", params={"status": "accepted"}).json()
            assert [(x["proposal_id"], x["chosen_option"]) for x in listed_api["proposals"]] == [(pid, 2)]
            assert listed_api["proposals"][0]["note"] == "フッターで十分。"
            assert client.post(f"/v1/pipeline/policy-proposals/{pid}/decline", json={}).status_code == 409
            needs_option = client.post(f"/v1/pipeline/policy-proposals/{pid}/accept", json={})
            assert needs_option.status_code == 409  # already accepted with option 2
            declined = client.post("/v1/pipeline/policy-proposals/legacy-one/decline", json={"note": "不要"})
            assert declined.status_code == 200 and declined.json()["status"] == "declined"
            assert client.get("/v1/pipeline/policy-proposals", params={"status": "open"}).json()["proposals"] == []
    finally:
        stop_sidecar(sidecar)
    decisions = (vault / ".harness" / "DECISIONS.md").read_text(encoding="utf-8")
    assert f"### 決定: {pid} — 採用（選択肢 (2) フッターだけに明記する）" in decisions
    assert "### 決定: legacy-one — 不採用" in decisions
    assert decisions.index(legacy.strip()) < decisions.index("### 決定: legacy-one")  # appended, nothing rewritten


def test_options_are_required_when_accepting_a_proposal_that_has_them(tmp_path: Path) -> None:
    vault = make_vault(tmp_path, blog=None)
    book = ProposalBook(Vault.open(vault))
    from knowledge_harness.pipeline.proposals import ProposalSpec

    book.record("run-1", ProposalSpec("policy-x", "## 提案: x\n", options=["a", "b"]), "2026-03-01T00:00:00Z")
    assert not book.record("run-1", ProposalSpec("policy-x", "## 提案: x\n"), "2026-03-01T00:00:01Z")  # once
    with pytest.raises(InputError) as no_option:
        book.decide("policy-x", accept=True, actor=PERSON, now="2026-03-01T00:00:00Z")
    assert "--option 1..2" in str(no_option.value)
    with pytest.raises(InputError):
        book.decide("policy-x", accept=True, actor=PERSON, now="2026-03-01T00:00:00Z", option=3)
    done = book.decide("policy-x", accept=True, actor=PERSON, now="2026-03-01T00:00:00Z", option=1)
    assert done.status == "accepted" and done.decided_by == PERSON.name
    assert book.decide("policy-x", accept=True, actor=PERSON, now="2026-03-02T00:00:00Z", option=1) == done


# -- limit proposals with figures, resume conditions -------------------------------------------------------


def test_the_limits_proposal_carries_the_figures_of_its_ten_runs(tmp_path: Path) -> None:
    vault = make_vault(tmp_path, blog=None)
    p = pipeline(vault)
    run_ids: list[str] = []
    for n in range(10):
        note = f"Requests/q{n}.md"
        write_note(vault, note, request_note(QUESTION))
        run_id = p.capture_note(note).run_id
        p.authorize(run_id, actor=PERSON)
        p.advance(run_id)
        task = open_task(p, run_id, "O-05")
        p.submit(task.task_id, packet_for(task.inputs["sources"]))
        p.submit(open_task(p, run_id, "O-06").task_id, judge_output(novelty="UNCERTAIN", evidence="FAIL"))
        assert p.status(run_id).state == State.NO_CANDIDATE
        run_ids.append(run_id)
    proposals = ProposalBook(Vault.open(vault)).list()
    limits = [pr for pr in proposals if pr.kind == "evidence_limits"]
    assert [pr.proposal_id for pr in limits] == ["evidence-limits-after-10-runs"]
    figures = limits[0].figures
    assert figures["runs"] == sorted(run_ids) and limits[0].source_runs == sorted(run_ids)
    for row in figures["per_run"]:
        metrics = Pipeline(Vault.open(vault)).detail(row["run_id"])["metrics"]["O-04"]
        assert row["adopted"] == metrics["adopted"] and row["fetch_attempts"] == metrics["fetch_attempts"]
        assert row["final_state"] == "NO_CANDIDATE"
    assert figures["totals"]["adopted"] == sum(row["adopted"] for row in figures["per_run"])
    assert figures["later_shortfalls"]["JUDGE_AXIS_FAIL"] == 10
    assert figures["current_limits"]["max_fetches"] == 20
    assert "| run | 検索 |" in limits[0].markdown and run_ids[0] in limits[0].markdown
    assert len(limits[0].options) == 3 and "実績平均" in limits[0].options[1]
    # NO_CANDIDATE names its resume condition too
    assert p.artifact(run_ids[0], "outcome")["resume_condition_ja"] == RESUME["JUDGE_AXIS_FAIL"]


def test_every_hold_and_reject_ending_names_a_resume_condition(tmp_path: Path) -> None:
    from knowledge_harness.pipeline.contract import OperationRecord, Producer, ReasonCode, Result

    def record(state: State, codes: list[ReasonCode]) -> OperationRecord:
        return OperationRecord(
            operation="O-06",
            run_id="r",
            input_refs=[],
            state_before=State.EVIDENCE_READY,
            state_after=state,
            result=Result.HOLD if state == State.HOLD else Result.REJECTED,
            reason_codes=codes,
            summary_ja="x",
            created_at="2026-03-01T00:00:00Z",
            producer=Producer.PROGRAM,
        )

    for code, text in RESUME.items():
        assert text.startswith("再開条件:"), code
        assert resume_condition([record(State.HOLD, [ReasonCode(code)])], State.HOLD) == text
    generic = resume_condition([record(State.HOLD, [ReasonCode.AUTOFIX_APPLIED])], State.HOLD)
    assert generic is not None and generic.startswith("再開条件:")
    rejected = resume_condition([record(State.REJECTED, [ReasonCode.PRIVATE_MARKER])], State.REJECTED)
    assert rejected == RESUME["PRIVATE_MARKER"]
    assert resume_condition([], State.APPROVED) is None
    # and in a real run: an O-06 HOLD (a PASS below 0.70)
    blog = make_blog(tmp_path)
    vault = make_vault(tmp_path, blog=blog)
    p = pipeline(vault)
    write_note(vault, "Requests/h.md", request_note(QUESTION))
    run_id = p.capture_note("Requests/h.md").run_id
    p.authorize(run_id, actor=PERSON)
    p.advance(run_id)
    task = open_task(p, run_id, "O-05")
    p.submit(task.task_id, packet_for(task.inputs["sources"]))
    p.submit(open_task(p, run_id, "O-06").task_id, judge_output(confidence=0.69))
    assert p.status(run_id).state == State.HOLD
    resume = p.artifact(run_id, "outcome")["resume_condition_ja"]
    assert resume == RESUME["JUDGE_LOW_CONFIDENCE"]
    assert resume in (vault / ".harness/runs/pipeline" / run_id / "HANDOFF.md").read_text(encoding="utf-8")
