"""Fuzzing path confinement: nothing a door accepts resolves outside the vault root.

`normalize_rel_path` either rejects (PathRejected) or returns a clean NFC relative path;
`Vault.resolve` on a vault full of traps (symlinks out of the root, to a sibling whose name
starts like the root, loops, NFD names) either raises a HarnessError or returns a path whose
real location is inside the root. Short under `make test`, long under `make fuzz`.
"""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from knowledge_harness.errors import HarnessError, PathRejected
from knowledge_harness.vault.paths import Vault, normalize_rel_path

pytestmark = pytest.mark.fuzz

SEGMENTS = [
    "..",
    ".",
    "",
    "notes",
    "a.md",
    "out",
    "out.md",
    "loop",
    "sib",
    "ノート.md",
    unicodedata.normalize("NFD", "ノート.md"),
    ".harness",
    ".obsidian",
    "%2e%2e",
    "..%2f",
    "~",
    "C:",
    "a\\b",
    "a\x00b",
    "\u202e",
    "x" * 300,
]


@pytest.fixture(scope="module")
def trap_vault(tmp_path_factory: pytest.TempPathFactory) -> Vault:
    base = tmp_path_factory.mktemp("paths")
    root = base / "vault"
    (root / "notes").mkdir(parents=True)
    (root / "notes" / "a.md").write_text("# a\n")
    (root / unicodedata.normalize("NFD", "ノート.md")).write_text("# n\n")
    outside = base / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("secret\n")
    sibling = base / "vault-sibling"
    sibling.mkdir()
    (sibling / "s.md").write_text("s\n")
    os.symlink(outside, root / "out")
    os.symlink(outside / "secret.md", root / "out.md")
    os.symlink(sibling, root / "sib")
    os.symlink(root, root / "loop")
    os.symlink("/etc/passwd", root / "notes" / "passwd.md")
    return Vault.open(root)


path_text = st.one_of(
    st.lists(st.sampled_from(SEGMENTS), min_size=1, max_size=6).map("/".join),
    st.text(max_size=40),
    st.lists(st.one_of(st.sampled_from(SEGMENTS), st.text(max_size=8)), min_size=1, max_size=5).map("/".join),
)


@given(path_text)
@example("../outside/secret.md")
@example("out/secret.md")
@example("sib/s.md")
@example("loop/loop/notes/a.md")
@example("notes/passwd.md")
@example("/etc/passwd")
def test_normalize_rejects_or_returns_a_clean_relative_path(raw: str) -> None:
    try:
        rel = normalize_rel_path(raw)
    except PathRejected:
        return
    assert rel == unicodedata.normalize("NFC", rel)
    assert not rel.startswith(("/", "~"))
    assert all(seg not in ("", ".", "..") for seg in rel.split("/"))
    assert "\x00" not in rel and "\\" not in rel


@given(path_text)
@example("out/secret.md")
@example("out.md")
@example("sib/s.md")
@example("loop/notes/a.md")
@example("notes/passwd.md")
@example("ノート.md")
def test_nothing_resolves_outside_the_root(trap_vault: Vault, raw: str) -> None:
    try:
        disk = trap_vault.resolve(raw)
    except HarnessError:
        return
    real = Path(os.path.realpath(disk))
    assert real == trap_vault.root or real.is_relative_to(trap_vault.root), (raw, real)
