"""`kh validate VAULT NOTE --dry-run [--json]`: evidence + judge for one note, nothing written but snapshots."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import anyio
import typer
import yaml

from ..errors import InputError
from ..trust.validation_service import dry_run
from ..vault.paths import Vault


def _short(text: str | None, n: int = 160) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= n else text[: n - 1] + "…"


def render_text(report: dict[str, Any]) -> str:
    result = report["result"]
    out = [f"Note: {report['path']} ({report['title']})", "", "Sources:"]
    if not report["sources"]:
        out.append("  (none: the note cites no http(s) references)")
    for s in report["sources"]:
        if s["ok"]:
            snap = (s["snapshot_sha256"] or "")[:12]
            reused = ", reused snapshot" if s["reused_snapshot"] else ""
            out.append(
                f"  [{s['source_id']}] ok    {s['url']} — HTTP {s['status']} {s['content_type']}, "
                f"{s['bytes']} bytes, snapshot {snap}{reused}; verdict {s['verdict']}"
            )
        else:
            out.append(f"  [{s['source_id']}] FAIL  {s['url']} — {s['error']}: {s['message']}")
    validator = result["validator"]
    label = validator.get("model") or f"{validator['name']}-{validator['version']}"
    out += [
        "",
        f"Verdict: {result['verdict']}  (score {result['score']:.2f}, confidence {result['confidence']:.2f}, "
        f"validator {label}; confidence never changes the verdict)",
        "",
        "Findings:",
    ]
    if not report["findings"]:
        out.append("  (no claims found)")
    for f in report["findings"]:
        where = f"L{f['line']}" if f["line"] == f["end_line"] else f"L{f['line']}-{f['end_line']}"
        out.append(f"  [{f['verdict']}] {where} {_short(f['text'], 120)}")
        if f["quote"]:
            out.append(f"      {f['source_id']}: \u201c{_short(f['quote'])}\u201d")
        out.append(f"      {f['reason']}")
    proposed = yaml.safe_dump(report["proposed"], allow_unicode=True, sort_keys=False, width=1000)
    out += ["", "Proposed blocks (not written; apply through `kh batch plan` + approval):", proposed.rstrip()]
    out += ["", f"Dry run: nothing was written except {len(report['snapshots_written'])} evidence snapshot file(s)."]
    return "\n".join(out)


def validate_cmd(
    vault: Annotated[Path, typer.Argument(help="The vault folder.")],
    note: Annotated[str, typer.Argument(help="The note, as a vault-relative path.")],
    dry: Annotated[bool, typer.Option("--dry-run", help="Report findings and proposed blocks; write nothing.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    judge: Annotated[str | None, typer.Option("--judge", help="Judge name (default: the policy's).")] = None,
    refetch: Annotated[
        bool, typer.Option("--refetch", help="Fetch every cited page anew instead of reusing a recent snapshot.")
    ] = False,
) -> None:
    """Collect evidence for one note, run the judge, and show findings and the proposed blocks."""
    if not dry:
        raise InputError("Only --dry-run is supported here; production writes go through `kh batch plan` + approval.")
    v = Vault.open(vault)

    async def run() -> dict[str, Any]:
        return await dry_run(v, note, judge_name=judge, refetch=refetch)

    report = anyio.run(run)
    if as_json:
        typer.echo(json.dumps(report, ensure_ascii=False, indent=2))
    else:
        typer.echo(render_text(report))


def register(app: typer.Typer) -> None:
    app.command("validate")(validate_cmd)
