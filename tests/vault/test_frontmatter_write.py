"""The metadata-only writer on hand-picked edge cases and refusals."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from knowledge_harness.errors import SpliceRefused
from knowledge_harness.vault.note import parse_note
from knowledge_harness.vault.paths import Vault, list_note_files
from knowledge_harness.vault.trust_splice import replace_trust_blocks
from tests.conftest import copy_example_vault

REPO = Path(__file__).resolve().parents[2]
V = {"status": "verified", "level": 2, "last_validated": dt.date(2026, 9, 1), "revalidate_after": dt.date(2026, 11, 30)}
E = {"status": "grounded", "source_count": 1, "sources": [{"url": "https://e.org/a", "verdict": "supported"}]}


def test_crlf_bom_comments_quotes_and_flow_lists_survive() -> None:
    old = (
        b"\xef\xbb\xbf---\r\n"
        b"title: 'Quoted'   # a comment\r\n"
        b'tags: [a, "b", \xe7\x9f\xa5\xe8\xad\x98]\r\n'
        b"verification:\r\n  status: reviewed\r\n  level: 1\r\n"
        b"\r\n# keep this\r\n"
        b'z_last: "x"\r\n'
        b"---\r\nbody line\r\n---\r\nno final newline"
    )
    new = replace_trust_blocks(old, V, E)
    prefix = b"\xef\xbb\xbf---\r\ntitle: 'Quoted'   # a comment\r\ntags: [a, \"b\", \xe7\x9f\xa5\xe8\xad\x98]\r\n"
    assert new.startswith(prefix + b"verification:\r\n  status: verified\r\n")
    assert b'\r\n\r\n# keep this\r\nz_last: "x"\r\nevidence:\r\n' in new
    assert new.endswith(b"---\r\nbody line\r\n---\r\nno final newline")
    assert b"\n" not in new.replace(b"\r\n", b"")
    note = parse_note("n.md", new)
    assert note.properties["verification"] == V and note.properties["evidence"] == E


def test_note_without_frontmatter_gets_one_and_nothing_else_changes() -> None:
    old = b"# Title\r\n\r\ntext\r\n"
    new = replace_trust_blocks(old, V, E)
    assert new.endswith(b"---\r\n" + old)
    assert new.startswith(b"---\r\nverification:\r\n")


def test_yaml_11_ambiguous_strings_are_quoted() -> None:
    new = replace_trust_blocks(
        b"---\na: 1\n---\n", {"validator": "yes", "x": "on", "t": "12:30", "d": "2026-09-01"}, None
    )
    text = new.decode()
    for literal in ("'yes'", "'on'", "'12:30'", "'2026-09-01'"):
        assert literal in text
    assert parse_note("n.md", new).properties["verification"]["d"] == "2026-09-01"


def test_none_keeps_a_block_untouched() -> None:
    old = b"---\nevidence:   {a: 1}  # odd but kept\nverification:\n  level: 1\n---\n"
    new = replace_trust_blocks(old, V, None)
    assert new.startswith(b"---\nevidence:   {a: 1}  # odd but kept\nverification:\n  status: verified\n")


def test_keep_chomping_block_scalar_keeps_its_blank_lines_inside_the_block() -> None:
    old = b"---\nverification:\n  note: |+\n    kept\n\nafter: 1\n---\n"
    new = replace_trust_blocks(old, V, None)
    assert new.endswith(b"after: 1\n---\n")
    assert parse_note("n.md", new).properties["after"] == 1


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        (b"---\ntitle: [unclosed\n---\nbody\n", "not valid YAML"),
        (b"---\nbase: &b {level: 1}\nverification: *b\n---\n", "anchors or aliases"),
        (b"---\nverification: &v\n  level: 1\nother: *v\n---\n", "anchors or aliases"),
        (b"---\nverification:\n  level: &l 1\n---\n", "anchors or aliases"),
        (b"---\nverification: {status: reviewed, level: 1}\n---\n", "flow-style"),
        (b"---\nevidence: {}\n---\n", "flow-style"),
        (b"---\nverification:\n\tlevel: 1\n---\n", "tab"),
        (b"---\ntitle: x\n  \tnested: 1\n---\n", "tab"),
        (b"---\nverification:\n  level: 1\nverification:\n  level: 2\n---\n", ""),
        (b"---\n- a\n- b\n---\n", "not a mapping"),
        (b"---\n{a: 1, b: 2}\n---\n", "flow-style"),
        (b"---\na: 1\n---\n\xff\xfe", "UTF-8"),
        (b"---\na: '\xe2\x80\xa8'\n---\n", "line breaks"),
    ],
)
def test_refusals_name_the_reason(raw: bytes, why: str) -> None:
    with pytest.raises(SpliceRefused) as info:
        replace_trust_blocks(raw, V, E, path="n.md")
    assert why in info.value.message
    assert info.value.message.startswith("n.md: ")


def test_every_example_vault_note_round_trips_or_is_refused_when_malformed(tmp_path: Path) -> None:
    vault = Vault.open(copy_example_vault(tmp_path / "vault"))
    checked = refused = 0
    for note_file in list_note_files(vault):
        raw = note_file.disk_path.read_bytes()
        note = parse_note(note_file.path, raw)
        if note.problem is not None:
            with pytest.raises(SpliceRefused):
                replace_trust_blocks(raw, V, E, path=note_file.path)
            assert note_file.disk_path.read_bytes() == raw
            refused += 1
            continue
        new = replace_trust_blocks(raw, V, E, path=note_file.path)
        again = parse_note(note_file.path, new)
        assert again.properties["verification"] == V and again.properties["evidence"] == E
        assert {k: v for k, v in again.properties.items() if k not in ("verification", "evidence")} == {
            k: v for k, v in note.properties.items() if k not in ("verification", "evidence")
        }
        assert again.body_bytes == note.body_bytes.removeprefix(b"\xef\xbb\xbf")
        # writing the note's own blocks back (when it has them) gives the same bytes
        if isinstance(note.properties.get("verification"), dict) and isinstance(note.properties.get("evidence"), dict):
            same = replace_trust_blocks(new, V, E, path=note_file.path)
            assert same == new
        checked += 1
    assert checked > 0
