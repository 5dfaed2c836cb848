"""docs/design/ stays true where that is cheap to check: the names it uses exist in the code, and the
names the code defines (states, results, producers, reason codes, levels, statuses, triggers,
windows, stages, run and file results, index files and MCP tools) are all in it."""

from __future__ import annotations

import importlib
import pkgutil
import re
import typing
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import pytest
from pydantic import BaseModel

from knowledge_harness import errors
from knowledge_harness.index import build as index_build
from knowledge_harness.index import parsing as index_parsing
from knowledge_harness.index.schema import CheckReport
from knowledge_harness.pipeline import config as pipeline_config
from knowledge_harness.pipeline import contract, engine, judging, registry, states
from knowledge_harness.pipeline.ops import o07_plan
from knowledge_harness.trust import policy, schema
from knowledge_harness.trust import records as trust_records
from knowledge_harness.trust.approve import batch
from knowledge_harness.trust.approve import models as approve_models
from knowledge_harness.trust.audit import audit, freshness
from knowledge_harness.trust.validate import claims, validation_models
from knowledge_harness.vault import note as vault_note
from knowledge_harness.vault import paths as vault_paths

DESIGN = Path(__file__).resolve().parents[2] / "docs" / "design"
TICKED = re.compile(r"`([^`\n]+)`")
CAPS = re.compile(r"^[A-Z][A-Z0-9_]+$")
WORD = re.compile(r"^[a-z][a-z0-9_]*$")


def _doc(name: str) -> str:
    return (DESIGN / name).read_text(encoding="utf-8")


def _ticked(text: str) -> set[str]:
    return set(TICKED.findall(text))


def _constants(*modules: ModuleType) -> set[str]:
    return {name for module in modules for name in vars(module) if CAPS.match(name)}


def _literals(annotation: Any) -> set[str]:
    """Every string a Literal (possibly inside Optional / list) admits."""
    found: set[str] = set()
    if typing.get_origin(annotation) is typing.Literal:
        found |= {str(v) for v in typing.get_args(annotation)}
    for arg in typing.get_args(annotation):
        found |= _literals(arg)
    return found


def _model_names(*models: type[BaseModel]) -> set[str]:
    """Field names and Literal values of models, and of the models their fields hold."""
    names: set[str] = set()
    seen: set[type[BaseModel]] = set()
    todo = list(models)
    while todo:
        model = todo.pop()
        if model in seen:
            continue
        seen.add(model)
        for field_name, field in model.model_fields.items():
            names.add(field_name)
            names |= _literals(field.annotation)
            for arg in (field.annotation, *typing.get_args(field.annotation)):
                if isinstance(arg, type) and issubclass(arg, BaseModel):
                    todo.append(arg)
                for inner in typing.get_args(arg):
                    if isinstance(inner, type) and issubclass(inner, BaseModel):
                        todo.append(inner)
    return names


# -- the pipeline ---------------------------------------------------------------------------------

PIPELINE_VALUES = (
    {s.value for s in contract.State}
    | {r.value for r in contract.Result}
    | {c.value for c in contract.ReasonCode}
    | {contract.HUMAN_DECISION}
    | set(judging.VERDICTS)
    | set(judging.IMPACTS)
    | set(o07_plan.STRUCTURE_TYPES)
    | set(o07_plan.TREATMENTS)
)


def test_every_upper_case_name_in_the_pipeline_design_exists_in_the_code() -> None:
    named = {t for t in _ticked(_doc("pipeline.md")) if CAPS.match(t)}
    known = PIPELINE_VALUES | _constants(contract, states, engine, registry, judging, o07_plan)
    assert sorted(named - known) == []


def test_the_pipeline_design_names_every_state_result_producer_and_operation() -> None:
    text = _doc("pipeline.md")
    ticked = _ticked(text)
    for values in (contract.State, contract.Result, contract.Producer):
        assert sorted(v.value for v in values if v.value not in ticked) == []
    flowing = " ".join(text.split())
    assert [f"{op} {name}" for op, name in registry.OPERATIONS.items() if f"{op} {name}" not in flowing] == []
    assert all(f"`{key}`" in text for key in contract.RECORD_KEYS)
    assert all(f"`{choice}`" in text for choice in contract.DECISION_CHOICES)


