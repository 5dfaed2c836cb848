"""Search over whole notes: tokenizer, ranking signals, section hits, bad inputs, staying in step."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from tests.conftest import Sidecar, start_sidecar, stop_sidecar
from tests.support.index_vaults import write_note
from tests.support.mcp_clients import http_session

from knowledge_harness.core.text import name_key, query_weights, tokenize
from knowledge_harness.errors import InputError
from knowledge_harness.index import search as search_module
from knowledge_harness.index.build import build_index
from knowledge_harness.index.query import read_section, search
from knowledge_harness.index.schema import SearchQuery
from knowledge_harness.index.search import (
    NOTE_WEIGHTS,
    SECTION_COLUMNS,
    SECTION_WEIGHTS,
    TEXT_WEIGHT,
    TEXT_WEIGHTS,
    documents_in_memory,
)
from knowledge_harness.vault.paths import Vault

SETUP = """---
aliases: [Install guide]
tags: [howto]
---
Intro line before any heading.

# Setting up the harness

## Requirements
You need Python and a vault.

## Installation steps
Run the installer, then open the plugin settings.

```python
def installer():
    return "code is searched, but weighs little"
```

# Troubleshooting
When the sidecar does not start, read its log.
"""


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    v = tmp_path / "v"
    write_note(v, "Guides/create-note-list.md", "# How it works\nA note that lists other notes.\n")
    write_note(v, "Guides/Setup.md", SETUP)
    write_note(
        v,
        "Notes/Chatter.md",
        "# Chatter\nCreate a list of notes, list notes, notes of lists, create create create.\n"
        "See [[Setup#Installation steps|getting the harness onto a machine]].\n",
    )
    write_note(
        v,
        "Notes/混在.md",
        "# 検索の仕組み\n英語と日本語が混ざったノート。The reasoning index ranks sections.\n\n## 形態素\n文字バイグラムで検索する。\n",
    )
    write_note(v, "Notes/한국어.md", "# 동기화 설정\n원격 보관함을 만드는 방법.\n")
    return v


def _built(root: Path) -> Vault:
    handle = Vault.open(root)
    build_index(handle)
    return handle


def test_one_tokenizer_stems_english_and_cuts_cjk_into_bigrams() -> None:
    assert tokenize("Installing notes") == tokenize("installed note")
    assert tokenize("日本語") == ["日本", "本語"]
    assert tokenize("동기화") == ["동기", "기화"]
    assert tokenize("Привет, мир") == ["привет", "мир"]
    assert tokenize("ＡＢＣ") == ["abc"]  # full-width letters meet their usual form
    assert tokenize("the of and") == [] and tokenize("のは") == []
    assert name_key("create-note-list") == name_key("Create List of Notes")


def test_each_korean_word_of_a_query_counts_once_whatever_its_length() -> None:
    assert query_weights("스프레드시트 표준") == {
        "스프": 0.2,
        "프레": 0.2,
        "레드": 0.2,
        "드시": 0.2,
        "시트": 0.2,
        "표준": 1.0,
    }
    assert query_weights("検索の仕組み sync") == dict.fromkeys(tokenize("検索の仕組み sync"), 1.0)
    filler = [(f"f{k}.md", f"# 기타 {k}\n다른 내용 {k}.\n".encode(), "", f"f{k}", [], []) for k in range(12)]
    notes = [
        ("long.md", "# 첫째\n스프레드시트 하나.\n".encode(), "", "long", [], []),
        ("short.md", "# 둘째\n표준 그리고 표준.\n".encode(), "", "short", [], []),
    ]
    layer = documents_in_memory(notes + filler)
    # unweighted, the six-syllable word's five bigrams outscored the two-syllable word five to one
    assert [h.path for h in layer.rank("스프레드시트 표준", limit=2).hits] == ["short.md", "long.md"]


def test_names_win_over_notes_that_only_repeat_the_words(vault: Path) -> None:
    handle = _built(vault)
    for query in ("Create List of Notes", "notes list create", "create-note-list"):
        assert search(handle, query).hits[0].path == "Guides/create-note-list.md", query
    assert search(handle, "install guide").hits[0].path == "Guides/Setup.md"  # an alias


def test_link_texts_find_the_target_and_its_heading(vault: Path) -> None:
    handle = _built(vault)
    result = search(handle, "getting the harness onto a machine")
    top = result.hits[0]
    assert top.path == "Guides/Setup.md"
    assert top.sections[0].heading == "Installation steps"
    assert top.sections[0].heading_path == ["Setting up the harness", "Installation steps"]


def test_section_hits_are_the_line_ranges_read_section_returns(vault: Path) -> None:
    handle = _built(vault)
    result = search(handle, "installer plugin settings")
    hit = result.hits[0]
    assert hit.path == "Guides/Setup.md" and not hit.note_changed
    assert hit.sections and hit.sections[0].heading == "Installation steps"
    assert "installer" in hit.sections[0].snippet
    for section in hit.sections:
        by_lines = read_section(handle, hit.path, line=section.line, end_line=section.end_line)
        assert (by_lines.line, by_lines.end_line) == (section.line, section.end_line)
        if section.heading is None:
            assert by_lines.text.startswith("Intro line")
        else:
            by_heading = read_section(handle, hit.path, heading=section.heading)
            assert (by_heading.line, by_heading.end_line) == (section.line, section.end_line)
            assert by_lines.text.lstrip("#").startswith(" " + section.heading)
    preamble = search(handle, "intro line before any heading").hits[0].sections[0]
    assert preamble.heading is None and preamble.heading_path == [] and preamble.line == 5


def test_mixed_language_notes_are_found_in_either_language(vault: Path) -> None:
    handle = _built(vault)
    assert search(handle, "バイグラム").hits[0].path == "Notes/混在.md"
    assert search(handle, "バイグラム").hits[0].sections[0].heading == "形態素"
    assert search(handle, "reasoning index ranks section").hits[0].path == "Notes/混在.md"
    assert search(handle, "원격 보관함").hits[0].path == "Notes/한국어.md"


def test_bad_queries_get_a_sentence_and_never_an_error(vault: Path) -> None:
    handle = _built(vault)
    for empty in ("", "   \n\t"):
        with pytest.raises(InputError, match="empty"):
            search(handle, empty)
    assert search(handle, SearchQuery(q=" ", tag="howto")).hits[0].path == "Guides/Setup.md"  # filters alone list notes
    for special in ('"', "*", "^", "(", ")", ":", "NEAR", "AND OR NOT", "-", 'install* "steps ^(NEAR) :- NOT'):
        result = search(handle, special)
        assert result.total >= 0
    assert search(handle, 'installer" OR "x').hits[0].path == "Guides/Setup.md"
    only_stopwords = search(handle, "the of and の は")
    assert only_stopwords.hits == [] and only_stopwords.reason and "add a word" in only_stopwords.reason
    long = search(handle, "installer " * 2000)
    assert long.query_truncated and len(long.query) == 1000 and long.hits[0].path == "Guides/Setup.md"


def test_an_out_of_bounds_query_is_named_as_the_agent_and_the_cli_call_it() -> None:
    with pytest.raises(InputError, match=r"^Search query: String should have at most 10000 characters"):
        SearchQuery.asked(q="x" * 10_001)
    with pytest.raises(InputError, match=r"^Search limit: "):
        SearchQuery.asked(q="x", limit=501)


def test_an_edit_and_a_removed_link_reach_search_after_an_incremental_build(vault: Path) -> None:
    handle = _built(vault)
    assert search(handle, "quillwort").hits == []
    write_note(vault, "Notes/Chatter.md", "# Chatter\nNow about quillwort.\n")
    assert search(handle, "quillwort").hits == []  # the index still has the old note
    build_index(handle)
    found = search(handle, "quillwort")
    assert [h.path for h in found.hits] == ["Notes/Chatter.md"] and not found.stale
    # the link text went away with the link: Setup is no longer found by it
    assert all(h.path != "Guides/Setup.md" for h in search(handle, "onto a machine").hits)
    # the same answers as a layer built from nothing
    fresh = documents_in_memory(
        (p, (vault / p).read_bytes(), "", Path(p).stem, [], []) for p in ("Guides/Setup.md", "Notes/Chatter.md")
    )
    assert [h.path for h in fresh.rank("quillwort", limit=5).hits] == ["Notes/Chatter.md"]


def test_a_note_over_the_document_limit_is_found_by_its_name_not_its_body(vault: Path) -> None:
    line = "filler words about nothing in particular\n"
    body = "# Huge\n\nquillwort\n\n" + line * (search_module.MAX_DOCUMENT_BYTES // len(line) + 1)
    write_note(vault, "Notes/Enormous Log.md", body)
    write_note(vault, "Notes/Small.md", "# Small\n\nquillwort\n")
    handle = _built(vault)
    assert [h.path for h in search(handle, "quillwort").hits] == ["Notes/Small.md"]
    assert search(handle, "Enormous Log").hits[0].path == "Notes/Enormous Log.md"


def test_a_changed_note_says_so_in_its_hit(vault: Path) -> None:
    handle = _built(vault)
    search(handle, "installer")
    with (vault / "Guides" / "Setup.md").open("a", encoding="utf-8") as fh:
        fh.write("\nmore installer words\n")
    result = search(handle, "installer")
    hit = next(h for h in result.hits if h.path == "Guides/Setup.md")
    assert hit.note_changed and result.stale and "Guides/Setup.md" in result.changed


def test_rest_answers_bad_input_with_400_and_odd_characters_with_200(vault: Path) -> None:
    _built(vault)
    running = start_sidecar(vault)
    try:
        headers = {"Authorization": f"Bearer {running.token}"}
        with httpx.Client(base_url=running.url, headers=headers, timeout=30) as client:
            empty = client.get("/v1/index/search", params={"q": "  "})
            assert empty.status_code == 400 and empty.json()["error"]["code"] == "invalid_input"
            assert "empty" in empty.json()["error"]["message"]
            odd = client.get("/v1/index/search", params={"q": '" * ^ ( ) : NEAR AND OR NOT -'})
            assert odd.status_code == 200
            long = client.get("/v1/index/search", params={"q": "installer " * 999})
            assert long.status_code == 200 and long.json()["query_truncated"] is True
            hit = client.get("/v1/index/search", params={"q": "installer"}).json()["hits"][0]
            assert hit["sections"][0]["heading"] == "Installation steps"
    finally:
        stop_sidecar(running)


async def _two_calls(sidecar: Sidecar, query: str) -> tuple[dict[str, Any], dict[str, Any]]:
    async with http_session(sidecar) as session:
        found = (await session.call_tool("index_search", {"query": query, "limit": 3})).structured_content
        assert found is not None
        hit = found["hits"][0]
        section = hit["sections"][0]
        args = {"path": hit["path"], "line": section["line"], "end_line": section["end_line"]}
        read = (await session.call_tool("index_read_section", args)).structured_content
        assert read is not None
        return found, read


def test_an_agent_goes_from_search_to_the_section_in_two_mcp_calls(vault: Path) -> None:
    _built(vault)
    running = start_sidecar(vault)
    try:
        found, read = anyio.run(_two_calls, running, "how do I run the installer")
    finally:
        stop_sidecar(running)
    assert found["hits"][0]["path"] == "Guides/Setup.md"
    assert read["text"].startswith("## Installation steps") and "Run the installer" in read["text"]


def test_section_scores_equal_fts5_bm25_on_the_same_rows() -> None:
    """Sections are scored in Python with remembered counts; SQLite's own bm25() is the oracle."""
    notes = [
        ("a.md", SETUP.encode(), "", "Setup", ["Install guide"], ["howto"]),
        (
            "b.md",
            b"# Plugin settings\nOpen the plugin settings, then settings again.\n\n## Log\nThe log.\n",
            "",
            "b",
            [],
            [],
        ),
        (
            "c.md",
            "# 検索の仕組み\n文字バイグラムで検索する。検索、検索。\n\n## Other\nnotes of notes\n".encode(),
            "",
            "c",
            [],
            [],
        ),
        ("d.md", b"Intro without headings: installer installer plugin.\n", "", "d", [], []),
    ]
    layer = documents_in_memory(notes)
    ids = [int(i) for (i,) in layer.db.execute("SELECT id FROM notes ORDER BY id")]
    weights = [SECTION_WEIGHTS[c] for c in SECTION_COLUMNS]
    for query in ("plugin settings", "the installer log", "検索 仕組み", "notes notes plugin", "settings settings"):
        terms = list(dict.fromkeys(tokenize(query)))
        ours = {sid: score for found in layer._section_scores(ids, terms).values() for score, sid in found}
        match = " OR ".join(f'"{t}"' for t in terms)
        inside = "note : (" + " OR ".join(f"note{i}" for i in ids) + f") AND ({match})"
        sqlite = dict(
            layer.db.execute(
                "SELECT rowid, -bm25(section_fts, ?, ?, ?, ?, 0) FROM section_fts WHERE section_fts MATCH ?",
                (*weights, inside),
            ).fetchall()
        )
        assert ours and set(ours) == set(sqlite), query
        assert all(ours[sid] == pytest.approx(sqlite[sid], rel=1e-9) for sid in sqlite), query


