"""The metadata-only writer: splice new `verification` and `evidence` blocks into a note's raw bytes.

Only those two top-level blocks may change. ruamel.yaml parses the frontmatter (to validate it and
to find the line span of each top-level key) and emits the new blocks; every other byte is copied
from the original. Where that cannot be done with certainty the splice is refused and the caller
keeps the original bytes. Kept apart from frontmatter.py (locating the block, which every read
needs) because ruamel.yaml is only needed to write.
"""

from __future__ import annotations

import datetime as dt
import io
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import yaml
from ruamel.yaml import YAML
from ruamel.yaml.events import (
    AliasEvent,
    DocumentEndEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
    StreamStartEvent,
)
from ruamel.yaml.representer import RoundTripRepresenter

from ..errors import InputError, SpliceRefused
from .frontmatter import BOM, find_frontmatter
from .yamlsafe import YamlRejected, load_mapping

WRITABLE_BLOCKS = ("verification", "evidence")
_ODD_BREAKS = ("\x85", "\u2028", "\u2029")
_KEEP_CHOMP = re.compile(r"[|>][1-9]?\+|[|>]\+[1-9]?")


@dataclass(frozen=True, slots=True)
class _Block:
    key: str
    first_line: int  # 0-based line inside the YAML text
    last_line: int  # inclusive


_RESOLVER_11 = yaml.resolver.Resolver()


def _yaml_11_misread(text: str) -> bool:
    """True when a YAML 1.1 reader (PyYAML, Obsidian's older parsers) would not read `text` as a string."""
    resolved = _RESOLVER_11.resolve(yaml.ScalarNode, text, (True, False))  # type: ignore[no-untyped-call]
    return bool(resolved != "tag:yaml.org,2002:str")


class _Representer(RoundTripRepresenter):
    def represent_str(self, data: str) -> Any:
        style = None
        if data and (_yaml_11_misread(data) or data != data.strip()):
            style = "'"
        return self.represent_scalar("tag:yaml.org,2002:str", data, style=style)


_Representer.add_representer(str, _Representer.represent_str)


def _emitter() -> YAML:
    out = YAML(typ="rt")
    out.Representer = _Representer
    out.default_flow_style = False
    out.indent(mapping=2, sequence=4, offset=2)
    out.width = 4096
    out.allow_unicode = True
    return out


def _plain(value: Any, where: str) -> Any:
    """Check and normalise a value to write: JSON-like data plus dates."""
    if value is None or isinstance(value, bool | int | float | str | dt.date):
        if isinstance(value, float) and value != value:
            raise InputError(f"{where}: NaN cannot be written.")
        return value
    if isinstance(value, Mapping):
        result: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise InputError(f"{where}: keys must be strings, got {key!r}.")
            result[key] = _plain(item, f"{where}.{key}")
        return result
    if isinstance(value, list | tuple):
        return [_plain(item, f"{where}[]") for item in value]
    raise InputError(f"{where}: cannot write a value of type {type(value).__name__}.")


def emit_block(key: str, mapping: Mapping[str, Any], newline: bytes = b"\n") -> bytes:
    """The YAML text of one top-level block `key:` holding `mapping`, with the given line ending."""
    data = _plain(mapping, key)
    stream = io.StringIO()
    _emitter().dump({key: data}, stream)
    text = stream.getvalue()
    if not text.endswith("\n"):
        text += "\n"
    return text.replace("\n", newline.decode("ascii")).encode("utf-8")


