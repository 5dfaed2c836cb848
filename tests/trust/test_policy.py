"""The policy file, the verdict mapping and the proposed blocks."""

from __future__ import annotations

import datetime as dt
import inspect
from pathlib import Path

import pytest

from knowledge_harness.errors import InputError
from knowledge_harness.trust.policy import Policy, load_policy, map_verdict, proposed_blocks

EXAMPLE_POLICY = "ttl_days = 90\nthreshold = 0.80\n"


def write_policy(root: Path, text: str) -> Path:
    (root / ".harness").mkdir(parents=True, exist_ok=True)
    (root / ".harness" / "policy.toml").write_text(text, encoding="utf-8")
    return root


def test_missing_policy_gives_the_documented_defaults(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KH_CONFIG", str(tmp_path / "no-machine-config.toml"))
    policy = load_policy(tmp_path)
    assert (policy.ttl_days, policy.threshold, policy.plan_ttl_hours) == (90, 0.80, 24)
    assert (policy.stages.canary, policy.stages.pilot, policy.stages.progressive) == (1, 8, 25)
    assert policy.keywords.provenance is True
    assert policy.judge.backend == "lexical"
    assert policy.evidence.allow_private_hosts == []


def test_the_example_vault_policy_loads_with_the_machine_allowance(tmp_path: Path) -> None:
    # The vault holds semantics; the evidence site's allowance comes from the tests' machine configuration.
    policy = load_policy(write_policy(tmp_path, EXAMPLE_POLICY))
    assert policy.evidence.allow_private_hosts == ["127.0.0.1:8731"]
    assert policy.threshold == 0.8


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("ttl_days = 0\n", "ttl_days"),
        ("threshold = 1.5\n", "threshold"),
        ("tresh = 0.8\n", "tresh"),
        ("[stages]\ncanary = 3\n", "stages.canary"),
        ("[evidence]\nmax_redirects = 99\n", "evidence.max_redirects"),
        ("[judge]\ncolour = 'red'\n", "judge.colour"),
        ("[keywords]\nfolders = ['../up']\n", "keywords.folders"),
    ],
)
def test_invalid_policy_names_the_key(tmp_path: Path, text: str, key: str) -> None:
    with pytest.raises(InputError) as info:
        load_policy(write_policy(tmp_path, text))
    assert repr(key) in info.value.message


def test_policy_that_is_not_toml_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not valid TOML"):
        load_policy(write_policy(tmp_path, "ttl_days = = 3"))


@pytest.mark.parametrize(
    ("verdict", "fetch_failed", "primary", "current", "expected"),
    [
        ("pass", False, False, 1, ("verified", 2, "grounded")),
        ("pass", False, True, 1, ("verified", 3, "grounded")),
        ("warn", False, True, 1, ("reviewed", 2, "partial")),
        ("fail", False, False, 1, ("disputed", 1, "grounded")),
        ("fail", False, True, 2, ("disputed", 1, "grounded")),
        ("fail", False, False, 0, ("disputed", 0, "grounded")),
        ("unverifiable", False, False, 1, ("unverified", 1, "insufficient")),
        ("unverifiable", False, False, 2, ("unverified", 1, "insufficient")),
        ("pass", True, True, 1, ("unverified", 1, "unreachable")),
        ("warn", True, False, 0, ("unverified", 1, "unreachable")),  # a 404 or 502 leaves L0 at L1 (machine review)
        ("unverifiable", False, False, 0, ("unverified", 1, "insufficient")),
    ],
)
def test_verdict_mapping_follows_the_design(
    verdict: str, fetch_failed: bool, primary: bool, current: int, expected: tuple[str, int, str]
) -> None:
    got = map_verdict(verdict, fetch_failed=fetch_failed, all_claims_primary_supported=primary, current_level=current)  # type: ignore[arg-type]
    assert got == expected


def test_confidence_cannot_raise_a_level() -> None:
    assert "confidence" not in inspect.signature(map_verdict).parameters
    assert "confidence" not in inspect.signature(proposed_blocks).parameters


def test_unknown_verdict_is_refused() -> None:
    with pytest.raises(InputError):
        map_verdict("great", fetch_failed=False, all_claims_primary_supported=False, current_level=1)  # type: ignore[arg-type]


def test_proposed_blocks_carry_dates_hashes_and_sources_and_keep_extra_keys() -> None:
    today = dt.date(2026, 9, 1)
    verification, evidence = proposed_blocks(
        Policy(),
        verdict="pass",
        fetch_failed=False,
        all_claims_primary_supported=False,
        current_level=1,
        validator="lexical-1",
        content_sha256="a" * 64,
        references_sha256="b" * 64,
        run_id="run-1",
        sources=[
            {
                "url": "https://e.org/1",
                "snapshot_sha256": "c" * 64,
                "fetched_at": "2026-09-01T00:00:00Z",
                "verdict": "supported",
            },
            {"url": "https://e.org/2", "snapshot_sha256": None, "fetched_at": None, "verdict": "no_evidence"},
        ],
        today=today,
        existing_verification={"status": "unverified", "reviewer_note": "keep me"},
        existing_evidence={"comment": "mine"},
    )
    assert verification["status"] == "verified" and verification["level"] == 2
    assert verification["last_validated"] == today
    assert verification["revalidate_after"] == dt.date(2026, 11, 30)  # the design's example: +90 days
    assert verification["content_sha256"] == "a" * 64 and verification["references_sha256"] == "b" * 64
    assert verification["run_id"] == "run-1" and verification["validator"] == "lexical-1"
    assert verification["reviewer_note"] == "keep me"
    assert evidence["status"] == "grounded" and evidence["source_count"] == 1
    assert [s["url"] for s in evidence["sources"]] == ["https://e.org/1", "https://e.org/2"]
    assert evidence["comment"] == "mine"


def test_stage_limits() -> None:
    stages = Policy().stages
    assert [stages.limit(s) for s in ("canary", "pilot", "progressive")] == [1, 8, 25]
    with pytest.raises(InputError):
        stages.limit("everything")
