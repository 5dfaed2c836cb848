"""A one-shot incremental build: what a new `kh index build` process does after a few edits."""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import threading
import time
from collections.abc import Callable
from typing import Any, Generic, NamedTuple, TypeVar

from ..core import jsoncodec
from ..core.hashing import sha256_hex_of_pieces
from ..vault.atomic import Pieces
from ..vault.paths import NoteFile, ScanProblem, Vault, scan_against_stamps
from .answer import BuildOutcome
from .build_state import new_note, paths_fingerprint
from .categories import excluded, hubs_on, index_settings, is_folder_hub, is_index_note
from .links import Resolver
from .reading import read_note_bytes
from .record import TOO_LARGE, ResolvedLink, parse_record, resolve_links, unreadable_record
from .serialize import (
    BUILD_JSON_END,
    BUILD_JSON_FILES,
    BUILD_JSON_LAYERS,
    CACHE_FORMAT,
    INDEX_FORMAT,
    MANIFEST_HEAD,
    MANIFEST_SETTINGS,
    build_json_bytes,
    build_json_head,
    encode,
    manifest_line,
)
from .store import WALK_FILE, list_index_files, read_index_file, write_index_files

#
# A new process that finds a few notes changed reads build.json (every note's stat and layer
# digest, the report's totals), manifest.json (one line per note: its sha256, links and what
# other notes contribute to it) and the changed notes' old layers, and nothing else: it keeps no
# state of the other notes. It applies while the set of paths, the settings and the index notes
# stay the same and no index note's links change (a changed note's new or lost links patch its
# targets' backlinks, and the categories stay as they were); otherwise, or when
# anything it reads does not match build.json's digests, the full incremental build runs.
# Changed notes' cache lines go to a new cache part; the full build reads the parts in name
# order (a later line for a path wins) and rewrites them into one.

LITE_MAX_CHANGED = 2000
LITE_MAX_PARTS = 64
_LITE_PART = re.compile(r"cache/u(\d{5})\.jsonl")


def _resolved_as_before(raw_links: list[list[Any]], old_links: list[dict[str, Any]]) -> list[ResolvedLink] | None:
    """The changed note's links resolved as its previous layer resolved the same targets, or None
    when one of them is new to it. A link's resolution depends only on its note, kind and target
    and on the vault's paths, which the one-shot path requires unchanged; building the Resolver
    instead costs ~25 ms at 10,000 notes. An attachment is not in the layer: None, as for a new target."""
    before = {(link["kind"], link["target"]): (link["status"], link["path"], link["candidates"]) for link in old_links}
    resolved: list[ResolvedLink] = []
    for kind, target, heading, block, line in raw_links:
        known = before.get((kind, target))
        if known is None:
            return None
        resolved.append((kind, target, heading, block, line, *known))
    return resolved


class _PatchedLine(NamedTuple):
    """A changed note's manifest line in the making: the previous entry, the note's own parts
    (None when its bytes did not change) and its links out."""

    old: dict[str, Any]
    parts: tuple[bytes, bytes, bytes] | None
    links_out: list[str]


def _line_spans(manifest: bytes, paths: list[str], settings_at: int) -> list[tuple[int, int]]:
    """(start, end) of the manifest line of each path (in path order, as the lines), without its
    final ","; NotOneShot when one is missing."""
    spans: list[tuple[int, int]] = []
    done = len(MANIFEST_HEAD)
    for path in paths:
        at = manifest.find(b',"path":' + encode(path) + b',"sha256":', done, settings_at)
        if at < 0:
            raise NotOneShot
        start = manifest.rfind(b"\n", 0, at) + 1
        end = manifest.find(b"\n", at)  # after the line's "," (at settings_at for the last line)
        if manifest[end - 1 : end] == b",":
            end -= 1
        spans.append((start, end))
        done = end
    return spans


def _backlink_changes(patched: dict[str, _PatchedLine]) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """target -> the changed notes that now link to it, and that no longer do."""
    gained: dict[str, set[str]] = {}
    lost: dict[str, set[str]] = {}
    for path, line in patched.items():
        before, after = set(line.old["links_out"]), set(line.links_out)
        for target in after - before:
            gained.setdefault(target, set()).add(path)
        for target in before - after:
            lost.setdefault(target, set()).add(path)
    return gained, lost