def _scan_blocks(yaml_text: str, path: str, keys: tuple[str, ...] = WRITABLE_BLOCKS) -> tuple[dict[str, _Block], bool]:
    """Top-level writable blocks and their line spans; bool = the frontmatter holds a mapping."""
    if any(ch in yaml_text for ch in _ODD_BREAKS) or re.search(r"\r(?!\n)", yaml_text):
        raise SpliceRefused(f"{path}: the frontmatter uses unusual line breaks; not writing.")
    for number, line in enumerate(yaml_text.splitlines(), start=1):
        indent = line[: len(line) - len(line.lstrip(" \t"))]
        if "\t" in indent and line.strip():
            raise SpliceRefused(f"{path}: frontmatter line {number + 1} is indented with a tab; not writing.")
    parser = YAML(typ="rt")
    try:
        events = list(parser.parse(yaml_text))
        parser.load(yaml_text)  # duplicate keys and other composer errors
    except Exception as exc:  # ruamel raises many error types
        raise SpliceRefused(f"{path}: the frontmatter is not valid YAML ({_first_line(exc)}); not writing.") from exc
    content = [e for e in events if not isinstance(e, StreamStartEvent | StreamEndEvent)]
    content = [e for e in content if not isinstance(e, DocumentStartEvent | DocumentEndEvent)]
    if not content:
        return {}, False
    top = content[0]
    if isinstance(top, ScalarEvent) and top.value == "" and len(content) == 1:
        return {}, False
    if not isinstance(top, MappingStartEvent):
        raise SpliceRefused(f"{path}: the frontmatter is not a mapping of properties; not writing.")
    if top.flow_style:
        raise SpliceRefused(f"{path}: the frontmatter is one flow-style mapping; not writing.")
    if top.anchor is not None or top.start_mark.column != 0:
        raise SpliceRefused(f"{path}: the frontmatter's top-level mapping is anchored or indented; not writing.")
    blocks: dict[str, _Block] = {}
    lines = yaml_text.split("\n")
    index = 1
    while index < len(content) and not isinstance(content[index], MappingEndEvent):
        key_event = content[index]
        value_start = index + 1
        depth = 0
        end = value_start
        while True:  # find the value's last event
            event = content[end]
            if isinstance(event, MappingStartEvent | SequenceStartEvent):
                depth += 1
            elif isinstance(event, MappingEndEvent | SequenceEndEvent):
                depth -= 1
            if depth == 0:
                break
            end += 1
        key = key_event.value if isinstance(key_event, ScalarEvent) else None
        if key in keys:
            assert key is not None
            if key in blocks:
                raise SpliceRefused(f"{path}: the frontmatter has '{key}' twice; not writing.")
            inner = content[index : end + 1]
            if any(isinstance(e, AliasEvent) or getattr(e, "anchor", None) is not None for e in inner):
                raise SpliceRefused(f"{path}: '{key}' uses YAML anchors or aliases; not writing.")
            value = content[value_start]
            if isinstance(value, MappingStartEvent) and value.flow_style:
                raise SpliceRefused(f"{path}: '{key}' is a flow-style mapping ({{...}}); not writing.")
            if key_event.start_mark.column != 0:
                raise SpliceRefused(f"{path}: '{key}' is not at the start of its line; not writing.")
            last = key_event.end_mark.line
            keep_trailing = False
            flow_stack: list[bool] = []
            for event in content[value_start : end + 1]:
                if isinstance(event, MappingStartEvent | SequenceStartEvent):
                    flow_stack.append(bool(event.flow_style))
                    last = max(last, event.start_mark.line)
                    if event.flow_style:
                        last = max(last, event.end_mark.line)
                elif isinstance(event, MappingEndEvent | SequenceEndEvent):
                    if flow_stack.pop():
                        last = max(last, _last_line(event))
                elif isinstance(event, ScalarEvent):
                    if event.value == "" and event.style is None and event.start_mark.index == event.end_mark.index:
                        continue  # an empty value: its mark points at the next token
                    last = max(last, _last_line(event))
                    if event.style in ("|", ">") and _KEEP_CHOMP.search(lines[event.start_mark.line]):
                        keep_trailing = True
            while not keep_trailing and last > key_event.start_mark.line and not lines[last].strip():
                last -= 1  # blank lines after a block scalar belong to what follows
            blocks[key] = _Block(key, key_event.start_mark.line, last)
        index = end + 1
    return blocks, True


def _last_line(event: Any) -> int:
    mark = event.end_mark
    return int(mark.line - 1 if mark.column == 0 and mark.line > event.start_mark.line else mark.line)


def _first_line(exc: Exception) -> str:
    return " ".join(str(exc).split())[:200]


def _line_offsets(data: bytes) -> list[int]:
    offsets = [0]
    pos = data.find(b"\n")
    while pos >= 0:
        offsets.append(pos + 1)
        pos = data.find(b"\n", pos + 1)
    return offsets


def _detect_newline(raw: bytes) -> bytes:
    first = raw.find(b"\n")
    return b"\r\n" if first > 0 and raw[first - 1 : first] == b"\r" else b"\n"


