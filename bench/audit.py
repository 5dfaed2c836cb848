"""`kh audit` on a generated 10,000-note vault: cold (fresh catalog, as in a new `kh audit`
process, measured in-process and as the real CLI) and warm (the sidecar's cached catalog)."""

from __future__ import annotations

import datetime as dt
import hashlib
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from knowledge_harness.trust.audit.audit import run_audit
from knowledge_harness.trust.policy import load_policy
from knowledge_harness.vault.catalog import NoteCatalog
from knowledge_harness.vault.paths import Vault
from knowledge_harness.vault.references import references_sha256

KH = Path(sys.executable).with_name("kh")
NOTES = 10_000


def _simple_vault(root: Path, n: int, seed: int = 0) -> None:
    """Fallback generator: Keyword notes with provenance, references and trust metadata."""
    rng = random.Random(seed)
    today = dt.date.today()
    for i in range(n):
        folder = root / f"folder-{i % 50:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        urls = [f"https://example.org/{i}/{k}" for k in range(rng.randint(0, 3))]
        body = f"\n# Note {i}\n\n" + "Some text about the concept. " * rng.randint(5, 60) + "\n"
        if urls:
            body += "\n## References\n\n" + "".join(f"- {u}\n" for u in urls)
        level = rng.choice([0, 1, 2, 2, 2])
        last = today - dt.timedelta(days=rng.randint(0, 120))
        fm = ["---", f"title: Note {i}", "tags: [keyword, bench]", "provenance:", "  origin: ai_generated"]
        fm += [
            "verification:",
            f"  status: {'verified' if level == 2 else 'unverified'}",
            f"  level: {level}",
            f"  last_validated: {last.isoformat()}",
            f"  revalidate_after: {(last + dt.timedelta(days=90)).isoformat()}",
            f"  content_sha256: {hashlib.sha256(body.encode()).hexdigest()}",
            f"  references_sha256: {references_sha256(urls)}",
            "---",
        ]
        (folder / f"note-{i:05d}.md").write_text("\n".join(fm) + "\n" + body, encoding="utf-8")


def _make(root: Path, n: int) -> str:
    try:
        from bench.make_vault import make_vault  # written by another helper
    except ImportError:
        _simple_vault(root, n)
        return "bench/audit.py fallback generator"
    make_vault(root, n, seed=0)
    return "bench/make_vault.py"


def run(n: int = NOTES, repeats: int = 3) -> dict[str, Any]:
    root = Path(tempfile.mkdtemp()) / "vault"
    root.mkdir()
    generator = _make(root, n)
    vault = Vault.open(root)
    policy = load_policy(root)
    cold: list[float] = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        report = run_audit(NoteCatalog(vault), policy)
        cold.append(time.perf_counter() - t0)
    catalog = NoteCatalog(vault)
    run_audit(catalog, policy)
    warm: list[float] = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        run_audit(catalog, policy)
        warm.append(time.perf_counter() - t0)
    cli: list[float] = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        subprocess.run([str(KH), "audit", str(root), "--json"], capture_output=True, check=True)
        cli.append(time.perf_counter() - t0)
    return {
        "notes": n,
        "generator": generator,
        "raw_keywords": report.raw,
        "fresh_l2": report.fresh_l2,
        "cold_seconds": round(statistics.median(cold), 3),
        "warm_seconds": round(statistics.median(warm), 3),
        "cli_seconds": round(statistics.median(cli), 3),
        "targets": {"cold_seconds": 5.0, "warm_seconds": 1.0},
    }


if __name__ == "__main__":
    print(run())
