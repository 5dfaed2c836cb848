"""The vault's trust policy: level rules, the verdict mapping, TTL, threshold, stage limits.

The policy lives in `VAULT/.harness/policy.toml`; every key is optional (defaults below), unknown
keys are refused so that a typo never silently falls back to a default. See docs/trust-policy.md;
the levels and the verdict mapping: docs/design/trust.md.
"""

from __future__ import annotations

import datetime as dt
import fnmatch
import unicodedata
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ..core.tomlfile import read_toml
from ..errors import InputError
from ..machine_config import Endpoint, MachineConfig, config_path, load_machine_config

POLICY_FILE = "policy.toml"
CLAIM_KEYS = ("claims_supported", "claims_total")

Verdict = Literal["pass", "warn", "fail", "unverifiable"]
Status = Literal["unverified", "reviewed", "verified", "disputed"]
EvidenceStatus = Literal["grounded", "partial", "insufficient", "unreachable"]
Level = Literal[0, 1, 2, 3]

STATUSES: tuple[str, ...] = ("unverified", "reviewed", "verified", "disputed")
EVIDENCE_STATUSES: tuple[str, ...] = ("grounded", "partial", "insufficient", "unreachable")
VERDICTS: tuple[str, ...] = ("pass", "warn", "fail", "unverifiable")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class KeywordRule(_Strict):
    """Which notes are "Keyword" notes, the population the audit counts (Raw Keywords).

    A note counts when ANY enabled rule matches: it has a `provenance` mapping (when
    `provenance` is true, the default), it lies under one of `folders`, or it carries one of
    `tags`. With `provenance = false` and no folders or tags, every note counts.
    """

    provenance: bool = True
    folders: list[str] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)

    @field_validator("folders")
    @classmethod
    def _clean_folders(cls, value: list[str]) -> list[str]:
        cleaned = []
        for folder in value:
            folder = unicodedata.normalize("NFC", folder.strip().strip("/"))  # macOS writes NFD
            if not folder or ".." in folder.split("/"):
                raise ValueError(f"folder {folder!r} must be a vault-relative folder")
            cleaned.append(folder)
        return cleaned

    @field_validator("tags")
    @classmethod
    def _clean_tags(cls, value: list[str]) -> list[str]:
        cleaned = [unicodedata.normalize("NFC", t.strip().lstrip("#")) for t in value]
        if any(not t for t in cleaned):
            raise ValueError("tags must be non-empty")
        return cleaned

    def matches(self, path: str, properties: Mapping[str, Any]) -> bool:
        if not self.provenance and not self.folders and not self.tags:
            return True
        if self.provenance and isinstance(properties.get("provenance"), Mapping):
            return True
        path = unicodedata.normalize("NFC", path)  # a note's name as the file system spells it, NFC or NFD
        if any(path.startswith(folder + "/") for folder in self.folders):
            return True
        if self.tags:
            wanted = set(self.tags)
            return any(unicodedata.normalize("NFC", tag) in wanted for tag in note_tags(properties))
        return False


def note_tags(properties: Mapping[str, Any]) -> list[str]:
    """Tags of a note's `tags` (or `tag`) property: a list or a comma/space separated string."""
    raw = properties.get("tags", properties.get("tag"))
    items: Sequence[Any]
    if isinstance(raw, str):
        items = raw.replace(",", " ").split()
    elif isinstance(raw, list):
        items = raw
    else:
        return []
    return [str(t).strip().lstrip("#") for t in items if t is not None and str(t).strip()]


class StagePolicy(_Strict):
    """Batch size limits per rollout stage (rollout stages C, D, E: docs/design/trust.md)."""

    canary: int = Field(default=1, ge=1, le=1)
    pilot: int = Field(default=8, ge=1, le=100)
    progressive: int = Field(default=25, ge=1, le=10_000)

    def limit(self, stage: str) -> int:
        if stage not in ("canary", "pilot", "progressive"):
            raise InputError(f"Unknown stage {stage!r}; use canary, pilot or progressive.")
        return int(getattr(self, stage))


