"""A large note layer is read as a stream, and the answers are the same as from the whole layer.

The stream keeps only the page, so a note with half a million headings answers in bounded memory;
these tests pin that the streamed page, its links and a heading found by title are exactly what the
in-memory path gives, on random heading trees and on a real built index."""

from __future__ import annotations

import io
import math
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from knowledge_harness.index import query
from knowledge_harness.index.build import build_index
from knowledge_harness.index.layer_stream import LayerOutOfOrder, read_headings_page
from knowledge_harness.index.vault_index import VaultIndex
from knowledge_harness.vault.paths import Vault

# -- random layers -----------------------------------------------------------------------------

_titles = st.sampled_from(["Intro", "Setup", "使い方", "FAQ", "intro ", "Notes"])


@st.composite
def _trees(draw: st.DrawFn, depth: int = 0) -> list[dict[str, Any]]:
    count = draw(st.integers(0, 4 if depth < 3 else 0))
    return [
        {
            "children": draw(_trees(depth + 1)),
            "end_line": draw(st.integers(1, 500)),
            "level": depth + 1,
            "line": draw(st.integers(1, 500)),
            "title": draw(_titles),
        }
        for _ in range(count)
    ]


def _layer(headings: list[dict[str, Any]], links: list[dict[str, Any]]) -> bytes:
    layer = {
        "error": None,
        "external_links": [],
        "headings": headings,
        "id": "abc",
        "line_count": 500,
        "links": links,
        "preamble": {"end_line": 2, "line": 1},
        "sha256": "0" * 64,
        "title": "T",
    }
    return orjson.dumps(layer, option=orjson.OPT_SORT_KEYS)


def _in_memory(headings: list[dict[str, Any]], links: list[dict[str, Any]], offset: int, limit: int, cap: int) -> Any:
    page, total, first_line, next_line = query._page_of_headings(headings, offset, limit)
    start = 1 if offset == 0 else first_line
    kept: list[dict[str, Any]] = []
    if start is not None:
        stop = next_line if next_line is not None else math.inf
        kept = [link for link in links if start <= int(link.get("line") or 0) < stop]
    return page, total, kept[:cap]


@given(
    headings=_trees(),
    link_lines=st.lists(st.integers(0, 520), max_size=30),
    offset=st.integers(0, 40),
    limit=st.integers(1, 12),
    cap=st.integers(1, 40),
    find=st.one_of(st.none(), _titles),
)
def test_a_streamed_page_is_the_in_memory_page(
    headings: list[dict[str, Any]], link_lines: list[int], offset: int, limit: int, cap: int, find: str | None
) -> None:
    links = [{"line": line, "target": f"n{i}.md", "text": "x"} for i, line in enumerate(link_lines)]
    scanned = read_headings_page(
        io.BytesIO(_layer(headings, links)), offset=offset, limit=limit, link_cap=cap, find_title=find
    )
    page, total, kept = _in_memory(headings, links, offset, limit, cap)
    assert scanned.headings == page
    assert scanned.total == total
    assert scanned.links == kept
    assert scanned.meta == {
        "id": "abc",
        "line_count": 500,
        "preamble": {"end_line": 2, "line": 1},
        "sha256": "0" * 64,
        "title": "T",
    }
    expected = query._find_heading(headings, find) if find is not None else None
    if expected is None:
        assert scanned.found is None
    else:
        assert scanned.found == {k: v for k, v in expected.items() if k != "children"}


def test_a_layer_not_in_the_builds_key_order_is_refused_not_misread() -> None:
    raw = b'{"links":[{"line":1}],"headings":[{"children":[],"end_line":1,"level":1,"line":1,"title":"A"}]}'
    with pytest.raises(LayerOutOfOrder):
        read_headings_page(io.BytesIO(raw), offset=0, limit=5, link_cap=5)


# -- a real index, streamed against loaded whole ------------------------------------------------


def _note() -> str:
    lines = ["---", "title: Streamed", "---", "Preamble [[b]].", ""]
    for i in range(300):
        lines += [f"# Part {i}", f"See [[b#S{i}]].", f"## Sub {i}", "text [[b]]", "### Deep", ""]
    return "\n".join(lines) + "\n"


@pytest.fixture
def indexed(tmp_path: Path) -> Vault:
    root = tmp_path / "vault"
    root.mkdir()
    (root / "big.md").write_text(_note(), encoding="utf-8")
    (root / "b.md").write_text("# B\n", encoding="utf-8")
    vault = Vault.open(root)
    build_index(vault)
    return vault


@pytest.mark.parametrize(("offset", "limit"), [(0, 50), (7, 13), (850, 100), (899, 5), (5000, 10)])
def test_headings_answers_are_the_same_streamed_and_loaded_whole(
    indexed: Vault, monkeypatch: pytest.MonkeyPatch, offset: int, limit: int
) -> None:
    whole = query.note_headings(indexed, "big.md", offset=offset, limit=limit)
    monkeypatch.setattr(query, "STREAM_LAYER_BYTES", 0)
    assert query._large_layer_page(VaultIndex(indexed), "big.md", offset=offset, limit=limit) is not None
    streamed = query.note_headings(indexed, "big.md", offset=offset, limit=limit)
    assert streamed.model_dump_json() == whole.model_dump_json()


@pytest.mark.parametrize(
    "kwargs", [{"heading": "Sub 120"}, {"heading": "deep"}, {"line": 40, "end_line": 44}, {"line": 3}]
)
def test_sections_are_the_same_streamed_and_loaded_whole(
    indexed: Vault, monkeypatch: pytest.MonkeyPatch, kwargs: dict[str, Any]
) -> None:
    whole = query.read_section(indexed, "big.md", **kwargs)
    monkeypatch.setattr(query, "STREAM_LAYER_BYTES", 0)
    streamed = query.read_section(indexed, "big.md", **kwargs)
    assert streamed.model_dump_json() == whole.model_dump_json()


def test_a_note_changed_since_the_build_is_parsed_live_not_streamed(
    indexed: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(query, "STREAM_LAYER_BYTES", 0)
    with (indexed.root / "big.md").open("a", encoding="utf-8") as handle:
        handle.write("\n# Added after the build\n")
    assert query._large_layer_page(VaultIndex(indexed), "big.md", offset=0, limit=5) is None
    answer = query.note_headings(indexed, "big.md", offset=900, limit=5)
    assert answer.source == "live" and answer.headings[0]["title"] == "Added after the build"
