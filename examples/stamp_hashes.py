"""Recompute the freshness hashes of the example vault's notes, in place (a dev tool).

The notes of examples/vault are handwritten. Whenever a note's body or references are edited,
its `verification.content_sha256` / `verification.references_sha256` must be recomputed, or the
note turns stale (content_changed / references_changed). This tool does that:

    .venv/bin/python examples/stamp_hashes.py            # rewrite the hash values in place
    .venv/bin/python examples/stamp_hashes.py --check    # change nothing; exit 1 if a hash is off

For every note whose frontmatter has a `content_sha256:` or `references_sha256:` line (value:
64 hex digits or the placeholder STAMP), the value is replaced by the hash that the sidecar
computes (`knowledge_harness.vault.note.parse_note`). The replacement is a plain byte-level text
substitution of the value only: the YAML is never re-serialised, so comments, quoting, key order,
CRLF line endings and a UTF-8 BOM stay exactly as they are. Notes without those keys are left
alone (the no_baseline fixture has none on purpose).

Notes listed in DELIBERATELY_STALE keep their stored value for the listed field: they are the
fixtures of the stale triggers. `--check` verifies that those values still do NOT match.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parent
VAULT = EXAMPLES / "vault"

try:
    from knowledge_harness.vault.note import Note, parse_note
    from knowledge_harness.vault.paths import Vault, list_note_files
except ImportError:  # run from a checkout without the package installed
    sys.path.insert(0, str(EXAMPLES.parent / "sidecar"))
    from knowledge_harness.vault.note import Note, parse_note
    from knowledge_harness.vault.paths import Vault, list_note_files

FIELDS = ("content_sha256", "references_sha256")

# vault-relative path -> {field: why its stored value must stay stale}
DELIBERATELY_STALE: dict[str, dict[str, str]] = {
    "Keywords/Markdown見出し.md": {
        "content_sha256": "content_changed fixture: the stored value is the SHA-256 of the body before "
        "the section '## 役割' was added by hand after validation.",
    },
    "Keywords/Properties（Obsidian）.md": {
        "references_sha256": "references_changed fixture: the stored value covers only "
        "http://127.0.0.1:8731/obsidian-properties.html; yaml-frontmatter.html was added to the "
        "`references` property after validation (the body was not touched).",
    },
}

_VALUE = rb"(?P<quote>[\"']?)(?P<value>[0-9a-fA-F]{64}|STAMP)(?P=quote)"


def _field_pattern(field: str) -> re.Pattern[bytes]:
    return re.compile(
        rb"^(?P<lead>[ \t]+" + field.encode() + rb":[ \t]*)" + _VALUE + rb"(?P<tail>[ \t]*(?:#[^\r\n]*)?)(?=\r?$)",
        re.MULTILINE,
    )


PATTERNS = {field: _field_pattern(field) for field in FIELDS}


def expected_hashes(note: Note) -> dict[str, str]:
    return {"content_sha256": note.content_sha256, "references_sha256": note.references_sha256}


def stored_values(raw: bytes, note: Note) -> dict[str, str]:
    """The hash values written in the frontmatter bytes (also when the YAML does not parse)."""
    if note.span is None:
        return {}
    head = raw[: note.span.yaml_end]
    found: dict[str, str] = {}
    for field, pattern in PATTERNS.items():
        matches = list(pattern.finditer(head))
        if len(matches) > 1:
            raise SystemExit(f"{note.path}: more than one `{field}` line; fix it by hand.")
        if matches:
            found[field] = matches[0].group("value").decode("ascii")
    return found


def restamp(raw: bytes, note: Note, fields: dict[str, str]) -> bytes:
    """Replace the values of `fields` inside the frontmatter; every other byte stays."""
    assert note.span is not None
    head, rest = raw[: note.span.yaml_end], raw[note.span.yaml_end :]
    for field, value in fields.items():

        def replace(m: re.Match[bytes], new: bytes = value.encode("ascii")) -> bytes:
            return m.group("lead") + m.group("quote") + new + m.group("quote") + m.group("tail")

        head = PATTERNS[field].sub(replace, head, count=1)
    return head + rest


def run(vault_root: Path, *, check: bool) -> int:
    vault = Vault.open(vault_root)
    failures: list[str] = []
    changed = 0
    seen_stale: set[str] = set()
    for entry in list_note_files(vault):
        raw = entry.disk_path.read_bytes()
        note = parse_note(entry.path, raw)
        stored = stored_values(raw, note)
        if not stored:
            continue
        want = expected_hashes(note)
        stale = DELIBERATELY_STALE.get(entry.path, {})
        if stale:
            seen_stale.add(entry.path)
        updates: dict[str, str] = {}
        for field, value in stored.items():
            if field in stale:
                if value == "STAMP":
                    failures.append(f"{entry.path}: {field} is deliberately stale but holds the placeholder STAMP")
                elif value == want[field]:
                    failures.append(f"{entry.path}: {field} should be stale ({stale[field]}) but matches")
                continue
            if value != want[field]:
                updates[field] = want[field]
        if note.problem is not None:
            print(
                f"note: {entry.path}: {note.problem.message} (line {note.problem.line}); "
                "references were taken from the body only"
            )
        if not updates:
            continue
        if check:
            failures.extend(
                f"{entry.path}: {field} is {stored[field][:12]}…, expected {v[:12]}…" for field, v in updates.items()
            )
            continue
        new_raw = restamp(raw, note, updates)
        after = parse_note(entry.path, new_raw)
        if after.body_bytes != note.body_bytes or len(new_raw) != len(raw) + _length_delta(stored, updates):
            raise SystemExit(f"{entry.path}: refusing to write, the substitution touched more than the values.")
        entry.disk_path.write_bytes(new_raw)
        changed += 1
        print(f"stamped: {entry.path}: {', '.join(sorted(updates))}")
    for path in sorted(set(DELIBERATELY_STALE) - seen_stale):
        failures.append(f"{path}: listed as deliberately stale but not found (or has no hash lines)")
    for failure in failures:
        print(f"FAIL: {failure}", file=sys.stderr)
    if not check:
        print(f"{changed} note(s) stamped.")
    return 1 if failures else 0


def _length_delta(stored: dict[str, str], updates: dict[str, str]) -> int:
    return sum(len(updates[f]) - len(stored[f]) for f in updates)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("vault", nargs="?", type=Path, default=VAULT, help="vault root (default: examples/vault)")
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 when a hash is off")
    args = parser.parse_args(argv)
    return run(args.vault, check=args.check)


if __name__ == "__main__":
    raise SystemExit(main())
