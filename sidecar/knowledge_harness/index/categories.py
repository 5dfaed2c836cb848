"""Index notes (MOCs) and the category chains they give every note."""

from __future__ import annotations

import unicodedata
from collections import deque

from ..vault.exclusions import excluded_notes, is_excluded_note, read_harness_toml
from ..vault.paths import Vault
from .record import ParsedNote, keyword_values
from .store import index_read_lock, read_index_file

MAX_CATEGORY_CHAINS = 8
INDEX_TYPES = frozenset({"moc", "index"})


def index_settings(vault: Vault) -> dict[str, list[str]]:
    conf = read_harness_toml(vault, "index.toml")
    section = conf.get("index", conf)
    folders = [str(f).strip("/") for f in section.get("moc_folders", []) if str(f).strip("/")]
    tags = [str(t).lstrip("#").lower() for t in section.get("moc_tags", []) if str(t).strip()]
    settings = {"moc_folders": sorted(set(folders)), "moc_tags": sorted(set(tags))}
    # index notes found by name without any configuration (MOC_NAMES); `moc_names = false` turns it off
    settings["moc_names"] = [] if section.get("moc_names", True) is False else ["convention"]
    # a note linking to most notes of its folder is a hub (folder_hubs); `moc_links = false` turns it
    # off (the key is written only then: a manifest written before the rule existed keeps its bytes)
    if section.get("moc_links", True) is False:
        settings["moc_links"] = []
    # templates and index.toml's `exclude` are not indexed (the audit skips the same notes)
    exclude = excluded_notes(vault, conf)
    if exclude:  # absent when empty: a manifest written before the setting existed stays fresh
        settings["exclude"] = exclude
    return settings


def excluded(path: str, settings: dict[str, list[str]]) -> bool:
    """Whether a note lies in (or is) one of the settings' excluded folders or notes."""
    return is_excluded_note(path, settings.get("exclude", ()))


# notes named so are index notes by convention (case-insensitive, NFC): MOC, Index, 目次 (contents),
# 索引 (index), Home, "MOC - Topic" / "Topic MOC", and a folder note named after its folder
MOC_NAMES = frozenset({"moc", "index", "目次", "索引", "home", "homepage", "maps of content", "map of content"})
_MOC_AFFIXES = ("moc ", "moc-", "moc_", "moc:")


def named_index_note(path: str) -> bool:
    folder, _, name = path.rpartition("/")
    stem = unicodedata.normalize("NFC", name[:-3] if name.lower().endswith(".md") else name).strip().lower()
    parent = unicodedata.normalize("NFC", folder.rpartition("/")[2]).strip().lower()
    return (
        stem in MOC_NAMES
        or stem.startswith(_MOC_AFFIXES)
        or stem.endswith((" moc", "(moc)"))
        or (bool(parent) and stem == parent)
    )


def in_moc_folder(path: str, settings: dict[str, list[str]]) -> bool:
    """Whether a note lies in one of the settings' moc_folders."""
    folders = settings["moc_folders"]
    return bool(folders) and any(path.startswith(folder + "/") for folder in folders)


def is_index_note(path: str, note: ParsedNote, settings: dict[str, list[str]]) -> bool:
    # read as the type filter reads it: every item of a list, a `[[link]]` by its target
    if note.type is not None and any(t in INDEX_TYPES for t in keyword_values(note.type)):
        return True
    if settings.get("moc_names") and named_index_note(path):
        return True
    if in_moc_folder(path, settings):
        return True
    if not settings["moc_tags"]:
        return False
    tags = {t.lower() for t in note.tags}
    return any(t in tags for t in settings["moc_tags"])


# A note is a hub of its folder when it links to more than half of the folder's other notes and the
# folder has at least this many others (two notes linking to each other are no index).
MIN_HUB_SIBLINGS = 4


def hubs_on(settings: dict[str, list[str]]) -> bool:
    return "moc_links" not in settings


def folder_hubs(paths: list[str], links_out: dict[str, list[str]]) -> set[str]:
    """The notes linking to most notes of their own folder (direct children, not subfolders)."""
    by_folder: dict[str, set[str]] = {}
    for p in paths:
        by_folder.setdefault(p.rpartition("/")[0], set()).add(p)
    return {p for p in paths if is_folder_hub(p, links_out.get(p, ()), by_folder[p.rpartition("/")[0]])}


