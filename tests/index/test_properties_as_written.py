"""Properties as Obsidian users write them: list-valued type and status kept as lists (a filter
matches any item, a `[[link]]` item by its target), links inside properties counted as links."""

from __future__ import annotations

from pathlib import Path

from tests.support.index_vaults import write_note

from knowledge_harness.index import query
from knowledge_harness.index.build import build_index
from knowledge_harness.index.build_state import BuildMemory
from knowledge_harness.index.record import parse_record
from knowledge_harness.index.schema import SearchQuery
from knowledge_harness.vault.paths import Vault


def test_list_valued_type_and_status_are_kept_as_lists() -> None:
    rec = parse_record("a.md", b'---\ntype: ["[[UI]]", guide]\nstatus:\n  - draft\n  - review\n---\n# A\n')
    assert rec["type"] == ["[[UI]]", "guide"]
    assert rec["status"] == ["draft", "review"]
    assert parse_record("b.md", b"---\ntype: guide\n---\n")["type"] == "guide"
    assert parse_record("c.md", b"---\ntype: true\n---\n")["type"] is None


def test_filters_match_any_item_of_a_list(tmp_path: Path) -> None:
    write_note(tmp_path, "UI.md", '---\ntype: ["[[UI]]"]\nstatus: [draft, review]\n---\n# UI\nquillwort\n')
    write_note(tmp_path, "Guide.md", "---\ntype: guide\nstatus: done\n---\n# Guide\nquillwort\n")
    handle = Vault.open(tmp_path)
    build_index(handle)
    assert [h.path for h in query.search(handle, SearchQuery(q="quillwort", type="UI")).hits] == ["UI.md"]
    assert [h.path for h in query.search(handle, SearchQuery(q="quillwort", status="review")).hits] == ["UI.md"]
    assert [h.path for h in query.search(handle, SearchQuery(q="quillwort", type="guide")).hits] == ["Guide.md"]
    hit = query.search(handle, SearchQuery(q="quillwort", type="ui")).hits[0]
    assert hit.type == ["[[UI]]"] and hit.status == ["draft", "review"]


def test_links_in_properties_are_links_with_the_propertys_name(tmp_path: Path) -> None:
    from knowledge_harness.index.graph import note_links

    write_note(
        tmp_path,
        "Notes/Button.md",
        '---\ntype: ["[[UI]]"]\nrelated:\n  - "[[Menu]]"\n  - plain text\nup: "[[Home#Parts]]"\n---\n# Button\nSee [[Menu]].\n',
    )
    write_note(tmp_path, "UI.md", "# UI\n")
    write_note(tmp_path, "Menu.md", "# Menu\n")
    write_note(tmp_path, "Home.md", "# Home\n## Parts\n")
    rec = parse_record("Notes/Button.md", (tmp_path / "Notes/Button.md").read_bytes())
    assert [(k, t, h, line) for k, t, h, _b, line in rec["links"]] == [
        ("property", "UI", None, 2),
        ("property", "Menu", None, 4),
        ("property", "Home", "Parts", 6),
        ("wikilink", "Menu", None, 9),
    ]
    handle = Vault.open(tmp_path)
    build_index(handle)
    out = note_links(handle, "Notes/Button.md")
    assert [(e.kind, e.note, e.section) for e in out.outgoing] == [
        ("property", "UI.md", "type"),
        ("property", "Menu.md", "related"),
        ("property", "Home.md", "up"),
        ("wikilink", "Menu.md", "Button"),
    ]
    incoming = note_links(handle, "UI.md").incoming
    assert [(e.note, e.kind, e.section) for e in incoming] == [("Notes/Button.md", "property", "type")]


def _write_template_vault(root: Path) -> None:
    write_note(root, "Notes/Real.md", "---\ntype: note\n---\n# Real\nquillwort\n")
    # Obsidian templates: {{date}} is a flow mapping in YAML, an "unhashable key" to a loader
    write_note(root, "Templates/Daily.md", "---\ncreated: {{date}}\ntags: [daily]\n---\n# {{title}}\nquillwort\n")
    write_note(root, "Tpl/Meeting.md", "---\ndate: <% tp.date.now() %>\nwhen: {{time}}\n---\n# Meeting\nquillwort\n")
    write_note(root, "Drafts/Skip.md", "# Skip\nquillwort\n")
    write_note(root, ".obsidian/templates.json", '{"folder": "Templates"}')
    write_note(root, ".obsidian/plugins/templater-obsidian/data.json", '{"templates_folder": "Tpl/"}')


