"""Evidence as the design asks (issue 24, item 3), against a real local evidence site and a stand-in
speaking SearXNG's JSON API: primary sources first, reaction_target, vault notes read whole and
counted one by one, metadata from the page itself, every failed fetch with its reason."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

from knowledge_harness.pipeline.config import EvidenceSettings
from knowledge_harness.pipeline.contract import State
from knowledge_harness.pipeline.engine import Pipeline
from knowledge_harness.pipeline.page_metadata import extract_page_metadata
from knowledge_harness.vault.paths import Vault

from ..support.people import PERSON
from ..support.pipeline_helpers import (
    LocalServer,
    html_page,
    local_server,
    request_note,
    searxng_json,
    write_configs,
    write_note,
)

QUESTION = "Obsidian のプロパティは YAML 1.2 として読まれるのか知りたい。"
CLOCK = dt.datetime(2026, 3, 1, 1, 0, tzinfo=dt.UTC)


def _run(vault: Path) -> tuple[Pipeline, str]:
    write_note(vault, "Requests/q.md", request_note(QUESTION))
    p = Pipeline(Vault.open(vault), clock=lambda: CLOCK)
    run_id = p.capture_note("Requests/q.md").run_id
    p.authorize(run_id, actor=PERSON)
    return p, run_id


def _page(title: str, body: str, head: str = "") -> bytes:
    return (
        f"<!doctype html><html><head><title>{title}</title>{head}</head>"
        f"<body><article><p>{body}</p></article></body></html>"
    ).encode()


def _search(results: list[dict[str, Any]]) -> Any:
    return lambda path, q, body: (200, "application/json", searxng_json(results))


def _evidence_run(vault: Path, site: LocalServer, results: list[dict[str, Any]], toml: str) -> tuple[Pipeline, str]:
    with local_server(_search(results)) as searx:
        write_configs(
            vault,
            pipeline_toml=toml,
            allow=[f"127.0.0.1:{site.port}", f"localhost:{site.port}"],
            searxng_url=searx.url(""),
        )
        p, run_id = _run(vault)
        p.advance(run_id)
    return p, run_id


def _ranking_site(path: str, q: dict[str, list[str]], body: bytes) -> tuple[int, str, bytes]:
    return 200, "text/html", html_page(f"Page {path}", f"YAML 1.2 の真偽値についての説明。ページ {path} の本文。")


def _community_then_primary(site: LocalServer) -> list[dict[str, Any]]:
    community = [{"url": site.url(f"/c{i}", host="localhost"), "title": f"C{i}", "content": ""} for i in range(4)]
    primary = [{"url": site.url(f"/p{i}"), "title": f"P{i}", "content": ""} for i in range(4)]
    return community + primary  # discovery order: every community result first


RANKING_TOML = (
    '[evidence]\nproviders = []\nprimary_domains = ["127.0.0.1"]\ncommunity_domains = ["localhost"]\n'
    "per_domain = 50\nmax_adopted = 3\n"
)


def test_primary_sources_are_adopted_first_then_reactions(tmp_path: Path) -> None:
    with local_server(_ranking_site) as site:
        p, run_id = _evidence_run(tmp_path / "v", site, _community_then_primary(site), RANKING_TOML)
    status = p.status(run_id)
    assert status.state == State.EVIDENCE_READY, status.records[-1]
    evidence = p.artifact(run_id, "evidence_set")
    adopted = [(s["source_class"], s["adopted_for"]) for s in evidence["sources"]]
    # 4 community results came first, yet the two primary ones (primary_target 2) are adopted first
    assert adopted == [
        ("primary", "primary_target"),
        ("primary", "primary_target"),
        ("community", "reaction_target"),
    ]
    o04 = next(r for r in status.records if r["operation"] == "O-04")
    assert "PRIMARY_TARGET_UNMET" not in o04["reason_codes"]
    assert {"REACTION_TARGET_UNMET", "LIMIT_REACHED"} <= set(o04["reason_codes"])  # 1 of 3 reactions; 3 adopted
    assert evidence["metrics"]["primary"] == 2 and evidence["metrics"]["reaction_sources"] == 1
    # every candidate is in the ledger with what happened to it
    ledger = {e["candidate"]: e["disposition"] for e in evidence["candidates"]}
    assert len(ledger) == 8
    assert sorted(ledger.values()).count("adopted") == 3
    assert sorted(ledger.values()).count("not_adopted") == 5


def test_reaction_target_is_read(tmp_path: Path) -> None:
    with local_server(_ranking_site) as site:
        p, run_id = _evidence_run(
            tmp_path / "v", site, _community_then_primary(site), RANKING_TOML + "reaction_target = 0\n"
        )
    evidence = p.artifact(run_id, "evidence_set")
    # no reaction wanted: after the primary target the remaining place goes to the next primary source
    assert [(s["source_class"], s["adopted_for"]) for s in evidence["sources"]] == [
        ("primary", "primary_target"),
        ("primary", "primary_target"),
        ("primary", "fill"),
    ]
    assert "REACTION_TARGET_UNMET" not in p.status(run_id).records[3]["reason_codes"]


def test_source_class_rules() -> None:
    rules = EvidenceSettings(primary_domains=["docs.example.org"], community_domains=["forum.example.org"])
    assert rules.classify_url("https://docs.example.org/x") == "primary"
    assert rules.classify_url("https://forum.example.org/docs/x") == "community"  # community wins
    assert rules.classify_url("https://vendor.example.com/docs/guide") == "primary"  # documentation path
    assert rules.classify_url("https://blog.example.com/2024/post") == "secondary"
    mine = EvidenceSettings(primary_paths=[], secondary_domains=["vendor.example.com"])
    assert mine.classify_url("https://vendor.example.com/docs/guide") == "secondary"


LONG_NOTE_LINES = [f"{i}行目: YAML 1.2 の真偽値と Obsidian のプロパティについてのメモ。" for i in range(1, 31)]


def test_vault_notes_are_read_whole_and_counted_one_by_one(tmp_path: Path) -> None:
    vault = tmp_path / "v"
    bodies = [f"# YAML のメモ {i}\n\n" + "\n".join(LONG_NOTE_LINES) + "\n" for i in range(5)]
    for i, text in enumerate(bodies):
        write_note(
            vault,
            f"Notes/yaml{i}.md",
            f"---\ntitle: YAML 1.2 とプロパティ {i}\nauthor: 山田\ncreated: 2026-01-1{i}\nversion: '1.{i}'\n---\n{text}",
        )
    body = bodies[0]
    write_configs(vault, pipeline_toml='[evidence]\nproviders = ["vault"]\nper_domain = 3\n')
    p, run_id = _run(vault)
    status = p.advance(run_id)
    assert status.state == State.EVIDENCE_READY
    sources = p.artifact(run_id, "evidence_set")["sources"]
    assert len(sources) == 5  # per_domain 3 does not lump the vault into one domain
    first = next(s for s in sources if s["repository_ref"].startswith("Notes/yaml0.md"))
    assert first["text"].strip() == body.strip()  # the whole note, not an 8-line passage
    assert LONG_NOTE_LINES[-1] in first["text"] and LONG_NOTE_LINES[0] in first["text"]
    assert first["text_truncated"] is False
    assert first["repository_ref"] == "Notes/yaml0.md#L7-L38"
    assert (first["author"], first["published_at"], first["target_version"]) == ("山田", "2026-01-10", "1.0")
    assert first["metadata_from"]["author"] == "frontmatter:author"
    assert first["summary_ja"] == "未確認" and first["excerpt"] and not first["excerpt"].startswith("抜粋")
    # five notes stating five versions: the scope is ambiguous and recorded so
    o04 = status.records[3]
    assert "SCOPE_AMBIGUOUS" in o04["reason_codes"]
    scope = [u for u in o04["uncertainties"] if u["code"] == "SCOPE_AMBIGUOUS"]
    assert len(scope) == 1 and len(scope[0]["source_ids"]) == 5


def test_a_note_longer_than_the_text_limit_is_cut_and_marked(tmp_path: Path) -> None:
    vault = tmp_path / "v"
    write_note(vault, "Notes/long.md", "# YAML 1.2 のプロパティ\n\n" + "YAML 1.2 の真偽値。" * 100 + "\n")
    write_configs(vault, pipeline_toml='[evidence]\nproviders = ["vault"]\nmax_text_chars = 300\n')
    p, run_id = _run(vault)
    p.advance(run_id)
    evidence = p.artifact(run_id, "evidence_set")
    source = evidence["sources"][0]
    assert len(source["text"]) == 300 and source["text_truncated"] is True
    assert evidence["metrics"]["truncated"] == 1


JSON_LD = {
    "@context": "https://schema.org",
    "@graph": [
        {"@type": "WebSite", "name": "Example Docs"},
        {
            "@type": "TechArticle",
            "author": [{"@type": "Person", "name": "Hanako Sato"}, {"@type": "Person", "name": "Taro Suzuki"}],
            "datePublished": "2025-11-03T09:00:00+09:00",
            "dateModified": "2026-01-15",
            "softwareVersion": "1.8.7",
            "publisher": {"@type": "Organization", "name": "Obsidian"},
        },
    ],
}
META_HEAD = (
    '<meta name="author" content="鈴木一郎"><meta property="article:published_time" content="2025-12-24T10:00:00Z">'
    '<meta name="docsearch:version" content="1.8"><meta property="og:site_name" content="YAML Guide">'
)


def _metadata_site(path: str, q: dict[str, list[str]], body: bytes) -> tuple[int, str, bytes]:
    text = "YAML 1.2 の core schema では true と false だけが真偽値になる。"
    if path == "/jsonld":
        head = f'<script type="application/ld+json">{json.dumps(JSON_LD)}</script>'
        return 200, "text/html", _page("JSON-LD page", text + " (JSON-LD)", head)
    if path == "/meta":
        return 200, "text/html", _page("Meta page", text + " (meta)", META_HEAD)
    if path == "/time":
        return 200, "text/html", _page("Time page", f'<time datetime="2019-04-01">2019年4月1日</time> {text} (time)')
    if path == "/none":
        return 200, "text/html", _page("Plain page", text + " (none)")
    if path == "/gone":
        return 404, "text/plain", b"gone"
    if path == "/busy":
        return 503, "text/plain", b"busy"
    return 404, "text/plain", b""


def test_author_date_and_version_come_from_the_page_itself(tmp_path: Path) -> None:
    with local_server(_metadata_site) as site:
        results = [
            {"url": site.url("/jsonld"), "title": "A", "content": ""},
            {"url": site.url("/meta"), "title": "B", "content": ""},
            {"url": site.url("/time"), "title": "C", "content": ""},
            {"url": site.url("/none"), "title": "D", "content": "", "publishedDate": "2026-02-01T00:00:00"},
            {"url": site.url("/none?x=1"), "title": "E", "content": ""},
        ]
        p, run_id = _evidence_run(
            tmp_path / "v",
            site,
            results,
            '[evidence]\nproviders = []\nper_domain = 50\nprimary_domains = ["127.0.0.1"]\n',
        )
    status = p.status(run_id)
    evidence = p.artifact(run_id, "evidence_set")
    by_path = {s["url"].rsplit("/", 1)[-1]: s for s in evidence["sources"]}
    jsonld = by_path["jsonld"]
    assert jsonld["author"] == "Hanako Sato, Taro Suzuki"
    assert (jsonld["published_at"], jsonld["modified_at"], jsonld["target_version"]) == (
        "2025-11-03",
        "2026-01-15",
        "1.8.7",
    )
    assert jsonld["publisher"] == "Obsidian"
    assert jsonld["metadata_from"]["published"] == "json-ld:datePublished"
    meta = by_path["meta"]
    assert (meta["author"], meta["published_at"], meta["target_version"], meta["publisher"]) == (
        "鈴木一郎",
        "2025-12-24",
        "1.8",
        "YAML Guide",
    )
    assert meta["metadata_from"]["author"] == "meta:author"
    timed = by_path["time"]
    assert timed["published_at"] == "2019-04-01" and timed["metadata_from"]["published"] == "time[datetime]"
    assert timed["author"] == "未確認" and timed["target_version"] == "未確認"
    plain = by_path["none"]  # the same text as /none?x=1: one is a duplicate
    assert plain["author"] == "未確認" and plain["target_version"] == "未確認"
    assert plain["published_at"] == "2026-02-01" and plain["metadata_from"]["published"] == "searxng:publishedDate"
    o04 = status.records[3]
    # 2019-04-01 is more than 730 days before the information time (2026-03-01): stale
    stale = [u for u in o04["uncertainties"] if u["code"] == "SOURCE_STALE"]
    assert [u["source_ids"] for u in stale] == [[timed["source_id"]]]
    # versions 1.8.7 and 1.8 stated by two sources: scope ambiguity
    scope = [u for u in o04["uncertainties"] if u["code"] == "SCOPE_AMBIGUOUS"]
    assert len(scope) == 1 and set(scope[0]["source_ids"]) == {jsonld["source_id"], meta["source_id"]}
    assert {"SOURCE_STALE", "SCOPE_AMBIGUOUS", "DUPLICATES_REMOVED"} <= set(o04["reason_codes"])
    assert evidence["metrics"]["stale_sources"] == 1 and evidence["metrics"]["scope_ambiguities"] == 1


def test_page_metadata_rules() -> None:
    markup = (
        "<html><head>"
        '<meta property="article:author" content="https://example.com/profile">'
        '<meta name="dc.creator" content="Creator Name">'
        '<script type="application/ld+json">{not json</script>'
        "</head><body>"
        '<time datetime="2024-02-30">bad date</time>'
        '<time itemprop="dateModified" datetime="2025-05-05">m</time>'
        '<time datetime="2024-03-04T10:00">ok</time>'
        "</body></html>"
    )
    meta = extract_page_metadata(markup)
    assert meta.author == "Creator Name"  # a URL is not a name; broken JSON-LD is skipped
    assert meta.modified == "2025-05-05"
    assert meta.published is None  # the first plain <time> is no calendar date: nothing is guessed
    assert extract_page_metadata("<p>nothing</p>").found_in == {}


def test_every_failed_fetch_is_recorded_with_its_reason(tmp_path: Path) -> None:
    with local_server(_metadata_site) as site:
        results = [
            {"url": site.url("/gone"), "title": "Gone", "content": ""},
            {"url": site.url("/busy"), "title": "Busy", "content": ""},
            {"url": site.url("/meta"), "title": "Meta", "content": ""},
            {"url": site.url("/jsonld"), "title": "JSON-LD", "content": ""},
        ]
        p, run_id = _evidence_run(
            tmp_path / "v", site, results, "[evidence]\nproviders = []\nper_domain = 50\nmax_fetches = 3\n"
        )
    status = p.status(run_id)
    evidence = p.artifact(run_id, "evidence_set")
    failures = {f["url"].rsplit("/", 1)[-1]: f for f in evidence["unreachable"]}
    assert failures["gone"]["error"].startswith("http_404") and failures["gone"]["attempts"] == 1
    assert failures["busy"]["error"].startswith("http_503") and failures["busy"]["attempts"] == 3  # 1 + 2 retries
    assert failures["busy"]["transient"] is True and failures["busy"]["status"] == 503
    ledger = {e["candidate"].rsplit("/", 1)[-1]: e for e in evidence["candidates"]}
    assert ledger["gone"]["disposition"] == "fetch_failed" and "404" in ledger["gone"]["reason"]
    assert ledger["jsonld"]["disposition"] == "not_fetched" and "max_fetches 3" in ledger["jsonld"]["reason"]
    o04 = status.records[3]
    fetch_failed = [u["item"] for u in o04["uncertainties"] if u["code"] == "FETCH_FAILED"]
    assert len(fetch_failed) == 2 and any("http_503" in item and "試行3回" in item for item in fetch_failed)
    assert [u["code"] for u in o04["uncertainties"]].count("LIMIT_REACHED") == 1
    assert evidence["metrics"]["unreachable"] == 2 and evidence["metrics"]["not_fetched"] == 1
