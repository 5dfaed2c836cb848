"""Red-team item 2: a vault policy lifted the fetch caps (`max_bytes = 104857600`,
`timeout_seconds = 300`): a 40 MB page took 94 s and 3.18 GB. The caps a vault may set are
clamped to the machine configuration's maxima (5 MiB, 30 s, 5 redirects, 8 at once by default)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from knowledge_harness.trust.policy import load_policy
from knowledge_harness.trust.validate.evidence import Fetcher

from ..conftest import use_machine_config
from ..support.evidence_site import EvidenceSite

LIFTING = "[evidence]\nmax_bytes = 104857600\ntimeout_seconds = 300\nmax_redirects = 20\nconcurrency = 64\n"


@pytest.fixture(scope="module")
def site() -> Iterator[EvidenceSite]:
    with EvidenceSite() as running:
        yield running


def _vault(tmp_path: Path, policy: str) -> Path:
    (tmp_path / "v" / ".harness").mkdir(parents=True)
    (tmp_path / "v" / ".harness" / "policy.toml").write_text(policy, encoding="utf-8")
    return tmp_path / "v"


def test_a_vault_policy_cannot_lift_the_fetch_caps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    use_machine_config(monkeypatch, tmp_path, "")
    caps = load_policy(_vault(tmp_path, LIFTING)).evidence
    assert (caps.max_bytes, caps.timeout_seconds, caps.max_redirects, caps.concurrency) == (5 * 1024 * 1024, 30, 5, 8)


def test_a_vault_policy_may_lower_the_caps_and_the_machine_may_raise_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_machine_config(monkeypatch, tmp_path, "[evidence]\nmax_bytes = 20971520\nmax_timeout_seconds = 60\n")
    caps = load_policy(_vault(tmp_path, LIFTING)).evidence
    assert (caps.max_bytes, caps.timeout_seconds) == (20 * 1024 * 1024, 60)
    lower = load_policy(_vault(tmp_path / "b", "[evidence]\nmax_bytes = 100000\ntimeout_seconds = 2\n")).evidence
    assert (lower.max_bytes, lower.timeout_seconds) == (100_000, 2)


def test_a_page_over_the_machine_cap_stops_there_whatever_the_vault_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, site: EvidenceSite
) -> None:
    use_machine_config(monkeypatch, tmp_path, f'[evidence]\nallow_private_hosts = ["{site.allow_entry}"]\n')
    policy = load_policy(_vault(tmp_path, LIFTING)).evidence
    page = anyio.run(Fetcher(policy, backoff_seconds=0).fetch, f"{site.url}/bomb")  # inflates to 50 MB
    assert page.error == "too_large" and "5242880" in (page.message or "")
