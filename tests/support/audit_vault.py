"""Builds small real vaults on disk for the trust tests, with hashes computed from the note bytes.

`build_stage_e_vault` reproduces the Stage E figures of the trust design (docs/design/trust.md): 80 Keyword notes, 73 evidence-capable,
59 Fresh L2 (Coverage 80.82%, 80% threshold 59, surplus 0), plus every stale trigger, every
window, a disputed note, a metadata error and a malformed note.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from knowledge_harness import actors
from knowledge_harness.trust.approve.adoption import ADOPT_KEYWORD, adopt, preview_adoption
from knowledge_harness.vault.paths import Vault
from knowledge_harness.vault.references import references_sha256

TODAY = dt.date(2026, 9, 20)
TTL = 90


def body_for(name: str, urls: list[str]) -> str:
    refs = "".join(f"- {url}\n" for url in urls)
    section = f"\n## References\n\n{refs}" if urls else ""
    return f"\n# {name}\n\n{name} is a concept described in this note.\n{section}"


@dataclass
class NoteSpec:
    path: str
    urls: list[str] = field(default_factory=lambda: ["https://example.org/a"])
    provenance: bool = True
    status: str | None = "verified"  # None: no verification block
    level: int = 2
    last_validated: dt.date | None = TODAY - dt.timedelta(days=10)
    revalidate_after: dt.date | None = TODAY + dt.timedelta(days=80)
    hashes: bool = True
    extra_verification: str = ""
    mutate_body: Callable[[str], str] | None = None  # applied after hashing → content_changed
    mutate_urls: list[str] | None = None  # written instead of urls after hashing → references_changed


def render(spec: NoteSpec) -> bytes:
    body = body_for(Path(spec.path).stem, spec.urls)
    content_sha = hashlib.sha256(body.encode("utf-8")).hexdigest()
    refs_sha = references_sha256(spec.urls)
    if spec.mutate_body is not None:
        body = spec.mutate_body(body)
    if spec.mutate_urls is not None:
        body = body_for(Path(spec.path).stem, spec.mutate_urls)
        content_sha = hashlib.sha256(body.encode("utf-8")).hexdigest()  # only references changed
    lines = ["---", f"title: {Path(spec.path).stem}"]
    if spec.provenance:
        lines += ["provenance:", "  origin: ai_generated", "  generator: claude"]
    if spec.status is not None:
        lines += ["verification:", f"  status: {spec.status}", f"  level: {spec.level}", "  validator: lexical-1"]
        if spec.last_validated:
            lines.append(f"  last_validated: {spec.last_validated.isoformat()}")
        if spec.revalidate_after:
            lines.append(f"  revalidate_after: {spec.revalidate_after.isoformat()}")
        if spec.hashes:
            lines += [f"  content_sha256: {content_sha}", f"  references_sha256: {refs_sha}"]
        if spec.extra_verification:
            lines.append(spec.extra_verification)
    lines.append("---")
    return ("\n".join(lines) + "\n" + body).encode("utf-8")


def write_vault(root: Path, specs: list[NoteSpec], policy: str | None = None, *, adopted: bool = True) -> Path:
    """The notes on disk; `adopted`: their trust blocks rest on a person's adoption (as `kh trust adopt`
    at a terminal writes it), so they count at their written level like a vault whose blocks a
    person vouched for. `adopted=False`: hand-written blocks with no record behind them."""
    root.mkdir(parents=True, exist_ok=True)
    for spec in specs:
        target = root / spec.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(render(spec))
    if policy is not None:
        (root / ".harness").mkdir(exist_ok=True)
        (root / ".harness" / "policy.toml").write_text(policy, encoding="utf-8")
    if adopted:
        adopt_all(root)
    return root


def adopt_all(root: Path) -> None:
    """What a person's `kh trust adopt ROOT` writes after typing the digest shown (the real service)."""
    handle = Vault.open(root)
    preview = preview_adoption(handle)
    if preview.notes:
        adopt(handle, f"{ADOPT_KEYWORD} {preview.short}", actor=actors.person("terminal"))


def in_days(days: int) -> dt.date:
    return TODAY + dt.timedelta(days=days)