def _target_lines(
    manifest: bytes,
    paths: list[str],
    gained: dict[str, set[str]],
    lost: dict[str, set[str]],
    settings_at: int,
) -> dict[int, tuple[int, bytes]]:
    """start -> (end, new line) of the unchanged notes whose backlinks the changed notes changed."""
    lines: dict[int, tuple[int, bytes]] = {}
    for path, (start, end) in zip(paths, _line_spans(manifest, paths, settings_at), strict=True):
        old = jsoncodec.loads(manifest[start:end])
        if old["path"] != path or old["index_note"]:
            raise NotOneShot  # an index note's backlinks can change how categories chain
        lines[start] = (end, _with_links_in(manifest[start:end], old, _links_in(path, old, gained, lost)))
    return lines


def _changed_line(
    before: bytes, path: str, line: _PatchedLine, gained: dict[str, set[str]], lost: dict[str, set[str]]
) -> bytes:
    """A changed note's new manifest line (`before` is its previous one), backlinks included."""
    if line.old["index_note"] and (path in gained or path in lost):
        raise NotOneShot
    links_in = _links_in(path, line.old, gained, lost)
    if line.parts is not None:
        return manifest_line(line.parts, line.old["categories"], line.old["index_note"], links_in, line.links_out)
    return before if links_in == line.old["links_in"] else _with_links_in(before, line.old, links_in)


def _links_in(path: str, old: dict[str, Any], gained: dict[str, set[str]], lost: dict[str, set[str]]) -> list[str]:
    """The note's backlinks (`old` is its previous manifest entry) after the changed notes' links:
    in path order, each once, as a full build lists them."""
    return sorted(set(old["links_in"]).difference(lost.get(path, ())).union(gained.get(path, ())))


def _with_links_in(line: bytes, old: dict[str, Any], links_in: list[str]) -> bytes:
    """`line` (whose entry is `old`) with other backlinks. The keys before "links_in" hold no
    object, so its first `,"links_in":` is the key; the result is checked all the same."""
    start = line.index(b',"links_in":') + len(b',"links_in":')
    end = line.index(b',"links_out":', start)
    new = line[:start] + (encode(links_in) if links_in else b"[]") + line[end:]
    if jsoncodec.loads(new) != {**old, "links_in": links_in}:
        raise NotOneShot
    return new


T = TypeVar("T")


class NotOneShot(Exception):
    """The one-shot path does not apply: the full incremental build runs instead."""


def _verified(vault: Vault, rel: str, digest: str) -> bytes:
    data = read_index_file(vault, rel)
    if data is None or not digest or hashlib.sha256(data).hexdigest() != digest:
        raise NotOneShot
    return data


_LAYERS_START = BUILD_JSON_LAYERS.encode()
_FILES_START = BUILD_JSON_FILES.encode()
_BUILD_END = BUILD_JSON_END.encode()
_PATCH_MAX_ENTRIES = 64  # each entry is found by a search of the whole section


def _layer_entry(rel: str, digest: str) -> bytes:
    return encode(rel) + b":" + encode(digest)


def _file_entry(path: str, stamp: list[int]) -> bytes:
    return encode(path) + b":" + encode(stamp)


def _patched_build_objects(
    raw: bytes, changes: tuple[list[tuple[bytes, bytes]], list[tuple[bytes, bytes]]]
) -> Pieces | None:
    """The "layers" and "files" objects of the previous build.json (`raw`, as `build_json_bytes`
    wrote it) to its end, with the changed entries replaced: the bytes `jsoncodec.dumps` would
    write for the patched dicts, as pieces that are mostly views of `raw`, without writing 20,000
    entries again (the standard library's json takes ~13 ms for them) or copying 2 MB. None when
    an entry is not found as written. An entry is found by its key, quote included, right after
    "{" or ","; inside a JSON string a quote is always escaped, so no other text matches."""
    start = raw.find(_LAYERS_START)
    middle = raw.find(_FILES_START, start)
    if start < 0 or middle < 0 or not raw.endswith(_BUILD_END):
        return None
    sections = ((start + len(_LAYERS_START), middle), (middle + len(_FILES_START), len(raw) - len(_BUILD_END)))
    spans: list[tuple[int, int, bytes]] = []
    for (low, high), entries in zip(sections, changes, strict=True):
        if len(entries) > _PATCH_MAX_ENTRIES:
            return None
        for old, new in entries:
            at = raw.find(old, low, high)
            end = at + len(old)
            if at < 0 or raw[at - 1 : at] not in (b",", b"{") or raw[end : end + 1] not in (b",", b"}"):
                return None
            spans.append((at, end, new))
    view = memoryview(raw)
    pieces: list[bytes | memoryview] = []
    done = start
    for at, end, new in sorted(spans):
        pieces += (view[done:at], new)
        done = end
    pieces.append(view[done:])
    return pieces


