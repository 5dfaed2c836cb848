"""Small helpers for index tests: write a note, read every layer of an index, build a fresh copy."""

from __future__ import annotations

import shutil
from pathlib import Path

from knowledge_harness.index.build import build_index
from knowledge_harness.vault.paths import Vault

LAYERS = ("manifest.json", "tree.json", "notes", ".gitignore")


def write_note(vault: Path, rel: str, text: str) -> None:
    path = vault / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def index_layers(vault: Path) -> dict[str, bytes]:
    """Every layer file of the vault's index (not build.json or the cache), by relative path."""
    root = vault / ".harness" / "index"
    out = {}
    for rel in LAYERS:
        p = root / rel
        if p.is_dir():
            for f in sorted(p.iterdir()):
                out[f"{rel}/{f.name}"] = f.read_bytes()
        elif p.exists():
            out[rel] = p.read_bytes()
    return out


def fresh_layers(vault: Path, tmp_path: Path, name: str) -> dict[str, bytes]:
    """The layers of a full, single-process build of a copy of `vault` without its index."""
    other = tmp_path / name
    shutil.copytree(vault, other, ignore=shutil.ignore_patterns(".harness"))
    build_index(Vault.open(other), full=True)
    return index_layers(other)


def write_small_vault(v: Path) -> Path:
    """Seven notes: two MOCs (one Japanese), aliases, tags, a heading link, an embed, a link in code, two
    notes named Dup, a missing target: the index tests' small vault, written under `v`."""
    write_note(
        v,
        "MOC/技術.md",
        "---\ntype: moc\n---\n# 技術\n\n- [[GitHub CI]]\n- [[Note A]]\n",
    )
    write_note(v, "MOC/GitHub CI.md", "---\ntype: moc\n---\n# GitHub / CI\n\n上位: [[技術]]\n\n- [[Deep/Note B]]\n")
    write_note(
        v,
        "Note A.md",
        "---\ntitle: Alpha\ntags: [ai, github]\naliases: アルファ\nstatus: active\ntype: resource\n---\n"
        "intro #inline-tag\n\n# Alpha\n\n## 自動生成物\n\ntext [[Note B#Section]] ![[pic.png]]\n\n"
        "### staleな実行を上書きしない\n\n```\n[[Not A Link]] #notatag\n```\n\n## デバッグ\n\n[x](Deep/Note%20B.md) https://example.org/a\n",
    )
    write_note(v, "Deep/Note B.md", "# Note B\n\n## Section\n\n[[Note A]] [[Missing]] [[Dup]]\n")
    write_note(v, "Home.md", "[[技術]]\n")
    write_note(v, "x/Dup.md", "# Dup x\n")
    write_note(v, "y/Dup.md", "# Dup y\n")
    return v
