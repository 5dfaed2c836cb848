"""The claims of a note: its sentences and list items, with the references each one cites.

Rule (docs/validator.md):
- Only the body counts (frontmatter excluded). Skipped: headings, fenced and indented code,
  block quotes and callouts (``>``), tables, HTML blocks and comments, footnote definitions,
  horizontal rules, and the whole references section (a heading named References, Sources,
  参考資料, 参考文献 or 出典, up to the next heading of the same or a higher level).
- A paragraph is cut into sentences (Japanese 。！？ outside 「」『』（） brackets, English
  sentence ends outside abbreviations, initials and decimals); a line break inside a paragraph is
  a boundary when either side is Japanese, otherwise the lines are joined with a space. Each
  list item is a block of its own and is cut the same way.
- Markdown markup is removed from the claim text (links keep their label, wikilinks their alias).
- A claim cites the URLs of its footnotes (``[^1]`` → the footnote's definition) and of its
  inline links; a claim that cites nothing cites every reference of the note.
- A claim's id is ``c-`` + the first 10 hex digits of the SHA-256 of its NFKC text (plus ``-2``,
  ``-3`` for repeats), so it is stable when other parts of the note change.
- Fragments with fewer than 4 letters are not claims.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Literal

from ...vault.note import Note, markdown_lines
from ...vault.references import REFERENCE_HEADINGS, URL_PATTERN, clean_url
from .text import has_cjk, is_cjk, nfkc, split_sentences

MAX_CLAIMS = 500

_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*(?:#+[ \t]*)?$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_LIST_ITEM = re.compile(r"^(\s*)(?:[-*+]|\d{1,9}[.)])(?:[ \t]+\[[ xX]\])?[ \t]+(.*)$")
_FOOTNOTE_DEF = re.compile(r"^ {0,3}\[\^([^\]\s]+)\]:\s*(.*)$")
_HR = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_TABLE = re.compile(r"^\s*\|.*\|\s*$")
_HTML_BLOCK = re.compile(r"^\s*<(?:!--|/?[a-zA-Z][a-zA-Z0-9-]*[\s>/])")

_FOOTNOTE_REF = re.compile(r"\[\^([^\]\s]+)\]")
_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)|!\[\[[^\]]*\]\]")
_LINK = re.compile(r"\[([^\]]*)\]\((\S+?)(?:\s+\"[^\"]*\")?\)")
_WIKILINK = re.compile(r"\[\[([^\]|#]*)(?:#[^\]|]*)?(?:\|([^\]]*))?\]\]")
_AUTOLINK = re.compile(r"<(https?://[^>\s]+)>")
_HTML_TAG = re.compile(r"</?[a-zA-Z][^>]*>|<!--.*?-->")
_EMPHASIS = re.compile(r"(\*\*|__|\*|_|~~|==)(?=\S)(.+?)(?<=\S)\1")
_CODE = re.compile(r"`+([^`]*)`+")
_TAG = re.compile(r"(?<!\S)#[^\s#]+")
_LETTER = re.compile(r"[^\W\d_]", re.UNICODE)


ClaimKind = Literal["sentence", "list_item"]


@dataclass(frozen=True, slots=True)
class Claim:
    id: str
    text: str
    line: int  # 1-based, inclusive, in the original file
    end_line: int
    references: tuple[str, ...]  # URLs this claim cites
    kind: ClaimKind = "sentence"


@dataclass
class _Block:
    kind: str
    lines: list[tuple[int, str]] = field(default_factory=list)  # (1-based file line, text)


def _clean_inline(text: str, footnotes: dict[str, str]) -> tuple[str, list[str]]:
    """Markdown markup out; returns the plain text and the URLs it cites."""
    cited: list[str] = []
    for m in _FOOTNOTE_REF.finditer(text):
        target = footnotes.get(m.group(1))
        if target:
            cited.extend(clean_url(u) for u in URL_PATTERN.findall(target))
    text = _FOOTNOTE_REF.sub("", text)
    text = _IMAGE.sub("", text)

    def link(m: re.Match[str]) -> str:
        url = m.group(2)
        if url.startswith(("http://", "https://")):
            cited.append(clean_url(url))
        return m.group(1)

    text = _LINK.sub(link, text)
    text = _WIKILINK.sub(lambda m: (m.group(2) or m.group(1)).strip(), text)

    def autolink(m: re.Match[str]) -> str:
        cited.append(clean_url(m.group(1)))
        return m.group(1)

    text = _AUTOLINK.sub(autolink, text)
    text = _HTML_TAG.sub("", text)
    text = _CODE.sub(lambda m: m.group(1), text)
    for _ in range(2):
        text = _EMPHASIS.sub(lambda m: m.group(2), text)
    text = _TAG.sub("", text)
    return re.sub(r"[ \t]+", " ", text).strip(), cited


def _heading_title(match: re.Match[str]) -> str:
    return (match.group(2) or "").strip().strip("*_").strip().lower()


def _blocks(lines: list[str], first_line: int) -> tuple[list[_Block], dict[str, str]]:
    blocks: list[_Block] = []
    footnotes: dict[str, str] = {}
    current: _Block | None = None
    fence: str | None = None
    ref_level = 0
    last_footnote: str | None = None

    def close() -> None:
        nonlocal current
        if current is not None and current.lines:
            blocks.append(current)
        current = None

    for offset, line in enumerate(lines):
        number = first_line + offset
        fence_m = _FENCE.match(line)
        if fence is not None:
            if fence_m and fence_m.group(1)[0] == fence[0] and len(fence_m.group(1)) >= len(fence):
                fence = None
            continue
        if fence_m:
            close()
            fence = fence_m.group(1)
            continue
        heading = _HEADING.match(line)
        if heading:
            close()
            level = len(heading.group(1))
            if ref_level and level <= ref_level:
                ref_level = 0
            if not ref_level and _heading_title(heading) in REFERENCE_HEADINGS:
                ref_level = level
            continue
        footnote = _FOOTNOTE_DEF.match(line)
        if footnote:
            close()
            footnotes[footnote.group(1)] = footnote.group(2)
            last_footnote = footnote.group(1)
            continue
        if not line.strip():
            close()
            last_footnote = None
            continue
        if last_footnote is not None and line.startswith(("    ", "\t")):
            footnotes[last_footnote] += " " + line.strip()
            continue
        if ref_level:
            continue
        if current is not None and current.kind == "paragraph" and _SETEXT.match(line):
            current = None  # the paragraph was a setext heading
            continue
        if _HR.match(line) or line.lstrip().startswith(">") or _TABLE.match(line) or _HTML_BLOCK.match(line):
            close()
            continue
        item = _LIST_ITEM.match(line)
        if item:
            close()
            current = _Block("list_item", [(number, item.group(2))])
            continue
        if current is None and (line.startswith("    ") or line.startswith("\t")):
            continue  # indented code
        if current is None:
            current = _Block("paragraph")
        current.lines.append((number, line.strip()))
    close()
    return blocks, footnotes


def _join(block: _Block) -> tuple[str, list[int]]:
    """Join a block's lines; returns the text and, per character, its file line."""
    parts: list[str] = []
    owners: list[int] = []
    for idx, (number, text) in enumerate(block.lines):
        if idx:
            prev = parts[-1] if parts else ""
            joiner = "\n" if (prev and is_cjk(prev[-1])) or (text and is_cjk(text[0])) else " "
            parts.append(joiner)
            owners.append(number)
        parts.append(text)
        owners.extend([number] * len(text))
    return "".join(parts), owners


