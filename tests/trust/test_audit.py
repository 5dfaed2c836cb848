"""The read-only audit on a vault built to reproduce the trust design's Stage E figures, as a service and over
REST and MCP (`kh audit`'s own tests are in tests/cli/test_audit.py)."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path
from typing import Any

import anyio
import httpx2
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

from knowledge_harness.trust.audit.audit import badge_of, run_audit, threshold_count, threshold_label
from knowledge_harness.trust.policy import Policy, load_policy
from knowledge_harness.vault.catalog import NoteCatalog
from knowledge_harness.vault.paths import Vault
from tests.conftest import start_sidecar, stop_sidecar

from ..support.audit_vault import STALE_NOTES, TODAY, WINDOW_NOTES, adopt_all, build_stage_e_vault, snapshot


def test_one_more_stale_note_drops_coverage_below_the_threshold(tmp_path: Path) -> None:
    vault = build_stage_e_vault(tmp_path / "v")
    note = vault / "kw/fresh-01.md"
    note.write_bytes(note.read_bytes() + b"\nedited\n")
    report = run_audit(NoteCatalog(Vault.open(vault)), Policy(), today=TODAY)
    assert (report.fresh_l2, report.surplus) == (58, -1)
    assert {"path": "kw/fresh-01.md", "triggers": ["content_changed"]} in [s.model_dump() for s in report.stale]


def test_threshold_count_is_exact_in_decimal() -> None:
    assert threshold_count(0.8, 80) == 64  # 0.8 * 80 in binary floats is 64.00000000000001
    assert threshold_count(0.8, 73) == 59
    assert threshold_count(0.7, 10) == 7
    assert threshold_label(0.825) == "82.5% threshold"
    assert threshold_label(1.0) == "100% threshold"


def test_keyword_rule_by_folder_changes_the_population(tmp_path: Path) -> None:
    vault = build_stage_e_vault(tmp_path / "v", policy="[keywords]\nprovenance = false\nfolders = ['journal']\n")
    policy = load_policy(vault)
    report = run_audit(NoteCatalog(Vault.open(vault)), policy, today=TODAY)
    assert (report.raw, report.evidence_capable, report.fresh_l2) == (5, 5, 1)


def test_warm_audit_reuses_parsed_notes_and_sees_edits(tmp_path: Path) -> None:
    vault = build_stage_e_vault(tmp_path / "v")
    catalog = NoteCatalog(Vault.open(vault))
    first = run_audit(catalog, Policy(), today=TODAY)
    assert run_audit(catalog, Policy(), today=TODAY) == first
    (vault / "kw/fresh-02.md").write_bytes((vault / "kw/fresh-02.md").read_bytes() + b"\nmore text\n")
    assert run_audit(catalog, Policy(), today=TODAY).fresh_l2 == 58


def test_files_the_scan_skips_are_listed_as_errors_and_the_figures_stay(tmp_path: Path) -> None:
    vault = build_stage_e_vault(tmp_path / "v")
    catalog = NoteCatalog(Vault.open(vault))
    first = run_audit(catalog, Policy(), today=TODAY)
    (vault / "loop").mkdir()
    (vault / "loop" / "again").symlink_to(vault / "loop", target_is_directory=True)
    with open(os.fsencode(vault) + b"/caf\xe9.md", "wb") as handle:  # a Latin-1 file name
        handle.write(b"# cafe\n")
    second = run_audit(catalog, Policy(), today=TODAY)  # the same catalog: its cached report is not reused
    assert (second.raw, second.fresh_l2, second.coverage) == (first.raw, first.fresh_l2, first.coverage)
    skipped = {(e.path, e.message) for e in second.errors} - {(e.path, e.message) for e in first.errors}
    assert skipped == {
        ("caf\\xe9.md", "The name is not valid UTF-8; skipped."),
        ("loop/again", "Folder reached twice (symbolic link loop); skipped."),
    }


def test_rest_audit_badge_and_stale_on_a_real_sidecar(tmp_path: Path) -> None:
    vault = build_stage_e_vault(tmp_path / "v")
    before = snapshot(vault)
    sidecar = start_sidecar(vault)
    try:
        with sidecar.client() as client:
            audit = client.get("/v1/trust/audit", params={"today": TODAY.isoformat()})
            assert audit.status_code == 200
            body = audit.json()
            assert (body["raw"], body["evidence_capable"], body["fresh_l2"], body["surplus"]) == (80, 73, 59, 0)
            assert body["windows"] == WINDOW_NOTES

            badge = client.get("/v1/trust/notes/kw/win-5.md", params={"today": TODAY.isoformat()}).json()
            assert badge["level"] == 2 and badge["status"] == "verified"
            assert badge["fresh"] is True and badge["triggers"] == []
            assert (badge["window"], badge["days_left"], badge["revalidate_after"]) == ("next_batch", 5, "2026-09-25")
            assert badge["validator"] == "lexical-1"

            stale_badge = client.get("/v1/trust/notes/kw/stale-both.md", params={"today": TODAY.isoformat()}).json()
            assert stale_badge["fresh"] is False
            assert stale_badge["triggers"] == ["content_changed", "age_expired"]
            assert stale_badge["window"] is None

            bad = client.get("/v1/trust/notes/kw/bad-level.md").json()
            assert bad["error"]["line"] == 8

            missing = client.get("/v1/trust/notes/kw/none.md")
            assert missing.status_code == 404
            assert missing.json()["error"]["code"] == "not_found"

            stale = client.get("/v1/trust/stale", params={"today": TODAY.isoformat()}).json()
            assert {s["path"] for s in stale["stale"]} == set(STALE_NOTES)
            assert [w["path"] for w in stale["windows"]["prepare"]] == WINDOW_NOTES["prepare"]

            assert client.get("/v1/trust/audit", params={"threshold": "2"}).status_code in (400, 422)
            assert sidecar.client(token=False).get("/v1/trust/audit").status_code == 401
            assert snapshot(vault) == before

            recorded = client.get("/v1/trust/audit", params={"record": "true"})
            assert recorded.status_code == 200
            assert (vault / ".harness/audits.jsonl").is_file()
    finally:
        stop_sidecar(sidecar)


async def _mcp_calls(url: str, token: str) -> tuple[list[str], Any, Any]:
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30) as http,
        streamable_http_client(f"{url}/mcp", http_client=http) as streams,
        ClientSession(streams[0], streams[1]) as session,
    ):
        await session.initialize()
        tools = [t.name for t in (await session.list_tools()).tools]
        audit = await session.call_tool("trust_audit", {"today": TODAY.isoformat()})
        badge = await session.call_tool("trust_badge", {"path": "kw/stale-refs.md", "today": TODAY.isoformat()})
        return tools, audit, badge


def test_mcp_audit_and_badge_tools_on_a_real_sidecar(tmp_path: Path) -> None:
    vault = build_stage_e_vault(tmp_path / "v")
    sidecar = start_sidecar(vault)
    try:
        tools, audit, badge = anyio.run(_mcp_calls, sidecar.url, sidecar.agent_token)
    finally:
        stop_sidecar(sidecar)
    assert {"trust_audit", "trust_badge", "trust_stale"} <= set(tools)
    assert not audit.is_error and not badge.is_error
    data = audit.structured_content
    assert (data["raw"], data["evidence_capable"], data["fresh_l2"], data["surplus"]) == (80, 73, 59, 0)
    assert badge.structured_content["triggers"] == ["references_changed"]


def test_recorded_audits_form_the_trend_and_bad_lines_are_skipped(tmp_path: Path) -> None:
    from knowledge_harness.trust.audit.audit import audit_trend, record_audit

    (tmp_path / "a.md").write_text("---\nprovenance: {origin: human}\nreferences: [https://x.example/]\n---\nx\n")
    catalog = NoteCatalog(Vault.open(tmp_path))
    assert audit_trend(catalog).audits == []
    policy = Policy()
    record_audit(catalog, run_audit(catalog, policy, today=dt.date(2026, 12, 1)))
    with (tmp_path / ".harness" / "audits.jsonl").open("a") as handle:
        handle.write("not json\n")
    record_audit(catalog, run_audit(catalog, policy, today=dt.date(2026, 12, 2)))
    trend = audit_trend(catalog)
    assert [p.today for p in trend.audits] == ["2026-12-01", "2026-12-02"]
    assert trend.audits[0].evidence_capable == 1
    assert trend.skipped_lines == 1
    assert [p.today for p in audit_trend(catalog, limit=1).audits] == ["2026-12-02"]


def test_rest_trend_lists_audits_recorded_over_rest(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("---\nprovenance: {origin: human}\nreferences: [https://x.example/]\n---\nx\n")
    running = start_sidecar(tmp_path)
    try:
        with running.client() as client:
            assert client.get("/v1/trust/audits").json()["audits"] == []
            client.get("/v1/trust/audit", params={"record": "true", "today": "2026-12-02"}).raise_for_status()
            client.get("/v1/trust/audit", params={"today": "2026-12-03"}).raise_for_status()  # not recorded
            audits = client.get("/v1/trust/audits").json()["audits"]
        assert [a["today"] for a in audits] == ["2026-12-02"]
        assert audits[0]["evidence_capable"] == 1
    finally:
        stop_sidecar(running)


def test_a_keyword_folder_and_tag_typed_in_nfd_match_notes_named_in_nfc(tmp_path: Path) -> None:
    import unicodedata

    folder = "用語集/ガイド"  # ガ and ド decompose in NFD, as macOS writes names
    nfd = unicodedata.normalize("NFD", folder)
    assert nfd != folder
    policy_text = (
        f"[keywords]\nprovenance = false\nfolders = ['{nfd}']\ntags = ['{unicodedata.normalize('NFD', 'データ')}']\n"
    )
    vault = build_stage_e_vault(tmp_path / "v", policy=policy_text)
    (vault / folder).mkdir(parents=True)
    (vault / folder / "a.md").write_text("# a\n\nSome text.\n", encoding="utf-8")
    (vault / "tagged.md").write_text("---\ntags: [データ]\n---\n# t\n", encoding="utf-8")
    policy = load_policy(vault)
    report = run_audit(NoteCatalog(Vault.open(vault)), policy, today=TODAY)
    assert report.raw == 2  # the folder's note and the tagged note; nothing else is under the rule


def test_a_note_dated_ahead_of_the_clock_is_stale_future_dated_never_fresh(tmp_path: Path) -> None:
    vault = build_stage_e_vault(tmp_path / "v")
    note = vault / "kw/fresh-01.md"
    text = note.read_text(encoding="utf-8")
    dated = text.replace("last_validated: 2026-09-10", "last_validated: 2099-01-01").replace(
        "revalidate_after: 2026-12-09", "revalidate_after: 2099-04-01"
    )
    assert dated != text
    note.write_text(dated, encoding="utf-8")
    catalog = NoteCatalog(Vault.open(vault))
    report = run_audit(catalog, Policy(), today=TODAY)
    assert report.fresh_l2 == 58  # one fewer than the design's 59
    assert {"path": "kw/fresh-01.md", "triggers": ["future_dated"]} in [s.model_dump() for s in report.stale]
    badge = badge_of(catalog, Policy(), catalog.note("kw/fresh-01.md"), TODAY)
    assert not badge.fresh and "future_dated" in badge.triggers
    # a day ahead is a time zone, not the future
    note.write_text(
        text.replace("last_validated: 2026-09-10", f"last_validated: {TODAY + dt.timedelta(days=1)}"), "utf-8"
    )
    adopt_all(vault)  # the edited block rests on no record until a person vouches for it
    assert run_audit(NoteCatalog(Vault.open(vault)), Policy(), today=TODAY).fresh_l2 == 59
