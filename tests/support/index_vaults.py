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
