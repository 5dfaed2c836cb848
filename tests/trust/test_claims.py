"""Claims of a note: sentence splitting (Japanese and English), skipped blocks, citations, stable ids."""

from __future__ import annotations

from knowledge_harness.trust.validate.claims import extract_claims
from knowledge_harness.trust.validate.text import split_sentences
from knowledge_harness.vault.note import parse_note

NOTE = """---
title: 富士山
references:
  - https://example.org/fuji
  - {url: "https://example.org/b", title: B}
---
# 富士山

富士山は日本で最も高い山である。標高は3776メートルだ。「日本一。」と呼ばれる。
静岡県と山梨県にまたがる。

Mt. Fuji is 3,776.24 m high. Dr. Smith climbed it in 1998 with J. Doe.
It is an active volcano[^1] and see [the site](https://example.org/c).

- 最後の噴火は1707年の宝永噴火である
- **Bold** item. Second sentence here.

> A quoted sentence is not a claim.

```
A code sentence is not a claim.
```

| a table | row |
|---|---|

## 参考資料
- https://example.org/d
- A sentence in the references section is not a claim.

[^1]: https://example.org/volcano
"""


def _texts(text: str) -> list[str]:
    return [s.text for s in split_sentences(text)]


def test_japanese_sentences_respect_brackets() -> None:
    assert _texts("彼は「もう行く。待たない！」と言った。次の文だ。") == [
        "彼は「もう行く。待たない！」と言った。",
        "次の文だ。",
    ]
    assert _texts("本当か？はい！そうです。") == ["本当か？", "はい！", "そうです。"]
    assert _texts("一行目\n二行目。") == ["一行目", "二行目。"]


def test_english_sentences_keep_abbreviations_and_decimals() -> None:
    assert _texts("Dr. Smith paid $3.50 for it, e.g. at the U.S. store. Then he left.") == [
        "Dr. Smith paid $3.50 for it, e.g. at the U.S. store.",
        "Then he left.",
    ]
    assert _texts("J. R. R. Tolkien wrote it. Is it good? Yes!") == [
        "J. R. R. Tolkien wrote it.",
        "Is it good?",
        "Yes!",
    ]


def test_claims_skip_headings_code_quotes_tables_and_references() -> None:
    note = parse_note("Keywords/富士山.md", NOTE.encode())
    texts = [c.text for c in extract_claims(note)]
    assert texts == [
        "富士山は日本で最も高い山である。",
        "標高は3776メートルだ。",
        "「日本一。」と呼ばれる。",
        "静岡県と山梨県にまたがる。",
        "Mt. Fuji is 3,776.24 m high.",
        "Dr. Smith climbed it in 1998 with J. Doe.",
        "It is an active volcano and see the site.",
        "最後の噴火は1707年の宝永噴火である",
        "Bold item.",
        "Second sentence here.",
    ]


def test_claims_cite_footnotes_links_or_all_references() -> None:
    note = parse_note("a.md", NOTE.encode())
    claims = {c.text: c for c in extract_claims(note)}
    cited = claims["It is an active volcano and see the site."]
    assert cited.references == ("https://example.org/volcano", "https://example.org/c")
    assert claims["標高は3776メートルだ。"].references == tuple(note.references)
    assert "https://example.org/d" in note.references


def test_claim_lines_are_file_lines_and_ids_are_stable() -> None:
    note = parse_note("a.md", NOTE.encode())
    claims = extract_claims(note)
    lines = NOTE.splitlines()
    for claim in claims:
        assert claim.line <= claim.end_line
        assert claim.text[:2] in lines[claim.line - 1] or claim.text.startswith("Bold")
    edited = NOTE.replace("静岡県と山梨県にまたがる。", "静岡県と山梨県にまたがる活火山。")
    again = {c.text: c.id for c in extract_claims(parse_note("a.md", edited.encode()))}
    for claim in claims:
        if claim.text in again:
            assert again[claim.text] == claim.id
    assert len({c.id for c in claims}) == len(claims)


def test_repeated_sentences_get_distinct_ids() -> None:
    note = parse_note("a.md", b"The sky is blue today.\n\nThe sky is blue today.\n")
    ids = [c.id for c in extract_claims(note)]
    assert len(ids) == 2 and ids[1] == ids[0] + "-2"


def test_setext_headings_html_and_wikilinks() -> None:
    body = "Heading text here\n=================\n\n<div>html block here</div>\n\nSee [[Other note|the other note]] for details about it.\n"
    texts = [c.text for c in extract_claims(parse_note("a.md", body.encode()))]
    assert texts == ["See the other note for details about it."]


def test_claim_lines_follow_the_files_lines_not_unicode_line_separators() -> None:
    from knowledge_harness.trust.validate.claims import extract_claims
    from knowledge_harness.vault.note import parse_note

    # U+2028 and form feed are not line ends in Markdown; the second sentence is on file line 2
    note = parse_note("n.md", "First claim\u2028 continues\x0c here.\nSecond claim is here.\n".encode())
    claims = extract_claims(note)
    assert [(c.line, c.end_line) for c in claims] == [(1, 1), (2, 2)]