class EvidencePolicy(_Strict):
    # "host:port" or "host", exempt from the SSRF guard: copied from the machine configuration
    # (validated there); a vault policy naming it is refused before this model sees it.
    allow_private_hosts: list[str] = Field(default_factory=list)
    timeout_seconds: float = Field(default=10.0, gt=0, le=300)
    max_bytes: int = Field(default=5 * 1024 * 1024, ge=1024, le=100 * 1024 * 1024)
    max_redirects: int = Field(default=5, ge=0, le=20)
    retries: int = Field(default=2, ge=0, le=10)
    # A snapshot is reused only this long after its fetch: a page is judged as it is now (0: always fetch).
    snapshot_max_age_minutes: int = Field(default=10, ge=0, le=7 * 24 * 60)
    concurrency: int = Field(default=8, ge=1, le=64)
    per_domain_concurrency: int = Field(default=2, ge=1, le=16)


class JudgePolicy(_Strict):
    """The judge a vault chooses: a backend (`lexical`, `openai_compat`) or a `profile` named in the
    machine configuration. The endpoint and key fields are filled from the machine configuration."""

    backend: str = Field(default="lexical", min_length=1)
    profile: str | None = Field(default=None, min_length=1, max_length=64)
    base_url: str | None = None
    model: str | None = None
    api_key_env: str | None = None
    timeout_seconds: float = Field(default=60.0, gt=0, le=3600)
    # The agent judge: how long a validation waits for a connected agent to answer its task.
    wait_seconds: float = Field(default=300.0, gt=0, le=3600)
    # A note judged by its own generator (provenance.generator is the judging agent): "flag" marks
    # the findings `self_judged`; "required" also refuses their support (never `pass`).
    independent: Literal["flag", "required"] = "flag"


class Policy(_Strict):
    ttl_days: int = Field(default=90, ge=1, le=3650)
    threshold: float = Field(default=0.80, ge=0.0, le=1.0)
    keywords: KeywordRule = Field(default_factory=KeywordRule)
    stages: StagePolicy = Field(default_factory=StagePolicy)
    evidence: EvidencePolicy = Field(default_factory=EvidencePolicy)
    judge: JudgePolicy = Field(default_factory=JudgePolicy)
    plan_ttl_hours: int = Field(default=24, ge=1, le=24 * 30)
    # A reviewed note (some claims supported, none contradicted) counts as Fresh L2 only when at least
    # this share of its judged claims is supported. 0: the design's mapping (any reviewed L2 counts).
    min_supported_share: float = Field(default=0.0, ge=0.0, le=1.0)
    # After a validation that could fetch none of the cited pages, the note is due again this soon.
    retry_unreachable_days: int = Field(default=1, ge=0, le=90)
    # Official / first-party sites ("docs.python.org", "*.go.jp"): a note whose every claim one of
    # them supports is L3 Primary Mapped. Empty: no note is L3.
    primary_domains: list[str] = Field(default_factory=list, max_length=500)
    # More files under .obsidian/ that Obsidian or a plugin rewrites by itself during a batch run
    # (glob patterns); they never fail the run's scope check. Notes can never be listed here.
    scope_ignore: list[str] = Field(default_factory=list, max_length=100)

    @field_validator("scope_ignore")
    @classmethod
    def _only_obsidian_files(cls, value: list[str]) -> list[str]:
        for pattern in value:
            if not pattern.startswith(".obsidian/") or ".." in pattern.split("/"):
                raise ValueError(f"{pattern!r} must name files under .obsidian/")
        return value

    def is_primary(self, url: str) -> bool:
        host = (urlsplit(url).hostname or "").lower().rstrip(".")
        if host.startswith("www."):
            host = host[4:]
        return bool(host) and any(host == p or fnmatch.fnmatch(host, p) for p in self.primary_domains)


def _key_of(loc: Sequence[int | str]) -> str:
    return ".".join(str(part) for part in loc) or "(top level)"