class _Beside(threading.Thread, Generic[T]):
    """A call run in a thread beside the build's own work: reading the 8 MB manifest, hashing it and
    writing files release the GIL (as the scan's stat calls do), so on two cores they overlap
    (~15 ms each at 10,000 notes). A call that fails makes the one-shot path not apply."""

    def __init__(self, call: Callable[[], T]) -> None:
        super().__init__(name="kh-index-beside", daemon=True)
        self.call = call
        self.value: T | None = None

    def run(self) -> None:
        with contextlib.suppress(NotOneShot, OSError):
            self.value = self.call()

    def result(self) -> T:
        self.join()
        if self.value is None:
            raise NotOneShot
        return self.value


def build_one_shot(vault: Vault) -> BuildOutcome | None:
    """The one-shot build's report, or None when it does not apply (nothing was written then)."""
    try:
        return _OneShot(vault).run()
    except (NotOneShot, ValueError, TypeError, KeyError, IndexError, UnicodeDecodeError, OSError):
        return None


class _OneShot:
    """One one-shot build: the previous build's build.json and manifest lines, patched per changed note."""

    def __init__(self, vault: Vault) -> None:
        self.vault = vault
        self.started = time.perf_counter()
        self.out_files: dict[str, bytes | Pieces] = {}
        self.cache_lines: list[bytes] = []
        self.tree_patch: dict[str, tuple[str, int]] = {}  # path -> (title, heading_count)
        self.resolver: Resolver | None = None
        self.paths_fp = ""
        self.reparsed = 0

    def run(self) -> BuildOutcome:
        build_raw = read_index_file(self.vault, "build.json")
        if build_raw is None:
            raise NotOneShot
        build = jsoncodec.loads(build_raw)
        if build.get("format") != INDEX_FORMAT or build.get("cache_format") != CACHE_FORMAT or "errors" not in build:
            raise NotOneShot
        self.files: dict[str, list[int]] = build["files"]  # path -> [size, mtime_ns]
        self.layers: dict[str, str] = build["layers"]  # rel -> digest
        self.build_raw = build_raw
        self.stamps_before: dict[str, list[int]] = {}  # the changed entries of `files`, as build.json has them
        self.layers_before: dict[str, str] = {}  # the changed entries of `layers`, as build.json has them
        self.counts = [build["fallback_notes"], build["headings"], build["links"]]
        self.note_errors: dict[str, list[Any]] = {e[0]: e for e in build["errors"]}
        digest_before = self.layers.get("manifest.json", "")
        self.manifest = _Beside(lambda: _verified(self.vault, "manifest.json", digest_before))
        self.manifest.start()
        problems: list[ScanProblem] = []
        self.paths, changed, walk = scan_against_stamps(
            self.vault, read_index_file(self.vault, WALK_FILE), self.files, problems
        )
        # read once: the settings that leave notes out are those the manifest is checked against
        self.settings = settings = index_settings(self.vault)
        if "exclude" in settings:
            self.paths = [p for p in self.paths if not excluded(p, settings)]
            changed = [nf for nf in changed if not excluded(nf.path, settings)]
        if self.paths != list(self.files):
            raise NotOneShot  # notes added, removed or renamed: links resolve differently
        lite_parts = [int(m.group(1)) for r in list_index_files(self.vault, "cache") if (m := _LITE_PART.fullmatch(r))]
        if len(changed) > LITE_MAX_CHANGED or len(lite_parts) >= LITE_MAX_PARTS:
            raise NotOneShot
        manifest = self._patched_manifest(changed)
        digest: _Beside[str] | None = None
        if manifest is not None:  # hashed while the other files are written
            digest = _Beside(lambda: sha256_hex_of_pieces(manifest))
            digest.start()
            self.out_files["manifest.json"] = manifest
        if self.tree_patch:
            self._patch_tree()
        if self.cache_lines:
            part = f"cache/u{max(lite_parts, default=0) + 1:05}.jsonl"
            self.out_files[part] = b"\n".join(self.cache_lines) + b"\n"
        if walk is not None and walk.changed:
            self.out_files[WALK_FILE] = walk.saved(str(self.vault.root))
        written = write_index_files(self.vault, self.out_files)  # build.json after: it holds their digests
        if digest is not None:
            self._set_layer("manifest.json", digest.result())
        errors_list = [self.note_errors[p] for p in self.paths if p in self.note_errors]
        written += write_index_files(self.vault, {"build.json": self._build_json(errors_list)})
        errors: list[dict[str, Any]] = [{"path": p.path, "message": p.message, "line": None} for p in problems]
        errors += [{"path": p, "message": m, "line": line} for p, m, line in errors_list]
        return BuildOutcome(
            notes=len(self.paths),
            headings=self.counts[1],
            links=self.counts[2],
            errors=errors,
            seconds=round(time.perf_counter() - self.started, 4),
            reparsed=self.reparsed,
            removed=0,
            files_written=written,
            fallback_notes=self.counts[0],
        )

    def _patched_manifest(self, changed: list[NoteFile]) -> Pieces | None:
        """The previous manifest (checked against its digest and the settings) with the lines of
        the changed notes, and of the notes whose backlinks they changed, patched: as pieces,
        most of them views of the previous manifest's unchanged lines (the 8 MB manifest of
        10,000 notes is read once and not copied again); None when no line changed. It is read,
        not mapped: a file rewritten in place by another program meanwhile would change a
        mapping's bytes after their digest was checked. A note's line is found
        by its `,"path":` key, which no other line holds (in JSON text a quote inside a value is
        escaped; no nested object has that key), and a line break only ends a line.
        """
        manifest = self.manifest.result()
        settings_at = manifest.rfind(MANIFEST_SETTINGS)
        tail = manifest[settings_at:]
        if (
            settings_at < 0
            or not manifest.startswith(MANIFEST_HEAD)
            or tail != MANIFEST_SETTINGS + encode(self.settings) + b"}\n"
        ):
            raise NotOneShot
        spans = _line_spans(manifest, [fs.path for fs in changed], settings_at)
        patched = {
            fs.path: self._patch(fs, manifest[start:end]) for fs, (start, end) in zip(changed, spans, strict=True)
        }
        gained, lost = _backlink_changes(patched)
        lines = _target_lines(
            manifest, sorted((gained.keys() | lost.keys()) - patched.keys()), gained, lost, settings_at
        )
        for (start, end), (path, line) in zip(spans, patched.items(), strict=True):
            lines[start] = (end, _changed_line(manifest[start:end], path, line, gained, lost))
        if all(new == manifest[start:end] for start, (end, new) in lines.items()):
            return None
        view = memoryview(manifest)
        pieces: list[bytes | memoryview] = []
        done = 0  # manifest[:done] is in pieces
        for start in sorted(lines):
            end, new = lines[start]
            pieces += (view[done:start], new)
            done = end
        pieces.append(view[done:])
        return pieces

    def _patch(self, fs: NoteFile, line: bytes) -> _PatchedLine:
        """A changed note: parsed again, its layer, totals, error and cache line updated; what its
        new manifest line is made of. NotOneShot when its being an index note changed, or when an
        index note's links changed (they make the categories)."""
        path = fs.path
        old = jsoncodec.loads(line)
        if old["path"] != path:
            raise NotOneShot
        raw, sha = read_note_bytes(fs)
        self.stamps_before.setdefault(path, self.files[path])
        self.files[path] = [fs.size, fs.mtime_ns]
        if sha == old["sha256"]:
            return _PatchedLine(old, None, old["links_out"])  # touched, same bytes: only its stat changes
        record = unreadable_record(path, TOO_LARGE) if raw is None else parse_record(path, raw)
        note = new_note(path, fs.size if raw is None else len(raw), fs.mtime_ns, sha, record)
        parsed = note.parsed
        by_rule = is_index_note(path, parsed, self.settings)  # an index note whatever its links
        if by_rule and not old["index_note"]:
            raise NotOneShot
        rel = f"notes/{parsed.id}.json"
        old_layer = jsoncodec.loads(_verified(self.vault, rel, self.layers.get(rel, "")))
        if not self.paths_fp:
            self.paths_fp = paths_fingerprint(tuple(self.paths))
        resolved = _resolved_as_before(record["links"], old_layer["links"])
        if resolved is None:
            if self.resolver is None:
                self.resolver = Resolver(self.paths)
            resolved, links_out = resolve_links(path, record["links"], self.resolver)
        else:
            links_out = sorted({to for *_, status, to, _ in resolved if status == "resolved" and to is not None})
        if links_out != old["links_out"] and old["index_note"]:
            raise NotOneShot  # an index note's links make the categories: they are derived again
        if old["index_note"] != (by_rule or self._hub(path, links_out)):
            raise NotOneShot
        note.set_resolution(None, self.paths_fp, resolved, links_out)
        assert note.layer is not None
        if note.digest != self.layers[rel]:
            self.out_files[rel] = note.layer
            self._set_layer(rel, note.digest)
        if (parsed.title, parsed.heading_count) != (old["title"], old["heading_count"]):
            self.tree_patch[path] = (parsed.title, parsed.heading_count)
        self.counts[0] += (parsed.parser == "markdown-it") - (old_layer["parser"] == "markdown-it")
        self.counts[1] += parsed.heading_count - old["heading_count"]
        self.counts[2] += note.link_count - len(old_layer["links"])
        if parsed.error is not None:
            self.note_errors[path] = [path, parsed.error["message"], parsed.error["line"]]
        else:
            self.note_errors.pop(path, None)
        self.cache_lines.append(note.cache_line())
        self.reparsed += 1
        return _PatchedLine(old, (note.m_head, note.m_mid, note.m_tail), links_out)

    def _hub(self, path: str, links_out: list[str]) -> bool:
        """Whether the note is its folder's hub (categories.folder_hubs) with these links."""
        if not hubs_on(self.settings):
            return False
        folder = path.rpartition("/")[0]
        siblings = {p for p in self.paths if p.rpartition("/")[0] == folder}
        return is_folder_hub(path, links_out, siblings)

    def _patch_tree(self) -> None:
        tree = jsoncodec.loads(_verified(self.vault, "tree.json", self.layers.get("tree.json", "")))
        stack = [tree]
        while stack:
            node = stack.pop()
            if node["kind"] == "folder":
                stack.extend(node["children"])
            elif node["path"] in self.tree_patch:
                node["title"], node["heading_count"] = self.tree_patch[node["path"]]
        tree_bytes = jsoncodec.dumps(tree, sort_keys=True, newline=True)
        self._set_layer("tree.json", hashlib.sha256(tree_bytes).hexdigest())
        self.out_files["tree.json"] = tree_bytes

    def _set_layer(self, rel: str, digest: str) -> None:
        self.layers_before.setdefault(rel, self.layers[rel])
        self.layers[rel] = digest

    def _entry_changes(self) -> tuple[list[tuple[bytes, bytes]], list[tuple[bytes, bytes]]]:
        """(old entry, new entry) of build.json's layers and files that this build changed."""
        layers = [
            (_layer_entry(rel, before), _layer_entry(rel, self.layers[rel]))
            for rel, before in self.layers_before.items()
            if before != self.layers[rel]
        ]
        files = [
            (_file_entry(path, before), _file_entry(path, self.files[path]))
            for path, before in self.stamps_before.items()
            if before != self.files[path]
        ]
        return layers, files

    def _build_json(self, errors_list: list[list[Any]]) -> bytes | Pieces:
        generation = os.urandom(8).hex()
        seconds = time.perf_counter() - self.started
        counts = (self.counts[0], self.counts[1], self.counts[2])
        rest = _patched_build_objects(self.build_raw, self._entry_changes())
        if rest is not None:
            return [build_json_head(generation, len(self.paths), self.reparsed, seconds, counts, errors_list), *rest]
        # a dict is written in its order, as `_build` joins its entries: "key":value, no spaces
        layers_json = jsoncodec.dumps(self.layers)[1:-1].decode("utf-8")
        files_json = jsoncodec.dumps(self.files)[1:-1].decode("utf-8")
        args = (generation, len(self.paths), self.reparsed, seconds, counts, errors_list)
        return build_json_bytes(*args, layers_json, files_json)
