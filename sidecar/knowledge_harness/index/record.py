"""One note as the index keeps it: its record, a pure function of its path and bytes, and its links
resolved against the vault's paths."""

from __future__ import annotations

import hashlib
import posixpath
import re
import unicodedata
from collections.abc import Callable
from typing import Any, NamedTuple

from ..core import jsoncodec
from ..vault.note import MAX_NOTE_BYTES, Note, markdown_lines, parse_note
from ..vault.references import note_references, references_sha256
from .links import RawLink, Resolver, alias_list, extract, mask_code, property_links, property_list
from .parse import decode_text, parse_structure

MAX_TOP_HEADINGS = 20
TOO_LARGE = f"The note is larger than {MAX_NOTE_BYTES} bytes; not indexed."


class NoteSections(NamedTuple):
    """Where a note's sections are, as the build's parse found them: what the search layer would
    parse the note again for (search.note_document), handed over by the build instead."""

    headings: list[tuple[int, str, int]]  # (level, title, line) of each heading, in order
    code_lines: list[tuple[int, int]]  # inclusive ranges of code lines
    body_start_line: int
    line_count: int


# Sections are handed to the search layer only for notes with at most this many headings: the
# build keeps them until the next build, and a heading bomb's would be megabytes.
MAX_HANDED_HEADINGS = 4096

# path, id, size, mtime_ns, sha256, then `ParsedNote.lite`'s six: a ParsedNote's fields but its record and links
NoteFacts = tuple[str, str, int, int, str, str, str | list[str] | None, list[str], int, dict[str, Any] | None, str]


class ParsedNote(NamedTuple):
    """One note as parsed (frozen: a named tuple; dataclasses would cost `kh index build` its
    import): its stat, the SHA-256 of its bytes, the facts every build reads of its
    record, and the record itself (canonical JSON) with the note's raw links (as the record's
    "links"). A pure function of the file; nothing a build derives from other notes is here.

    `record_json` and `links` are None while they are kept only in the note's cache line (a note
    loaded from the cache or parsed by a helper process, to hold each record once): the build's
    entry (build_state.IndexedNote) unpacks them into a complete copy (`with_record`) on first use.
    """

    path: str
    id: str
    size: int
    mtime_ns: int
    sha256: str
    title: str
    type: str | list[str] | None
    tags: list[str]
    heading_count: int
    error: dict[str, Any] | None
    parser: str
    record_json: bytes | None = None
    links: list[list[Any]] | None = None
    # the note's sections, for the search layer: kept only for a note parsed in this process,
    # until the next build (see build._Run.next_state); None otherwise
    sections: NoteSections | None = None

    def record(self) -> dict[str, Any]:
        assert self.record_json is not None, "unpacked from the cache line first (IndexedNote)"
        rec: dict[str, Any] = jsoncodec.loads(self.record_json)
        return rec

    def with_record(self, record_json: bytes, links: list[list[Any]]) -> ParsedNote:
        return ParsedNote(*self.facts(), record_json, links)

    def without_record(self) -> ParsedNote:
        return ParsedNote(*self.facts())

    def restamped(self, size: int, mtime_ns: int) -> ParsedNote:
        """The same bytes under a new stat (a touched file)."""
        return ParsedNote(
            self.path, self.id, size, mtime_ns, self.sha256, *self.lite(), self.record_json, self.links, self.sections
        )

    def without_sections(self) -> ParsedNote:
        return ParsedNote(*self.facts(), self.record_json, self.links)

    def lite(self) -> tuple[str, str | list[str] | None, list[str], int, dict[str, Any] | None, str]:
        """title, type, tags, heading_count, error, parser."""
        return self.title, self.type, self.tags, self.heading_count, self.error, self.parser

    def facts(self) -> NoteFacts:
        """Every field but the record and the links, in order (`ParsedNote(*facts)` is the light copy)."""
        return (self.path, self.id, self.size, self.mtime_ns, self.sha256, *self.lite())


def parsed_note(
    path: str, size: int, mtime_ns: int, sha256: str, rec: dict[str, Any], sections: NoteSections | None = None
) -> ParsedNote:
    """A note's ParsedNote from its record (parse_record's or unreadable_record's)."""
    return ParsedNote(
        path,
        note_id(path),
        size,
        mtime_ns,
        sha256,
        rec["title"],
        rec["type"],
        rec["tags"],
        rec["heading_count"],
        rec["error"],
        rec["parser"],
        jsoncodec.dumps(rec, sort_keys=True),  # serialize.encode (which imports this module)
        rec["links"],
        sections,
    )


def note_id(path: str) -> str:
    """Stable id of a note: the first 16 hex digits of the SHA-256 of its NFC path."""
    return hashlib.sha256(unicodedata.normalize("NFC", path).encode("utf-8")).hexdigest()[:16]


