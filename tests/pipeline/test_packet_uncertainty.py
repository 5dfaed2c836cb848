"""A packet that keeps uncertainty (issue 24, item 4): facts need a primary source, contradictions and
scope ambiguity reach the plan as uncertainty ids, the metrics count them; and every cited source
gets a Japanese summary written by the agent (item 3), apart from the program's excerpt."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from knowledge_harness.errors import SubmissionRefused
from knowledge_harness.pipeline.contract import State
from knowledge_harness.pipeline.engine import Pipeline

from ..support.part2_support import judge_output, make_blog, pipeline, plan_output, register_blog, task_of
from ..support.pipeline_helpers import LocalServer, html_page, local_server, packet_for, write_configs, write_note
from .test_evidence_sources import _run

PAGE_TEXT = "YAML 1.2 の core schema では true と false だけが真偽値として扱われ、yes や no は文字列になる。"


def _site(path: str, q: dict[str, list[str]], body: bytes) -> tuple[int, str, bytes]:
    return 200, "text/html", html_page("YAML 1.2 仕様", PAGE_TEXT)


def _vault(tmp_path: Path, site: LocalServer) -> Path:
    vault = tmp_path / "v"
    write_note(
        vault,
        "Notes/yaml.md",
        "---\ntitle: YAML 1.1 と 1.2 の違い\nreferences:\n  - "
        + site.url("/spec")
        + "\n---\n# YAML 1.1 と 1.2\n\nYAML 1.1 では yes/no が真偽値になる。Obsidian のプロパティは YAML 1.2 で読まれる。\n",
    )
    blog = make_blog(tmp_path)
    register_blog(blog)
    write_configs(
        vault,
        pipeline_toml=(
            '[evidence]\nproviders = ["vault", "cited_urls"]\nprimary_domains = ["127.0.0.1"]\n'
            f'[blog]\nrepo = "{blog.as_posix()}"\n'
        ),
        allow=[f"127.0.0.1:{site.port}"],
    )
    return vault


def _to_packet_task(tmp_path: Path, site: LocalServer) -> tuple[Pipeline, str, dict[str, str]]:
    vault = _vault(tmp_path, site)
    _, run_id = _run(vault)
    p = pipeline(vault)
    status = p.advance(run_id)
    assert status.state == State.EVIDENCE_READY, status.records[-1]
    task = task_of(p, "O-05")
    classes = {s["source_id"]: s["source_class"] for s in task.inputs["sources"]}
    assert sorted(classes.values()) == ["primary", "secondary"]
    return p, run_id, {cls: sid for sid, cls in classes.items()}


def _packet(task_sources: list[dict[str, Any]], ids: dict[str, str]) -> dict[str, Any]:
    packet = packet_for(task_sources)  # F1 cites the primary source (adopted first)
    issue = packet["issues"][0]
    issue["facts"].append(
        {"id": "F2", "statement": "Obsidian のプロパティは YAML 1.2 で読まれる。", "source_ids": [ids["secondary"]]}
    )
    issue["contradictions"] = [
        {
            "id": "C1",
            "statement": "yes/no が真偽値かどうかについて、ノートと仕様の記述が食い違う。",
            "source_ids": [ids["primary"], ids["secondary"]],
        }
    ]
    packet["uncertainties"].append(
        {
            "id": "X2",
            "item": "どの YAML バージョンの話かがノートでは限定されていない",
            "impact": "記事では YAML 1.2 に限定する",
            "source_ids": [ids["secondary"]],
            "code": "SCOPE_AMBIGUOUS",
        }
    )
    packet["source_summaries"] = [
        {
            "source_id": ids["primary"],
            "summary_ja": "仕様のページで、YAML 1.2 では真偽値が true と false に限られると述べている。",
        },
        {"source_id": ids["secondary"], "summary_ja": "自分のノートで、YAML 1.1 と 1.2 の真偽値の違いを整理している。"},
    ]
    return packet


def _refused(p: Pipeline, task_id: str, packet: dict[str, Any]) -> set[str]:
    with pytest.raises(SubmissionRefused) as exc:
        p.submit(task_id, packet)
    return {r["code"] for r in exc.value.detail["reasons"]}


def test_every_cited_source_needs_a_japanese_summary_of_its_own(tmp_path: Path) -> None:
    with local_server(_site) as site:
        p, _, ids = _to_packet_task(tmp_path, site)
        task = task_of(p, "O-05")
        good = _packet(task.inputs["sources"], ids)
        source = next(s for s in task.inputs["sources"] if s["source_id"] == ids["primary"])
        assert source["excerpt"] and source["text"]  # the program's excerpt is an input, not the summary

        missing = json.loads(json.dumps(good))
        missing["source_summaries"] = missing["source_summaries"][:1]
        assert _refused(p, task.task_id, missing) == {"SUMMARY_MISSING"}
        english = json.loads(json.dumps(good))
        english["source_summaries"][0]["summary_ja"] = "The spec says only true and false are booleans in YAML 1.2."
        assert _refused(p, task.task_id, english) == {"SUMMARY_NOT_JAPANESE"}
        copied = json.loads(json.dumps(good))
        copied["source_summaries"][0]["summary_ja"] = PAGE_TEXT
        assert _refused(p, task.task_id, copied) == {"SUMMARY_IS_EXCERPT"}
        unknown = json.loads(json.dumps(good))
        unknown["source_summaries"].append({"source_id": "S-nothere000", "summary_ja": "存在しない出典の要約です。"})
        assert _refused(p, task.task_id, unknown) == {"UNKNOWN_SOURCE_ID"}

        result = p.submit(task.task_id, good)
    assert result["accepted"]
    packet = p.artifact(result["record"]["run_id"], "evidence_packet")
    summaries = {s["source_id"]: (s["summary_ja"], s["excerpt"]) for s in packet["sources"]}
    assert summaries[ids["primary"]][0].startswith("仕様のページで")
    assert summaries[ids["primary"]][1] and summaries[ids["primary"]][1] != summaries[ids["primary"]][0]


def test_facts_contradictions_and_scope_reach_the_plan_and_the_metrics(tmp_path: Path) -> None:
    with local_server(_site) as site:
        p, run_id, ids = _to_packet_task(tmp_path, site)
        task = task_of(p, "O-05")
        p.submit(task.task_id, _packet(task.inputs["sources"], ids))
        o05 = p.status(run_id).records[-1]
        assert o05["operation"] == "O-05" and o05["result"] == "ADVANCE"
        assert {"FACT_SECONDARY_EXPLANATION", "CONTRADICTION_FOUND", "SCOPE_AMBIGUOUS"} <= set(o05["reason_codes"])
        packet = p.artifact(run_id, "evidence_packet")
        support = {f["id"]: f["support"] for f in packet["issues"][0]["facts"]}
        assert support == {"F1": "primary", "F2": "secondary_explanation"}
        assert packet["metrics"]["contradictions"] == 1 and packet["metrics"]["scope_ambiguities"] == 1
        assert packet["metrics"]["secondary_explanations"] == 1 and packet["metrics"]["facts_with_primary"] == 1
        assert any(u["code"] == "CONTRADICTION_FOUND" and u["source_ids"] for u in o05["uncertainties"])

        p.submit(task_of(p, "O-06").task_id, judge_output())
        plan_task = task_of(p, "O-07")
        kinds = {u["id"]: (u["kind"], u["code"]) for u in plan_task.inputs["uncertainties"]}
        assert kinds["C1"] == ("contradiction", "CONTRADICTION_FOUND")
        assert kinds["X2"] == ("packet", "SCOPE_AMBIGUOUS")
        # the plan must treat the contradiction: leaving it out is refused
        plan = plan_output(plan_task)
        plan["uncertainty_handling"] = [h for h in plan["uncertainty_handling"] if h["uncertainty_id"] != "C1"]
        with pytest.raises(SubmissionRefused) as exc:
            p.submit(plan_task.task_id, plan)
        reasons = exc.value.detail["reasons"]
        assert any(r["code"] == "UNCERTAINTY_UNHANDLED" and "C1" in r["message"] for r in reasons)
        assert p.submit(plan_task.task_id, plan_output(plan_task))["accepted"]
    assert p.status(run_id).state == State.PLAN_READY


def test_outcome_metrics_count_contradictions(tmp_path: Path) -> None:
    with local_server(_site) as site:
        p, run_id, ids = _to_packet_task(tmp_path, site)
        task = task_of(p, "O-05")
        p.submit(task.task_id, _packet(task.inputs["sources"], ids))
        p.submit(task_of(p, "O-06").task_id, judge_output(novelty="FAIL"))
    status = p.status(run_id)
    assert status.state == State.NO_CANDIDATE
    o13 = status.records[-1]
    assert o13["operation"] == "O-13"
    evidence = p.artifact(run_id, "outcome")["metrics"]["evidence"]
    assert evidence["contradictions"] == 1 and evidence["scope_ambiguities"] == 1
    assert evidence["secondary_explanations"] == 1 and evidence["primary"] == 1