def test_templates_and_excluded_folders_are_not_indexed(tmp_path: Path) -> None:
    _write_template_vault(tmp_path)
    write_note(tmp_path, ".harness/index.toml", '[index]\nexclude = ["Drafts"]\n')
    handle = Vault.open(tmp_path)
    outcome = build_index(handle)
    assert outcome.notes == 1
    assert not [e for e in outcome.errors if "Templates" in str(e) or "Tpl" in str(e)]
    assert [h.path for h in query.search(handle, "quillwort").hits] == ["Notes/Real.md"]
    report = query.check_index(handle)
    assert report.fresh, report
    write_note(tmp_path, "Templates/Weekly.md", "---\nweek: {{date}}\n---\n# W\n")  # a new template: still fresh
    assert query.check_index(handle).fresh
    write_note(tmp_path, ".harness/index.toml", "[index]\nexclude = []\n")  # Drafts comes back: stale
    assert query.check_index(handle).settings_changed is True


def test_the_audit_skips_templates_and_excluded_notes_as_the_index_does(tmp_path: Path) -> None:
    """`kh audit` reported every template's `{{date}}` as "Malformed YAML: … unhashable key"."""
    import datetime as dt

    from knowledge_harness.trust.audit.audit import run_audit, stale_report
    from knowledge_harness.trust.policy import Policy
    from knowledge_harness.vault.catalog import NoteCatalog

    _write_template_vault(tmp_path)
    write_note(tmp_path, "Drafts/Broken.md", "---\nwhen: {{date}}\n---\n# Broken\n")
    write_note(tmp_path, "Notes/Bad.md", "---\nwhen: {{date}}\n---\n# Bad\n")  # not a template: still an error
    write_note(tmp_path, ".harness/index.toml", '[index]\nexclude = ["Drafts"]\n')
    catalog = NoteCatalog(Vault.open(tmp_path))
    day = dt.date(2026, 12, 5)
    report = run_audit(catalog, Policy(), today=day)
    assert [(e.path, "unhashable key" in e.message) for e in report.errors] == [("Notes/Bad.md", True)]
    assert report.raw == 0  # no Keyword note among them; the templates' tags count for nothing
    stale_report(catalog, Policy(), today=day)  # the stale list reads the same notes, without error
    # without the settings the same files are notes again, with their YAML errors
    for rel in (".obsidian/templates.json", ".obsidian/plugins/templater-obsidian/data.json", ".harness/index.toml"):
        (tmp_path / rel).unlink()
    errors = {e.path for e in run_audit(NoteCatalog(Vault.open(tmp_path)), Policy(), today=day).errors}
    assert {"Templates/Daily.md", "Drafts/Broken.md", "Notes/Bad.md"} <= errors


def test_without_template_settings_a_template_is_a_note_with_a_yaml_error(tmp_path: Path) -> None:
    write_note(tmp_path, "Templates/Daily.md", "---\ncreated: {{date}}\n---\n# Daily\n")
    outcome = build_index(Vault.open(tmp_path))
    assert outcome.notes == 1 and outcome.errors


def test_a_type_written_as_a_link_makes_an_index_note_as_the_filter_reads_it(tmp_path: Path) -> None:
    """`type: "[[MOC]]"` matched the filter type=moc but did not make the note an index note:
    its notes had no category."""
    write_note(tmp_path, "Hub.md", '---\ntype: "[[MOC]]"\n---\n# Hub\n- [[A]]\n')
    write_note(tmp_path, "Lists.md", "---\ntype: [guide, '[[index|Index]]']\n---\n# Lists\n- [[B]]\n")
    write_note(tmp_path, "A.md", "# A\nquillwort\n")
    write_note(tmp_path, "B.md", "# B\nquillwort\n")
    handle = Vault.open(tmp_path)
    build_index(handle)
    assert [h.path for h in query.search(handle, SearchQuery(q="hub", type="moc")).hits] == ["Hub.md"]
    cats = {h.path: h.categories for h in query.search(handle, "quillwort").hits}
    assert cats == {"A.md": [["Hub.md"]], "B.md": [["Lists.md"]]}


def test_notes_parsed_before_list_types_and_property_links_are_parsed_again(tmp_path: Path) -> None:
    """The parse cache of a build by the previous parser (cache format 3: a list-valued type read
    as none, no property links) is not reused: an incremental build after the upgrade kept those
    records until each note changed or `--full` ran."""
    memory = BuildMemory()
    import json

    write_note(tmp_path, "Hub.md", '---\ntype: [moc]\nup: "[[A]]"\n---\n# Hub\n- [[A]]\n')
    write_note(tmp_path, "A.md", "# A\nquillwort\n")
    handle = Vault.open(tmp_path)
    build_index(handle, memory=memory)
    index = tmp_path / ".harness" / "index"
    for part in (index / "cache").glob("*.jsonl"):  # the records as the previous parser wrote them
        part.write_bytes(part.read_bytes().replace(b'["moc"]', b"null"))
    build = json.loads((index / "build.json").read_text(encoding="utf-8"))
    (index / "build.json").write_text(json.dumps(build | {"cache_format": 3}), encoding="utf-8")
    memory = BuildMemory()
    build_index(handle, memory=memory)
    assert [h.categories for h in query.search(handle, "quillwort").hits] == [[["Hub.md"]]]