def test_the_reason_code_table_is_exactly_the_enum() -> None:
    text = _doc("pipeline.md")
    table = text[text.index("## Reason codes, by operation") :]
    listed = [t for t in TICKED.findall(table) if CAPS.match(t)]
    assert len(listed) == len(set(listed)), "a reason code is listed twice"
    assert set(listed) == {c.value for c in contract.ReasonCode}


def test_the_pipeline_limits_are_the_code_defaults() -> None:
    text = _doc("pipeline.md")
    evidence = pipeline_config.EvidenceSettings()
    rows = {
        "search rounds": f"{evidence.rounds} · {evidence.queries_per_round}",
        "page fetches": f"{evidence.max_fetches} · {evidence.max_adopted} · {evidence.per_domain}",
        "O-04 time limit": f"{evidence.time_limit_seconds:g} s",
        "a source is old after": f"{evidence.stale_after_days} days",
        "confidence a `PASS` needs": f"{judging.THRESHOLD:.2f}",
        "body similarity": f"{pipeline_config.BlogSettings().similarity_threshold:.2f}",
        "AI revisions of one article": f"{contract.MAX_AI_REVISIONS} (",
    }
    for start, value in rows.items():
        row = next(line for line in text.splitlines() if line.startswith(f"| {start}"))
        assert value in row, (start, value, row)
    assert f"most {engine.MAX_STEPS} steps" in text


def test_the_transition_table_matches_states_py() -> None:
    text = _doc("pipeline.md")
    table = text[text.index("## The transition table") : text.index("## Limits")]
    documented: dict[str, set[str]] = {}
    for line in table.splitlines():
        cells = line.split(" | ")
        if len(cells) == 3 and line.startswith("| O-"):
            targets = {t for t in TICKED.findall(cells[2].split("(the table")[0]) if CAPS.match(t)}
            documented.setdefault(cells[0].strip("| "), set()).update(targets)
    for operation, table_rows in states.TRANSITIONS.items():
        allowed = {s.value for after in table_rows.values() for s in after}
        missing = allowed - documented.get(operation, set()) - {"DRAFT_READY"}  # O-12's unused target is noted
        assert missing == set(), operation


# -- trust ----------------------------------------------------------------------------------------

TRUST_VALUES = (
    set(policy.STATUSES)
    | set(policy.EVIDENCE_STATUSES)
    | set(policy.VERDICTS)
    | set(freshness.TRIGGERS)
    | set(freshness.WINDOWS)
    | set(batch.STAGES)
    | _literals(batch.Reason)
    | _literals(validation_models.FindingVerdict)
    | _literals(approve_models.FileResult)
    | _literals(approve_models.RunResult)
    | _literals(trust_records.RecordKind)
)
TRUST_RECORDS = (
    schema.Provenance,
    schema.Verification,
    schema.Evidence,
    schema.EvidenceSource,
    policy.Policy,
    approve_models.PlanView,
    approve_models.RunFile,
    approve_models.BatchRun,
)


def test_the_trust_design_names_every_status_level_trigger_window_stage_and_result() -> None:
    text = _doc("trust.md")
    ticked = _ticked(text)
    assert sorted(TRUST_VALUES - ticked) == []
    run_fields = approve_models.BatchRun.model_fields
    for name in ("run_status", "consumption", "failure_reason"):
        for value in _literals(run_fields[name].annotation):
            assert f"`{value}`" in text, value
    assert all(f"| {level} | {name} |" in text for level, name in schema.LEVEL_NAMES.items())
    assert f"`{batch.CHALLENGE_KEYWORD} <digest>`" in text and f"{batch.DIGEST_SHOWN} hex digits" in text


