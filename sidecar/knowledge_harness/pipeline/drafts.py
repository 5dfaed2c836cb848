"""Drafts in reStructuredText: assembling (O-08), the block layout (O-10, O-12), the manifest and
the one automatic fix. O-09's program checks (also `kh pipeline check-draft`) are in draft_checks.py.

A draft the program assembles looks like::

    <working title>
    ===============

    :公開日: 未確定
    :情報基準日: 2026-03-01
    :対象バージョン: 未確認
    :記事状態: 下書き

    .. note::

       <what the AI did and what the person checks>

    .. kh-section S1

    <section heading>
    -----------------

    .. kh-block B1 section=S1

    <block text>

The `.. kh-…` lines are reStructuredText comments (never rendered): they tie every block to its
plan section so that a revision can replace exactly the named blocks and the manifest can be
checked. Checks never read outside content: docutils runs with file insertion and `raw` off.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from docutils.utils import column_width

META_FIELDS = ("公開日", "情報基準日", "対象バージョン", "記事状態")
UNKNOWN_MARKS = ("未確認", "未確定")
DRAFT_STATUS = "下書き"
MANIFEST_FORMAT = "kh-draft-manifest/1"
FIXABLE = frozenset({"TRAILING_WHITESPACE", "NO_FINAL_NEWLINE", "HEADING_UNDERLINE"})
# directives that pull in outside content (or publish): never allowed in a draft, whatever the blog allows
FORBIDDEN_DIRECTIVES = frozenset(
    {
        "raw",
        "include",
        "literalinclude",
        "image",
        "figure",
        "postlist",
        "blogpost",
        "ablog",
        "embed",
        "video",
        "jupyter-execute",
        "ipython",
        "program-output",
        "command-output",
        "exec",
        "autofile",
        "automodule",
        "autoclass",
        "autofunction",
        "kroki",
        "mermaid",
        "graphviz",
        "plantuml",
    }
)
FORBIDDEN_ROLES = frozenset({"raw"})
# what an ablog (Sphinx) blog understands by default; `[drafts] directives` / `roles` replace these lists
DEFAULT_DIRECTIVES: tuple[str, ...] = (
    # docutils
    "admonition", "attention", "caution", "danger", "error", "hint", "important", "note", "tip", "warning",
    "topic", "sidebar", "rubric", "epigraph", "highlights", "pull-quote", "compound", "container",
    "table", "csv-table", "list-table", "contents", "sectnum", "math", "parsed-literal", "line-block", "code",
    # Sphinx
    "seealso", "versionadded", "versionchanged", "deprecated", "versionremoved", "code-block", "sourcecode",
    "highlight", "todo", "glossary", "centered", "hlist", "productionlist", "index", "only", "tabularcolumns",
)  # fmt: skip
DEFAULT_ROLES: tuple[str, ...] = (
    # docutils
    "emphasis", "strong", "literal", "code", "math", "subscript", "sub", "superscript", "sup", "abbreviation",
    "acronym", "title-reference", "title", "t", "pep-reference", "pep", "rfc-reference", "rfc",
    # Sphinx
    "doc", "ref", "any", "download", "numref", "term", "abbr", "file", "kbd", "command", "program", "option",
    "envvar", "guilabel", "menuselection", "samp", "dfn", "mailheader", "makevar", "mimetype", "newsgroup",
    "regexp", "eq", "keyword", "token",
    "py:func", "py:class", "py:meth", "py:mod", "py:attr", "py:exc", "py:data", "py:const", "py:obj",
    "func", "class", "meth", "mod", "attr", "exc", "data", "const", "obj",
)  # fmt: skip
MARK_LINE = re.compile(r"^\.\. kh-(section|block) ([A-Za-z0-9_.-]+)(?: section=([A-Za-z0-9_.-]+))?\s*$")
_ADORN = re.compile(r"^([=\-~^\"'`#*+:._!$%&,/;<>?@|{}()\[\]\\])\1+\s*$")
META_LINE = re.compile(r"^:(公開日|情報基準日|対象バージョン|記事状態):[ \t]*(.*)$")


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# -- headings and assembly ---------------------------------------------------------------------------------
def heading_lines(title: str, char: str) -> list[str]:
    return [title, char * max(column_width(title), 2)]


def _strip_blank_edges(text: str) -> list[str]:
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def assemble(
    title: str,
    metadata: dict[str, str],
    ai_scope: str,
    sections: Sequence[dict[str, Any]],
    blocks: Sequence[dict[str, Any]],
) -> str:
    """The draft text: title, metadata, the AI/human note, then each section's blocks in plan order."""
    lines = [*heading_lines(title, "="), ""]
    lines += [f":{name}: {metadata[name]}" for name in META_FIELDS]
    lines += ["", ".. note::", ""]
    lines += [f"   {line}" if line.strip() else "" for line in _strip_blank_edges(ai_scope)]
    lines.append("")
    for section in sections:
        sid = section["id"]
        lines += [f".. kh-section {sid}", "", *heading_lines(section["heading"], "-"), ""]
        for block in blocks:
            if block["section_id"] == sid:
                lines += [f".. kh-block {block['block_id']} section={sid}", ""]
                lines += _strip_blank_edges(block["rst"])
                lines.append("")
    return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class Block:
    block_id: str
    section_id: str
    marker_line: int  # 1-based
    start_line: int  # first line of the text (1-based); start > end for an empty block
    end_line: int
    text: str

    @property
    def sha256(self) -> str:
        return sha256_text(self.text)


