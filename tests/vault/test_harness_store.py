"""A wing's store reads and writes its files under .harness/ through one confined folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from knowledge_harness.errors import InputError
from knowledge_harness.vault.harness_store import HarnessFolder
from knowledge_harness.vault.paths import Vault


def test_a_store_folder_writes_reads_lists_and_creates_once(tmp_path: Path) -> None:
    folder = HarnessFolder(Vault.open(tmp_path), "evidence")
    assert folder.names("*.json") == [] and list(folder.entries()) == []  # nothing made by looking
    assert not (tmp_path / ".harness").exists()
    folder.write("b.json", b"{}\n")
    folder.sub("urls").write("c.json", "鮮度\n".encode())
    assert folder.create_new("a.json", b"[1]\n") is True
    assert folder.create_new("a.json", b"[2]\n") is False  # the first one stays: "approved once"
    assert (tmp_path / ".harness/evidence/a.json").read_bytes() == b"[1]\n"
    assert (tmp_path / ".harness/evidence/urls/c.json").read_text(encoding="utf-8") == "鮮度\n"
    assert folder.names("*.json") == ["a.json", "b.json"]
    assert sorted(e.name for e in folder.entries()) == ["a.json", "b.json", "urls"]
    folder.remove("b.json")
    folder.remove("b.json")  # gone already: nothing to do
    assert folder.names("*") == ["a.json", "urls"]
    folder.sub("log").append("history.jsonl", b'{"n":1}\n')
    folder.sub("log").append("history.jsonl", b'{"n":2}\n')
    assert folder.all_files() == [
        ("a.json", b"[1]\n"),
        ("log/history.jsonl", b'{"n":1}\n{"n":2}\n'),
        ("urls/c.json", "鮮度\n".encode()),
    ]


@pytest.mark.parametrize("name", ["../policy.toml", "a/b.json", ".tmp-x", "", "..", "a\\b", "a\0b"])
def test_a_name_that_leaves_the_folder_or_hides_is_refused(tmp_path: Path, name: str) -> None:
    folder = HarnessFolder(Vault.open(tmp_path), "judge-tasks")
    for attempt in (lambda: folder.write(name, b"x"), lambda: folder.read_bytes(name), lambda: folder.sub(name)):
        with pytest.raises(InputError):
            attempt()
    with pytest.raises(InputError):
        HarnessFolder(Vault.open(tmp_path), name)
    assert not (tmp_path / ".harness").exists() and sorted(p.name for p in tmp_path.iterdir()) == []
