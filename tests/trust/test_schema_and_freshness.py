"""Trust metadata parsing (never crashes) and the freshness rules (triggers, windows)."""

from __future__ import annotations

import datetime as dt

import pytest

from knowledge_harness.trust.audit.freshness import deadline, stale_triggers, window_for
from knowledge_harness.trust.policy import Policy
from knowledge_harness.trust.schema import Verification, read_trust
from knowledge_harness.vault.note import parse_note

TODAY = dt.date(2026, 9, 20)


def test_invalid_values_become_findings_and_valid_ones_are_kept() -> None:
    trust = read_trust(
        {
            "verification": {"status": "great", "level": 7, "last_validated": "soon", "validator": "lexical-1"},
            "evidence": "lots",
            "provenance": {"origin": "ai_generated", "generator": "claude"},
        }
    )
    keys = sorted(f.key for f in trust.findings)
    assert keys == ["evidence", "verification.last_validated", "verification.level", "verification.status"]
    assert trust.verification is not None and trust.verification.validator == "lexical-1"
    assert trust.verification.level == 0 and trust.verification.status == "unverified"
    assert trust.evidence is None


def test_unknown_keys_inside_the_blocks_are_preserved() -> None:
    trust = read_trust(
        {
            "provenance": {"origin": "human", "generator": "me", "session": 4},
            "verification": {"status": "verified", "level": 2, "reviewer": "A"},
            "evidence": {"status": "grounded", "sources": [{"url": "https://x", "note": "p.3"}], "tier": 1},
        }
    )
    dumped = trust.model_dump()
    assert dumped["provenance"]["session"] == 4
    assert dumped["verification"]["reviewer"] == "A"
    assert dumped["evidence"]["tier"] == 1
    assert dumped["evidence"]["sources"][0]["note"] == "p.3"


def test_boolean_level_and_bad_hash_are_findings() -> None:
    trust = read_trust({"verification": {"level": True, "content_sha256": "xyz"}})
    assert sorted(f.key for f in trust.findings) == ["verification.content_sha256", "verification.level"]


@pytest.mark.parametrize(
    ("days", "window"),
    [
        (-1, None),
        (0, "next_batch"),
        (7, "next_batch"),
        (8, "prepare"),
        (14, "prepare"),
        (15, "watch"),
        (30, "watch"),
        (31, None),
    ],
)
def test_windows_on_days_left(days: int, window: str | None) -> None:
    assert window_for(days) == window


def test_deadline_is_the_earlier_of_revalidate_after_and_ttl() -> None:
    v = Verification(last_validated=dt.date(2026, 9, 1), revalidate_after=dt.date(2027, 6, 1))
    assert deadline(v, Policy()) == dt.date(2026, 11, 30)
    assert deadline(v, Policy(ttl_days=30)) == dt.date(2026, 10, 1)
    assert deadline(Verification(revalidate_after=dt.date(2026, 10, 1)), Policy()) == dt.date(2026, 10, 1)


def _note(body: str, verification: str) -> tuple[object, Verification]:
    raw = f"---\nverification:\n{verification}\n---\n{body}".encode()
    note = parse_note("n.md", raw)
    trust = read_trust(note.properties)
    assert trust.verification is not None
    return note, trust.verification


def test_each_trigger_fires_on_its_own() -> None:
    body = "text\n\n## References\n- https://e.org/a\n"
    probe = parse_note("n.md", f"---\na: 1\n---\n{body}".encode())
    good = (
        f"  status: verified\n  level: 2\n  last_validated: 2026-09-01\n  revalidate_after: 2026-11-30\n"
        f"  content_sha256: {probe.content_sha256}\n  references_sha256: {probe.references_sha256}"
    )
    note, v = _note(body, good)
    assert stale_triggers(note, v, Policy(), TODAY) == []  # type: ignore[arg-type]
    note, v = _note(body + "edit\n", good)
    assert stale_triggers(note, v, Policy(), TODAY) == ["content_changed"]  # type: ignore[arg-type]
    note, v = _note(
        body.replace("/a", "/b"),
        good.replace(
            probe.content_sha256,
            parse_note("n.md", f"---\na: 1\n---\n{body.replace('/a', '/b')}".encode()).content_sha256,
        ),
    )
    assert stale_triggers(note, v, Policy(), TODAY) == ["references_changed"]  # type: ignore[arg-type]
    note, v = _note(body, good)
    assert stale_triggers(note, v, Policy(), dt.date(2026, 12, 1)) == ["age_expired"]  # type: ignore[arg-type]
    assert stale_triggers(note, v, Policy(), dt.date(2026, 11, 30)) == []  # type: ignore[arg-type]
    note, v = _note(body, "  status: verified\n  level: 2\n  last_validated: 2026-09-01")
    assert stale_triggers(note, v, Policy(), TODAY) == ["no_baseline"]  # type: ignore[arg-type]


def test_a_never_validated_note_is_not_stale() -> None:
    note, v = _note("body\n", "  status: unverified\n  level: 0")
    assert stale_triggers(note, v, Policy(), TODAY) == []  # type: ignore[arg-type]
