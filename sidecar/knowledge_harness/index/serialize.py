"""The bytes of the index's files: note layers, manifest lines, the tree, build.json.

Every layer byte is produced by `encode`: compact JSON with sorted keys, written by orjson or,
in a new `kh index build` process that patches a few notes, by the standard library, with the
same bytes for the index's values (str, int, bool, None, lists, str-keyed dicts; never a float;
core/jsoncodec.py; tests/index/test_build_cache.py re-serializes every layer with json.dumps to check). To keep
an incremental rebuild cheap, the build keeps beside each note's parse (record.ParsedNote) what was
already serialized for it (build_state.IndexedNote); a rebuild re-serializes only what changed.
"""

from __future__ import annotations

import hashlib
from typing import Any

from ..core import jsoncodec
from .record import ParsedNote, ResolvedLink

INDEX_FORMAT = 1
CACHE_FORMAT = 4  # a line of cache/*.jsonl: <header JSON>\t<record JSON>\t<manifest head>\t<mid>\t<tail>
# 4: a record keeps a list-valued type/status and a property's [[links]]: version 3's are parsed again
GITIGNORE = b"build.json\ncache/\n"
GITIGNORE_DIGEST = hashlib.sha256(GITIGNORE).hexdigest()
MANIFEST_HEAD = b'{"format":' + str(INDEX_FORMAT).encode() + b',"notes":[\n'
MANIFEST_SETTINGS = b'\n],"settings":'


def encode(obj: Any) -> bytes:
    return jsoncodec.dumps(obj, sort_keys=True)


def note_layer_bytes(path: str, nid: str, sha: str, rec: dict[str, Any], resolved: list[ResolvedLink]) -> bytes:
    layer = {
        "path": path,
        "id": nid,
        "sha256": sha,
        "title": rec["title"],
        "line_count": rec["line_count"],
        "preamble": rec["preamble"],
        "headings": rec["headings"],
        "links": [
            {
                "kind": kind,
                "target": target,
                "heading": heading,
                "block": block,
                "line": line,
                "status": status,
                "path": to,
                "candidates": candidates,
            }
            for kind, target, heading, block, line, status, to, candidates in resolved
        ],
        "external_links": rec["external_links"],
        "error": rec["error"],
        "parser": rec["parser"],
    }
    return jsoncodec.dumps(layer, sort_keys=True, newline=True)


def manifest_parts(path: str, nid: str, sha: str, size: int, rec: dict[str, Any]) -> tuple[bytes, bytes, bytes]:
    """A manifest line without its cross-note values, as three strings that frame them.

    line = head + categories + mid + index_note + ',"links_in":' + links_in + ',"links_out":'
    + links_out + tail; the same bytes as `encode(entry)` (keys in sorted order).
    """
    err = rec["error"]
    head = encode({"aliases": rec["aliases"]})[:-1] + b',"categories":'
    mid = (
        b","
        + encode(
            {
                "error": err["message"] if err else None,
                "heading_count": rec["heading_count"],
                "heading_titles": rec["heading_titles"],
                "id": nid,
            }
        )[1:-1]
        + b',"index_note":'
    )
    tail = (
        b","
        + encode(
            {
                "path": path,
                "sha256": sha,
                "size": size,
                "status": rec["status"],
                "tags": rec["tags"],
                "title": rec["title"],
                "top_headings": rec["top_headings"],
                "trust": rec["trust"],
                "type": rec["type"],
            }
        )[1:]
    )
    return head, mid, tail


def manifest_line(
    parts: tuple[bytes, bytes, bytes],
    chains: list[list[str]],
    is_index: bool,
    links_in: list[str],
    links_out: list[str],
) -> bytes:
    """A note's manifest line: its own parts (manifest_parts) framing the values other notes give it."""
    head, mid, tail = parts
    return b"".join(
        (
            head,
            encode(chains) if chains else b"[]",
            mid,
            b"true" if is_index else b"false",
            b',"links_in":',
            encode(links_in) if links_in else b"[]",
            b',"links_out":',
            encode(links_out) if links_out else b"[]",
            tail,
        )
    )


def manifest_bytes(lines: list[bytes], settings: dict[str, list[str]]) -> bytes:
    tail = b"".join((MANIFEST_SETTINGS, encode(settings), b"}\n"))
    if not lines:
        return MANIFEST_HEAD + tail
    # one join: the lines joined first and then framed copied the manifest (8 MB at 10,000 notes) twice
    framed = list(lines)
    framed[0] = MANIFEST_HEAD + framed[0]
    framed[-1] = framed[-1] + tail
    return b",\n".join(framed)


def tree_of(notes: list[ParsedNote]) -> dict[str, Any]:
    """tree.json's folders and notes; `notes` in path order."""
    root: dict[str, Any] = {"kind": "folder", "name": "", "path": "", "children": []}
    folders: dict[str, dict[str, Any]] = {"": root}
    for note in notes:
        path = note.path
        parts = path.split("/")
        parent = root
        for i in range(len(parts) - 1):
            fpath = "/".join(parts[: i + 1])
            node = folders.get(fpath)
            if node is None:
                node = {"kind": "folder", "name": parts[i], "path": fpath, "children": []}
                folders[fpath] = node
                parent["children"].append(node)
            parent = node
        parent["children"].append(
            {
                "kind": "note",
                "name": parts[-1],
                "path": path,
                "id": note.id,
                "title": note.title,
                "heading_count": note.heading_count,
            }
        )
    for node in folders.values():
        node["children"].sort(key=lambda c: (c["kind"] != "folder", c["name"]))
    return root


def build_json_bytes(
    generation: str,
    notes: int,
    reparsed: int,
    seconds: float,
    counts: tuple[int, int, int],
    errors: list[list[Any]],
    layers_json: str,
    files_json: str,
) -> bytes:
    """build.json: generation first (see build_stamp); counts = (fallback notes, headings, links);
    errors = [path, message, line] of every note with one, in path order; then the "layers" and
    "files" objects, whose insides are `layers_json` and `files_json`."""
    head = build_json_head(generation, notes, reparsed, seconds, counts, errors)
    return head + f"{BUILD_JSON_LAYERS}{layers_json}{BUILD_JSON_FILES}{files_json}{BUILD_JSON_END}".encode()


# what frames build.json's "layers" and "files" objects (one_shot.py patches their insides)
BUILD_JSON_LAYERS = ',"layers":{'
BUILD_JSON_FILES = '},"files":{'
BUILD_JSON_END = "}}\n"


def build_json_head(
    generation: str, notes: int, reparsed: int, seconds: float, counts: tuple[int, int, int], errors: list[list[Any]]
) -> bytes:
    """build.json up to its "layers" object (see build_json_bytes)."""
    fallback, headings, links = counts
    return (
        f'{{"generation":"{generation}","format":{INDEX_FORMAT},"cache_format":{CACHE_FORMAT},'
        f'"notes":{notes},"reparsed":{reparsed},"seconds":{round(seconds, 4)},'
        f'"fallback_notes":{fallback},"headings":{headings},"links":{links},'
        f'"errors":{encode(errors).decode("utf-8")}'
    ).encode()


def file_entry(note: ParsedNote) -> str:
    return f"{encode(note.path).decode('utf-8')}:[{note.size},{note.mtime_ns}]"
