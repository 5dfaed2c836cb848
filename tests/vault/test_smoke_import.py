from knowledge_harness.vault.note import parse_note


def test_a_note_without_frontmatter_hashes_the_whole_file_as_body() -> None:
    note = parse_note("a.md", b"# Title\n\nBody\n")
    assert note.span is None
    assert note.body_bytes == b"# Title\n\nBody\n"
