"""A key set twice in one frontmatter mapping is a metadata error with both line numbers.

Last-wins would let a second `verification:` block decide the badge while Obsidian and a person
reading the note see the first; so the reader (audit, badge) reports the note as malformed and
the writer refuses it, naming the lines.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from knowledge_harness.errors import SpliceRefused
from knowledge_harness.trust.audit.audit import badge_of, run_audit
from knowledge_harness.trust.policy import Policy
from knowledge_harness.vault.catalog import NoteCatalog
from knowledge_harness.vault.note import parse_note
from knowledge_harness.vault.paths import Vault
from knowledge_harness.vault.trust_splice import replace_trust_blocks
from knowledge_harness.vault.yamlsafe import YamlRejected, _fast_mapping, load_mapping

TWO_BLOCKS = (
    b"---\n"
    b"title: Twice\n"
    b"verification:\n"
    b"  status: draft\n"
    b"  level: 0\n"
    b"verification:\n"
    b"  status: verified\n"
    b"  level: 3\n"
    b"  last_validated: 2026-09-01\n"
    b"  validator: lexical-1\n"
    b"---\n"
    b"# Twice\n"
)
V = {"status": "verified", "level": 2, "last_validated": dt.date(2026, 9, 1), "revalidate_after": dt.date(2026, 11, 30)}


@pytest.mark.parametrize(
    ("text", "key", "first", "again"),
    [
        ("a: 1\nb: 2\na: 3\n", "a", 0, 2),
        ("verification:\n  level: 1\n  level: 2\n", "level", 1, 2),
        ("x:\n  - k: 1\n    k: 2\n", "k", 1, 2),
        ("tags: [a]\n# a comment\ntags: [b]\n", "tags", 0, 2),  # not the fast path's subset
        ("a: {b: 1, b: 2}\n", "b", 0, 0),
    ],
)
def test_a_repeated_key_is_rejected_with_both_lines(text: str, key: str, first: int, again: int) -> None:
    assert _fast_mapping(text) is None  # the fast path leaves duplicates to PyYAML
    with pytest.raises(YamlRejected) as info:
        load_mapping(text)
    assert info.value.problem.message == f"Duplicate key {key!r}: it is set twice in the same mapping."
    assert (info.value.problem.first_line, info.value.problem.line) == (first, again)


def test_the_same_key_in_different_mappings_is_fine() -> None:
    text = "a:\n  k: 1\nb:\n  k: 2\nlist:\n  - k: 1\n  - k: 2\n"
    assert load_mapping(text) == {"a": {"k": 1}, "b": {"k": 2}, "list": [{"k": 1}, {"k": 2}]}


def test_two_keys_naming_one_property_are_rejected() -> None:
    with pytest.raises(YamlRejected):
        load_mapping("1: a\n'1': b\n")


def test_the_note_problem_names_the_file_lines() -> None:
    note = parse_note("twice.md", TWO_BLOCKS)
    assert note.properties == {}
    assert note.problem is not None
    assert note.problem.message == "Duplicate key 'verification': it is set twice in the same mapping (lines 3 and 6)."
    assert (note.problem.line, note.problem.column) == (6, 1)


def test_audit_and_badge_report_the_note_never_the_second_block(tmp_path: Path) -> None:
    (tmp_path / "twice.md").write_bytes(TWO_BLOCKS)
    catalog = NoteCatalog(Vault.open(tmp_path))
    today = dt.date(2026, 9, 20)
    badge = badge_of(catalog, Policy(), catalog.note("twice.md"), today)
    assert badge.level == 0 and badge.fresh is False and badge.fresh_l2 is False
    assert badge.error is not None and badge.error.line == 6
    assert "Duplicate key 'verification'" in badge.error.message
    report = run_audit(catalog, Policy(), today=today)
    assert [(e.path, e.line) for e in report.errors] == [("twice.md", 6)]
    assert report.fresh_l2 == 0


@pytest.mark.parametrize(
    ("raw", "lines"),
    [
        (TWO_BLOCKS, "lines 3 and 6"),
        (b"---\nevidence:\n  status: grounded\ntitle: x\nevidence:\n  status: none\n---\n", "lines 2 and 5"),
        (b"---\ntitle: a\ntitle: b\n---\nbody\n", "lines 2 and 3"),
        (b"\xef\xbb\xbf---\r\nverification:\r\n  level: 1\r\n  level: 2\r\n---\r\n", "lines 3 and 4"),
    ],
)
def test_the_writer_refuses_a_repeated_key_naming_its_lines(raw: bytes, lines: str) -> None:
    with pytest.raises(SpliceRefused) as info:
        replace_trust_blocks(raw, V, None, path="n.md")
    assert info.value.message.startswith("n.md: Duplicate key ")
    assert f"({lines}); not writing." in info.value.message
