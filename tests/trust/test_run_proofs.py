"""The proof a badge shows (trust/records.RunProofs): a run record's findings for the note it
wrote, with the source URLs of the plan the run carried out; nothing when there is no record."""

from __future__ import annotations

import json
import os
import unicodedata
from pathlib import Path
from typing import Any

from knowledge_harness.trust.records import MAX_PROOF_CHARS, RunProofs
from knowledge_harness.vault.paths import Vault

RUN = "run-20261202T101500Z-0a1b2c3d"
PLAN = "plan-20261202T101000Z-0a1b2c3d"
NOTE = "調査/鮮度.md"


def finding(claim_id: str, **extra: Any) -> dict[str, Any]:
    return {"claim_id": claim_id, "end_line": 3, "line": 3, "reason": "", "verdict": "supported", **extra}


def write(vault: Path, files: list[dict[str, Any]], *, sources: bool = True) -> None:
    runs = vault / ".harness" / "runs"
    runs.mkdir(parents=True, exist_ok=True)
    (runs / f"{RUN}.json").write_text(json.dumps({"run_id": RUN, "plan_id": PLAN, "files": files}), encoding="utf-8")
    if sources:
        plans = vault / ".harness" / "plans"
        plans.mkdir(parents=True, exist_ok=True)
        target = {"path": NOTE, "sources": [{"source_id": "s1", "url": "https://example.org/鮮度"}]}
        (plans / f"{PLAN}.json").write_text(json.dumps({"plan_id": PLAN, "targets": [target]}), encoding="utf-8")


def test_each_claim_comes_with_its_located_quote_and_the_plans_source_url(tmp_path: Path) -> None:
    located = [
        {"source_id": "s1", "start": 10, "end": 20, "text": "九十日"},
        {"source_id": "s1", "start": 40, "end": 44, "text": "再検証"},
    ]
    write(
        tmp_path,
        [
            {
                "path": NOTE,
                "findings": [
                    finding("c-1", text="TTL は 90 日", quote="九十日 … 再検証", quotes=located, source_id="s1"),
                    # recorded before the quote gate: the judge's own quote, no located pieces
                    finding("c-2", text="古い記録", quote="昔の引用", source_id="s1"),
                    finding("c-3", text="出典なし", quote="", source_id=None, verdict="no_evidence"),
                ],
            }
        ],
    )
    proofs = RunProofs(Vault.open(tmp_path))
    assert proofs.of(RUN, NOTE) == [
        {
            "claim_id": "c-1",
            "claim": "TTL は 90 日",
            "verdict": "supported",
            "quote": "九十日 … 再検証",
            "source_url": "https://example.org/鮮度",
        },
        {
            "claim_id": "c-2",
            "claim": "古い記録",
            "verdict": "supported",
            "quote": "昔の引用",
            "source_url": "https://example.org/鮮度",
        },
        {"claim_id": "c-3", "claim": "出典なし", "verdict": "no_evidence", "quote": "", "source_url": None},
    ]
    assert proofs.of(RUN, "other.md") == []
    assert proofs.of(None, NOTE) == []
    assert proofs.of("run-../../etc", NOTE) == []


def test_a_rewritten_record_is_read_again_and_long_texts_are_cut(tmp_path: Path) -> None:
    write(tmp_path, [{"path": NOTE, "findings": [finding("c-1", text="短い", quote="短い", source_id="s1")]}])
    proofs = RunProofs(Vault.open(tmp_path))
    assert proofs.of(RUN, NOTE)[0]["quote"] == "短い"
    long = "長" * (MAX_PROOF_CHARS * 3)
    write(tmp_path, [{"path": NOTE, "findings": [finding("c-1", text=long, quote=long, source_id="s1")]}])
    record = tmp_path / ".harness" / "runs" / f"{RUN}.json"
    os.utime(record, ns=(1, 1))  # a different mtime even on a coarse clock
    [proof] = proofs.of(RUN, NOTE)
    assert len(proof["quote"]) == len(proof["claim"]) == MAX_PROOF_CHARS and proof["quote"].endswith("…")


def test_a_missing_plan_or_a_broken_record_gives_no_url_or_no_proof(tmp_path: Path) -> None:
    write(tmp_path, [{"path": NOTE, "findings": [finding("c-1", text="a", quote="a", source_id="s1")]}], sources=False)
    assert RunProofs(Vault.open(tmp_path)).of(RUN, NOTE)[0]["source_url"] is None
    (tmp_path / ".harness" / "runs" / f"{RUN}.json").write_text("{torn", encoding="utf-8")
    assert RunProofs(Vault.open(tmp_path)).of(RUN, NOTE) == []


def test_a_note_named_in_nfd_by_its_record_shows_its_proof_under_either_form(tmp_path: Path) -> None:
    name = "調査/がくぶ.md"  # が and ぶ decompose (a kana and its voicing mark), as macOS writes names
    nfd = unicodedata.normalize("NFD", name)
    assert nfd != name
    runs, plans = tmp_path / ".harness" / "runs", tmp_path / ".harness" / "plans"
    runs.mkdir(parents=True)
    plans.mkdir(parents=True)
    files = [{"path": nfd, "findings": [finding("c-1", quote="九十日", source_id="s1")]}]
    (runs / f"{RUN}.json").write_text(json.dumps({"run_id": RUN, "plan_id": PLAN, "files": files}), encoding="utf-8")
    target = {"path": nfd, "sources": [{"source_id": "s1", "url": "https://example.org/学部"}]}
    (plans / f"{PLAN}.json").write_text(json.dumps({"plan_id": PLAN, "targets": [target]}), encoding="utf-8")
    proofs = RunProofs(Vault.open(tmp_path))
    for form in ("NFC", "NFD"):
        [proof] = proofs.of(RUN, unicodedata.normalize(form, name))
        assert (proof["quote"], proof["source_url"]) == ("九十日", "https://example.org/学部")
