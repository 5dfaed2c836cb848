"""`kh trust adopt`: a person at a terminal vouches for trust blocks no record holds (docs/audit.md, "Records")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from ..trust.approve.adoption import ADOPT_KEYWORD, AdoptionPreview, adopt, preview_adoption
from ..vault.paths import Vault
from .terminal import ask, person_at_terminal

trust_app = typer.Typer(
    help="Records behind trust levels: adopt the blocks a person vouches for (at a terminal).", no_args_is_help=True
)


def render_preview(preview: AdoptionPreview) -> str:
    lines = [f"{len(preview.notes)} unrecorded note(s) whose trust blocks you would vouch for (no note is changed):"]
    for item in preview.notes:
        lines.append(f"  - {item.path}  {item.status}/L{item.level}  blocks {item.blocks_sha256[:12]}")
        lines.append(f"      {item.reason}")
    lines.append(f"Digest: {preview.short}")
    return "\n".join(lines) + "\n"


@trust_app.command("adopt")
def adopt_cmd(
    vault: Annotated[Path, typer.Argument(help="The vault folder.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the adoption record as JSON.")] = False,
) -> None:
    """Vouch for the trust blocks of every unrecorded note as they are now: shows them, asks you to type
    ADOPT <digest> at the terminal, then writes one record under .harness/adoptions/ naming you.
    Changes no note. Without an interactive terminal it refuses (exit 1) and writes nothing."""
    person = person_at_terminal("kh trust adopt")
    handle = Vault.open(vault)
    preview = preview_adoption(handle)
    if not preview.notes:
        typer.echo("Nothing to adopt: every trust block already rests on a record.")
        return
    typer.echo(render_preview(preview), nl=False, err=True)
    typed = ask(f"Type {ADOPT_KEYWORD} <digest> to adopt these {len(preview.notes)} note(s): ")
    record = adopt(handle, typed, actor=person)
    if as_json:
        typer.echo(json.dumps(record, ensure_ascii=False, indent=2))
    else:
        typer.echo(
            f"Adopted {len(record['notes'])} note(s) as {record['adopted_by']}: "
            f".harness/adoptions/{record['adoption_id']}.json"
        )


def register(app: typer.Typer) -> None:
    app.add_typer(trust_app, name="trust")