def heading_tree(flat: list[tuple[int, str, int]], line_count: int) -> list[dict[str, Any]]:
    """Nest flat (level, title, line) headings; end_line = line before the next same-or-higher heading."""
    roots: list[dict[str, Any]] = []
    stack: list[dict[str, Any]] = []
    for level, title, line in flat:
        while stack and stack[-1]["level"] >= level:
            stack.pop()["end_line"] = line - 1
        node: dict[str, Any] = {"level": level, "title": title, "line": line, "end_line": line_count, "children": []}
        (stack[-1]["children"] if stack else roots).append(node)
        stack.append(node)
    return roots


def _trust(
    properties: dict[str, Any], content_sha: Callable[[], str], refs: Callable[[], str]
) -> dict[str, Any] | None:
    """The note's trust summary; `content_sha` and `refs` are called only when the note records
    the hash each checks (hashing every body cost ~3 % of parsing a vault)."""
    ver = properties.get("verification")
    if not isinstance(ver, dict):
        return None
    level = ver.get("level")
    status = ver.get("status")
    stored_content = ver.get("content_sha256")
    stored_refs = ver.get("references_sha256")
    revalidate = ver.get("revalidate_after")
    return {
        "level": level if isinstance(level, int) and not isinstance(level, bool) else None,
        "status": status if isinstance(status, str) else None,
        "content_match": (stored_content == content_sha()) if isinstance(stored_content, str) else None,
        "references_match": (stored_refs == refs()) if isinstance(stored_refs, str) else None,
        "revalidate_after": str(revalidate) if revalidate is not None else None,
    }


MAX_HEADING_TITLES = 200


def heading_titles(headings: list[dict[str, Any]], limit: int | None = MAX_HEADING_TITLES) -> list[str]:
    """The titles of a heading tree in document order, the first `limit` (None: all)."""
    out: list[str] = []
    stack = list(reversed(headings))
    while stack and (limit is None or len(out) < limit):
        h = stack.pop()
        out.append(h["title"])
        stack.extend(reversed(h["children"]))
    return out


# A heading that opens a references section (vault/references.py: `#`s, blanks, then a title that
# is one of REFERENCE_HEADINGS after strip/strip("*_")/lower) contains this; re.I matches every
# character whose lower() does, so a body without a match has no references section.
_REF_SECTION_HINT = re.compile(r"#[ \t][\s*_]*(?:references|sources|参考資料|参考文献|出典)", re.IGNORECASE)


def _references_sha(note: Note) -> str:
    """note.references_sha256, without scanning the body line by line when it has no references section."""
    body = note.body
    if _REF_SECTION_HINT.search(body) is None:
        return references_sha256(note_references(note.properties, ""))
    return references_sha256(note_references(note.properties, body))


def _title(note: Note) -> str:
    """note.title without building a pathlib.Path for the common case (PurePosixPath.stem's rule)."""
    value = note.properties.get("title")
    if isinstance(value, str) and value.strip():
        return value.strip()
    path = note.path
    if "//" in path or "/." in path or path.startswith(".") or path.endswith("/") or not path:
        return note.title
    name = path.rpartition("/")[2]
    i = name.rfind(".")
    return name[:i] if 0 < i < len(name) - 1 else name


def _scalar_text(value: Any) -> str | None:
    if isinstance(value, str | int | float) and not isinstance(value, bool):
        text = str(value).strip()
        return text or None
    return None


def _keyword(value: Any) -> str | list[str] | None:
    """A `type` or `status` property as written: one value, or a list of them when the note gives
    a list (`type: ["[[UI]]", guide]`, as Obsidian's list properties are); a one-item list stays
    a list, so the record says what the note says."""
    if isinstance(value, list):
        return [t for t in (_scalar_text(v) for v in value) if t is not None]
    return _scalar_text(value)


def keyword_values(value: Any) -> list[str]:
    """The values a type/status filter compares with: each item, a `[[link]]` read as its target."""
    items = value if isinstance(value, list) else [value] if isinstance(value, str) else []
    out = []
    for item in items:
        text = str(item).strip()
        if text.startswith("[[") and text.endswith("]]"):
            text = text[2:-2].split("|", 1)[0].split("#", 1)[0].strip()
        out.append(text.lower())
    return out


def _too_many_headings(error: dict[str, Any] | None, kept: int, found: int, line: int) -> dict[str, Any]:
    """The finding of a note over parse.MAX_HEADINGS (after its YAML error, when it has one)."""
    message = (
        f"The note has {found} headings; the first {kept} are its sections, "
        f"the headings from line {line} on are read as the last section's text."
    )
    if error is None:
        return {"message": message, "line": line, "column": None}
    return {**error, "message": f"{error['message']} {message}"}