def test_term_by_term_scores_sum_to_fts5_bm25_and_stay_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """A query's BM25 is the sum of its terms' parts, each asked once and remembered; SQLite's
    bm25() over the whole query is the oracle, and the remembered rows stay under MAX_POSTINGS."""
    notes = [
        ("a.md", SETUP.encode(), "", "Setup", ["Install guide"], ["howto"]),
        ("b.md", b"# Plugin settings\nOpen the plugin settings, then settings again.\n", "", "b", [], []),
        ("c.md", "# 検索の仕組み\n検索する。検索、検索。plugin\n".encode(), "", "c", [], []),
        ("d.md", b"Intro: installer installer plugin.\n", "", "d", [], []),
    ]
    layer = documents_in_memory(notes)
    for table, column_weights, factor in (("note", NOTE_WEIGHTS, 1.0), ("text", TEXT_WEIGHTS, TEXT_WEIGHT)):
        weights = list(column_weights.values())
        marks = ", ".join("?" * len(weights))
        for query in ("plugin settings", "installer plugin 検索", "settings"):
            terms = list(dict.fromkeys(tokenize(query)))
            ours = search_module._summed([layer._postings(table, t) for t in terms])
            match = " OR ".join(f'"{t}"' for t in terms)
            sql = f"SELECT rowid, -bm25({table}_fts, {marks}) FROM {table}_fts WHERE {table}_fts MATCH ?"
            sqlite = {int(i): factor * s for i, s in layer.db.execute(sql, (*weights, match))}
            assert ours and set(ours) == set(sqlite), (table, query)
            assert all(ours[i] == pytest.approx(sqlite[i], rel=1e-9) for i in sqlite), (table, query)
    monkeypatch.setattr(search_module, "MAX_POSTINGS", 3)
    layer.forget()
    layer.remember_common_terms(budget=100)
    for t in tokenize("plugin settings installer guide"):
        layer._postings("text", t)
        assert layer._postings_rows <= 3 or len(layer._postings_of) == 1
    assert [h.path for h in layer.rank("plugin settings", limit=2).hits] == ["b.md", "a.md"]


