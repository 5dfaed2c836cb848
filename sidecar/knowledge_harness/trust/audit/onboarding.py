"""`kh init`: the first look at one's own vault — why the audit counts nothing yet, and what would.

Read-only: it counts notes by folder and tag, notes with a `provenance` block, notes whose
references the audit recognizes (a `references` property, or URLs under a References / Sources /
参考資料 / 参考文献 / 出典 heading), and notes that cite http(s) URLs the audit does *not*
recognize (elsewhere in the body). It proposes a `[keywords]` rule that makes the notes with
recognized sources Keyword notes, and says what the audit would then count. Writing the proposal
into `.harness/policy.toml` is a separate, explicit step (`--write`).
"""

from __future__ import annotations

import datetime as dt
import difflib
import re
from collections import Counter
from typing import Any

from pydantic import BaseModel, Field

from ...errors import PreconditionFailed, Refused
from ...machine_config import load_machine_config
from ...vault.catalog import NoteCatalog
from ...vault.paths import Vault
from ...vault.references import URL_PATTERN, is_evidence_url
from ..policy import KeywordRule, Policy, load_policy, note_tags, with_machine
from ..records import read_policy_text, write_policy_text
from .audit import run_audit

EXAMPLES = 5
_KEYWORDS_TABLE = re.compile(r"^\[keywords\][^\n]*\n(?:(?!\[)[^\n]*\n?)*", re.MULTILINE)


class CountedFigures(BaseModel):
    raw: int
    evidence_capable: int
    fresh_l2: int
    coverage: float


class Unrecognized(BaseModel):
    path: str
    reason: str
    example_url: str


class InitReport(BaseModel):
    notes: int
    by_folder: dict[str, int]
    by_tag: dict[str, int]
    with_provenance: int
    with_recognized_sources: int
    with_unrecognized_urls: int
    unrecognized_examples: list[Unrecognized]
    current_rule: dict[str, Any]
    proposed_rule: dict[str, Any]
    proposed_toml: str
    counted_now: CountedFigures
    counted_with_proposal: CountedFigures
    policy_exists: bool
    explanation: list[str]


def _folder(path: str) -> str:
    return path.split("/", 1)[0] if "/" in path else "(vault root)"


def _figures(catalog: NoteCatalog, policy: Policy, today: dt.date) -> CountedFigures:
    report = run_audit(catalog, policy, today=today)
    return CountedFigures(
        raw=report.raw, evidence_capable=report.evidence_capable, fresh_l2=report.fresh_l2, coverage=report.coverage
    )


def _rule_toml(rule: KeywordRule) -> str:
    def items(values: list[str]) -> str:
        return "[" + ", ".join('"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"' for v in values) + "]"

    return (
        "[keywords]\n"
        f"provenance = {'true' if rule.provenance else 'false'}\n"
        f"folders = {items(rule.folders)}\n"
        f"tags = {items(rule.tags)}\n"
    )


def inspect_vault(vault: Vault, *, today: dt.date | None = None) -> InitReport:
    day = today or dt.date.today()
    catalog = NoteCatalog(vault)
    policy = load_policy(vault.root)
    folders: Counter[str] = Counter()
    tags: Counter[str] = Counter()
    provenance = recognized = unrecognized_count = 0
    recognized_folders: set[str] = set()
    recognized_at_root = False
    unrecognized: list[Unrecognized] = []
    notes = catalog.notes()
    for _, note in notes:
        folders[_folder(note.path)] += 1
        tags.update(note_tags(note.properties))
        if isinstance(note.properties.get("provenance"), dict):
            provenance += 1
        refs = [u for u in note.references if is_evidence_url(u)]
        if refs:
            recognized += 1
            if "/" in note.path:
                recognized_folders.add(_folder(note.path))
            else:
                recognized_at_root = True
            continue
        cited = [u for u in URL_PATTERN.findall(note.body) if is_evidence_url(u)]
        if cited:
            unrecognized_count += 1
            if len(unrecognized) < EXAMPLES:
                unrecognized.append(
                    Unrecognized(
                        path=note.path,
                        reason="cites http(s) URLs outside a References / Sources section and has no "
                        "`references` property",
                        example_url=cited[0],
                    )
                )
    if recognized_at_root:
        # Notes with sources lie in the vault's root, which no folder rule can select: count every note.
        proposed = KeywordRule(provenance=False, folders=[], tags=[])
    elif recognized_folders:
        proposed = KeywordRule(provenance=True, folders=sorted(recognized_folders), tags=[])
    else:
        proposed = policy.keywords
    with_proposal = with_machine(policy.model_copy(update={"keywords": proposed}), load_machine_config())
    now = _figures(catalog, policy, day)
    then = _figures(catalog, with_proposal, day)
    explanation = _explain(len(notes), provenance, recognized, unrecognized_count, now, then, proposed, policy)
    return InitReport(
        notes=len(notes),
        by_folder=dict(folders.most_common(20)),
        by_tag=dict(tags.most_common(20)),
        with_provenance=provenance,
        with_recognized_sources=recognized,
        with_unrecognized_urls=unrecognized_count,
        unrecognized_examples=unrecognized,
        current_rule=policy.keywords.model_dump(),
        proposed_rule=proposed.model_dump(),
        proposed_toml=_rule_toml(proposed),
        counted_now=now,
        counted_with_proposal=then,
        policy_exists=read_policy_text(vault) is not None,
        explanation=explanation,
    )


