"""A symbolic link inside the vault that leads into `.obsidian`, `.git`, `.harness` or `.trash`
never makes the file behind it a note: not listed, not readable, not writable."""

from __future__ import annotations

import datetime as dt
import hashlib
from pathlib import Path

import pytest

from knowledge_harness.errors import PathRejected
from knowledge_harness.vault.catalog import NoteCatalog
from knowledge_harness.vault.paths import ScanProblem, Vault, list_note_files
from knowledge_harness.vault.writer import write_if_unchanged, write_trust_blocks

CONFIG = b"---\ntitle: config\n---\n# not a note\n"
V = {"status": "verified", "level": 2, "last_validated": dt.date(2026, 9, 1)}


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    for folder in (".obsidian", ".git", ".harness", ".trash"):
        (root / folder).mkdir(parents=True)
        (root / folder / "inside.md").write_bytes(CONFIG)
        (root / f"link-{folder[1:]}.md").symlink_to(f"{folder}/inside.md")
        (root / f"dir-{folder[1:]}").symlink_to(root / folder, target_is_directory=True)
    (root / "notes").mkdir()
    (root / "notes" / "real.md").write_bytes(b"# real\n")
    (root / "notes" / "alias.md").symlink_to("real.md")  # a link to a note stays a note
    return root


def test_not_listed_and_reported(vault: Path) -> None:
    problems: list[ScanProblem] = []
    files = list_note_files(Vault.open(vault), problems)
    assert [f.path for f in files] == ["notes/alias.md", "notes/real.md"]
    reported = {p.path: p.message for p in problems}
    assert set(reported) == {
        f"{kind}-{name}{ext}"
        for kind, ext in (("link", ".md"), ("dir", ""))
        for name in ("obsidian", "git", "harness", "trash")
    }
    assert reported["link-git.md"] == "Symbolic link leads into '.git', which is not part of the notes; skipped."


@pytest.mark.parametrize("path", ["link-obsidian.md", "link-git.md", "dir-harness/inside.md", "dir-trash/inside.md"])
def test_not_readable(vault: Path, path: str) -> None:
    with pytest.raises(PathRejected) as info:
        NoteCatalog(Vault.open(vault)).note(path)
    assert "through a symbolic link" in info.value.message


@pytest.mark.parametrize("path", ["link-obsidian.md", "link-git.md", "dir-harness/inside.md", "dir-trash/inside.md"])
def test_not_writable_and_the_real_file_is_untouched(vault: Path, path: str) -> None:
    sha = hashlib.sha256(CONFIG).hexdigest()
    with pytest.raises(PathRejected):
        write_trust_blocks(Vault.open(vault), path, V, None, sha)
    with pytest.raises(PathRejected):
        write_if_unchanged(Vault.open(vault), path, b"overwritten", sha)
    for folder in (".obsidian", ".git", ".harness", ".trash"):
        assert (vault / folder / "inside.md").read_bytes() == CONFIG


def test_a_link_to_a_note_is_still_written_through(vault: Path) -> None:
    sha = hashlib.sha256(b"# real\n").hexdigest()
    write_trust_blocks(Vault.open(vault), "notes/alias.md", V, None, sha)
    assert (vault / "notes" / "alias.md").is_symlink()
    assert b"verification:" in (vault / "notes" / "real.md").read_bytes()


def test_a_batch_plan_skips_such_a_link_and_writes_nothing(vault: Path) -> None:
    import anyio

    from knowledge_harness.errors import Refused
    from knowledge_harness.trust.approve.batch import build_plan

    async def plan() -> None:
        notes = ["link-git.md", "dir-obsidian/inside.md"]
        await build_plan(Vault.open(vault), stage="pilot", notes=notes, out_of_order=True)

    with pytest.raises(Refused) as info:
        anyio.run(plan)
    skipped = {s["path"]: s["reason"] for s in info.value.detail["skipped"]}
    assert set(skipped) == {"link-git.md", "dir-obsidian/inside.md"}
    assert all("through a symbolic link" in reason for reason in skipped.values())
    for folder in (".obsidian", ".git", ".harness", ".trash"):
        assert (vault / folder / "inside.md").read_bytes() == CONFIG