# Keys a vault file may not decide (endpoints, key variables, network allowances): they live in
# the machine configuration (machine_config.py), whatever the vault says.
MACHINE_ONLY_KEYS: tuple[tuple[str, str], ...] = (
    ("evidence", "allow_private_hosts"),
    ("judge", "base_url"),
    ("judge", "api_key_env"),
)


def refuse_machine_keys(data: Mapping[str, Any], keys: Sequence[tuple[str, str]], source: str) -> None:
    """A vault file naming a machine-only key is refused as a whole, naming the key and where it belongs."""
    for section, key in keys:
        block = data.get(section)
        if isinstance(block, Mapping) and key in block:
            name = f"{section}.{key}"
            raise InputError(
                f"Refused key {name!r} in {source}: a vault file may not decide endpoints, keys or network "
                f"allowances; put [{section}] {key} in the machine configuration ({config_path()}) instead.",
                detail=[{"key": name, "message": "belongs in the machine configuration, not the vault"}],
            )


def parse_policy(data: Mapping[str, Any], *, source: str = POLICY_FILE) -> Policy:
    """The vault's policy as written (machine-only keys refused), without the machine's settings."""
    refuse_machine_keys(data, MACHINE_ONLY_KEYS, source)
    try:
        return Policy.model_validate(dict(data))
    except ValidationError as exc:
        first = exc.errors()[0]
        key = _key_of(first["loc"])
        problems = [{"key": _key_of(e["loc"]), "message": e["msg"]} for e in exc.errors()]
        raise InputError(f"Invalid policy key {key!r} in {source}: {first['msg']}.", detail=problems) from exc


def with_machine(policy: Policy, machine: MachineConfig) -> Policy:
    """The effective policy: the vault's semantics plus this machine's endpoints and allowances."""
    judge = policy.judge
    endpoint: Endpoint
    if judge.profile is not None:
        profile = machine.judges.get(judge.profile)
        if profile is None:
            known = ", ".join(sorted(machine.judges)) or "none"
            raise InputError(
                f"The policy chooses judge profile {judge.profile!r}, which the machine configuration "
                f"({config_path()}) does not define (defined: {known})."
            )
        endpoint = profile
        backend = profile.backend
    else:
        endpoint = machine.judge
        backend = judge.backend
    judge = judge.model_copy(
        update={
            "backend": backend,
            "base_url": endpoint.base_url,
            "model": endpoint.model or judge.model,
            "api_key_env": endpoint.api_key_env,
            "timeout_seconds": endpoint.timeout_seconds or judge.timeout_seconds,
        }
    )
    caps = machine.evidence
    own = policy.evidence
    # a vault policy may lower the fetch caps, never lift them over this machine's maxima
    evidence = own.model_copy(
        update={
            "allow_private_hosts": list(caps.allow_private_hosts),
            "max_bytes": min(own.max_bytes, caps.max_bytes),
            "timeout_seconds": min(own.timeout_seconds, caps.max_timeout_seconds),
            "max_redirects": min(own.max_redirects, caps.max_redirects),
            "concurrency": min(own.concurrency, caps.max_concurrency),
        }
    )
    return policy.model_copy(update={"judge": judge, "evidence": evidence})


def load_policy(vault_root: Path) -> Policy:
    """The effective policy: VAULT/.harness/policy.toml (missing → defaults; invalid or naming a
    machine-only key → InputError naming the key) with the machine configuration's settings."""
    path = Path(vault_root) / ".harness" / POLICY_FILE
    data = read_toml(path, what=f"the policy file {path}")
    if data is None:
        return with_machine(Policy(), load_machine_config())
    return with_machine(parse_policy(data, source=str(path)), load_machine_config())