def _explain(
    notes: int,
    provenance: int,
    recognized: int,
    unrecognized: int,
    now: CountedFigures,
    then: CountedFigures,
    proposed: KeywordRule,
    policy: Policy,
) -> list[str]:
    lines = []
    if now.raw == 0:
        lines.append(
            f"The audit counts no note yet: of {notes} notes, {provenance} have a `provenance` block, and the "
            "keyword rule in use counts only those"
            + (f" and notes under {', '.join(policy.keywords.folders)}" if policy.keywords.folders else "")
            + "."
        )
    if recognized:
        lines.append(
            f"{recognized} note(s) cite sources the audit recognizes (a `references` property, or URLs under a "
            "References / Sources / 参考資料 / 参考文献 / 出典 heading): these can be validated."
        )
    if unrecognized:
        lines.append(
            f"{unrecognized} note(s) cite http(s) URLs the audit does not recognize: put them under a heading such "
            "as `## Sources`, or list them in a `references` property, and they count."
        )
    if proposed != policy.keywords:
        lines.append(
            f"With the proposed rule the audit would count {then.raw} Keyword note(s), {then.evidence_capable} "
            f"evidence-capable, {then.fresh_l2} Fresh L2, once it is written to .harness/policy.toml."
        )
    return lines


def write_proposal(vault: Vault, report: InitReport, *, force: bool) -> str:
    """Write the proposed [keywords] rule into .harness/policy.toml; returns the unified diff.

    An existing policy is changed only with `force`, and only its [keywords] table."""
    current = read_policy_text(vault)
    if current is None:
        new = "# Written by `kh init`: which notes the audit counts (docs/trust-policy.md).\n" + report.proposed_toml
    else:
        if not force:
            raise Refused(
                ".harness/policy.toml exists; run again with --force to replace its [keywords] table "
                "(the diff is shown), or edit it by hand."
            )
        block = report.proposed_toml
        new = (
            _KEYWORDS_TABLE.sub(block, current, count=1)
            if _KEYWORDS_TABLE.search(current)
            else (current.rstrip("\n") + "\n\n" + block)
        )
    diff = "".join(
        difflib.unified_diff(
            (current or "").splitlines(keepends=True),
            new.splitlines(keepends=True),
            fromfile=".harness/policy.toml (before)",
            tofile=".harness/policy.toml (after)",
        )
    )
    if new != current:
        write_policy_text(vault, new)
    return diff


class InitApplied(BaseModel):
    written: bool = Field(description="False when the policy already said this.")
    diff: str = Field(description="Unified diff of .harness/policy.toml, before and after.")
    report: InitReport = Field(description="The report the rule was taken from (figures with the rule applied).")


def apply_proposal(vault: Vault, *, seen_toml: str, force: bool, today: dt.date | None = None) -> InitApplied:
    """Write the proposal the person saw: refused when the vault now proposes another rule (they
    confirmed that one, not this one), and for an existing policy without `force`."""
    report = inspect_vault(vault, today=today)
    if report.proposed_toml != seen_toml:
        raise PreconditionFailed(
            "The proposed rule changed since it was shown (notes or the policy changed); look at it again.",
            detail={"proposed_toml": report.proposed_toml},
        )
    diff = write_proposal(vault, report, force=force)
    return InitApplied(written=bool(diff), diff=diff, report=report)