def claim_id(text: str) -> str:
    return "c-" + hashlib.sha256(nfkc(text).encode("utf-8")).hexdigest()[:10]


def extract_claims_from_body(body: str, *, first_line: int = 1, references: list[str] | None = None) -> list[Claim]:
    """Claims of a Markdown body whose first line is `first_line` of the file."""
    all_refs = tuple(references or [])
    blocks, footnotes = _blocks(markdown_lines(body), first_line)
    claims: list[Claim] = []
    seen: dict[str, int] = {}
    for block in blocks:
        raw, owners = _join(block)
        for span in split_sentences(raw):
            text, cited = _clean_inline(span.text, footnotes)
            if len(_LETTER.findall(text)) < (2 if has_cjk(text) else 4):
                continue
            base = claim_id(text)
            seen[base] = seen.get(base, 0) + 1
            cid = base if seen[base] == 1 else f"{base}-{seen[base]}"
            refs = tuple(dict.fromkeys(cited)) or all_refs
            line = owners[min(span.start, len(owners) - 1)]
            end_line = owners[min(span.end - 1, len(owners) - 1)]
            kind: ClaimKind = "list_item" if block.kind == "list_item" else "sentence"
            claims.append(Claim(cid, text, line, end_line, refs, kind))
            if len(claims) >= MAX_CLAIMS:
                return claims
    return claims


def extract_claims(note: Note) -> list[Claim]:
    """The claims of a note (see the module docstring for the rule)."""
    return extract_claims_from_body(note.body, first_line=note.body_start_line, references=note.references)
