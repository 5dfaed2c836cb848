"""`kh index build`: write the reasoning index to VAULT/.harness/index/ (incremental unless --full).

The Typer command (cli/index.py) and `main`'s plain path (`kh index build VAULT [--json]`, see
cli/__init__.py) both run `index_build`, so nothing here imports Typer or Pydantic.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ..index.build import build_index
from ..vault.lock import vault_lock
from ..vault.paths import Vault
from .progress import progress_reporter


def run_plain_index_build(rest: list[str]) -> bool:
    """Runs `kh index build VAULT`, with or without `--json` (after VAULT or before it), when the
    arguments after `index build` are exactly that; False for anything else, which goes to the
    root group."""
    as_json = "--json" in rest
    vaults = [a for a in rest if a != "--json"]
    if len(vaults) != 1 or len(rest) != 1 + as_json or vaults[0].startswith("-"):
        return False
    index_build(Path(vaults[0]), as_json=as_json, full=False, workers=0)
    return True


def index_build(vault: Path, *, as_json: bool, full: bool, workers: int) -> None:
    opened = Vault.open(vault)
    with vault_lock(opened, "kh index build"), progress_reporter("Indexing") as progress:
        # one writer of .harness/ at a time (Busy → exit 1)
        report = build_index(opened, full=full, workers=workers, resident=False, progress=progress)
    if as_json:
        import json

        answer = {
            "notes": report.notes,
            "headings": report.headings,
            "links": report.links,
            "errors": report.errors,
            "seconds": report.seconds,
            "fallback": report.fallback_notes,  # the public key (docs/reasoning-index.md): notes deferred to markdown-it-py
        }
        print(json.dumps(answer))
        return
    print(
        f"Indexed {report.notes} notes, {report.headings} headings, {report.links} links "
        f"in {report.seconds:.2f} s ({report.reparsed} parsed, {report.files_written} files written"
        f"{f', {report.fallback_notes} parsed by markdown-it' if report.fallback_notes else ''})."
    )
    for err in report.errors:
        line = f":{err['line']}" if err.get("line") else ""
        print(f"  {err['path']}{line}: {err['message']}", file=sys.stderr)
