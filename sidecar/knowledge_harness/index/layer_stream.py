"""One page of a large note layer, read as a stream: memory bounded by the page, not the note.

A note with half a million headings has an index layer of ~80 MB; loading it whole costs ~500 MB
of Python objects per request, so three concurrent heading requests took the sidecar past 600 MB.
Layers larger than STREAM_LAYER_BYTES are read with ijson's C parser instead, keeping only the
page of headings asked for, the links on the page's lines and the note's small fields.

The layer is canonical JSON (keys sorted, written by index/build.py): a heading's `children` come
before its `end_line`, `level`, `line` and `title`, and `headings` before `links`. So a heading is
numbered (document order) when it starts, its fields are known when it ends, and the page's line
range is known before the first link is read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, BinaryIO

import ijson

# Below this size the whole layer is loaded (faster, and small); above it the layer is streamed.
STREAM_LAYER_BYTES = 8 * 1024 * 1024
# The small top-level fields a headings or section answer needs.
_META_KEYS = frozenset({"id", "sha256", "title", "line_count", "preamble"})


class LayerOutOfOrder(ValueError):
    """The layer is not in the order the build writes (keys sorted); load it whole instead."""


@dataclass(slots=True)
class HeadingsPage:
    meta: dict[str, Any]
    headings: list[dict[str, Any]]  # the page's tree, as _page_of_headings builds it
    total: int
    first_line: int | None
    next_line: int | None
    links: list[dict[str, Any]] = field(default_factory=list)  # on the page's lines, at most link_cap
    found: dict[str, Any] | None = None  # the first heading (document order) titled `find_title`


@dataclass(slots=True)
class _Frame:
    prefix: str
    number: int
    copy: dict[str, Any] | None  # the heading's copy on the page, None when it is not on it
    fields: dict[str, Any] = field(default_factory=dict)


def _is_heading_start(prefix: str) -> bool:
    return prefix == "headings.item" or prefix.endswith(".children.item")


def read_headings_page(
    handle: BinaryIO,
    *,
    offset: int,
    limit: int,
    link_cap: int,
    find_title: str | None = None,
) -> HeadingsPage:
    """Headings number offset .. offset+limit-1 of the layer in `handle`, nested as in the note
    (a heading whose parent is not on the page is at the page's top level), and the links on lines
    from the page's first heading (line 1 for the first page) to the next page's first heading."""
    end = offset + limit
    want = find_title.strip().lower() if find_title is not None else None
    page = HeadingsPage(meta={}, headings=[], total=0, first_line=None, next_line=None)
    found_number: int | None = None
    frames: list[_Frame] = []
    headings_done = False
    builder: ijson.ObjectBuilder | None = None
    builder_key = ""
    depth = 0
    start_line: int | None = None
    stop_line = float("inf")

    for prefix, event, value in ijson.parse(handle, use_float=True):
        if builder is not None:  # building one small value: a meta field or one link
            builder.event(event, value)
            depth += _DEPTH.get(event, 0)
            if depth == 0:
                _keep(page, builder_key, builder.value, start_line, stop_line, link_cap)
                builder = None
            continue
        if event == "start_map" and _is_heading_start(prefix):
            if headings_done:
                raise LayerOutOfOrder("headings after links")
            number = page.total
            page.total += 1
            copy: dict[str, Any] | None = None
            if offset <= number < end:
                copy = {}
                # pre-order numbering: a parent before the page's first heading is the only one off it
                parent = frames[-1].copy if frames else None
                (parent.setdefault("children", []) if parent is not None else page.headings).append(copy)
            frames.append(_Frame(prefix, number, copy))
        elif frames:
            top = frames[-1]
            if event == "end_map" and prefix == top.prefix:
                frames.pop()
                _finish(top, page, offset, end)
                matches = want is not None and str(top.fields.get("title", "")).strip().lower() == want
                if matches and (found_number is None or top.number < found_number):
                    found_number, page.found = top.number, dict(top.fields)
            elif event in _SCALARS and prefix.startswith(top.prefix + "."):
                key = prefix[len(top.prefix) + 1 :]
                if "." not in key:
                    top.fields[key] = value
        elif prefix == "headings" and event == "end_array":
            headings_done = True
            start_line = 1 if offset == 0 else page.first_line
            stop_line = float(page.next_line) if page.next_line is not None else float("inf")
        elif prefix == "links.item" or prefix in _META_KEYS:
            if prefix == "links.item" and not headings_done:
                raise LayerOutOfOrder("links before headings")
            if event in ("start_map", "start_array"):
                builder, builder_key, depth = ijson.ObjectBuilder(), prefix, 1
                builder.event(event, value)
            elif event in _SCALARS:
                _keep(page, prefix, value, start_line, stop_line, link_cap)
    return page


_SCALARS = frozenset({"string", "number", "boolean", "null"})
_DEPTH = {"start_map": 1, "start_array": 1, "end_map": -1, "end_array": -1}


def _keep(page: HeadingsPage, key: str, value: Any, start: int | None, stop: float, link_cap: int) -> None:
    if key != "links.item":
        page.meta[key] = value
    elif (
        isinstance(value, dict)
        and start is not None
        and len(page.links) < link_cap
        and start <= int(value.get("line") or 0) < stop
    ):
        page.links.append(value)


def _finish(frame: _Frame, page: HeadingsPage, offset: int, end: int) -> None:
    line = frame.fields.get("line")
    if frame.number == offset and line is not None:
        page.first_line = int(line)
    elif frame.number == end and line is not None:
        page.next_line = int(line)
    if frame.copy is not None:
        children = frame.copy.pop("children", [])
        frame.copy.update(frame.fields)
        frame.copy["children"] = children
