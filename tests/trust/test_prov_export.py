"""`kh prov export`: the W3C PROV of a run parses back, in PROV-JSON and in Turtle (PROV-O)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from prov.model import (
    PROV,
    PROV_ATTR_ACTIVITY,
    PROV_ATTR_AGENT,
    PROV_ATTR_ENTITY,
    PROV_ATTR_GENERATED_ENTITY,
    PROV_ATTR_USED_ENTITY,
    PROV_TYPE,
    ProvDerivation,
    ProvDocument,
    ProvUsage,
)

from knowledge_harness.actors import os_account_name

from ..support.batch_support import approve_at_terminal, git_vault, kh, plan_json

pytestmark = pytest.mark.usefixtures("evidence_site")


def _relations(doc: ProvDocument, kind: str) -> list[tuple[str, str]]:
    out = []
    for record in doc.get_records():
        name = type(record).__name__
        if name != kind:
            continue
        attrs = dict(record.formal_attributes)
        if isinstance(record, ProvUsage):
            out.append((str(attrs[PROV_ATTR_ACTIVITY]), str(attrs[PROV_ATTR_ENTITY])))
        elif isinstance(record, ProvDerivation):
            out.append((str(attrs[PROV_ATTR_GENERATED_ENTITY]), str(attrs[PROV_ATTR_USED_ENTITY])))
        elif name == "ProvGeneration":
            out.append((str(attrs[PROV_ATTR_ENTITY]), str(attrs[PROV_ATTR_ACTIVITY])))
        elif name == "ProvAssociation":
            out.append((str(attrs[PROV_ATTR_ACTIVITY]), str(attrs[PROV_ATTR_AGENT])))
    return out


def test_prov_of_a_run_parses_back_in_json_and_turtle(tmp_path: Path) -> None:
    vault = git_vault(tmp_path)
    plan = plan_json(vault)
    result = approve_at_terminal(vault, plan["plan_id"], f"APPROVE_PRODUCTION {plan['digest']}", env={"USER": "hanako"})
    assert result.returncode == 0, result.stderr
    record = json.loads(result.stdout)
    person = f"agent:person-{os_account_name()}"  # the OS account, whatever $USER claims
    target = plan["targets"][0]
    before, after = f"sha256:{target['sha256_before']}", f"sha256:{target['sha256_after']}"

    as_json = kh("prov", "export", str(vault), record["run_id"], "--format", "json", check=True).stdout
    doc = ProvDocument.deserialize(content=as_json, format="json")
    turtle = kh("prov", "export", str(vault), record["run_id"], "--format", "turtle", check=True).stdout
    from_turtle = ProvDocument.deserialize(content=turtle, format="rdf", rdf_format="turtle")

    for parsed in (doc, from_turtle):
        ids = {str(r.identifier) for r in parsed.get_records() if r.identifier is not None}
        assert before in ids and after in ids
        assert any(str(i).startswith("run:approval-") for i in ids)
        assert (after, before) in _relations(parsed, "ProvDerivation")
        generated = _relations(parsed, "ProvGeneration")
        assert any(entity == after and activity.startswith("run:write-") for entity, activity in generated)
        used = _relations(parsed, "ProvUsage")
        assert any(activity.startswith("run:validation-") and entity == before for activity, entity in used)
        snapshot = target["sources"][0]["snapshot_sha256"]
        assert any(entity == f"sha256:{snapshot}" for _, entity in used)  # the evidence the judge read
        associated = dict(_relations(parsed, "ProvAssociation"))
        approval = next(a for a in associated if a.startswith("run:approval-"))
        assert associated[approval] == person
        assert any(agent.startswith("agent:judge-lexical") for agent in associated.values())

    agents = {str(r.identifier): r for r in doc.get_records() if type(r).__name__ == "ProvAgent"}
    assert PROV["Person"] in agents[person].get_attribute(PROV_TYPE)
    assert "agent:generator-claude" in agents  # provenance.generator of the note
    judge = next(a for i, a in agents.items() if i.startswith("agent:judge-"))
    assert PROV["SoftwareAgent"] in judge.get_attribute(PROV_TYPE)

    # the judge as the record names it, and each quote a finding stands on, derived from its snapshot
    assert judge.identifier is not None and str(judge.identifier).startswith("agent:judge-lexical-")
    quotes = [q for f in target["findings"] for q in f["quotes"]]
    assert quotes, target["findings"]
    entities = {str(r.identifier): r for r in doc.get_records() if type(r).__name__ == "ProvEntity"}
    derived = _relations(doc, "ProvDerivation")
    found = [
        e for e in entities.values() if PROV_TYPE in dict(e.attributes) and "Quote" in str(e.get_attribute(PROV_TYPE))
    ]
    assert len(found) == len(quotes)
    for entity, quote in zip(found, quotes, strict=True):
        assert (str(entity.identifier), f"sha256:{snapshot}") in derived
        assert {str(v) for v in entity.get_attribute("prov:value")} == {quote["text"]}
        assert {int(v) for v in entity.get_attribute("kh:start")} == {quote["start"]}
