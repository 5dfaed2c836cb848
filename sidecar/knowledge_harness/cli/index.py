"""`kh index …`: build, check and query the reasoning index."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ..index.answer import DEFAULT_HEADINGS, MAX_HEADINGS
from ..vault.paths import Vault

if TYPE_CHECKING:
    from ..index.schema import SearchResult

# The query side (index/query.py, index/search.py) is imported by the commands that use it:
# `kh index build` after a one-line edit should cost about as much as the build itself.

index_app = typer.Typer(help="The reasoning index: build, check, tree, search, headings, read.", no_args_is_help=True)

VaultArg = Annotated[Path, typer.Argument(help="The vault folder.")]


def _print(data: object) -> None:
    typer.echo(json.dumps(data, ensure_ascii=False, indent=2, sort_keys=True))


@index_app.command("build")
def build(
    vault: VaultArg,
    as_json: Annotated[bool, typer.Option("--json", help="Print the build report as JSON.")] = False,
    full: Annotated[bool, typer.Option("--full", help="Ignore the previous build and re-parse every note.")] = False,
    workers: Annotated[int, typer.Option(help="Parser processes; 0 = one per core (used for large builds).")] = 0,
) -> None:
    """Write the index to VAULT/.harness/index/ (incremental unless --full)."""
    from .index_build import index_build

    index_build(vault, as_json=as_json, full=full, workers=workers)


@index_app.command("check")
def check(
    vault: VaultArg,
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Exit 0 when the index matches the vault, 1 when stale (lists the notes), 2 when there is none."""
    from ..index.query import check_index

    report = check_index(Vault.open(vault))
    if as_json:
        _print(report.model_dump())
    elif report.status == "missing":
        typer.echo("No reasoning index: run `kh index build` first.", err=True)
    elif report.fresh:
        typer.echo("The index is fresh.")
    else:
        typer.echo("The index is stale.")
        for label, items in (("changed", report.changed), ("added", report.added), ("removed", report.removed)):
            for item in items:
                typer.echo(f"  {label}: {item}")
        if report.settings_changed:
            typer.echo("  settings: .harness/index.toml changed")
    raise typer.Exit(0 if report.fresh else (2 if report.status == "missing" else 1))


TREE_LINES = 200  # the table's default page; a documentation vault's whole tree is tens of thousands


@index_app.command("tree")
def tree(
    vault: VaultArg,
    folder: Annotated[str | None, typer.Option(help="Only this folder (vault-relative).")] = None,
    depth: Annotated[int, typer.Option(min=0, help="Folder levels to expand (0: the folder alone).")] = 2,
    offset: Annotated[int, typer.Option(min=0, help="Table: the first line to print.")] = 0,
    limit: Annotated[int, typer.Option(min=1, help="Table: lines per page.")] = TREE_LINES,
    as_json: Annotated[bool, typer.Option("--json", help="Print the HTTP answer (the pruned tree) as JSON.")] = False,
) -> None:
    """The vault's folders and notes with heading counts: an indented table, one page of lines
    (--offset / --limit), folders expanded --depth levels; --json for the JSON answer."""
    from ..index.query import get_tree

    result = get_tree(Vault.open(vault), folder, depth)
    if as_json:
        _print(result.model_dump())
        return
    lines = tree_lines(result.tree)
    if result.stale:
        typer.echo("kh: note: the index is stale: run `kh index build`.", err=True)
    typer.echo("\n".join(lines[offset : offset + limit]))
    if offset + limit < len(lines):
        typer.echo(
            f"… {len(lines) - offset - limit} more lines: --offset {offset + limit}, or narrow with --folder / --depth.",
            err=True,
        )


def tree_lines(node: dict[str, Any], indent: int = 0) -> list[str]:
    """A folder node as indented lines: folders with their note counts, notes with their headings."""
    out: list[str] = []
    pad = "  " * indent
    for child in node.get("children", []):
        if child.get("kind") == "folder":
            more = child.get("children_count")
            out.append(f"{pad}{child['name']}/" + (f"  ({more} entries)" if more is not None else ""))
            out += tree_lines(child, indent + 1)
        else:
            out.append(f"{pad}{child['name']}  {child.get('heading_count', 0)} headings")
    return out


