"""A newcomer's lookups: a heading named without its emoji or with other spacing, a note named by
its unique file name, near-miss suggestions, and a folder filter on search (REST, MCP, CLI share
the service)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from tests.support.index_vaults import write_note

from knowledge_harness.errors import InputError, NotFound
from knowledge_harness.index import query
from knowledge_harness.index.build import build_index
from knowledge_harness.index.schema import SearchQuery
from knowledge_harness.vault.paths import Vault

KH = Path(sys.executable).with_name("kh")
NOTE = "# キーボード\n\n## ⌨️ ショートカットキー\n\nCtrl+P でコマンド。\n\n## Sync  Settings\n\nquillwort sync.\n"


def _vault(root: Path, build: bool = True) -> Vault:
    write_note(root, "ja/使い方/キーボード.md", NOTE)
    write_note(root, "en/Keyboard.md", "# Keyboard\n\n## Shortcuts\n\nquillwort keys.\n")
    write_note(root, "it/Keyboard.md", "# Tastiera\n\nquillwort tasti.\n")
    handle = Vault.open(root)
    if build:
        build_index(handle)
    return handle


@pytest.mark.parametrize("build", [True, False])
def test_a_heading_is_found_without_its_emoji_or_exact_spacing(tmp_path: Path, build: bool) -> None:
    handle = _vault(tmp_path, build)
    found = query.read_section(handle, "ja/使い方/キーボード.md", heading="ショートカットキー")
    assert found.heading == "⌨️ ショートカットキー" and "Ctrl+P" in found.text
    assert query.read_section(handle, "ja/使い方/キーボード.md", heading="sync settings").heading == "Sync  Settings"
    with pytest.raises(NotFound, match="Did you mean: '⌨️ ショートカットキー'"):
        query.read_section(handle, "ja/使い方/キーボード.md", heading="ショートカット")


@pytest.mark.parametrize("build", [True, False])
def test_a_note_is_found_by_its_unique_file_name(tmp_path: Path, build: bool) -> None:
    handle = _vault(tmp_path, build)
    assert query.note_headings(handle, "キーボード").path == "ja/使い方/キーボード.md"
    assert query.read_section(handle, "キーボード.md", heading="ショートカットキー").path == "ja/使い方/キーボード.md"
    assert query.note_headings(handle, "en/keyboard").path == "en/Keyboard.md"
    with pytest.raises(InputError, match=re.escape("names 2 notes: en/Keyboard.md, it/Keyboard.md")):
        query.note_headings(handle, "Keyboard")
    with pytest.raises(NotFound, match=re.escape("Did you mean: ja/使い方/キーボード.md")):
        query.note_headings(handle, "キーボ")
    with pytest.raises(InputError):
        query.note_headings(handle, "../outside.md")


def test_search_keeps_to_a_folder(tmp_path: Path) -> None:
    handle = _vault(tmp_path)
    assert {h.path for h in query.search(handle, "quillwort").hits} == {
        "ja/使い方/キーボード.md",
        "en/Keyboard.md",
        "it/Keyboard.md",
    }
    assert [h.path for h in query.search(handle, SearchQuery(q="quillwort", folder="en")).hits] == ["en/Keyboard.md"]
    assert [h.path for h in query.search(handle, SearchQuery(q="quillwort", folder="/ja/")).hits] == [
        "ja/使い方/キーボード.md"
    ]
    assert query.search(handle, SearchQuery(q="quillwort", folder="e")).hits == []  # a folder, not a name prefix
    listed = json.loads(
        subprocess.run(
            [str(KH), "index", "search", str(tmp_path), "quillwort", "--folder", "it", "--json"],
            capture_output=True,
            check=True,
        ).stdout
    )
    assert [h["path"] for h in listed["hits"]] == ["it/Keyboard.md"]


def test_the_cli_prints_tables_and_pages_the_tree(tmp_path: Path) -> None:
    _vault(tmp_path)
    for i in range(30):
        write_note(tmp_path, f"many/n{i:02}.md", f"# N{i}\n")
    build_index(Vault.open(tmp_path))

    def kh(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(KH), "index", *args], capture_output=True, text=True, timeout=60)

    heads = kh("headings", str(tmp_path), "キーボード")
    assert heads.returncode == 0
    assert "lines     3-6     ## ⌨️ ショートカットキー" in heads.stdout and "kh index read" in heads.stdout
    tree = kh("tree", str(tmp_path), "--limit", "10")
    assert tree.returncode == 0 and len(tree.stdout.splitlines()) == 10
    assert "more lines: --offset 10" in tree.stderr
    assert tree.stdout.splitlines()[0] == "en/"
    shallow = kh("tree", str(tmp_path), "--depth", "1")
    assert "many/  (30 entries)" in shallow.stdout.splitlines()
    assert json.loads(kh("tree", str(tmp_path), "--json", "--depth", "1").stdout)["tree"]["kind"] == "folder"