def is_folder_hub(path: str, links_out: list[str] | tuple[str, ...], siblings: set[str]) -> bool:
    """Whether `path` links to more than half of `siblings` (its folder's notes, itself included)."""
    others = len(siblings) - 1
    if others < MIN_HUB_SIBLINGS or 2 * len(links_out) <= others:
        return False
    return 2 * sum(1 for t in links_out if t != path and t in siblings) > others


def category_chains(index_notes: list[str], links_out: dict[str, list[str]]) -> dict[str, list[list[str]]]:
    """Shortest chains of index notes from root index notes to every reachable note."""
    index_set = set(index_notes)
    outside_in: dict[str, int] = {}
    for src, targets in links_out.items():
        if src not in index_set:
            for t in targets:
                if t in index_set:
                    outside_in[t] = outside_in.get(t, 0) + 1
    linked_from_index: set[str] = set()
    # an index note's targets as a set: a hub listing thousands of index notes that each link
    # back to it would otherwise be scanned once per back link
    index_out = {m: set(links_out.get(m, ())) for m in index_notes}
    for m in index_notes:
        out_m = links_out.get(m, [])
        for t in out_m:
            # an "up" link (a breadcrumb back to the hub that lists this note) does not make the
            # hub a child: of two index notes linking to each other, the one linking to more
            # notes is the parent
            if t != m and not (t in index_set and m in index_out[t] and len(links_out.get(t, [])) > len(out_m)):
                linked_from_index.add(t)
    dist: dict[str, int] = {}
    chains: dict[str, list[list[str]]] = {}
    roots = [m for m in index_notes if m not in linked_from_index]
    pending = sorted(index_set)
    while True:
        queue: deque[str] = deque()
        for r in roots:
            if r not in dist:
                dist[r] = 0
                chains[r] = []
                queue.append(r)
        while queue:
            m = queue.popleft()
            if m not in index_set:
                continue
            base = chains[m] if chains[m] else [[]]
            via = [[*c, m] for c in base]
            for t in links_out.get(m, []):
                if t == m:
                    continue
                if t not in dist:
                    dist[t] = dist[m] + 1
                    chains[t] = []
                    queue.append(t)
                if dist[t] == dist[m] + 1:
                    merged = chains[t] + [c for c in via if c not in chains[t]]
                    chains[t] = sorted(merged)[:MAX_CATEGORY_CHAINS]
        unreached = [m for m in pending if m not in dist]
        if not unreached:
            break
        # index notes that only link to each other (a MOC linking back "up"): enter the cycle at the
        # index note linking to the most unreached index notes, then the most linked from other
        # notes (a home page), then by path
        unreached_set = set(unreached)
        roots = [
            min(
                unreached,
                key=lambda m: (
                    -len(unreached_set.intersection(links_out.get(m, []))),
                    -outside_in.get(m, 0),
                    m,
                ),
            )
        ]
    return chains


def index_notes_report(vault: Vault) -> dict[str, object]:
    """What `kh init` says about index notes: the settings in force and the notes the name
    conventions and configured folders make index notes (type/tag ones appear after a build)."""
    from ..vault.paths import list_note_files

    settings = index_settings(vault)
    paths = [nf.path for nf in list_note_files(vault) if not excluded(nf.path, settings)]
    by_name = [p for p in paths if settings["moc_names"] and named_index_note(p)]
    in_folders = [p for p in paths if in_moc_folder(p, settings)]
    return {
        "moc_links": hubs_on(settings),
        "by_links": _hubs_of_the_last_build(vault) if hubs_on(settings) else [],
        "moc_names": bool(settings["moc_names"]),
        "moc_folders": settings["moc_folders"],
        "moc_tags": settings["moc_tags"],
        "exclude": settings.get("exclude", []),
        "by_name": by_name,
        "in_folders": in_folders,
    }


def _hubs_of_the_last_build(vault: Vault) -> list[str] | None:
    """The folder hubs by the links the last build resolved; None without an index."""
    import json

    with index_read_lock(vault):
        raw = read_index_file(vault, "manifest.json")
    try:
        notes = json.loads(raw)["notes"] if raw is not None else None
    except (ValueError, KeyError, TypeError):
        return None
    if not isinstance(notes, list):
        return None
    paths = [e["path"] for e in notes]
    return sorted(folder_hubs(paths, {e["path"]: e.get("links_out", []) for e in notes}))
