"""W3C PROV of one batch run (`kh prov export`), built with the `prov` package.

The trust model follows PROV-O: the note versions are *entities*, the work done is
*activities*, the judge and the person are *agents*, kept apart from one another.

- entities: each target's note version before and after (identified by SHA-256, `urn:sha256:`),
  the evidence snapshots the judge read (by the SHA-256 of the snapshot), each quote a finding
  stands on (derived from its snapshot, with its character offsets there), and the plan (by its
  digest);
- activities: the validation (planning: dry run of every target), the approval (the typed
  challenge) and one write per file written;
- agents: the judge as the record names it (`lexical-8`, `openai_compat:<model>`,
  `agent:<client> <version>`), the person who typed the challenge, the generator named in each
  note's `provenance`, and the sidecar (the writer);
- relations: used, wasGeneratedBy, wasAssociatedWith, wasDerivedFrom (plus wasInformedBy and
  wasAttributedTo).

A failed run exports as it is: its record's `run_status` / `result` are attributes of the
approval activity, and PROVISIONAL_RETAIN note versions carry that status.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

from prov.model import PROV, ProvDocument, ProvEntity

from ...errors import InputError
from ...vault.paths import Vault
from ..validate.validation_service import stored_validator_label
from .batch import load_plan, show_run

Format = Literal["json", "turtle"]
KH_NS = "https://knowledge-harness.invalid/ns#"
_SAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def _local(text: str) -> str:
    return _SAFE.sub("_", text).strip("_") or "x"


def build_document(run: Mapping[str, Any], plan: Mapping[str, Any]) -> ProvDocument:
    doc = ProvDocument()
    doc.add_namespace("kh", KH_NS)
    doc.add_namespace("sha256", "urn:sha256:")
    doc.add_namespace("run", "urn:kh:run:")
    doc.add_namespace("agent", "urn:kh:agent:")
    kh = doc.valid_qualified_name

    plan_entity = doc.entity(
        f"run:{_local(str(plan['plan_id']))}",
        {
            "prov:type": kh("kh:Plan"),
            "prov:label": f"plan {plan['plan_id']}",
            "kh:digest": str(plan["digest"]),
            "kh:stage": str(plan["stage"]),
            "kh:expiresAt": str(plan["expires_at"]),
        },
    )
    validation = doc.activity(
        f"run:validation-{_local(str(plan['plan_id']))}",
        str(plan["created_at"]),
        str(plan["created_at"]),
        {"prov:type": kh("kh:Validation"), "prov:label": "dry-run validation of the plan's targets"},
    )
    doc.wasGeneratedBy(plan_entity, validation)

    judges: dict[str, Any] = {}
    for target in plan["targets"]:
        info = target.get("validator") or {}
        label = stored_validator_label(info)
        if label not in judges:
            attrs: dict[str, Any] = {
                "prov:type": PROV["SoftwareAgent"],
                "prov:label": f"judge {label}",
                "kh:judge": str(info.get("name")),
                "kh:version": str(info.get("version")),
            }
            for key in ("model", "client", "client_version"):
                if info.get(key):
                    attrs[f"kh:{key}"] = str(info[key])
            judges[label] = doc.agent(f"agent:judge-{_local(label)}", attrs)
            doc.wasAssociatedWith(validation, judges[label])

    person = str(run.get("approved_by") or "person")
    person_agent = doc.agent(f"agent:person-{_local(person)}", {"prov:type": PROV["Person"], "prov:label": person})
    sidecar = doc.agent(
        "agent:knowledge-harness", {"prov:type": PROV["SoftwareAgent"], "prov:label": "Knowledge Harness sidecar"}
    )
    approval = doc.activity(
        f"run:approval-{_local(str(run['run_id']))}",
        str(run.get("approved_at") or run.get("started_at")),
        str(run.get("finished_at") or run.get("recovered_at") or run.get("updated_at")),
        {
            "prov:type": kh("kh:Approval"),
            "prov:label": f"approval of {plan['plan_id']}",
            "kh:challenge": str(run.get("challenge", "")),
            "kh:runStatus": str(run.get("run_status")),
            "kh:consumption": str(run.get("consumption")),
            "kh:result": str(run.get("result")),
        },
    )
    doc.used(approval, plan_entity)
    doc.wasAssociatedWith(approval, person_agent)

    generators: dict[str, Any] = {}
    snapshots: dict[str, ProvEntity] = {}
    files = {str(f["path"]): f for f in run.get("files", [])}
    for index, target in enumerate(plan["targets"]):
        path = str(target["path"])
        before = doc.entity(
            f"sha256:{target['sha256_before']}",
            {"prov:type": kh("kh:NoteVersion"), "kh:path": path, "kh:sha256": str(target["sha256_before"])},
        )
        doc.used(validation, before)
        provenance = target.get("provenance") or {}
        generator = provenance.get("generator") if isinstance(provenance, Mapping) else None
        if generator:
            name = str(generator)
            if name not in generators:
                generators[name] = doc.agent(
                    f"agent:generator-{_local(name)}",
                    {
                        "prov:type": PROV["SoftwareAgent"],
                        "prov:label": f"generator {name}",
                        "kh:origin": str(provenance.get("origin")),
                    },
                )
            doc.wasAttributedTo(before, generators[name])
        for source in target.get("sources", []):
            sha = source.get("snapshot_sha256")
            if not sha:
                continue
            if sha not in snapshots:
                snapshots[sha] = doc.entity(
                    f"sha256:{sha}",
                    {
                        "prov:type": kh("kh:EvidenceSnapshot"),
                        "prov:location": str(source.get("url")),
                        "kh:fetchedAt": str(source.get("fetched_at")),
                    },
                )
            doc.used(validation, snapshots[sha])
        _quotes(doc, validation, target, snapshots, index)
        entry = files.get(path) or {}
        after_sha = entry.get("sha256_after")
        if entry.get("result") not in ("APPLIED", "PROVISIONAL_RETAIN") or not after_sha:
            continue
        write = doc.activity(
            f"run:write-{_local(str(run['run_id']))}-{index + 1}",
            str(entry.get("written_at") or run.get("started_at")),
            str(entry.get("written_at") or run.get("started_at")),
            {"prov:type": kh("kh:MetadataWrite"), "kh:path": path, "kh:result": str(entry.get("result"))},
        )
        doc.used(write, before)
        doc.used(write, plan_entity)
        doc.wasInformedBy(write, approval)
        doc.wasAssociatedWith(write, sidecar)
        after = doc.entity(
            f"sha256:{after_sha}",
            {
                "prov:type": kh("kh:NoteVersion"),
                "kh:path": path,
                "kh:sha256": str(after_sha),
                "kh:resultStatus": str(entry.get("result")),
            },
        )
        doc.wasGeneratedBy(after, write)
        doc.wasDerivedFrom(after, before)
    return doc


def _quotes(
    doc: ProvDocument, validation: Any, target: Mapping[str, Any], snapshots: Mapping[str, ProvEntity], index: int
) -> None:
    """Each quote a finding stands on: derived from the snapshot it was found in, at its offsets."""
    by_source = {str(s.get("source_id")): s.get("snapshot_sha256") for s in target.get("sources", [])}
    kh = doc.valid_qualified_name
    for finding in target.get("findings", []):
        for n, quote in enumerate(finding.get("quotes") or [], 1):
            snapshot = snapshots.get(str(by_source.get(str(quote.get("source_id"))) or ""))
            if snapshot is None:
                continue
            entity = doc.entity(
                f"run:quote-{index + 1}-{_local(str(finding.get('claim_id')))}-{n}",
                {
                    "prov:type": kh("kh:Quote"),
                    "prov:value": str(quote.get("text", "")),
                    "kh:claim": str(finding.get("claim_id")),
                    "kh:verdict": str(finding.get("verdict")),
                    "kh:start": int(quote.get("start", 0)),
                    "kh:end": int(quote.get("end", 0)),
                    "kh:selfJudged": bool(finding.get("self_judged")),
                },
            )
            doc.wasDerivedFrom(entity, snapshot)
            doc.wasGeneratedBy(entity, validation)


def export_prov(vault: Vault, run_id: str, fmt: str = "json") -> str:
    if fmt not in ("json", "turtle"):
        raise InputError(f"Unknown format {fmt!r}; use json or turtle.")
    run = show_run(vault, run_id)
    plan = load_plan(vault, str(run["plan_id"]))
    doc = build_document(run, plan.stored())  # the export reads the plan as its file holds it
    if fmt == "json":
        return str(doc.serialize(format="json", indent=2))
    return str(doc.serialize(format="rdf", rdf_format="turtle"))
