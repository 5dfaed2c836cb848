"""Links, embeds, tags and external URLs of a note, and Obsidian-style link resolution.

Extraction runs on the body with code masked (fenced and indented code blocks from the
block structure, inline code spans by a regex), so `[[x]]` or `#tag` inside code is ignored.

Resolution follows Obsidian: a target is matched as an exact vault path (with or without
`.md`), then relative to the linking note's folder (Markdown links), then as a path suffix,
then by unique file name; all comparisons are NFC and case-insensitive after an exact
case-sensitive try. Several candidates at the last step make the link ambiguous.
"""

from __future__ import annotations

import posixpath
import re
import unicodedata
from collections.abc import Iterable
from typing import Any
from urllib.parse import unquote

_WIKILINK = re.compile(r"\[\[([^\[\]\n]+?)\]\]")
_MDLINK = re.compile(r"\[([^\]\n]*)\]\(\s*(<[^>\n]+>|[^)\s]+)(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'))?\s*\)")
_URL = re.compile(r"https?://[^\s<>()\[\]\"'`|]+")
_TAG = re.compile(r"#([^\s#!-,.:-@\[-\^`{-~\u3000-\u3002\uff01\uff0c\uff0e\uff1a\uff1f]+)")
# "``*" rather than "`+": a pattern that starts with a literal is searched for by that character
# (a fast scan of the text); one that starts with a repetition is tried at every position, ~3x
# slower on the real vault's notes, where blanking code spans was ~6 % of the build
_CODE_SPAN = re.compile(r"(``*)(?!`).+?(?<!`)\1(?!`)", re.DOTALL)
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_TRAILING = ".,;:!?。、）」』】"
_NOTE_EXT = ".md"


# A link as the record keeps it: [kind, target, heading, block, line]. kind: "wikilink" | "embed" |
# "markdown" | "property" (a [[link]] in a property's value); target: the path part, NFC, decoded;
# heading and block: str or None; line: 1-based in the file. A list, as the record's JSON has it
# (a named tuple per link, copied into a list for the record, cost ~1 % of a build).
RawLink = list[Any]


def _nfc(text: str) -> str:
    return text if text.isascii() else unicodedata.normalize("NFC", text)


def mask_code(lines: list[str], code_ranges: Iterable[tuple[int, int]], first_line: int) -> str:
    """The body text (from 1-based `first_line`) with code lines emptied and code spans blanked."""
    masked = lines[first_line - 1 :]
    ranges = list(code_ranges)
    if ranges:
        masked = list(masked)
        for start, end in ranges:
            for i in range(max(start, first_line), end + 1):
                masked[i - first_line] = ""
    text = "\n".join(masked)
    if "`" in text:
        text = _CODE_SPAN.sub(_blanked, text)
    return text


def _blanked(m: re.Match[str]) -> str:
    """A code span with every character but line breaks made a space (str methods: a regex
    substitution per span was ~10 % of parsing a real vault's notes)."""
    span = m.group(0)
    if "\n" not in span:
        return " " * len(span)
    return "\n".join(" " * len(part) for part in span.split("\n"))


def _wikilink_parts(inner: str) -> tuple[str, str | None, str | None]:
    """(target, heading, block) of a wikilink's inside `target#heading|alias` or `target#^block`."""
    target = inner.split("|", 1)[0]
    heading: str | None = None
    block: str | None = None
    if "#" in target:
        target, frag = target.split("#", 1)
        if frag.startswith("^"):
            block = frag[1:].strip()
        else:
            heading = frag.strip()
    return _nfc(target.strip()), heading, block


def extract(text: str, first_line: int) -> tuple[list[RawLink], list[str], list[str]]:
    """Links, inline tags and external URLs of a masked body text."""
    links: list[RawLink] = []
    urls: dict[str, None] = {}
    if "[[" in text:
        _wikilinks(text, first_line, links)
    if "](" in text:
        _markdown_links(text, first_line, links, urls)
    if "http" in text:
        for u in _URL.findall(text):
            urls.setdefault(u.rstrip(_TRAILING), None)
    tags: list[str] = []
    if "#" in text:
        for m in _TAG.finditer(text):
            start = m.start()
            if start > 0 and not (text[start - 1].isspace() or text[start - 1] == "("):
                continue
            t = m.group(1).rstrip("/")
            if t and not t.replace("/", "").isdigit():
                tags.append(_nfc(t))
    return links, tags, list(urls)