def _counted_fetches(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, list[str]]]:
    asked: list[tuple[str, list[str]]] = []
    fetch = search_module.SearchLayer._fetch

    def counting(self: search_module.SearchLayer, table: str, terms: list[str]) -> Any:
        asked.append((table, list(terms)))
        return fetch(self, table, terms)

    monkeypatch.setattr(search_module.SearchLayer, "_fetch", counting)
    return asked


def test_a_term_in_half_the_notes_is_asked_only_when_the_others_find_too_few(monkeypatch: pytest.MonkeyPatch) -> None:
    """FTS5 floors the idf of a term in half of the rows or more: leaving it out changes no rank
    (SQLite's bm25() over the whole query is the oracle) and asks none of its rows."""
    notes = [
        (
            f"n{k:02d}.md",
            ("walrus " * (k + 1) * (k < 5) + "harbor " * (k >= 4) + "filler.\n").encode(),
            "",
            f"n{k:02d}",
            [],
            [],
        )
        for k in range(12)
    ]
    layer = documents_in_memory(notes)
    asked = _counted_fetches(monkeypatch)
    monkeypatch.setattr(search_module, "CANDIDATES", 4)
    ranked = [h.path for h in layer.rank("walrus harbor", limit=1).hits]
    assert asked and all("harbor" not in terms for _, terms in asked)  # in 8 of 12 notes; walrus in 5
    weights = ", ".join(str(w) for w in TEXT_WEIGHTS.values())
    sql = f"SELECT rowid, -bm25(text_fts, {weights}) FROM text_fts WHERE text_fts MATCH ?"
    oracle = sorted(layer.db.execute(sql, ('"walrus" OR "harbor"',)).fetchall(), key=lambda r: -r[1])
    paths = layer._paths()
    assert ranked == [paths[oracle[0][0]]]
    # too few notes without it, or a filter that needs every match: it is asked
    asked.clear()
    assert [h.path for h in layer.rank("harbor zebra", limit=1).hits]
    assert any("harbor" in terms for _, terms in asked)
    kept = layer.rank("walrus harbor", limit=20, keep=lambda p: p == "n11.md")
    assert [h.path for h in kept.hits] == ["n11.md"]


def test_after_warming_a_first_query_asks_no_rows_of_its_common_terms(monkeypatch: pytest.MonkeyPatch) -> None:
    notes = [(f"n{k}.md", f"# Topic {k}\nplugin settings page {k}.\n".encode(), "", f"n{k}", [], []) for k in range(8)]
    notes += [(f"o{k}.md", f"# Other {k}\nsomething else {k}.\n".encode(), "", f"o{k}", [], []) for k in range(9)]
    layer = documents_in_memory(notes)
    monkeypatch.setattr(search_module, "REMEMBER_ROWS", 2)
    monkeypatch.setattr(search_module, "KEEP_RAREST", 3)
    monkeypatch.setattr(search_module, "COMMON_SHARE", 0.5)  # the terms are in 8 of 17 notes
    monkeypatch.setattr(search_module, "NOTE_COMMON_SHARE", 0.5)
    assert layer.remember_common_terms() > 0
    asked = _counted_fetches(monkeypatch)
    hits = layer.rank("plugin settings page", limit=3).hits
    assert len(hits) == 3 and all(h.path.startswith("n") for h in hits)
    assert asked == []  # every term's rows were remembered, and their row counts read
