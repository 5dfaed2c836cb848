"""Links and tags inside code (spans, also across lines, and fenced blocks) are not read; those
after code keep their own line numbers."""

from __future__ import annotations

from knowledge_harness.index.record import parse_record

NOTE = (
    "# Title\n"  # 1
    "Use `[[not a link]]` and ``a ` [[nor this]]`` then [[A]].\n"  # 2
    "A span `over [[two\n"  # 3
    "lines]] #nottag` ends; [[B]] #tag\n"  # 4
    "```\n"  # 5
    "[[C]] in a fence\n"  # 6
    "```\n"  # 7
    "Last [[D]] and `#x`\n"  # 8
)


def test_links_and_tags_in_code_are_ignored_and_the_others_keep_their_lines() -> None:
    record = parse_record("n.md", NOTE.encode())
    assert [(link[1], link[4]) for link in record["links"]] == [("A", 2), ("B", 4), ("D", 8)]
    assert record["tags"] == ["tag"]
