"""`kh trust adopt`: a person vouches, at a terminal, for trust blocks no record holds.

A vault that already carries `verification` / `evidence` blocks (a person's own history, the demo
vault, blocks written before runs kept a digest) reads `unrecorded` until a record stands behind
each note's blocks. Adoption writes that record: one file under `.harness/adoptions/` listing,
per note, the digest of its blocks as they are now (trust/records.blocks_digest) and who
vouched for them (the OS account at the terminal). It changes no note byte. The notes then read
`adopted` (counted at their written level) until their blocks change.

Only unrecorded notes are adopted: a note written by a run that did not succeed (provisional) is
re-verified by a plan instead, and a note whose frontmatter cannot be read has nothing to vouch for.
The person confirms by typing `ADOPT <digest>`, the first 12 hex digits of the SHA-256 of the list
shown (paths and block digests): if any note's blocks changed in between, the digest differs and
nothing is written.
"""

from __future__ import annotations

import datetime as dt
import secrets
from typing import Any

from pydantic import BaseModel, Field

from ...actors import Actor
from ...core.clock import compact_utc_z, now_utc, utc_z
from ...core.hashing import sha256_hex
from ...core.jsonutil import canonical_json
from ...errors import ChallengeRefused, InputError, PersonRequired
from ...vault.catalog import NoteCatalog
from ...vault.lock import ensure_writable, vault_lock
from ...vault.paths import Vault
from ..audit.audit import iter_states
from ..policy import Policy
from ..records import ADOPTION_FORMAT, write_adoption

ADOPT_KEYWORD = "ADOPT"
DIGEST_SHOWN = 12


class AdoptionItem(BaseModel):
    path: str
    level: int
    status: str
    run_id: str | None = Field(default=None, description="The run the note's verification block names, if any.")
    blocks_sha256: str
    reason: str = Field(description="Why no record holds the note's blocks today.")


class AdoptionPreview(BaseModel):
    notes: list[AdoptionItem]
    digest: str = Field(description="SHA-256 of the canonical list of (path, blocks_sha256): what the person confirms.")

    @property
    def short(self) -> str:
        return self.digest[:DIGEST_SHOWN]


def preview_adoption(vault: Vault, *, today: dt.date | None = None) -> AdoptionPreview:
    """The unrecorded notes an adoption would vouch for now (read-only)."""
    catalog = NoteCatalog(vault)
    items = []
    # every note, whatever the vault's policy says is a Keyword note: the policy never decides records
    for state in iter_states(catalog, Policy(), today or now_utc().date()):
        facts = state.facts
        if state.record.kind != "unrecorded" or facts.note.problem is not None or facts.blocks_sha256 is None:
            continue
        items.append(
            AdoptionItem(
                path=facts.note.path,
                level=facts.trust.level,
                status=facts.trust.status,
                run_id=state.record.run_id,
                blocks_sha256=facts.blocks_sha256,
                reason=state.record.reason or "",
            )
        )
    items.sort(key=lambda item: item.path)
    digest = sha256_hex(canonical_json([[item.path, item.blocks_sha256] for item in items]))
    return AdoptionPreview(notes=items, digest=digest)


def adopt(vault: Vault, typed: str, *, actor: Actor, now: dt.datetime | None = None) -> dict[str, Any]:
    """Write one adoption record for the notes `preview_adoption` lists, after the exact typed
    `ADOPT <digest12>`; returns the record. Only a person adopts (a terminal door proves it)."""
    if not actor.is_person:
        raise PersonRequired("Only a person may adopt trust blocks: a person vouches for them at a terminal.")
    ensure_writable(vault, "trust adopt")
    with vault_lock(vault, "trust adopt"):
        preview = preview_adoption(vault)
        if not preview.notes:
            raise InputError("No unrecorded note to adopt: every trust block already rests on a record.")
        expected = f"{ADOPT_KEYWORD} {preview.short}"
        if " ".join(typed.split()) != expected:
            raise ChallengeRefused(
                f"Adoption needs exactly '{ADOPT_KEYWORD} <the 12-digit digest shown>' (the list may have changed "
                "since it was shown); nothing was written.",
                detail={"expected_digest": preview.short},
            )
        moment = now or now_utc()
        adoption_id = f"adopt-{compact_utc_z(moment)}-{secrets.token_hex(4)}"
        record: dict[str, Any] = {
            "format": ADOPTION_FORMAT,
            "adoption_id": adoption_id,
            "adopted_by": actor.name,
            "adopted_via": actor.via,
            "adopted_at": utc_z(moment),
            "digest": preview.digest,
            "notes": [item.model_dump(exclude={"reason"}) for item in preview.notes],
        }
        write_adoption(vault, adoption_id, record)
    return record
