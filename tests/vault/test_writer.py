"""Atomic writes under a precondition hash, with a journal line per write."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import stat
from pathlib import Path

import pytest

from knowledge_harness.errors import PreconditionFailed, SpliceRefused
from knowledge_harness.vault.note import parse_note
from knowledge_harness.vault.paths import Vault
from knowledge_harness.vault.writer import see_note, splice_trust_blocks, write_if_unchanged, write_trust_blocks


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    (tmp_path / "Keywords").mkdir()
    (tmp_path / "Keywords" / "鮮度.md").write_bytes(b"---\ntitle: x  # c\n---\nbody\n")
    return Vault.open(tmp_path)


def test_write_replaces_the_note_keeps_its_mode_and_journals(vault: Vault) -> None:
    note = vault.root / "Keywords" / "鮮度.md"
    note.chmod(0o640)
    old = note.read_bytes()
    receipt = write_if_unchanged(vault, "Keywords/鮮度.md", b"new bytes\n", sha(old), run_id="run-1")
    assert note.read_bytes() == b"new bytes\n"
    assert stat.S_IMODE(note.stat().st_mode) == 0o640
    assert (receipt.sha256_before, receipt.sha256_after) == (sha(old), sha(b"new bytes\n"))
    lines = (vault.root / ".harness/runs/journal.jsonl").read_text(encoding="utf-8").splitlines()
    entry = json.loads(lines[-1])
    assert entry["path"] == "Keywords/鮮度.md" and entry["run_id"] == "run-1"
    assert (entry["sha256_before"], entry["sha256_after"]) == (sha(old), sha(b"new bytes\n"))
    assert receipt.journal == ".harness/runs/journal.jsonl"
    assert [p.name for p in note.parent.iterdir()] == ["鮮度.md"]  # no temp file left behind


def test_changed_note_is_refused_by_name_and_left_untouched(vault: Vault) -> None:
    note = vault.root / "Keywords" / "鮮度.md"
    old = note.read_bytes()
    with pytest.raises(PreconditionFailed) as info:
        write_if_unchanged(vault, "Keywords/鮮度.md", b"x", sha(b"something else"))
    assert "Keywords/鮮度.md" in info.value.message
    assert info.value.detail["actual_sha256"] == sha(old)
    assert note.read_bytes() == old
    assert not (vault.root / ".harness").exists()
    assert [p.name for p in note.parent.iterdir()] == ["鮮度.md"]


def test_a_note_edited_after_it_was_read_is_not_overwritten(vault: Vault) -> None:
    note = vault.root / "Keywords" / "鮮度.md"
    seen = see_note(vault, "Keywords/鮮度.md")
    assert (seen.raw, seen.sha256) == (note.read_bytes(), sha(note.read_bytes()))
    note.write_bytes(b"---\ntitle: edited by the person\n---\nbody\n")
    with pytest.raises(PreconditionFailed) as info:
        splice_trust_blocks(vault, seen, {"status": "verified", "level": 2}, None)
    assert "while writing" in info.value.message
    assert info.value.detail["actual_sha256"] == sha(note.read_bytes())
    assert note.read_bytes() == b"---\ntitle: edited by the person\n---\nbody\n"
    assert [p.name for p in note.parent.iterdir()] == ["鮮度.md"]  # the temp file went with the refusal
    assert not (vault.root / ".harness").exists()


def test_the_spliced_bytes_returned_are_the_bytes_written(vault: Vault) -> None:
    note = vault.root / "Keywords" / "鮮度.md"
    receipt, written = splice_trust_blocks(vault, see_note(vault, "Keywords/鮮度.md"), {"level": 2}, None)
    assert written == note.read_bytes() and receipt.sha256_after == sha(written)
    assert parse_note("n.md", written).properties["verification"] == {"level": 2}


def test_journal_has_one_line_per_write(vault: Vault) -> None:
    content = (vault.root / "Keywords" / "鮮度.md").read_bytes()
    for i in range(3):
        new = content + f"edit {i}\n".encode()
        write_if_unchanged(vault, "Keywords/鮮度.md", new, sha(content))
        content = new
    assert len((vault.root / ".harness/runs/journal.jsonl").read_text().splitlines()) == 3


def test_trust_block_write_changes_only_the_blocks(vault: Vault) -> None:
    note = vault.root / "Keywords" / "鮮度.md"
    old = note.read_bytes()
    v = {"status": "verified", "level": 2, "last_validated": dt.date(2026, 9, 1)}
    e = {"status": "grounded", "source_count": 0, "sources": []}
    write_trust_blocks(vault, "Keywords/鮮度.md", v, e, sha(old))
    new = note.read_bytes()
    assert new.startswith(b"---\ntitle: x  # c\nverification:\n") and new.endswith(b"---\nbody\n")
    assert parse_note("n.md", new).properties["verification"] == v


@pytest.mark.parametrize(
    "raw",
    [b"---\nverification: {level: 1}\n---\nb\n", b"---\nverification:\n\tlevel: 1\n---\n", b"---\na: [x\n---\n"],
)
def test_refused_splice_leaves_the_file_and_the_journal_untouched(vault: Vault, raw: bytes) -> None:
    note = vault.root / "Keywords" / "bad.md"
    note.write_bytes(raw)
    before = note.stat().st_mtime_ns
    with pytest.raises(SpliceRefused):
        write_trust_blocks(vault, "Keywords/bad.md", {"level": 2}, {"status": "grounded"}, sha(raw))
    assert note.read_bytes() == raw and note.stat().st_mtime_ns == before
    assert not (vault.root / ".harness").exists()


def test_writes_through_a_symlink_inside_the_vault_keep_the_link(vault: Vault) -> None:
    target = vault.root / "Keywords" / "鮮度.md"
    link = vault.root / "link.md"
    os.symlink(target, link)
    old = target.read_bytes()
    write_if_unchanged(vault, "link.md", b"via link\n", sha(old))
    assert link.is_symlink() and target.read_bytes() == b"via link\n"
