"""Scanning a vault: exclusions, NFC names, collisions, symlink loops, and the example vault."""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path

from knowledge_harness.vault.catalog import NoteCatalog
from knowledge_harness.vault.paths import ScanProblem, Vault, list_note_files

REPO = Path(__file__).resolve().parents[2]


def _paths(vault_root: Path) -> tuple[list[str], list[ScanProblem]]:
    problems: list[ScanProblem] = []
    files = list_note_files(Vault.open(vault_root), problems)
    return [f.path for f in files], problems


def test_excluded_and_hidden_folders_are_skipped(tmp_path: Path) -> None:
    for folder in (".obsidian", ".harness", ".git", ".trash", "node_modules", ".hidden", "notes"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "n.md").write_text("x")
    (tmp_path / "notes" / "image.png").write_bytes(b"\x89PNG")
    paths, problems = _paths(tmp_path)
    assert paths == ["notes/n.md"]
    assert problems == []


def test_names_that_collide_after_nfc_are_reported(tmp_path: Path) -> None:
    nfc = unicodedata.normalize("NFC", "が.md")
    nfd = unicodedata.normalize("NFD", "が.md")
    (tmp_path / nfc).write_text("one")
    (tmp_path / nfd).write_text("two")
    if len(os.listdir(tmp_path)) < 2:  # a normalizing file system keeps only one
        return
    paths, problems = _paths(tmp_path)
    assert paths == [nfc]
    assert [p.path for p in problems] == [nfc]
    assert "NFC" in problems[0].message


def test_names_that_are_not_utf8_are_reported_and_skipped(tmp_path: Path) -> None:
    (tmp_path / "ok.md").write_text("# ok")
    bad_dir = os.fsencode(tmp_path) + b"/\xff\xfe dir"
    os.mkdir(bad_dir)
    (Path(os.fsdecode(bad_dir)) / "inside.md").write_text("# inside")
    with open(os.fsencode(tmp_path) + b"/caf\xe9.md", "wb") as handle:  # Latin-1, not UTF-8
        handle.write(b"# bad name")
    paths, problems = _paths(tmp_path)
    assert paths == ["ok.md"]
    assert sorted(p.path for p in problems) == ["\\xff\\xfe dir", "caf\\xe9.md"]
    assert all(p.message == "The name is not valid UTF-8; skipped." for p in problems)


def test_symlink_loops_and_escapes_are_reported_not_followed(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    (vault / "a").mkdir(parents=True)
    (vault / "a" / "note.md").write_text("x")
    (vault / "a" / "loop").symlink_to(vault / "a", target_is_directory=True)
    (vault / "escape").symlink_to(tmp_path, target_is_directory=True)
    (tmp_path / "outside.md").write_text("o")
    (vault / "escape.md").symlink_to(tmp_path / "outside.md")
    (vault / "inside-link.md").symlink_to(vault / "a" / "note.md")
    paths, problems = _paths(vault)
    assert paths == ["a/note.md", "inside-link.md"]
    assert sorted((p.path, p.message.split(" (")[0].split(";")[0]) for p in problems) == [
        ("a/loop", "Folder reached twice"),
        ("escape", "Symbolic link leaves the vault"),
        ("escape.md", "Symbolic link leaves the vault"),
    ]


def test_example_vault_scan_lists_every_note_and_flags_only_the_malformed_one() -> None:
    root = REPO / "examples" / "vault"
    on_disk = sorted(
        unicodedata.normalize("NFC", p.relative_to(root).as_posix())
        for p in root.rglob("*.md")
        if not any(part.startswith(".") for part in p.relative_to(root).parts)
    )
    catalog = NoteCatalog(Vault.open(root))
    notes = catalog.notes()
    assert [f.path for f, _ in notes] == on_disk
    assert len(on_disk) >= 25
    broken = [(n.path, n.problem) for _, n in notes if n.problem]
    assert len(broken) == 1
    assert broken[0][1] is not None and broken[0][1].line is not None
    crlf = [n for _, n in notes if b"\r\n" in n.raw]
    bom = [n for _, n in notes if n.has_bom]
    assert crlf and all(n.problem is None and n.properties for n in crlf)
    assert bom and all(n.problem is None and n.properties for n in bom)
