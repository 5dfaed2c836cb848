"""One freshness for every door: index search asks the trust audit, never flags stored at build time.

The reasoning index and the trust core are sibling layers (neither imports the other); this module
sits above both and hands search a function that evaluates a note's trust the way the audit and
the badge do — today's date, the note's current bytes, the policy, the run records.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

from .errors import HarnessError
from .index.query import search
from .index.schema import SearchQuery, SearchResult, TrustSummary
from .index.vault_index import VaultIndex
from .trust.audit.audit import Auditor, current_policy, note_state
from .vault.catalog import NoteCatalog

TrustOf = Callable[[str], TrustSummary | None]


def live_trust(catalog: NoteCatalog, today: dt.date | None = None, *, auditor: Auditor | None = None) -> TrustOf:
    """path → the note's trust as the audit sees it now (None when the note has no verification)."""
    day = today or dt.date.today()
    policy = current_policy(catalog.vault.root, auditor=auditor)

    def trust_of(path: str) -> TrustSummary | None:
        try:
            note = catalog.note(path)
        except HarnessError:
            return None
        if note.problem is None and not isinstance(note.properties.get("verification"), dict):
            return None
        # the badge's evaluation, without the quotes a badge reads from run and plan records
        state = note_state(catalog, policy, note, day)
        trust = state.facts.trust
        fresh = (
            state.fresh  # validated, no trigger, and recorded or adopted (so not provisional)
            and trust.level >= 2
            and trust.status in ("verified", "reviewed")
            and not state.errors
        )
        return TrustSummary(
            level=trust.level,
            status=trust.status,
            fresh=fresh,
            triggers=list(state.triggers),
            revalidate_after=state.due.isoformat() if state.due else None,
        )

    return trust_of


def trusted_search(
    catalog: NoteCatalog, asked: SearchQuery, *, auditor: Auditor | None = None, index: VaultIndex | None = None
) -> SearchResult:
    """The search every door serves: the index's ranking, each hit's trust as the audit sees it now."""
    return search(catalog.vault, asked, trust_of=live_trust(catalog, auditor=auditor), index=index)
