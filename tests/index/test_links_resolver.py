"""Link resolution from precomputed maps gives the answers of a scan over every path."""

from __future__ import annotations

import posixpath

from hypothesis import given
from hypothesis import strategies as st

from knowledge_harness.index.links import Resolver


def _scan_resolve(paths: set[str], source: str, kind: str, target: str) -> tuple[str, str | None, list[str]]:
    """The rules of Resolver, each step a scan over all paths (the straightforward reading)."""

    def exact(path: str) -> str | None:
        if path in paths:
            return path
        hits = [p for p in paths if p.lower() == path.lower()]
        return hits[0] if len(hits) == 1 else None

    target = target.strip()
    if not target:
        return ("self", source, [])
    target = target.lstrip("/")
    base = posixpath.basename(target)
    ext = posixpath.splitext(base)[1].lower()
    if ext and ext != ".md" and exact(target + ".md") is None:
        return ("attachment", None, [])
    with_ext = target if ext == ".md" else target + ".md"
    found = exact(with_ext)
    if found is None and kind != "wikilink":
        rel = posixpath.normpath(posixpath.join(posixpath.dirname(source), with_ext))
        if not rel.startswith("../"):
            found = exact(rel)
    if found is None and "/" in with_ext:
        matches = sorted(p for p in paths if p.lower().endswith("/" + with_ext.lower()))
        if len(matches) == 1:
            found = matches[0]
        elif matches:
            return ("ambiguous", None, matches)
    if found is None:
        name = posixpath.basename(with_ext)[:-3].lower()
        matches = sorted(p for p in paths if posixpath.basename(p)[:-3].lower() == name)
        if len(matches) == 1:
            found = matches[0]
        elif matches:
            return ("ambiguous", None, matches)
    if found is None:
        return ("unresolved", None, [])
    return ("self" if found == source else "resolved", found, [])


_PART = st.sampled_from(["a", "A", "b", "Notes", "notes", "x y", "Σ", "ς", "İ", "日本"])
_PATH = st.lists(_PART, min_size=1, max_size=3).map(lambda parts: "/".join(parts) + ".md")
_TARGET = st.one_of(
    st.lists(_PART, min_size=1, max_size=3).map("/".join),
    _PATH,
    st.sampled_from(["", "/a", "a.png", "../a", "./b", "a/../b", "A/B.MD"]),
)


@given(
    st.sets(_PATH, min_size=1, max_size=12),
    st.lists(st.tuples(st.sampled_from(["wikilink", "embed", "markdown"]), _TARGET), max_size=12),
)
def test_resolution_from_maps_equals_a_scan_over_every_path(paths: set[str], links: list[tuple[str, str]]) -> None:
    resolver = Resolver(paths)
    for source in sorted(paths)[:3]:
        for kind, target in links:
            assert resolver.resolve(source, kind, target) == _scan_resolve(paths, source, kind, target), (
                source,
                kind,
                target,
            )


def test_a_bare_embed_resolves_beside_its_note_whichever_note_asks_first() -> None:
    resolver = Resolver(["x/a.md", "x/b.md", "y/a.md", "y/c.md"])
    assert resolver.resolve("y/c.md", "embed", "a") == ("resolved", "y/a.md", [])
    assert resolver.resolve("x/b.md", "embed", "a") == ("resolved", "x/a.md", [])
    assert resolver.resolve("x/b.md", "wikilink", "a") == ("ambiguous", None, ["x/a.md", "y/a.md"])


def test_a_name_differing_only_in_case_finds_its_own_note_whichever_is_asked_first() -> None:
    resolver = Resolver(["A.md", "a.md", "x.md"])
    assert resolver.resolve("x.md", "wikilink", "a") == ("resolved", "a.md", [])
    assert resolver.resolve("x.md", "wikilink", "A") == ("resolved", "A.md", [])


def test_a_link_kept_per_folder_names_the_note_itself_only_from_that_note() -> None:
    resolver = Resolver(["x/a.md", "x/b.md", "y/c.md"])
    assert resolver.resolve("x/a.md", "markdown", "a.md") == ("self", "x/a.md", [])
    assert resolver.resolve("x/b.md", "markdown", "a.md") == ("resolved", "x/a.md", [])
    assert resolver.resolve("x/a.md", "markdown", "a.md") == ("self", "x/a.md", [])
    assert resolver.resolve("x/b.md", "embed", "b.md") == ("self", "x/b.md", [])
    assert resolver.resolve("y/c.md", "markdown", "a.md") == ("resolved", "x/a.md", [])