@dataclass
class Layout:
    title: str | None
    title_line: int | None  # 1-based
    metadata: dict[str, tuple[str, int]]
    sections: list[tuple[str, str, int]]  # (id, heading, marker line)
    blocks: list[Block]
    markers: list[tuple[str, str, int]]  # (kind, id, line) in order


def find_headings(lines: Sequence[str]) -> list[tuple[int, int]]:
    """(title index, underline index) of underline-only section titles (0-based)."""
    out: list[tuple[int, int]] = []
    for i in range(len(lines) - 1):
        title, under = lines[i], lines[i + 1]
        if not title.strip() or title[0] in " \t" or _ADORN.match(title) or not _ADORN.match(under):
            continue
        if title.startswith(".. ") or title.rstrip().endswith("::"):
            continue
        if i > 0 and lines[i - 1].strip():
            continue  # not after a blank line (or an overline title, which the program never writes)
        out.append((i, i + 1))
    return out


def layout(text: str) -> Layout:
    lines = text.split("\n")
    headings = find_headings(lines)
    title: str | None = None
    title_line: int | None = None
    first_marker = next((n for n, ln in enumerate(lines) if MARK_LINE.match(ln)), len(lines))
    if headings and headings[0][0] < first_marker:
        idx = headings[0][0]
        title, title_line = lines[idx].rstrip(), idx + 1
    metadata: dict[str, tuple[str, int]] = {}
    for n, line in enumerate(lines[:first_marker]):
        meta = META_LINE.match(line)
        if meta and meta.group(1) not in metadata:
            metadata[meta.group(1)] = (meta.group(2).strip(), n + 1)
    markers: list[tuple[str, str, int]] = []
    sections: list[tuple[str, str, int]] = []
    blocks: list[Block] = []
    positions = [(n, MARK_LINE.match(ln)) for n, ln in enumerate(lines)]
    marks = [(n, m) for n, m in positions if m is not None]
    for k, (n, match) in enumerate(marks):
        kind, ident, section = match.group(1), match.group(2), match.group(3)
        markers.append((kind, ident, n + 1))
        end = marks[k + 1][0] if k + 1 < len(marks) else len(lines)
        if kind == "section":
            heading = next(
                (lines[i].rstrip() for i in range(n + 1, end - 1) if lines[i].strip() and _ADORN.match(lines[i + 1])),
                "",
            )
            sections.append((ident, heading, n + 1))
            continue
        start = n + 1
        if start < end and not lines[start].strip():
            start += 1
        stop = end
        while stop > start and not lines[stop - 1].strip():
            stop -= 1
        body = "\n".join(lines[start:stop])
        blocks.append(Block(ident, section or "", n + 1, start + 1, stop, body))
    return Layout(title, title_line, metadata, sections, blocks, markers)


def replace_blocks(text: str, replacements: dict[str, str]) -> str:
    """Replace the text of the named blocks; every other byte stays as it is."""
    lines = text.split("\n")
    for block in sorted(layout(text).blocks, key=lambda b: b.start_line, reverse=True):
        if block.block_id in replacements:
            new = _strip_blank_edges(replacements[block.block_id])
            lines[block.start_line - 1 : block.end_line] = new
    return "\n".join(lines)


def replace_front(text: str, *, title: str | None = None, metadata: dict[str, str] | None = None) -> str:
    """Replace the title and metadata values only (O-10's 'Draft表示の置換')."""
    lines = text.split("\n")
    lay = layout(text)
    for name, value in (metadata or {}).items():
        if name in lay.metadata:
            lines[lay.metadata[name][1] - 1] = f":{name}: {value}"
    if title is not None and lay.title_line is not None:
        idx = lay.title_line - 1
        lines[idx : idx + 2] = heading_lines(title, lines[idx + 1][:1] or "=")
    return "\n".join(lines)