@index_app.command("search")
def search_cmd(
    vault: VaultArg,
    query: Annotated[
        str, typer.Argument(help="Words to look for in the notes (names, headings, text, link texts).")
    ] = "",
    type_: Annotated[str | None, typer.Option("--type")] = None,
    status: Annotated[str | None, typer.Option()] = None,
    tag: Annotated[str | None, typer.Option()] = None,
    category: Annotated[
        str | None, typer.Option(help="An index note (path or title) on the note's category chain.")
    ] = None,
    trust: Annotated[str | None, typer.Option(help="e.g. fresh-l2, l1, fresh")] = None,
    folder: Annotated[str | None, typer.Option(help="Only notes in this folder (vault-relative).")] = None,
    limit: Annotated[int, typer.Option(min=1, max=500)] = 20,
    as_json: Annotated[bool, typer.Option("--json", help="Print the HTTP answer as JSON.")] = False,
) -> None:
    """Ranked notes with their best sections (a table; --json for the JSON answer)."""
    from ..index.schema import SearchQuery
    from ..trust_view import trusted_search
    from ..vault.catalog import NoteCatalog

    asked = SearchQuery.asked(
        q=query, type=type_, status=status, tag=tag, category=category, trust=trust, folder=folder, limit=limit
    )
    result = trusted_search(NoteCatalog(Vault.open(vault)), asked)
    if as_json:
        _print(result.model_dump())
        return
    typer.echo(search_table(result))


def search_table(result: SearchResult) -> str:
    """Hits, one block each: rank, score, path (and title), then its sections as line ranges."""
    lines: list[str] = []
    if result.stale and not result.fallback:  # a fallback's reason says there is no index
        lines.append("The index is stale: run `kh index build` (changed notes are marked *).")
    lines.append(f"{result.total} notes match {result.query!r}." if result.query else f"{result.total} notes.")
    if result.reason:
        lines.append(result.reason)
    for rank, hit in enumerate(result.hits, 1):
        mark = "*" if hit.note_changed else ""
        title = f"  ({hit.title})" if hit.title and hit.title not in hit.path else ""
        lines.append(f"{rank:>3}. {hit.score:8.3f}  {hit.path}{mark}{title}")
        for section in hit.sections:
            where = " > ".join(section.heading_path) or "(before the first heading)"
            lines.append(f"       lines {section.line}-{section.end_line}  {where}")
            if section.snippet:
                lines.append(f"         {section.snippet}")
    return "\n".join(lines)


@index_app.command("headings")
def headings(
    vault: VaultArg,
    note: Annotated[str, typer.Argument(help="Vault-relative note path, or its file name when unique.")],
    offset: Annotated[int, typer.Option(min=0, help="The first heading (document order) to print.")] = 0,
    limit: Annotated[
        int, typer.Option(min=1, max=MAX_HEADINGS, help="Headings per page; more pages: see next_offset.")
    ] = DEFAULT_HEADINGS,
    as_json: Annotated[bool, typer.Option("--json", help="Print the HTTP answer as JSON.")] = False,
) -> None:
    """A note's heading tree with line ranges, one page of headings at a time (a table; --json
    for the JSON answer). NOTE is a vault path, or a note's file name when only one note has it."""
    from ..index.query import note_headings

    result = note_headings(Vault.open(vault), note, offset=offset, limit=limit)
    if as_json:
        _print(result.model_dump())
        return
    lines = [f"{result.path}  ({result.title})" if result.title else result.path]
    if result.stale:
        lines[0] += (
            "  [the index is stale; this note read as it is now]" if result.source == "live" else "  [stale index]"
        )

    def walk(headings: list[dict[str, Any]]) -> None:
        for h in headings:
            lines.append(f"  lines {h['line']:>5}-{h['end_line']:<5} {'#' * int(h['level'])} {h['title']}")
            walk(h.get("children") or [])

    walk(result.headings)
    if result.truncated and result.next_offset is not None:
        lines.append(f"… more headings: --offset {result.next_offset}")
    lines.append(f"Read one: kh index read VAULT {result.path!r} --heading TITLE (or --line N --end-line M)")
    typer.echo("\n".join(lines))


@index_app.command("read")
def read(
    vault: VaultArg,
    note: Annotated[str, typer.Argument(help="Vault-relative note path, or its file name when unique.")],
    heading: Annotated[str | None, typer.Option(help="Heading title whose range to read.")] = None,
    line: Annotated[int | None, typer.Option(help="First line (1-based).")] = None,
    end_line: Annotated[int | None, typer.Option("--end-line", help="Last line (inclusive).")] = None,
    max_chars: Annotated[int, typer.Option("--max-chars")] = 20_000,
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Print the original Markdown of a heading's range or of a line range."""
    from ..index.query import read_section

    result = read_section(Vault.open(vault), note, heading=heading, line=line, end_line=end_line, max_chars=max_chars)
    if as_json:
        _print(result.model_dump())
        return
    if result.stale:
        typer.echo(f"kh: note: the index is stale (note changed: {str(result.note_changed).lower()}).", err=True)
    typer.echo(result.text)


def register(app: typer.Typer) -> None:
    app.add_typer(index_app, name="index")
