"""Heading answers come in pages: at most 5,000 headings (and 5,000 links) per answer, so a note
with hundreds of thousands of headings never makes one huge response. Walking the pages with
next_offset gives every heading once, in document order, and every link once."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import Sidecar, start_sidecar, stop_sidecar
from tests.support.paged_headings import BIG, SECTIONS, write_paged_vault

from knowledge_harness.index.query import _all_headings
from knowledge_harness.index.vault_index import VaultIndex
from knowledge_harness.vault.paths import Vault


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sidecar]:
    running = start_sidecar(write_paged_vault(tmp_path_factory.mktemp("headings") / "vault"))
    try:
        yield running
    finally:
        stop_sidecar(running)


def _flatten(headings: list[dict[str, Any]]) -> list[tuple[int, int, str]]:
    out: list[tuple[int, int, str]] = []
    stack = list(reversed(headings))
    while stack:
        h = stack.pop()
        out.append((h["line"], h["level"], h["title"]))
        stack.extend(reversed(h["children"]))
    return out


def _walk(served: Sidecar, path: str, limit: int | None) -> tuple[list[dict[str, Any]], list[int]]:
    pages: list[dict[str, Any]] = []
    sizes: list[int] = []
    offset: int | None = 0
    with served.client() as client:
        while offset is not None:
            params = {"offset": offset} | ({"limit": limit} if limit else {})
            r = client.get(f"/v1/index/notes/{path}/headings", params=params)
            assert r.status_code == 200, r.text
            sizes.append(len(r.content))
            pages.append(r.json())
            offset = pages[-1]["next_offset"]
    return pages, sizes


@pytest.mark.parametrize("limit", [None, 5000, 777])
def test_pages_hold_every_heading_and_link_once_in_order(served: Sidecar, limit: int | None) -> None:
    full = _all_headings(VaultIndex(Vault.open(served.vault)), BIG)
    pages, sizes = _walk(served, BIG, limit)
    per_page = limit or 1000
    assert len(pages) == -(-4 * SECTIONS // per_page)
    assert all(p["heading_count"] == 4 * SECTIONS and p["limit"] == per_page for p in pages)
    assert [p["truncated"] for p in pages] == [True] * (len(pages) - 1) + [False]
    assert [p["offset"] for p in pages] == [i * per_page for i in range(len(pages))]
    walked = [h for p in pages for h in _flatten(p["headings"])]
    assert walked == _flatten(full["headings"])
    links = [(link["line"], link["target"]) for p in pages for link in p["links"]]
    assert links == [(link["line"], link["target"]) for link in full["links"]]
    assert len(links) == SECTIONS + 1 and not any(p["links_truncated"] for p in pages)
    assert max(sizes) < 3_000_000


def test_a_page_keeps_the_nesting_of_headings_whose_parent_is_on_it(served: Sidecar) -> None:
    with served.client() as client:
        first = client.get(f"/v1/index/notes/{BIG}/headings", params={"limit": 4}).json()
        second = client.get(f"/v1/index/notes/{BIG}/headings", params={"offset": 2, "limit": 4}).json()
    [part] = first["headings"]
    assert part["title"] == "Part 0" and [c["title"] for c in part["children"]] == ["Sub 0.a", "Sub 0.b"]
    assert part["children"][0]["children"][0]["title"] == "Deep 0"
    # a page starting inside Part 0: its headings whose parent is on the previous page come first, at the top
    assert [h["title"] for h in second["headings"]] == ["Deep 0", "Sub 0.b", "Part 1"]
    assert [c["title"] for c in second["headings"][2]["children"]] == ["Sub 1.a"]


def test_limits_are_enforced_and_small_notes_are_one_page(served: Sidecar) -> None:
    with served.client() as client:
        assert client.get(f"/v1/index/notes/{BIG}/headings", params={"limit": 5001}).status_code == 422
        assert client.get(f"/v1/index/notes/{BIG}/headings", params={"offset": -1}).status_code == 422
        past = client.get(f"/v1/index/notes/{BIG}/headings", params={"offset": 10**6}).json()
        assert past["headings"] == [] and past["links"] == [] and past["truncated"] is False
        small = client.get("/v1/index/notes/small.md/headings").json()
    assert small["heading_count"] == 2 and small["truncated"] is False and small["next_offset"] is None
    assert _flatten(small["headings"]) == [(1, 1, "Small"), (3, 2, "S1")]


def test_live_answers_of_a_changed_note_are_paged_too(served: Sidecar, tmp_path: Path) -> None:
    note = served.vault / "changed.md"
    note.write_text("".join(f"# H{i}\n" for i in range(2500)), encoding="utf-8")  # not in the index
    try:
        with served.client() as client:
            page = client.get("/v1/index/notes/changed.md/headings", params={"offset": 2000}).json()
        assert page["source"] == "live" and page["heading_count"] == 2500
        assert [h["title"] for h in page["headings"]][:2] == ["H2000", "H2001"] and len(page["headings"]) == 500
    finally:
        note.unlink()
