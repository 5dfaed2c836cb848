"""A note as the sidecar sees it: raw bytes, frontmatter span, properties, body and hashes."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, NamedTuple

from ..errors import InvalidNote
from .frontmatter import BOM, FrontmatterSpan, find_frontmatter
from .paths import Vault
from .references import note_references, references_sha256
from .yamlsafe import YamlRejected, load_mapping

MAX_NOTE_BYTES = 20 * 1024 * 1024


def markdown_lines(text: str) -> list[str]:
    """Lines as Markdown (and markdown-it-py) count them: only LF, CRLF and CR end a line.

    str.splitlines() also breaks at VT, FF, U+001C-U+001E, U+0085, U+2028 and U+2029, which
    would shift every line number after such a character away from the file's real lines.
    """
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


class NoteProblem(NamedTuple):
    """Why a note's properties could not be read; line and column are 1-based in the file."""

    message: str
    line: int | None = None
    column: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"message": self.message, "line": self.line, "column": self.column}


class Note(NamedTuple):
    path: str
    raw: bytes
    span: FrontmatterSpan | None
    properties: dict[str, Any]
    problem: NoteProblem | None
    text: str  # the whole file decoded (BOM removed); "" when not UTF-8

    @property
    def has_frontmatter(self) -> bool:
        return self.span is not None

    @property
    def has_bom(self) -> bool:
        return self.raw.startswith(BOM)

    @property
    def body_bytes(self) -> bytes:
        return self.raw[self.span.body_start :] if self.span else self.raw

    @property
    def body(self) -> str:
        return self.body_bytes.decode("utf-8", errors="replace").removeprefix("\ufeff")

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.raw).hexdigest()

    @property
    def content_sha256(self) -> str:
        """Public (docs/design/trust.md): SHA-256 of the bytes after the frontmatter's closing line, as stored."""
        return hashlib.sha256(self.body_bytes).hexdigest()

    @property
    def references(self) -> list[str]:
        return note_references(self.properties, self.body)

    @property
    def references_sha256(self) -> str:
        return references_sha256(self.references)

    @property
    def body_start_line(self) -> int:
        """1-based line number of the first body line."""
        return self.span.close_line + 1 if self.span else 1

    @property
    def title(self) -> str:
        value = self.properties.get("title")
        if isinstance(value, str) and value.strip():
            return value.strip()
        return Path(self.path).stem


def parse_note(path: str, raw: bytes) -> Note:
    """Parse raw bytes into a Note; never raises on bad content, records a problem instead."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        problem = NoteProblem(f"The note is not valid UTF-8 (byte {exc.start}).")
        return Note(path, raw, None, {}, problem, "")
    if "\x00" in text:
        return Note(path, raw, None, {}, NoteProblem("The note contains NUL bytes (binary file?)."), "")
    text = text.removeprefix("\ufeff")
    span = find_frontmatter(raw)
    if span is None:
        return Note(path, raw, None, {}, None, text)
    yaml_text = raw[span.yaml_start : span.yaml_end].decode("utf-8")
    try:
        properties = load_mapping(yaml_text)
    except YamlRejected as exc:
        p = exc.problem
        line = p.line + 2 if p.line is not None else None  # YAML starts on file line 2
        column = p.column + 1 if p.column is not None else None
        message = p.message
        if p.first_line is not None and line is not None:
            message = f"{message.removesuffix('.')} (lines {p.first_line + 2} and {line})."
        return Note(path, raw, span, {}, NoteProblem(message, line, column), text)
    return Note(path, raw, span, properties, None, text)


def read_note(vault: Vault, rel_path: str, *, max_bytes: int = MAX_NOTE_BYTES) -> Note:
    """Read one note through the vault's path confinement."""
    disk = vault.resolve_note(rel_path)
    size = disk.stat().st_size
    if size > max_bytes:
        raise InvalidNote(
            f"The note is {size} bytes, more than the limit of {max_bytes} bytes.",
            detail={"path": vault.rel(disk), "size": size},
        )
    return parse_note(vault.rel(disk), disk.read_bytes())


def read_note_head(disk: Path, limit: int) -> bytes:
    """At most the first `limit` bytes of a note already confined to the vault (plain search)."""
    with disk.open("rb") as handle:
        return handle.read(limit)


def read_note_file(path: str, disk: Path, *, max_bytes: int = MAX_NOTE_BYTES) -> Note:
    """Read a note already found by a scan; an oversized file becomes a problem, not an error."""
    size = disk.stat().st_size
    if size > max_bytes:
        return Note(path, b"", None, {}, NoteProblem(f"The note is larger than {max_bytes} bytes; skipped."), "")
    return parse_note(path, disk.read_bytes())
