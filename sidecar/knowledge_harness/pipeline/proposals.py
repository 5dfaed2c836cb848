"""Policy proposals: records a person accepts or declines; never adopted automatically.

Operations propose (O-09 a validation policy, O-11 「今後の方針として検討する」, O-13 repeated human
questions and, every 10 runs, the evidence limits with the figures of those runs). Each proposal
is kept twice: as a block of `.harness/DECISIONS.md` (append-only, for people reading the vault)
and as a record `.harness/proposals/<id>.json` (status open → accepted | declined, who decided,
when, the chosen option and a note). Only a person decides (`kh pipeline policy accept|decline`
at a terminal, REST with the person token); the decision is appended to DECISIONS.md too.
Accepting records the adoption; changing `.harness/pipeline.toml` stays the person's own edit.
Proposals written to DECISIONS.md before these records existed are listed from its markers.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..actors import Actor
from ..errors import Conflict, InputError, NotFound, PersonRequired
from ..vault.atomic import atomic_write, pretty_json
from ..vault.paths import Vault
from .run_store import RunStore

ProposalStatus = Literal["open", "accepted", "declined"]
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,160}$")
_MARKER = re.compile(r"^<!-- proposal:([A-Za-z0-9][A-Za-z0-9._-]{0,160}) -->$", re.M)
_DECISION_SUFFIXES = (".accepted", ".declined")
SUBDIR = "proposals"


@dataclass(frozen=True)
class ProposalSpec:
    """What an operation proposes: the DECISIONS.md text plus the structure a person decides on."""

    proposal_id: str
    markdown: str
    kind: str = "policy"
    title_ja: str = ""
    options: list[str] = field(default_factory=list)
    figures: dict[str, Any] = field(default_factory=dict)
    source_runs: list[str] = field(default_factory=list)


class Proposal(BaseModel):
    """One proposal record (`.harness/proposals/<id>.json`)."""

    model_config = ConfigDict(extra="forbid")

    proposal_id: str
    kind: str
    title_ja: str
    markdown: str
    options: list[str] = Field(default_factory=list)
    figures: dict[str, Any] = Field(default_factory=dict)
    source_runs: list[str] = Field(default_factory=list)
    proposed_by_run: str | None = None
    created_at: str | None = None
    status: ProposalStatus = "open"
    decided_by: str | None = None
    decided_at: str | None = None
    chosen_option: int | None = None
    note: str | None = None


def _kind_of(proposal_id: str) -> str:
    for prefix, kind in (
        ("repeated-question", "repeated_question"),
        ("evidence-limits", "evidence_limits"),
        ("validation", "validation_policy"),
    ):
        if proposal_id.startswith(prefix):
            return kind
    return "policy"


def _title_of(markdown: str, proposal_id: str) -> str:
    for line in markdown.splitlines():
        if line.startswith("#"):
            return line.lstrip("#").strip().removeprefix("提案:").strip()[:200]
    return proposal_id


def as_spec(proposal: tuple[str, str] | ProposalSpec) -> ProposalSpec:
    if isinstance(proposal, ProposalSpec):
        return proposal
    proposal_id, markdown = proposal
    return ProposalSpec(proposal_id, markdown, kind=_kind_of(proposal_id))


class ProposalBook:
    """The proposals of one vault: recording them, listing them, and the person's accept/decline."""

    def __init__(self, vault: Vault, store: RunStore | None = None) -> None:
        self.store = store or RunStore(vault)
        self.folder = vault.harness_dir / SUBDIR

    def _path(self, proposal_id: str) -> Any:
        if not _ID.match(proposal_id) or proposal_id.endswith(_DECISION_SUFFIXES):
            raise InputError(f"Not a proposal id: {proposal_id!r}.")
        return self.folder / f"{proposal_id}.json"

    def _write(self, proposal: Proposal) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        atomic_write(self._path(proposal.proposal_id), pretty_json(proposal.model_dump(mode="json")))

    # -- recording (called by the engine for every proposal an operation makes) ---------------------
    def record(self, run_id: str, proposal: tuple[str, str] | ProposalSpec, now: str) -> bool:
        """Append the proposal to DECISIONS.md and keep its record, once per id; False when known."""
        spec = as_spec(proposal)
        appended = self.store.append_decision(spec.proposal_id, spec.markdown)
        path = self._path(spec.proposal_id)
        if path.exists():
            return False
        self._write(
            Proposal(
                proposal_id=spec.proposal_id,
                kind=spec.kind,
                title_ja=spec.title_ja or _title_of(spec.markdown, spec.proposal_id),
                markdown=spec.markdown.rstrip() + "\n",
                options=list(spec.options),
                figures=dict(spec.figures),
                source_runs=list(spec.source_runs) or [run_id],
                proposed_by_run=run_id,
                created_at=now,
            )
        )
        return appended

    # -- reading ------------------------------------------------------------------------------------
    def _legacy(self) -> dict[str, Proposal]:
        """Proposals present only as DECISIONS.md blocks (written before records were kept)."""
        text = self.store.read_decisions()
        found: dict[str, Proposal] = {}
        marks = list(_MARKER.finditer(text))
        for i, mark in enumerate(marks):
            pid = mark.group(1)
            if pid.endswith(_DECISION_SUFFIXES):
                continue
            end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
            block = text[mark.end() : end].strip() + "\n"
            found[pid] = Proposal(proposal_id=pid, kind=_kind_of(pid), title_ja=_title_of(block, pid), markdown=block)
        return found

    def list(self, status: ProposalStatus | None = None) -> list[Proposal]:
        proposals = self._legacy()
        if self.folder.is_dir():
            for path in sorted(self.folder.glob("*.json")):
                try:
                    proposal = Proposal.model_validate(json.loads(path.read_bytes()))
                except (OSError, ValueError) as exc:
                    raise InputError(f"Cannot read the proposal record {path.name}: {exc}.") from exc
                proposals[proposal.proposal_id] = proposal
        out = [p for p in proposals.values() if status is None or p.status == status]
        return sorted(out, key=lambda p: (p.created_at or "", p.proposal_id))

    def get(self, proposal_id: str) -> Proposal:
        self._path(proposal_id)
        for proposal in self.list():
            if proposal.proposal_id == proposal_id:
                return proposal
        raise NotFound(f"No policy proposal {proposal_id}.")

    # -- the person's decision ------------------------------------------------------------------------
    def decide(
        self,
        proposal_id: str,
        *,
        accept: bool,
        actor: Actor,
        now: str,
        option: int | None = None,
        note: str | None = None,
    ) -> Proposal:
        """Accept or decline a proposal (a person only). The same decision again changes nothing; a
        different decision on a decided proposal is refused (409)."""
        if not actor.is_person:
            raise PersonRequired(f"Only a person may accept or decline a policy proposal; {actor.name} may not.")
        note = (note or "").strip() or None
        if note is not None and len(note) > 4000:
            raise InputError("A note has at most 4000 characters.")
        with self.store.lock():
            proposal = self.get(proposal_id)
            status: ProposalStatus = "accepted" if accept else "declined"
            if proposal.status != "open":
                if proposal.status == status and proposal.chosen_option == option:
                    return proposal
                raise Conflict(
                    f"Policy proposal {proposal_id} was already {proposal.status} by {proposal.decided_by} "
                    f"at {proposal.decided_at}.",
                    detail={"status": proposal.status, "chosen_option": proposal.chosen_option},
                )
            if not accept and option is not None:
                raise InputError("An option is chosen only when accepting.")
            if accept and proposal.options and (option is None or not 1 <= option <= len(proposal.options)):
                raise InputError(
                    f"Choose one option with --option 1..{len(proposal.options)}: "
                    + " / ".join(f"({i}) {o}" for i, o in enumerate(proposal.options, start=1))
                )
            if accept and not proposal.options and option is not None:
                raise InputError("This proposal has no numbered options; accept it without --option.")
            decided = proposal.model_copy(
                update={
                    "status": status,
                    "decided_by": actor.name,
                    "decided_at": now,
                    "chosen_option": option,
                    "note": note,
                }
            )
            self._write(decided)
            label = "採用" if accept else "不採用"
            chosen = f"（選択肢 ({option}) {proposal.options[option - 1]}）" if option and proposal.options else ""
            lines = [f"### 決定: {proposal_id} — {label}{chosen}", "", f"- 判断者: {actor.name}（{now}）"]
            if note:
                lines.append(f"- メモ: {note}")
            if accept:
                lines.append("- 設定（.harness/pipeline.toml）の変更は人間が行う。自動では変更しない。")
            self.store.append_decision(f"{proposal_id}.{status}", "\n".join(lines))
            return decided
