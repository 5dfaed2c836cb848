"""One freshness: index search's `fresh` is the audit's, evaluated when asked — today, the note's
current bytes — never a flag stored when the index was built."""

from __future__ import annotations

import datetime as dt
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from knowledge_harness.index.build import build_index
from knowledge_harness.index.query import search
from knowledge_harness.index.schema import SearchQuery
from knowledge_harness.trust.audit.audit import iter_states, run_audit
from knowledge_harness.trust.policy import Policy
from knowledge_harness.trust_view import live_trust
from knowledge_harness.vault.catalog import NoteCatalog
from knowledge_harness.vault.paths import Vault
from tests.support.examples import examples

from ..conftest import KH, copy_example_vault

TODAY = dt.date(2026, 12, 2)


def _fresh_by_search(vault: Vault, day: dt.date) -> set[str]:
    found = search(
        vault, SearchQuery(q="", trust="fresh-l2", limit=500), today=day, trust_of=live_trust(NoteCatalog(vault), day)
    )
    return {hit.path for hit in found.hits}


def _fresh_by_audit(vault: Vault, day: dt.date) -> set[str]:
    """The notes the audit counts as Fresh L2 (its figure is their number)."""
    catalog = NoteCatalog(vault)
    fresh = {s.facts.note.path for s in iter_states(catalog, Policy(), day) if s.fresh_l2}
    assert len(fresh) == run_audit(catalog, Policy(), today=day).fresh_l2
    return fresh


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    vault = copy_example_vault(tmp_path_factory.mktemp("indexed") / "vault")
    build_index(Vault.open(vault))
    return vault


def test_an_edited_fresh_note_leaves_the_fresh_search_without_a_rebuild(tmp_path: Path, indexed: Path) -> None:
    vault = tmp_path / "vault"
    shutil.copytree(indexed, vault)
    handle = Vault.open(vault)
    assert "Keywords/PageIndex.md" in _fresh_by_search(handle, TODAY)
    with (vault / "Keywords" / "PageIndex.md").open("a", encoding="utf-8") as note:
        note.write("\n人間が書き足した一文。\n")
    assert "Keywords/PageIndex.md" not in _fresh_by_search(handle, TODAY)
    through_the_cli = subprocess.run(
        [str(KH), "index", "search", str(vault), "PageIndex", "--trust", "fresh-l2", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert "Keywords/PageIndex.md" not in {hit["path"] for hit in json.loads(through_the_cli.stdout)["hits"]}
    # and a note past its deadline is not fresh in search either
    assert "Keywords/鮮度管理.md" not in _fresh_by_search(handle, TODAY + dt.timedelta(days=30))


@settings(max_examples=examples(0.12), deadline=None)
@given(
    edits=st.sets(st.sampled_from(["PageIndex.md", "冪等性.md", "鮮度管理.md", "GitHub Actions.md", "RAG.md"])),
    days=st.integers(min_value=-400, max_value=200),
)
def test_search_and_the_audit_agree_on_fresh_for_every_note(
    tmp_path_factory: pytest.TempPathFactory, indexed: Path, edits: set[str], days: int
) -> None:
    vault = tmp_path_factory.mktemp("agree") / "vault"
    shutil.copytree(indexed, vault)
    for name in edits:
        with (vault / "Keywords" / name).open("a", encoding="utf-8") as note:
            note.write("\n編集。\n")
    day = TODAY + dt.timedelta(days=days)
    handle = Vault.open(vault)
    assert _fresh_by_search(handle, day) == _fresh_by_audit(handle, day)
    shutil.rmtree(vault.parent)
