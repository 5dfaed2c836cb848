"""Building the index: deterministic bytes, incremental equals full, bad input, schemas, staleness."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.support.examples import examples
from tests.support.index_vaults import index_layers, write_note, write_small_vault

from knowledge_harness.index.build import build_index, note_id
from knowledge_harness.index.build_state import BuildMemory
from knowledge_harness.index.query import check_index, note_headings, read_section, search
from knowledge_harness.index.schema import SearchQuery
from knowledge_harness.vault.paths import Vault

REPO = Path(__file__).resolve().parents[2]
KH = Path(sys.executable).with_name("kh")
SCHEMAS = REPO / "docs" / "schema"


@pytest.fixture
def small_vault(tmp_path: Path) -> Path:
    return write_small_vault(tmp_path / "small")


def test_building_twice_gives_byte_identical_layers(small_vault: Path, tmp_path: Path) -> None:
    memory = BuildMemory()
    build_index(Vault.open(small_vault), memory=memory)
    first = index_layers(small_vault)
    other = tmp_path / "copy"
    shutil.copytree(small_vault, other, ignore=shutil.ignore_patterns(".harness"))
    build_index(Vault.open(other), full=True, memory=memory)
    assert index_layers(other) == first
    build_index(Vault.open(small_vault), full=True, memory=memory)
    assert index_layers(small_vault) == first


def test_layers_validate_against_the_published_json_schemas(small_vault: Path) -> None:
    build_index(Vault.open(small_vault))
    root = small_vault / ".harness" / "index"
    names = ["manifest.schema.json", "note.schema.json", "tree.schema.json"]
    schemas = {name: json.loads((SCHEMAS / name).read_text()) for name in names}
    jsonschema.validate(json.loads((root / "manifest.json").read_text()), schemas["manifest.schema.json"])
    jsonschema.validate(json.loads((root / "tree.json").read_text()), schemas["tree.schema.json"])
    for f in (root / "notes").iterdir():
        jsonschema.validate(json.loads(f.read_text()), schemas["note.schema.json"])


def test_heading_tree_has_line_ranges_of_the_original_file(small_vault: Path) -> None:
    vault = Vault.open(small_vault)
    build_index(vault)
    result = note_headings(vault, "Note A.md")
    assert result.source == "index" and not result.stale
    (alpha,) = result.headings
    assert (alpha["title"], alpha["line"], alpha["end_line"]) == ("Alpha", 10, 24)
    gen, debug = alpha["children"]
    assert (gen["title"], gen["line"], gen["end_line"]) == ("自動生成物", 12, 21)
    assert gen["children"][0]["title"] == "staleな実行を上書きしない"
    assert (debug["line"], debug["end_line"]) == (22, 24)
    assert result.preamble == {"line": 8, "end_line": 9}
    section = read_section(vault, "Note A.md", heading="デバッグ")
    assert section.text.startswith("## デバッグ") and section.line == 22


def test_links_resolve_like_obsidian_and_backlinks_and_categories_follow(small_vault: Path) -> None:
    vault = Vault.open(small_vault)
    build_index(vault)
    manifest = json.loads((small_vault / ".harness/index/manifest.json").read_text())
    by = {n["path"]: n for n in manifest["notes"]}
    a = by["Note A.md"]
    assert a["links_out"] == ["Deep/Note B.md"]
    assert a["links_in"] == ["Deep/Note B.md", "MOC/技術.md"]
    assert a["tags"] == ["ai", "github", "inline-tag"]
    assert a["aliases"] == ["アルファ"] and a["title"] == "Alpha"
    # Home.md is a hub by its name (and links to 技術): the chains start there
    assert by["Deep/Note B.md"]["categories"] == [["Home.md", "MOC/技術.md", "MOC/GitHub CI.md"]]
    assert by["MOC/技術.md"]["categories"] == [["Home.md"]]
    layer = json.loads((small_vault / f".harness/index/notes/{note_id('Deep/Note B.md')}.json").read_text())
    statuses = {lk["target"]: lk["status"] for lk in layer["links"]}
    assert statuses == {"Note A": "resolved", "Missing": "unresolved", "Dup": "ambiguous"}
    a_layer = json.loads((small_vault / f".harness/index/notes/{a['id']}.json").read_text())
    assert a_layer["external_links"] == ["https://example.org/a"]
    assert all(lk["target"] != "Not A Link" for lk in a_layer["links"])


def test_incremental_rebuilds_after_random_edits_equal_a_full_rebuild(small_vault: Path, tmp_path: Path) -> None:
    memory = BuildMemory()
    rng = random.Random(3)
    vault = Vault.open(small_vault)
    build_index(vault, memory=memory)
    names = ["Note A.md", "Deep/Note B.md", "MOC/技術.md", "New/新しい.md", "x/Dup.md", "Note C.md"]
    bodies = [
        "# T\n\n[[Note A]]\n",
        "Setext\n===\n\n[[Dup]] #tag\n",
        "---\ntype: moc\n---\n[[Note C]]\n",
        "no heading\n",
    ]
    for step in range(12):
        name = rng.choice(names)
        path = small_vault / name
        action = rng.choice(["edit", "edit", "delete", "touch"])
        if action == "delete" and path.exists():
            path.unlink()
        elif action == "touch" and path.exists():
            os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 1_000_000_000))
        else:
            write_note(small_vault, name, rng.choice(bodies) + f"step {step}\n")
        build_index(vault, memory=memory)
        incremental = index_layers(small_vault)
        fresh = tmp_path / f"fresh{step}"
        shutil.copytree(small_vault, fresh, ignore=shutil.ignore_patterns(".harness"))
        build_index(Vault.open(fresh), memory=memory)
        assert index_layers(fresh) == incremental, f"step {step}: {action} {name}"
        assert check_index(vault).fresh


def test_a_stale_index_says_so_and_reads_changed_notes_live(small_vault: Path) -> None:
    vault = Vault.open(small_vault)
    build_index(vault)
    write_note(small_vault, "Deep/Note B.md", "preface\n\n\n# Note B moved\n\n## Section\nbody\n")
    result = note_headings(vault, "Deep/Note B.md")
    assert result.stale and result.note_changed and result.source == "live"
    assert result.headings[0]["line"] == 4
    section = read_section(vault, "Deep/Note B.md", heading="Section")
    assert section.stale and section.note_changed and section.text == "## Section\nbody"
    hits = search(vault, "Note B")
    assert hits.stale and "Deep/Note B.md" in hits.changed


def test_search_ranks_titles_and_filters_by_type_tag_category_and_trust(small_vault: Path) -> None:
    vault = Vault.open(small_vault)
    write_note(
        small_vault,
        "Keywords/Verified.md",
        "---\nverification:\n  level: 2\n  status: verified\n  revalidate_after: 2099-01-01\n---\n# Verified GitHub\n",
    )
    build_index(vault)
    res = search(vault, "アルファ")
    assert res.hits[0].path == "Note A.md"
    assert [h.path for h in search(vault, SearchQuery(q="", tag="github")).hits] == ["Note A.md"]
    assert [h.path for h in search(vault, SearchQuery(q="", type="moc")).hits] == ["MOC/GitHub CI.md", "MOC/技術.md"]
    assert "Deep/Note B.md" in [h.path for h in search(vault, SearchQuery(q="", category="GitHub CI")).hits]
    # no content hash stored: no baseline, so not fresh L2
    trusted = search(vault, SearchQuery(q="", trust="l2"))
    assert [h.path for h in trusted.hits] == ["Keywords/Verified.md"]
    assert search(vault, SearchQuery(q="", trust="fresh-l2")).hits == []
    assert res.stale is False


def test_bad_notes_are_reported_and_the_build_finishes(tmp_path: Path) -> None:
    v = tmp_path / "bad"
    write_note(v, "ok.md", "# fine\n")
    (v / "latin1.md").write_bytes("# caf\xe9\n".encode("latin-1"))
    (v / "binary.md").write_bytes(b"\x00\x01\x02PNG")
    (v / "huge.md").write_bytes(b"# big\n" + b"x" * (50 * 1024 * 1024))
    write_note(v, "many.md", "".join(f"## h{i}\n" for i in range(10_000)))
    write_note(v, "nested.md", "".join("  " * i + "- item\n" for i in range(200)) + "> " * 100 + "# deep\n# top\n")
    write_note(v, "yaml.md", "---\na: [unclosed\n---\n# still indexed\n")
    (v / "loop").mkdir()
    os.symlink(v / "loop", v / "loop" / "again")
    with open(os.fsencode(v) + b"/latin1-name-\xe9.md", "wb") as handle:  # a file name that is not UTF-8
        handle.write(b"# name\n")
    report = build_index(Vault.open(v))
    problems = {e["path"]: e["message"] for e in report.errors}
    assert {"latin1.md", "binary.md", "huge.md", "yaml.md", "latin1-name-\\xe9.md"} <= set(problems)
    assert any("loop" in p for p in problems)
    manifest = json.loads((v / ".harness/index/manifest.json").read_text())
    by = {n["path"]: n for n in manifest["notes"]}
    assert by["many.md"]["heading_count"] == 10_000
    assert by["yaml.md"]["heading_count"] == 1
    assert by["nested.md"]["error"] is None  # markdown-it stops at nesting level 20; so do we
    assert len(by["huge.md"]["sha256"]) == 64 and by["huge.md"]["error"]
    assert check_index(Vault.open(v)).fresh


def test_a_failed_build_leaves_the_previous_index_readable(small_vault: Path) -> None:
    memory = BuildMemory()
    vault = Vault.open(small_vault)
    build_index(vault, memory=memory)
    before = index_layers(small_vault)
    index = small_vault / ".harness" / "index"
    blocker = index / "notes" / f"{note_id('Note A.md')}.json"
    blocker.unlink()
    blocker.mkdir()  # the next write of this note layer fails
    (blocker / "keep").write_text("x")
    write_note(small_vault, "Note A.md", "# changed\n")
    with pytest.raises(OSError):
        build_index(vault, memory=memory)
    assert (index / "manifest.json").read_bytes() == before["manifest.json"]
    assert json.loads((index / "manifest.json").read_text())["notes"]


_REF_BODIES = [
    "# References\n- https://a.example/x\n",
    "## sources \n https://b.example/y.\n# Other\nhttps://c.example/z\n",
    "### **参考文献**\n```\nhttps://in.code/x\n```\nhttps://d.example/\n",
    "#\t\u3000SOURCES\nhttps://e.example/\n",
    "# ſources\nhttps://f.example/\n",
    "Resources: https://g.example/ (no heading)\n",
    "# 出典\n> https://h.example/\n",
    "no references here https://i.example/\n",
    "#References\nhttps://j.example/\n",
]


@pytest.mark.fuzz
@settings(max_examples=examples(1), deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [*_REF_BODIES, "text\n", "## Notes\n", "https://k.example/\n", "```\n", "\x85# Sources\n", "\n"]
        ),
        max_size=8,
    ),
    st.sampled_from(["", "references: [https://p.example/]\n", "references:\n- url: https://q.example/\n"]),
)
def test_references_digest_shortcut_matches_the_vault_layer(parts: list[str], props: str) -> None:
    from knowledge_harness.index.record import _references_sha
    from knowledge_harness.vault.note import parse_note

    raw = (("---\n" + props + "---\n") if props else "").encode() + "".join(parts).encode()
    note = parse_note("n.md", raw)
    assert _references_sha(note) == note.references_sha256


@pytest.mark.fuzz
@settings(max_examples=examples(1), deadline=None)
@given(
    st.lists(st.sampled_from(["a", "b.md", ".md", "x.", "..", ".", "", "日本.md", "a.b.md", " t .md"]), max_size=4),
    st.sampled_from(["", "title: T\n", "title: '  '\n", "title: 3\n"]),
)
def test_title_shortcut_matches_the_vault_layer(parts: list[str], props: str) -> None:
    from knowledge_harness.index.record import _title
    from knowledge_harness.vault.note import parse_note

    path = "/".join(parts)
    note = parse_note(path, (("---\n" + props + "---\n") if props else "").encode() + b"body\n")
    assert _title(note) == note.title


def test_notes_left_to_markdown_it_are_counted_in_the_report_and_build_json(small_vault: Path) -> None:
    # a block quote continued at a '>' indented 4: markdown-it's rule differs from CommonMark's
    memory = BuildMemory()
    write_note(small_vault, "Quirk.md", "- a\n> b\n    > c\n")
    write_note(small_vault, "Tabs.md", "# T\n\n- a\n\t- b\n\n<!-- note -->\n[x]: /u\n")
    report = build_index(Vault.open(small_vault), memory=memory)
    assert report.fallback_notes == 1
    index = small_vault / ".harness" / "index"
    assert json.loads((index / "build.json").read_text())["fallback_notes"] == 1
    assert json.loads((index / "notes" / f"{note_id('Quirk.md')}.json").read_text())["parser"] == "markdown-it"
    assert json.loads((index / "notes" / f"{note_id('Tabs.md')}.json").read_text())["parser"] == "scan"
    (small_vault / "Quirk.md").unlink()
    assert build_index(Vault.open(small_vault), memory=memory).fallback_notes == 0
    out = subprocess.run([KH, "index", "build", str(small_vault), "--json"], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout)["fallback"] == 0


def test_one_shot_incremental_builds_equal_a_full_rebuild(small_vault: Path, tmp_path: Path) -> None:
    """`kh index build` (resident=False) in a new process each time: its layers, report and
    build.json totals equal a full rebuild's, whether or not the one-shot path applies."""
    memory = BuildMemory()

    rng = random.Random(5)
    vault = Vault.open(small_vault)
    build_index(vault, memory=memory)
    names = ["Note A.md", "Deep/Note B.md", "MOC/技術.md", "Home.md", "x/Dup.md", "New/新しい.md"]
    bodies = [
        "# T\n\n[[Note A]]\n",  # links change: the full path
        "# Note B\n\n## Section\n\n[[Note A]] [[Missing]] [[Dup]]\n",  # Note B's links as they were
        "# Renamed heading\n\n## Two\n\n[[Note A]] [[Missing]] [[Dup]] [x](Nowhere.md)\n",
        # the same targets in another order, one with a heading: resolved as the previous layer did
        "# Note B\n\n[[Dup]] [[Missing]] [[Note A#Section]]\n",
        # a target the previous layer never saw (same note, other case) and an attachment: the resolver
        "# Note B\n\n[[note a]] ![[pic.png]] [[Missing]] [[Dup]]\n",
        "[[技術]]\n\n<!-- html -->\n- a\n\t- b\n",  # Home's links as they were
        "---\ntitle: [broken\n---\n[[技術]]\n",  # a YAML error in Home
        "---\ntitle: Start\n---\n# Home\n\n## Links\n\n[[技術]]\n",  # Home's title and headings: the tree
        "---\ntype: moc\n---\n# 技術\n\n- [[GitHub CI]]\n- [[Note A]]\n\nmore\n",
    ]
    used_lite = 0
    for step in range(24):
        name = rng.choice(names)
        path = small_vault / name
        action = rng.choice(["edit", "edit", "edit", "append", "touch", "delete"])
        if action == "delete" and path.exists() and step % 6 == 5:
            path.unlink()
        elif action == "touch" and path.exists():
            os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 1_000_000_000))
        elif action == "append" and path.exists():
            with path.open("a", encoding="utf-8") as handle:
                handle.write(f"\nedited {step}\n")
        else:
            write_note(small_vault, name, rng.choice(bodies))
        memory = BuildMemory()  # a new process
        parts = {p.name for p in (small_vault / ".harness" / "index" / "cache").iterdir()}
        report = build_index(vault, resident=False, memory=memory)
        used_lite += any(
            p.name.startswith("u") and p.name not in parts for p in (small_vault / ".harness/index/cache").iterdir()
        )
        fresh = tmp_path / f"fresh{step}"
        shutil.copytree(small_vault, fresh, ignore=shutil.ignore_patterns(".harness"))
        expected = build_index(Vault.open(fresh), full=True, memory=memory)
        assert index_layers(fresh) == index_layers(small_vault), f"step {step}: {action} {name}"
        keys = {"notes", "headings", "links", "errors", "fallback_notes"}
        assert {k: report._asdict()[k] for k in keys} == {k: expected._asdict()[k] for k in keys}, f"step {step}"
        ours = json.loads((small_vault / ".harness/index/build.json").read_text())
        theirs = json.loads((fresh / ".harness/index/build.json").read_text())
        for key in ("notes", "fallback_notes", "headings", "links", "errors", "layers", "files"):
            assert ours[key] == theirs[key] or key == "files", (step, key)
        assert list(ours["files"]) == list(theirs["files"])
        memory = BuildMemory()
        assert check_index(vault).fresh
        assert build_index(vault, memory=memory).reparsed == 0  # the cache (with the one-shot parts) is complete
    assert used_lite >= 3


def test_the_http_build_report_has_the_outcome_fields_in_order() -> None:
    """The build returns a plain named tuple (no Pydantic in `kh index build`); the HTTP door
    validates it as BuildReport, built from the same fields."""
    from knowledge_harness.index.answer import BuildOutcome
    from knowledge_harness.index.schema import BuildReport

    assert tuple(BuildReport.model_fields) == BuildOutcome._fields
    outcome = BuildOutcome(notes=2, headings=3, links=1, errors=[], seconds=0.5, reparsed=2, files_written=5)
    assert BuildReport(**outcome._asdict()).model_dump() == outcome._asdict()