def parse_record(path: str, raw: bytes) -> dict[str, Any]:
    """Everything the index keeps about one note; a pure function of its path and bytes."""
    return parse_record_and_sections(path, raw)[0]


def parse_record_and_sections(path: str, raw: bytes) -> tuple[dict[str, Any], NoteSections | None]:
    """parse_record's record, and the note's sections for the search layer (None for a note that
    is not text or has more than MAX_HANDED_HEADINGS headings)."""
    note = parse_note(path, raw)
    sections = None
    props = note.properties
    # parse_note decoded the text already ("" when it is not UTF-8 or holds NUL, as decode_text's None)
    text = note.text if note.text else decode_text(raw)
    error = note.problem.as_dict() if note.problem else None
    flat: list[tuple[int, str, int]] = []
    heading_count = 0
    links: list[RawLink] = []
    inline_tags: list[str] = []
    external: list[str] = []
    line_count = 0
    body_start = 1
    parser = "none"
    lines: list[str] = []
    if text is not None:
        lines = markdown_lines(text)
        structure = parse_structure(text, lines)
        line_count = structure.line_count
        body_start = structure.body_start_line
        parser = structure.scanner
        heading_count = len(structure.headings)
        flat = [(h.level, h.title, h.line) for h in structure.headings]
        if structure.more_headings:
            # a heading bomb: the first parse.MAX_HEADINGS are the note's sections, a finding says so
            found = heading_count + structure.more_headings
            error = _too_many_headings(error, heading_count, found, structure.first_more_line)
        if heading_count <= MAX_HANDED_HEADINGS and not structure.more_headings:
            sections = NoteSections(flat, structure.code_lines, body_start, line_count)
        body = mask_code(lines, structure.code_lines, body_start)
        del structure  # its 1.5 M FlatHeadings in a heading bomb: gone before the links are read
        links, inline_tags, external = extract(body, body_start)
        del body
        if body_start > 1 and note.properties:
            links = property_links(lines, body_start) + links
    first = flat[0][2] if flat else line_count + 1
    preamble = None
    if first > body_start and text is not None:
        lines_pre = lines[body_start - 1 : first - 1]
        if any(line.strip() for line in lines_pre):
            preamble = {"line": body_start, "end_line": first - 1}
    # a heading bomb (1.5 M headings): the lines and the flat list go before the tree is made
    del lines
    headings = heading_tree(flat, line_count)
    # the tree read in document order (heading_titles) is the flat list: its titles, without the walk
    titles = [title for _, title, _ in flat[:MAX_HEADING_TITLES]]
    del flat
    tags = sorted({t.lstrip("#") for t in property_list(props.get("tags")) if t.lstrip("#")} | set(inline_tags))
    aliases = alias_list(props.get("aliases", props.get("alias")))
    record = {
        "title": _title(note),
        "type": _keyword(props.get("type")),
        "status": _keyword(props.get("status")),
        "tags": tags,
        "aliases": sorted(set(aliases)),
        "headings": headings,
        "heading_count": heading_count,
        "top_headings": [h["title"] for h in headings[:MAX_TOP_HEADINGS]],
        "heading_titles": titles,
        "preamble": preamble,
        "line_count": line_count,
        "links": links,
        "external_links": sorted(external),
        "trust": _trust(props, lambda: note.content_sha256, lambda: _references_sha(note)),
        "error": error,
        "parser": parser,
    }
    return record, sections


def unreadable_record(path: str, message: str) -> dict[str, Any]:
    return {
        "title": posixpath.splitext(posixpath.basename(path))[0],
        "type": None,
        "status": None,
        "tags": [],
        "aliases": [],
        "headings": [],
        "heading_count": 0,
        "top_headings": [],
        "heading_titles": [],
        "preamble": None,
        "line_count": 0,
        "links": [],
        "external_links": [],
        "trust": None,
        "error": {"message": message, "line": None, "column": None},
        "parser": "none",
    }


# (kind, target, heading, block, line, status, path, candidates) of a link that is not an attachment
ResolvedLink = tuple[str, str, str | None, str | None, int, str, str | None, list[str]]


def resolve_links(path: str, raw_links: list[list[Any]], resolver: Resolver) -> tuple[list[ResolvedLink], list[str]]:
    resolved: list[ResolvedLink] = []
    out: set[str] = set()
    for kind, target, heading, block, line in raw_links:
        status, to, candidates = resolver.resolve(path, kind, target)
        if status == "attachment":
            continue
        if status == "resolved" and to is not None:
            out.add(to)
        resolved.append((kind, target, heading, block, line, status, to, candidates))
    return resolved, sorted(out)
