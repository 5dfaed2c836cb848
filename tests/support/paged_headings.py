"""A vault with one note of 12,000 headings, indexed: the heading answers come in pages
(tests/index/test_headings_pages.py, and `kh index headings` in tests/cli/test_index.py)."""

from __future__ import annotations

from pathlib import Path

from knowledge_harness.index.build import build_index
from knowledge_harness.vault.paths import Vault

BIG = "big.md"
SECTIONS = 3000  # x 4 headings = 12,000 headings


def _big_note() -> str:
    lines = ["---", "title: Big", "---", "Preamble with [[small]].", ""]
    for i in range(SECTIONS):
        lines += [f"# Part {i}", f"See [[small#S{i}]].", f"## Sub {i}.a", "text", f"### Deep {i}", f"## Sub {i}.b", ""]
    return "\n".join(lines) + "\n"


def write_paged_vault(root: Path) -> Path:
    """BIG and the small note it links to, with the index built."""
    root.mkdir()
    (root / BIG).write_text(_big_note(), encoding="utf-8")
    (root / "small.md").write_text("# Small\n\n## S1\n", encoding="utf-8")
    build_index(Vault.open(root))
    return root