# Each of the two passes below numbers its links' lines by counting the line breaks since its
# previous link (the matches come in text order).


def _wikilinks(text: str, first_line: int, links: list[RawLink]) -> None:
    """The [[wikilinks]] and ![[embeds]] of `text`, appended to `links`."""
    line, counted = first_line, 0
    for m in _WIKILINK.finditer(text):
        start = m.start()
        target, heading, block = _wikilink_parts(m.group(1))
        kind = "embed" if start > 0 and text[start - 1] == "!" else "wikilink"
        line += text.count("\n", counted, start)
        counted = start
        links.append([kind, target, heading, block, line])


def _markdown_links(text: str, first_line: int, links: list[RawLink], urls: dict[str, None]) -> None:
    """The [Markdown](links) and ![embeds](...) of `text`, appended to `links`; http(s) ones to `urls`."""
    line, counted = first_line, 0
    for m in _MDLINK.finditer(text):
        dest = m.group(2)
        if dest.startswith("<"):
            dest = dest[1:-1]
        if _SCHEME.match(dest):
            if dest.lower().startswith(("http://", "https://")):
                urls.setdefault(dest, None)
            continue
        path, _, frag = dest.partition("#")
        heading = block = None
        if frag:
            frag = unquote(frag) if "%" in frag else frag
            if frag.startswith("^"):
                block = frag[1:]
            else:
                heading = frag
        start = m.start()
        kind = "embed" if start > 0 and text[start - 1] == "!" else "markdown"
        target = unquote(path) if "%" in path else path
        line += text.count("\n", counted, start)
        counted = start
        links.append([kind, _nfc(target), heading, block, line])


def property_links(lines: list[str], body_start: int) -> list[RawLink]:
    """`[[links]]` in the frontmatter's property values (Obsidian shows and follows them), of kind
    "property"; `lines` are the note's lines, the frontmatter those before `body_start` (1-based)."""
    out: list[RawLink] = []
    for i in range(1, body_start - 2):  # between the opening and closing ---
        text = lines[i]
        if "[[" not in text:
            continue
        for m in _WIKILINK.finditer(text):
            out.append(["property", *_wikilink_parts(m.group(1)), i + 1])
    return out


def property_name(lines: list[str], line: int) -> str | None:
    """The top-level property whose value holds 1-based `line` of the frontmatter."""
    for i in range(min(line, len(lines)) - 1, 0, -1):
        text = lines[i]
        if text[:1] not in ("", " ", "\t", "-", "#") and ":" in text:
            return text.split(":", 1)[0].strip().strip("'\"") or None
    return None


def property_list(value: Any) -> list[str]:
    """A list-or-string property (tags, aliases) as a list of strings."""
    if value is None:
        return []
    if isinstance(value, str):
        parts = re.split(r"[,\s]+", value) if "," in value or " " in value.strip() else [value]
        return [p for p in (x.strip() for x in parts) if p]
    if isinstance(value, list | tuple):
        return [str(v).strip() for v in value if v is not None and str(v).strip()]
    return [str(value)]


def alias_list(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value.strip()] if value.strip() else []
    return property_list(value)


def _extension(name: str) -> str:
    """posixpath.splitext(name)[1] of a name without "/" (a link target's is looked up per link)."""
    dot = name.rfind(".")
    if dot > 0 and (name[0] != "." or name[:dot].lstrip(".")):
        return name[dot:]
    return ""


def _beside(source: str, path: str) -> str:
    """posixpath.normpath(posixpath.join(posixpath.dirname(source), path)) for a `path` without a
    leading "/": the joined text itself when it has no "." or ".." part, no empty part and no final
    "/" (then normpath keeps it as it is), without the three calls."""
    joined = source[: source.rfind("/") + 1] + path
    if joined and "//" not in joined and "/." not in joined and joined[0] != "." and joined[-1] != "/":
        return joined
    return posixpath.normpath(posixpath.join(posixpath.dirname(source), path))