def test_every_name_in_the_trust_design_exists_in_the_code() -> None:
    ticked = _ticked(_doc("trust.md"))
    names = TRUST_VALUES | _model_names(*TRUST_RECORDS)
    words = {t for t in ticked if WORD.match(t)}
    caps = {t for t in ticked if CAPS.match(t)}
    constants = _constants(policy, freshness, audit, batch, schema, claims, validation_models, approve_models)
    functions = {n for m in (policy, freshness, audit, batch) for n, v in vars(m).items() if callable(v)}
    error_codes = {str(getattr(v, "code", "")) for v in vars(errors).values() if isinstance(v, type)}
    assert sorted(words - names - functions - error_codes) == []
    assert sorted(caps - names - constants - {batch.CHALLENGE_KEYWORD}) == []


def test_the_trust_defaults_are_the_code_defaults() -> None:
    text = _doc("trust.md")
    defaults = policy.Policy()
    assert f"| {defaults.ttl_days} days · {defaults.threshold:.2f} |" in text
    stages = defaults.stages
    assert f"`canary` {stages.canary} (fixed), `pilot` {stages.pilot}" in text
    assert f"`progressive` {stages.progressive} (" in text
    assert f"after `plan_ttl_hours` ({defaults.plan_ttl_hours})" in text
    assert f"| {claims.MAX_CLAIMS} |" in text
    window = {name: f"`{name}` {low}–{high}" for name, (low, high) in freshness.WINDOW_DAYS.items()}
    assert [w for w in window.values() if w not in text] == []


# -- the reasoning index ----------------------------------------------------------------------------


def _index_modules() -> list[ModuleType]:
    import knowledge_harness.index as index_package

    return [
        importlib.import_module(info.name)
        for info in pkgutil.iter_modules(index_package.__path__, "knowledge_harness.index.")
    ]


def test_every_upper_case_name_in_the_index_design_exists_in_the_code() -> None:
    named = {t for t in _ticked(_doc("reasoning-index.md")) if CAPS.match(t)}
    known = _constants(*_index_modules(), vault_paths, vault_note)
    known |= {"READING_ORDER", "KH_SEARCH_CACHE"}
    assert sorted(named - known) == []


def test_the_index_design_names_every_manifest_key_and_check_status(tmp_path: Path) -> None:
    from knowledge_harness.vault.paths import Vault

    text = _doc("reasoning-index.md")
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "a.md").write_text("---\ntype: moc\n---\n# A\n\n## B\n\n[[b]]\n", encoding="utf-8")
    (vault / "b.md").write_text("# B\n", encoding="utf-8")
    index_build.build_index(Vault.open(vault))
    import json

    folder = vault / ".harness" / "index"
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    layer = json.loads(next((folder / "notes").glob("*.json")).read_text(encoding="utf-8"))
    keys = set(manifest) | set(manifest["notes"][0]) | set(layer)
    assert sorted(k for k in keys if f"`{k}`" not in text) == []
    description = CheckReport.model_fields["status"].description or ""
    assert [s for s in description.split(" | ") if f"`{s}`" not in text] == []
    assert "(`PARALLEL_MIN_NOTES`)" in text and f"{index_parsing.PARALLEL_MIN_NOTES:,} notes" in text
    assert sorted(d for d in vault_paths.EXCLUDED_DIRS if f"`{d}`" not in text) == []


@pytest.fixture
def mcp_tool_names(tmp_path: Path) -> list[str]:
    from knowledge_harness.api.context import AppContext
    from knowledge_harness.api.mcp import build_mcp
    from knowledge_harness.settings import Settings

    mcp = build_mcp(AppContext.create(Settings(vault=tmp_path, token="t" * 32, agent_token="a" * 32)))

    async def names() -> list[str]:
        return [tool.name for tool in await mcp.list_tools()]

    return anyio.run(names)


def test_the_index_doors_table_names_every_index_tool(mcp_tool_names: list[str]) -> None:
    text = _doc("reasoning-index.md")
    doors = text[text.index("## Doors") : text.index("## Limits")]
    index_tools = {name for name in mcp_tool_names if name.startswith("index_")}
    documented = {t for t in TICKED.findall(doors) if t.startswith("index_")}
    assert index_tools == documented