# Expected lists of the Stage E vault, used by the tests.
WINDOW_NOTES = {
    "next_batch": ["kw/win-due-today.md", "kw/win-5.md", "kw/win-7.md"],
    "prepare": ["kw/win-8.md", "kw/win-14.md"],
    "watch": ["kw/win-15.md", "kw/win-30.md"],
}
STALE_NOTES = {
    "kw/stale-content.md": ["content_changed"],
    "kw/stale-refs.md": ["references_changed"],
    "kw/stale-expired.md": ["age_expired"],
    "kw/stale-ttl.md": ["age_expired"],
    "kw/stale-nobaseline.md": ["no_baseline"],
    "kw/stale-both.md": ["content_changed", "age_expired"],
}
DISPUTED = ["kw/disputed.md"]


def stage_e_specs() -> list[NoteSpec]:
    specs: list[NoteSpec] = []
    # 59 Fresh L2: 50 plain, 7 in windows, one 31 days out, one L3 reviewed mix.
    for i in range(50):
        specs.append(NoteSpec(f"kw/fresh-{i:02d}.md", status="verified" if i % 3 else "reviewed"))
    for days, name in [(0, "win-due-today"), (5, "win-5"), (7, "win-7"), (8, "win-8"), (14, "win-14")]:
        specs.append(NoteSpec(f"kw/{name}.md", revalidate_after=in_days(days), last_validated=in_days(days - 90)))
    for days, name in [(15, "win-15"), (30, "win-30"), (31, "win-31")]:
        specs.append(NoteSpec(f"kw/{name}.md", revalidate_after=in_days(days), last_validated=in_days(days - 90)))
    specs.append(NoteSpec("kw/primary-l3.md", level=3))
    assert len(specs) == 59
    # 14 evidence-capable but not Fresh L2.
    specs += [
        NoteSpec("kw/stale-content.md", mutate_body=lambda b: b + "\nAn edit after validation.\n"),
        NoteSpec("kw/stale-refs.md", mutate_urls=["https://example.org/a", "https://example.org/new"]),
        NoteSpec("kw/stale-expired.md", revalidate_after=in_days(-1), last_validated=in_days(-91)),
        NoteSpec("kw/stale-ttl.md", revalidate_after=None, last_validated=in_days(-91)),
        NoteSpec("kw/stale-nobaseline.md", hashes=False),
        NoteSpec(
            "kw/stale-both.md",
            revalidate_after=in_days(-3),
            last_validated=in_days(-93),
            mutate_body=lambda b: b.replace("concept", "notion"),
        ),
        NoteSpec("kw/disputed.md", status="disputed", level=1),
        NoteSpec("kw/unreachable-l1.md", status="unverified", level=1),
        NoteSpec("kw/bad-level.md", level=7),  # metadata error: level 7 → not Fresh L2
        NoteSpec("kw/l1-a.md", status="reviewed", level=1),
        NoteSpec("kw/never-a.md", status=None),
        NoteSpec("kw/never-b.md", status=None),
        NoteSpec("kw/never-c.md", status=None),
        NoteSpec("kw/never-d.md", status=None),
    ]
    # 7 Keyword notes that cite no http(s) reference (one even claims L2: not counted).
    specs += [NoteSpec(f"kw/offline-{i}.md", urls=[], status=None) for i in range(6)]
    specs.append(NoteSpec("kw/offline-claims-l2.md", urls=[]))
    # Notes that are not Keywords (no provenance block).
    specs += [NoteSpec(f"journal/day-{i}.md", provenance=False, status=None) for i in range(4)]
    specs.append(NoteSpec("journal/validated-not-keyword.md", provenance=False))
    return specs


MALFORMED = "kw/malformed.md"


def build_stage_e_vault(root: Path, policy: str | None = "ttl_days = 90\nthreshold = 0.80\n") -> Path:
    write_vault(root, stage_e_specs(), policy)
    # Not a Keyword note even when counted from its text (no `provenance:` line, no URL): the design's
    # figures stay 80 / 73 / 59 while the audit still lists the note under errors.
    (root / MALFORMED).write_bytes(b"---\ntitle: [unclosed\norigin: human\n---\nbody\n")
    (root / ".obsidian").mkdir(exist_ok=True)
    (root / ".obsidian" / "app.json").write_text("{}", encoding="utf-8")
    return root


def snapshot(root: Path) -> dict[str, tuple[bytes, int, int]]:
    """Every file (hidden folders included) with its bytes, mtime_ns and mode."""
    result: dict[str, tuple[bytes, int, int]] = {}
    for path in sorted(root.rglob("*")):
        if path.is_file():
            st = path.stat()
            result[path.relative_to(root).as_posix()] = (path.read_bytes(), st.st_mtime_ns, st.st_mode)
    return result