class Resolver:
    """Resolves link targets against the set of note paths, as Obsidian does."""

    def __init__(self, paths: Iterable[str]) -> None:
        self.paths = set(paths)
        self.lower: dict[str, list[str]] = {}  # lowercase path -> paths, sorted
        self.by_name: dict[str, list[str]] = {}  # lowercase file name without .md -> paths, sorted
        self._by_suffix: dict[str, list[str]] | None = None  # see by_suffix, made on first use
        self._simple: dict[str, tuple[str, str | None, list[str]]] = {}
        self._near: dict[tuple[str, str, str], tuple[str, str | None, list[str]]] = {}  # see resolve
        lower, by_name = self.lower, self.by_name
        for p in sorted(self.paths):
            low = p.lower()
            hits = lower.get(low)
            if hits is None:
                lower[low] = [p]
            else:
                hits.append(p)
            stem = p.rpartition("/")[2][: -len(_NOTE_EXT)].lower()  # lower() of the name alone (final sigma)
            hits = by_name.get(stem)
            if hits is None:
                by_name[stem] = [p]
            else:
                hits.append(p)

    @property
    def by_suffix(self) -> dict[str, list[str]]:
        """ "/" + every lowercase path suffix after a "/" -> paths, sorted: the paths whose lowercase
        form ends with the key are exactly these (a path's suffixes are cut from its own lower())."""
        if self._by_suffix is None:
            self._by_suffix = {}
            for low, hits in sorted(self.lower.items()):
                slash = low.find("/")
                while slash >= 0:
                    self._by_suffix.setdefault(low[slash:], []).extend(hits)
                    slash = low.find("/", slash + 1)
            for hits in self._by_suffix.values():
                hits.sort()
        return self._by_suffix

    def resolve(self, source: str, kind: str, target: str) -> tuple[str, str | None, list[str]]:
        """(status, path, candidates) of a link of `kind` from `source`: status resolved |
        unresolved | ambiguous | self | attachment."""
        target = target.strip()
        if kind == "property":  # a [[link]] in a property is resolved as a wikilink
            kind = "wikilink"
        if kind == "wikilink" and target and "/" not in target and "." not in target:
            # the common case, a bare note name: the same answer from every folder (not so for an
            # embed, which is also looked up beside its note: a cache shared by every folder gave
            # an answer that depended on which note asked first)
            # keyed as written: "A" finds A.md before a.md, so the case of the name decides
            key = target
            hit = self._simple.get(key)
            if hit is None:
                hit = self._resolve(source, kind, target)
                if hit[0] != "self":
                    self._simple[key] = hit
            if hit[1] == source:
                return ("self", source, [])
            return hit
        if not target:
            return ("self", source, [])
        # the answer depends on the note's folder alone, but for whether it names the note itself:
        # kept per folder (a real vault's Markdown links repeat their targets across a folder's notes)
        near = (source[: source.rfind("/") + 1], kind, target)
        hit = self._near.get(near)
        if hit is None:
            hit = self._near[near] = self._resolve(source, kind, target)
        if hit[0] == "self" or (hit[0] == "resolved" and hit[1] == source):
            return ("self" if hit[1] == source else "resolved", hit[1], [])
        return hit

    def _resolve(self, source: str, kind: str, target: str) -> tuple[str, str | None, list[str]]:
        if not target:
            return ("self", source, [])
        target = target.lstrip("/")
        ext = _extension(target[target.rfind("/") + 1 :]).lower()
        if ext and ext != _NOTE_EXT and not self._exists_note(target + _NOTE_EXT):
            return ("attachment", None, [])
        with_ext = target if ext == _NOTE_EXT else target + _NOTE_EXT
        found = self._exact(with_ext)
        if found is None and kind != "wikilink":
            rel = _beside(source, with_ext)
            if not rel.startswith("../"):
                found = self._exact(rel)
        if found is None and "/" in with_ext:
            matches = self.by_suffix.get("/" + with_ext.lower(), [])
            if len(matches) == 1:
                found = matches[0]
            elif len(matches) > 1:
                return ("ambiguous", None, list(matches))
        if found is None:
            name = posixpath.basename(with_ext)[: -len(_NOTE_EXT)].lower()
            matches = self.by_name.get(name, [])
            if len(matches) == 1:
                found = matches[0]
            elif len(matches) > 1:
                return ("ambiguous", None, list(matches))
        if found is None:
            return ("unresolved", None, [])
        return ("self" if found == source else "resolved", found, [])

    def _exists_note(self, path: str) -> bool:
        return self._exact(path) is not None

    def _exact(self, path: str) -> str | None:
        if path in self.paths:
            return path
        hits = self.lower.get(path.lower())
        if hits and len(hits) == 1:
            return hits[0]
        return None
