"""Index notes (MOCs) found without configuration, by documented names; chains built from the hub
side, so a breadcrumb "up" link does not turn a category chain upside down; `kh init` reports it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from tests.support.index_vaults import write_note

from knowledge_harness.index import query
from knowledge_harness.index.build import build_index
from knowledge_harness.index.build_state import BuildMemory
from knowledge_harness.index.categories import named_index_note
from knowledge_harness.index.schema import SearchQuery
from knowledge_harness.vault.paths import Vault

KH = Path(sys.executable).with_name("kh")


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("MOC.md", True),
        ("Index.md", True),
        ("目次.md", True),
        ("Docs/索引.md", True),
        ("Home.md", True),
        ("MOC - Sync.md", True),
        ("Sync MOC.md", True),
        ("Tools/Tools.md", True),  # a folder note
        ("Tools/Hammer.md", False),
        ("Homework.md", False),
        ("Indexing.md", False),
        ("Mocha.md", False),
    ],
)
def test_index_notes_by_name(path: str, expected: bool) -> None:
    assert named_index_note(path) is expected


def _hub_vault(root: Path) -> None:
    write_note(root, "Home.md", "# Home\n- [[Tools]]\n- [[MOC - Sync]]\n- [[Loose]]\n")
    # each sub-MOC links back "up" to the hub, as breadcrumbs do
    write_note(root, "Tools/Tools.md", "# Tools\nup: [[Home]]\n- [[Hammer]]\n")
    write_note(root, "MOC - Sync.md", "# Sync\nup: [[Home]]\n- [[Conflicts]]\n")
    write_note(root, "Tools/Hammer.md", "# Hammer\nquillwort\n")
    write_note(root, "Conflicts.md", "# Conflicts\nquillwort\n")
    write_note(root, "Loose.md", "# Loose\n")
    # a second, smaller hub: with the up links read as links, it was the only root and the chain
    # to Conflicts ran MOC - Other -> Tools -> Home -> MOC - Sync
    write_note(root, "MOC - Other.md", "# Other\n- [[Tools]]\n")


def test_chains_run_from_the_hub_without_configuration(tmp_path: Path) -> None:
    _hub_vault(tmp_path)
    handle = Vault.open(tmp_path)
    build_index(handle)
    cats = {h.path: h.categories for h in query.search(handle, "quillwort").hits}
    assert cats == {
        "Tools/Hammer.md": [["Home.md", "Tools/Tools.md"], ["MOC - Other.md", "Tools/Tools.md"]],
        "Conflicts.md": [["Home.md", "MOC - Sync.md"]],
    }


def test_moc_names_can_be_turned_off(tmp_path: Path) -> None:
    _hub_vault(tmp_path)
    write_note(tmp_path, ".harness/index.toml", "[index]\nmoc_names = false\n")
    handle = Vault.open(tmp_path)
    build_index(handle)
    assert all(not h.categories for h in query.search(handle, "quillwort").hits)


def test_kh_init_reports_the_index_notes_it_finds(tmp_path: Path) -> None:
    _hub_vault(tmp_path)
    text = subprocess.run([str(KH), "init", str(tmp_path)], capture_output=True, text=True, check=True).stdout
    assert "Index notes (MOCs)" in text and "found 4: Home.md, MOC - Other.md, MOC - Sync.md, Tools/Tools.md" in text
    data = json.loads(
        subprocess.run([str(KH), "init", str(tmp_path), "--json"], capture_output=True, check=True).stdout
    )
    assert data["index_notes"]["by_name"] == ["Home.md", "MOC - Other.md", "MOC - Sync.md", "Tools/Tools.md"]
    empty = tmp_path / "empty"
    write_note(empty, "a.md", "# A\n")
    text = subprocess.run([str(KH), "init", str(empty)], capture_output=True, text=True, check=True).stdout
    assert "found none" in text and "moc_folders" in text


def _links_hub_vault(root: Path) -> None:
    # "Topics/Overview" has no index name, type or tag: it links to 4 of the 5 other notes of its folder
    links = "".join(f"- [[Topic {c}]]\n" for c in "ABCD")
    write_note(root, "Topics/Overview.md", f"# Overview\n{links}")
    for c in "ABCDE":  # each with a breadcrumb back "up" to the hub
        write_note(root, f"Topics/Topic {c}.md", f"# Topic {c}\nup: [[Overview]]\nquillwort {c}\n")
    # a note linking to 2 of the 4 others of its folder is no hub
    write_note(root, "Pairs/Left.md", "# Left\n[[Right]] [[Middle]]\nquillwort\n")
    for name in ("Right", "Middle", "Far", "Away"):
        write_note(root, f"Pairs/{name}.md", f"# {name}\n")


def test_a_note_linking_to_most_notes_of_its_folder_is_an_index_note(tmp_path: Path) -> None:
    memory = BuildMemory()
    _links_hub_vault(tmp_path)
    handle = Vault.open(tmp_path)
    build_index(handle, memory=memory)
    cats = {h.path: h.categories for h in query.search(handle, SearchQuery(q="quillwort", limit=50)).hits}
    # the chains run from the hub, not up the breadcrumbs; Topic E is not listed by the hub
    assert cats == {
        **{f"Topics/Topic {c}.md": [["Topics/Overview.md"]] for c in "ABCD"},
        "Topics/Topic E.md": [],
        "Pairs/Left.md": [],
    }
    assert [h.path for h in query.search(handle, SearchQuery(q="overview", type=None, limit=50)).hits][:1] == [
        "Topics/Overview.md"
    ]
    # the hub drops links: no longer an index note (the one-edit path hands over to a full derive)
    write_note(tmp_path, "Topics/Overview.md", "# Overview\n- [[Topic A]]\n")
    build_index(handle, workers=0, resident=False, memory=memory)
    assert all(not h.categories for h in query.search(handle, SearchQuery(q="quillwort", limit=50)).hits)
    write_note(tmp_path, "Topics/Overview.md", f"# Overview\n{''.join(f'- [[Topic {c}]]' + chr(10) for c in 'ABCE')}")
    build_index(handle, workers=0, resident=False, memory=memory)
    again = {h.path: h.categories for h in query.search(handle, SearchQuery(q="quillwort", limit=50)).hits}
    assert again["Topics/Topic E.md"] == [["Topics/Overview.md"]] and again["Topics/Topic D.md"] == []


def test_hubs_by_links_can_be_turned_off_and_kh_init_reports_them(tmp_path: Path) -> None:
    memory = BuildMemory()
    from typer.testing import CliRunner

    from knowledge_harness.cli.root import app

    _links_hub_vault(tmp_path)
    before = CliRunner().invoke(app, ["init", str(tmp_path)]).output
    assert "by links (a note linking to most notes of its folder): on, found at the first `kh index build`" in before
    build_index(Vault.open(tmp_path), memory=memory)
    data = json.loads(CliRunner().invoke(app, ["init", str(tmp_path), "--json"]).output)
    assert data["index_notes"]["moc_links"] is True and data["index_notes"]["by_links"] == ["Topics/Overview.md"]
    assert "found 1: Topics/Overview.md" in CliRunner().invoke(app, ["init", str(tmp_path)]).output
    write_note(tmp_path, ".harness/index.toml", "[index]\nmoc_links = false\n")
    handle = Vault.open(tmp_path)
    build_index(handle, memory=memory)
    assert all(not h.categories for h in query.search(handle, SearchQuery(q="quillwort", limit=50)).hits)
    assert "by links: off (moc_links = false" in CliRunner().invoke(app, ["init", str(tmp_path)]).output