def map_verdict(
    verdict: Verdict,
    *,
    fetch_failed: bool,
    all_claims_primary_supported: bool,
    current_level: int,
) -> tuple[Status, int, EvidenceStatus]:
    """The design's mapping (docs/design/trust.md) of a judge verdict to (verification.status, level, evidence.status).

    - a fetch failure (no evidence body could be obtained) or `unverifiable`: L1 Machine Review
      (a machine looked, nothing confirmed: never higher, also not left at L0), status
      `unverified`, evidence `unreachable` (fetch failure) or `insufficient` (bodies fetched,
      nothing to judge by);
    - `pass` → verified / L2, or L3 when every claim is mapped to a primary source that
      supports it; evidence `grounded`;
    - `warn` → reviewed / L2; evidence `partial`;
    - `fail` → disputed, never promoted: level min(current, 1); evidence `grounded` (the
      bodies were read and contradict the note).

    A model's confidence is deliberately not a parameter: it never raises a level.
    """
    if verdict not in VERDICTS:
        raise InputError(f"Unknown verdict {verdict!r}; expected one of {', '.join(VERDICTS)}.")
    current = max(0, min(int(current_level), 3))
    retained = min(current, 1)
    # A machine review that could not confirm the note leaves it at L1 (Machine Review): reviewed,
    # never promoted, and due again soon (unreachable) or listed until confirmed.
    if fetch_failed:
        return "unverified", 1, "unreachable"
    if verdict == "unverifiable":
        return "unverified", 1, "insufficient"
    if verdict == "fail":
        return "disputed", retained, "grounded"
    if verdict == "warn":
        return "reviewed", 2, "partial"
    return "verified", (3 if all_claims_primary_supported else 2), "grounded"


def revalidate_after(policy: Policy, last_validated: dt.date) -> dt.date:
    return last_validated + dt.timedelta(days=policy.ttl_days)


def proposed_blocks(
    policy: Policy,
    *,
    verdict: Verdict,
    fetch_failed: bool,
    all_claims_primary_supported: bool,
    current_level: int,
    validator: str,
    content_sha256: str,
    references_sha256: str,
    run_id: str | None,
    sources: Sequence[Mapping[str, Any]],
    today: dt.date | None = None,
    existing_verification: Mapping[str, Any] | None = None,
    existing_evidence: Mapping[str, Any] | None = None,
    claims: tuple[int, int] | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The `verification` and `evidence` mappings to write after a validation.

    Keys the sidecar does not own that already exist in the blocks are kept (after the known
    keys, in their original order). `evidence.source_count` counts the sources whose body was
    fetched (a snapshot exists); `sources` lists every source tried. `claims` = (supported, judged):
    written as `claims_supported` / `claims_total` after `level` when a page was read and claims judged.
    """
    day = today or dt.date.today()
    status, level, evidence_status = map_verdict(
        verdict,
        fetch_failed=fetch_failed,
        all_claims_primary_supported=all_claims_primary_supported,
        current_level=current_level,
    )
    due = day + dt.timedelta(days=policy.retry_unreachable_days) if fetch_failed else revalidate_after(policy, day)
    verification: dict[str, Any] = {"status": status, "level": level}
    if claims is not None and claims[1] > 0 and not fetch_failed:
        verification["claims_supported"], verification["claims_total"] = claims
    verification |= {
        "validator": validator,
        "last_validated": day,
        "revalidate_after": due,
        "content_sha256": content_sha256,
        "references_sha256": references_sha256,
    }
    if run_id:
        verification["run_id"] = run_id
    for key, value in (existing_verification or {}).items():
        if key not in verification and key not in ("run_id", *CLAIM_KEYS):  # an earlier run's counts: dropped
            verification[str(key)] = value
    source_list: list[dict[str, Any]] = []
    for source in sources:
        entry = {
            "url": str(source.get("url", "")),
            "snapshot_sha256": source.get("snapshot_sha256"),
            "fetched_at": source.get("fetched_at"),
            "verdict": source.get("verdict"),
        }
        if source.get("error") and not source.get("snapshot_sha256"):
            entry["error"] = str(source["error"])  # why this page could not be read (http_404, timeout, …)
        source_list.append(entry)
    evidence: dict[str, Any] = {
        "status": evidence_status,
        "source_count": sum(1 for s in source_list if s["snapshot_sha256"]),
        "sources": source_list,
    }
    for key, value in (existing_evidence or {}).items():
        if key not in evidence:
            evidence[str(key)] = value
    return verification, evidence
