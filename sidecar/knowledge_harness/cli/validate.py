"""`kh validate VAULT NOTE --dry-run [--json]`: evidence + judge for one note, nothing written but snapshots."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import anyio
import typer
import yaml

from ..errors import InputError
from ..trust.validate.dry_run_models import DryRunReport, DryRunSource
from ..trust.validate.validation_models import Finding
from ..trust.validate.validation_service import dry_run
from ..vault.paths import Vault


def _short(text: str | None, n: int = 160) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= n else text[: n - 1] + "…"


def quote_lines(finding: Finding, indent: str, urls: dict[str, str] | None = None) -> list[str]:
    """A finding's proof: each quote found in its source, with the source and where in its snapshot."""
    lines = []
    for q in finding.quotes:
        where = (urls or {}).get(q.source_id) or q.source_id
        lines.append(f"{indent}\u201c{_short(q.text)}\u201d \u2014 {where} [{q.start}:{q.end}]")
    if not lines and finding.quote:
        missing = " (not found there)" if finding.reason_code == "quote_not_found" else ""
        lines.append(f"{indent}{finding.source_id or '?'}: \u201c{_short(finding.quote)}\u201d{missing}")
    return lines


def _say(message: str) -> None:
    typer.echo(f"kh: {message}", err=True)


def _source_line(s: DryRunSource) -> str:
    if not s.ok:
        return f"  [{s.source_id}] FAIL  {s.url} — {s.error}: {s.message}"
    snap = (s.snapshot_sha256 or "")[:12]
    reused = ", reused snapshot" if s.reused_snapshot else ""
    return (
        f"  [{s.source_id}] ok    {s.url} — HTTP {s.status} {s.content_type}, "
        f"{s.bytes} bytes, snapshot {snap}{reused}; verdict {s.verdict}"
    )


def render_text(report: DryRunReport) -> str:
    result = report.result
    out = [f"Note: {report.path} ({report.title})", "", "Sources:"]
    if not report.sources:
        out.append("  (none: the note cites no http(s) references)")
    out.extend(_source_line(s) for s in report.sources)
    label = report.judge or result.validator.name
    if report.self_judged:
        label += ", the note's own generator (self_judged)"
    out += [
        "",
        f"Verdict: {result.verdict}  (score {result.score:.2f}, confidence {result.confidence:.2f}, "
        f"validator {label}; confidence never changes the verdict)",
        "",
        "Findings:",
    ]
    if not report.findings:
        out.append("  (no claims found)")
    for f in report.findings:
        where = f"L{f.line}" if f.line == f.end_line else f"L{f.line}-{f.end_line}"
        out.append(f"  [{f.verdict}] {where} {_short(f.text, 120)}")
        out.extend(quote_lines(f, "      "))
        code = f" ({f.reason_code})" if f.reason_code else ""
        out.append(f"      {f.reason}{code}")
    proposed = yaml.safe_dump(report.proposed.model_dump(), allow_unicode=True, sort_keys=False, width=1000)
    out += ["", "Proposed blocks (not written; apply through `kh batch plan` + approval):", proposed.rstrip()]
    out += ["", f"Dry run: nothing was written except {len(report.snapshots_written)} evidence snapshot file(s)."]
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
    wait: Annotated[
        float | None,
        typer.Option(
            "--wait", min=1, max=3600, help="With --judge agent: seconds to wait for an agent (default: the policy's)."
        ),
    ] = None,
) -> None:
    """Collect evidence for one note, run the judge, and show findings and the proposed blocks.

    With --judge agent the claims become a judge task that an agent connected with `kh mcp VAULT`
    (or to /mcp) takes and answers; the command waits, telling on stderr what happens."""
    if not dry:
        raise InputError("Only --dry-run is supported here; production writes go through `kh batch plan` + approval.")
    v = Vault.open(vault)

    async def run() -> DryRunReport:
        return await dry_run(v, note, judge_name=judge, refetch=refetch, progress=_say, wait_seconds=wait)

    report = anyio.run(run)
    if as_json:
        typer.echo(json.dumps(report.model_dump(mode="json"), ensure_ascii=False, indent=2))
    else:
        typer.echo(render_text(report))


def register(app: typer.Typer) -> None:
    app.command("validate")(validate_cmd)