def replace_trust_blocks(
    raw: bytes,
    verification: Mapping[str, Any] | None,
    evidence: Mapping[str, Any] | None,
    *,
    path: str = "note",
) -> bytes:
    """New bytes of a note whose `verification` / `evidence` blocks are replaced (None: keep).

    Every byte outside those two top-level blocks stays identical: other keys and their order,
    comments, quoting, blank lines, the body, a BOM and the line endings. A missing block is
    appended at the end of the frontmatter; a note without frontmatter gets one. Raises
    SpliceRefused (and the caller keeps the original bytes) for invalid YAML, anchors or
    aliases or flow-style mappings in the two blocks, tabs in indentation, or anything that
    would not read back as exactly the new mappings.
    """
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SpliceRefused(f"{path}: the note is not valid UTF-8; not writing.") from exc
    if b"\x00" in raw:
        raise SpliceRefused(f"{path}: the note contains NUL bytes; not writing.")
    new_blocks = {k: v for k, v in (("verification", verification), ("evidence", evidence)) if v is not None}
    span = find_frontmatter(raw)
    if span is None:
        if not new_blocks:
            return raw
        start = len(BOM) if raw.startswith(BOM) else 0
        newline = _detect_newline(raw)
        head = b"".join(emit_block(k, v, newline) for k, v in new_blocks.items())
        result = raw[:start] + b"---" + newline + head + b"---" + newline + raw[start:]
    else:
        yaml_bytes = raw[span.yaml_start : span.yaml_end]
        _refuse_duplicate_keys(yaml_bytes.decode("utf-8"), path)
        blocks, _ = _scan_blocks(yaml_bytes.decode("utf-8"), path, tuple(new_blocks))
        offsets = _line_offsets(yaml_bytes)
        pieces: list[tuple[int, int, bytes]] = []  # (start, end, replacement) in yaml_bytes
        appended = b""
        for key, mapping in new_blocks.items():
            block = blocks.get(key)
            if block is None:
                appended += emit_block(key, mapping, span.newline)
                continue
            line_end = offsets[block.last_line + 1] if block.last_line + 1 < len(offsets) else len(yaml_bytes)
            original = yaml_bytes[offsets[block.first_line] : line_end]
            newline = b"\r\n" if original.endswith(b"\r\n") else span.newline
            pieces.append((offsets[block.first_line], line_end, emit_block(key, mapping, newline)))
        pieces.sort()
        out = bytearray()
        cursor = 0
        for begin, finish, replacement in pieces:
            out += yaml_bytes[cursor:begin] + replacement
            cursor = finish
        out += yaml_bytes[cursor:]
        if appended and out and not out.endswith(b"\n"):
            out += span.newline
        out += appended
        result = raw[: span.yaml_start] + bytes(out) + raw[span.yaml_end :]
    _check_readback(raw, result, new_blocks, path)
    return result


def _refuse_duplicate_keys(yaml_text: str, path: str) -> None:
    """A key set twice is a metadata error to fix by hand, never a block to overwrite (or keep)."""
    try:
        load_mapping(yaml_text)
    except YamlRejected as exc:
        problem = exc.problem
        if problem.first_line is not None and problem.line is not None:
            lines = f"lines {problem.first_line + 2} and {problem.line + 2}"  # the YAML starts on line 2
            raise SpliceRefused(f"{path}: {problem.message.removesuffix('.')} ({lines}); not writing.") from exc


def _check_readback(old: bytes, new: bytes, blocks: Mapping[str, Any], path: str) -> None:
    """The new bytes must read back as exactly the new mappings and the old other properties."""

    def props(raw: bytes) -> dict[str, Any]:
        span = find_frontmatter(raw)
        if span is None:
            return {}
        return load_mapping(raw[span.yaml_start : span.yaml_end].decode("utf-8"))

    try:
        before = props(old)
    except YamlRejected as exc:
        raise SpliceRefused(f"{path}: the frontmatter is not valid YAML ({exc}); not writing.") from exc
    try:
        after = props(new)
    except YamlRejected as exc:
        raise SpliceRefused(f"{path}: the new frontmatter would not read back ({exc}); not writing.") from exc
    expected = {k: v for k, v in before.items() if k not in blocks}
    got_other = {k: v for k, v in after.items() if k not in blocks}
    if got_other != expected:
        raise SpliceRefused(f"{path}: the splice would change other properties; not writing.")
    for key, mapping in blocks.items():
        if after.get(key) != _plain(mapping, key):
            raise SpliceRefused(f"{path}: '{key}' would not read back as written; not writing.")
    old_span, new_span = find_frontmatter(old), find_frontmatter(new)
    old_body = old[old_span.body_start :] if old_span else old.removeprefix(BOM)
    new_body = new[new_span.body_start :] if new_span else new
    if old_body != new_body:
        raise SpliceRefused(f"{path}: the splice would change the body; not writing.")
