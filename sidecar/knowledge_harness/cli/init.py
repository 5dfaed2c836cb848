"""`kh init VAULT`: the first command on one's own vault (read-only unless --write)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Annotated, Any

import typer

from ..index.categories import index_notes_report
from ..trust.audit.onboarding import InitReport, inspect_vault, write_proposal
from ..vault.paths import Vault
from .terminal import person_at_terminal


def render(report: InitReport, vault: Path | None = None) -> str:
    out = [f"{report.notes} notes", "By folder: " + ", ".join(f"{k} {v}" for k, v in report.by_folder.items())]
    if report.by_tag:
        out.append("By tag: " + ", ".join(f"#{k} {v}" for k, v in report.by_tag.items()))
    out += [
        f"With a provenance block: {report.with_provenance}",
        f"Citing sources the audit recognizes: {report.with_recognized_sources}",
        f"Citing http(s) URLs the audit does not recognize: {report.with_unrecognized_urls}",
    ]
    out += [f"  - {u.path}: {u.reason} (e.g. {u.example_url})" for u in report.unrecognized_examples]
    now, then = report.counted_now, report.counted_with_proposal
    out += [
        "",
        f"The audit counts now: Raw Keywords {now.raw}, Evidence-capable {now.evidence_capable}, Fresh L2 {now.fresh_l2}",
        "",
        *report.explanation,
        "",
        "Proposed rule:",
        report.proposed_toml.rstrip(),
        f"With it: Raw Keywords {then.raw}, Evidence-capable {then.evidence_capable}, Fresh L2 {then.fresh_l2}",
    ]
    if vault is not None and report.proposed_rule != report.current_rule:
        out.append(f"To write it: kh init {shlex.quote(str(vault))} --write")
    return "\n".join(out) + "\n"


def render_index_notes(moc: dict[str, Any]) -> str:
    """The reasoning index's view of the vault: which notes are index notes (MOCs), and why."""
    found = sorted(set(moc["by_name"]) | set(moc["in_folders"]) | set(moc["by_links"] or ()))
    out = ["", "Index notes (MOCs) for the reasoning index's categories:"]
    if moc["moc_names"]:
        out.append("  by name (MOC, Index, 目次, 索引, Home, 'MOC - …', a note named after its folder): on")
    else:
        out.append("  by name: off (moc_names = false in .harness/index.toml)")
    out.append(
        f"  configured folders: {', '.join(moc['moc_folders']) or 'none'}; tags: {', '.join(moc['moc_tags']) or 'none'}"
    )
    out.append("  notes with type: moc or type: index count too")
    if not moc["moc_links"]:
        out.append("  by links: off (moc_links = false in .harness/index.toml)")
    elif moc["by_links"] is None:
        out.append("  by links (a note linking to most notes of its folder): on, found at the first `kh index build`")
    else:
        out.append(
            f"  by links (a note linking to most notes of its folder): on, {len(moc['by_links'])} at the last build"
        )
    if moc["exclude"]:
        out.append(f"  not indexed (templates, exclude): {', '.join(moc['exclude'])}")
    if found:
        shown = found[:10]
        more = f" and {len(found) - 10} more" if len(found) > 10 else ""
        out.append(f"  found {len(found)}: {', '.join(shown)}{more}")
    else:
        out.append(
            "  found none: name a hub note MOC, Index or Home, give it type: moc, or list its folder in "
            '.harness/index.toml ([index] moc_folders = ["MOC"])'
        )
    return "\n".join(out) + "\n"


def init(
    vault: Annotated[Path, typer.Argument(help="The vault folder.")],
    write: Annotated[
        bool, typer.Option("--write", help="Write the proposed [keywords] rule to .harness/policy.toml.")
    ] = False,
    force: Annotated[
        bool, typer.Option("--force", help="With --write: replace the [keywords] table of an existing policy.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Why the audit counts what it counts on this vault, and a [keywords] rule that would count the notes with sources.

    --write changes the vault's policy: like its REST door (person token only) it needs the
    person, here at an interactive terminal; from a script or an agent's shell it is refused."""
    if write:
        person_at_terminal("kh init --write")
    handle = Vault.open(vault)
    report = inspect_vault(handle)
    moc = index_notes_report(handle)
    typer.echo(
        json.dumps(report.model_dump() | {"index_notes": moc}, ensure_ascii=False, indent=2)
        if as_json
        else render(report, vault) + render_index_notes(moc),
        nl=as_json,
    )
    if write:
        diff = write_proposal(handle, report, force=force)
        typer.echo(diff or "The policy already says this; nothing written.", err=True)


def register(app: typer.Typer) -> None:
    app.command("init")(init)