def replace_note(text: str, note: str) -> str:
    """Replace the body of the first `.. note::` (the AI/human split) before the first section."""
    lines = text.split("\n")
    start = next((i for i, ln in enumerate(lines) if ln.strip() == ".. note::"), None)
    if start is None:
        return text
    end = start + 1
    while end < len(lines) and (not lines[end].strip() or lines[end].startswith((" ", "\t"))):
        end += 1
    while end > start + 1 and not lines[end - 1].strip():
        end -= 1
    body = [f"   {ln}" if ln.strip() else "" for ln in _strip_blank_edges(note)]
    lines[start + 1 : end] = ["", *body]
    return "\n".join(lines)


def manifest_for(
    text: str, sections: Sequence[dict[str, Any]], refs: dict[str, list[str]], **extra: Any
) -> dict[str, Any]:
    """draft_manifest.json: the draft's SHA-256, its sections and every block with refs, lines, SHA-256."""
    lay = layout(text)
    return {
        "format": MANIFEST_FORMAT,
        **extra,
        "title": lay.title,
        "draft_sha256": sha256_text(text),
        "sections": [
            {"section_id": s["id"], "heading": s["heading"], "packet_refs": list(s.get("packet_refs", []))}
            for s in sections
        ],
        "blocks": [
            {
                "block_id": b.block_id,
                "section_id": b.section_id,
                "packet_refs": list(refs.get(b.block_id, [])),
                "sha256": b.sha256,
                "start_line": b.start_line,
                "end_line": b.end_line,
            }
            for b in lay.blocks
        ],
    }


def refresh_manifest(text: str, manifest: dict[str, Any]) -> dict[str, Any]:
    """The same manifest for a changed text (after the automatic fix or a revision)."""
    refs = {b["block_id"]: b["packet_refs"] for b in manifest.get("blocks", [])}
    sections = [
        {"id": s["section_id"], "heading": s["heading"], "packet_refs": s["packet_refs"]}
        for s in manifest.get("sections", [])
    ]
    extra = {k: v for k, v in manifest.items() if k not in ("format", "title", "draft_sha256", "sections", "blocks")}
    return manifest_for(text, sections, refs, **extra)


# -- the one automatic fix ------------------------------------------------------------------------------------
def autofix(text: str) -> tuple[str, list[dict[str, Any]]]:
    """Fix trailing whitespace, the final newline and heading underline lengths; nothing else."""
    fixes: list[dict[str, Any]] = []
    had_final = text.endswith("\n")
    lines = text.split("\n")
    if had_final:
        lines = lines[:-1]
    for i, line in enumerate(lines):
        stripped = line.rstrip(" \t")
        if stripped != line:
            lines[i] = stripped
            fixes.append({"code": "TRAILING_WHITESPACE", "line": i + 1})
    for title_idx, under_idx in find_headings(lines):
        want = column_width(lines[title_idx])
        if len(lines[under_idx]) != want and want >= 2:
            lines[under_idx] = lines[under_idx][0] * want
            fixes.append({"code": "HEADING_UNDERLINE", "line": under_idx + 1})
    while lines and lines[-1] == "":
        lines.pop()
        fixes.append({"code": "TRAILING_WHITESPACE", "line": len(lines) + 1})
    if not had_final:
        fixes.append({"code": "NO_FINAL_NEWLINE", "line": len(lines)})
    return "\n".join(lines) + "\n", fixes


def block_problems(rst: str) -> list[tuple[str, str]]:
    """What a block of agent text may not contain: headings, internal markers, a leading indent."""
    out: list[tuple[str, str]] = []
    lines = _strip_blank_edges(rst)
    if lines and lines[0][:1] in (" ", "\t"):
        out.append(("BLOCK_FORMAT", "A block may not start indented (it would join the marker comment)."))
    if any(MARK_LINE.match(ln) or ln.startswith(".. kh-") for ln in lines):
        out.append(("BLOCK_FORMAT", "A block may not contain `.. kh-` marker lines."))
    if find_headings(["", *lines]) or any(_ADORN.match(ln) and len(ln.strip()) >= 4 for ln in lines):
        out.append(
            ("HEADING_IN_BLOCK", "A block may not contain a heading or a transition; the plan defines sections.")
        )
    return out
