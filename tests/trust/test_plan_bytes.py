"""A stored plan keeps its bytes: the plan file the example vault's pilot batch makes is compared,
byte for byte, with the one made before plans were typed (tests/trust/golden/pilot-plan.json).

The clock is stopped at the fixture's moment (every module that took `now_utc` by name) and the random
id suffix is zeros, so the file is the same every time: key order, values and the digest.
Regenerate with KH_WRITE_GOLDEN=1 only when the plan format changes on purpose.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from knowledge_harness.core import clock
from knowledge_harness.trust.approve import batch
from knowledge_harness.vault.paths import Vault

from ..support.batch_support import fixture_now

GOLDEN = Path(__file__).with_name("golden") / "pilot-plan.json"


def _canonical_sha256(body: dict[str, Any]) -> str:
    canonical = json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode()
    return hashlib.sha256(canonical).hexdigest()


def _stop_the_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    moment = fixture_now()
    stopped = {"now_utc": lambda: moment, "now_utc_z": lambda: clock.utc_z(moment)}
    for name, module in list(sys.modules.items()):
        for attribute, stand_in in stopped.items():
            if name.startswith("knowledge_harness") and getattr(module, attribute, None) is not None:
                monkeypatch.setattr(module, attribute, stand_in)


@pytest.mark.usefixtures("evidence_site")
def test_a_stored_plan_keeps_its_bytes(example_vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("secrets.token_hex", lambda n: "0" * (2 * n))
    _stop_the_clock(monkeypatch)
    vault = Vault.open(example_vault)
    anyio.run(lambda: batch.build_plan(vault, stage="pilot", now=fixture_now(), out_of_order=True))
    (path,) = (example_vault / ".harness" / "plans").glob("plan-*.json")
    raw = path.read_bytes()
    stored = json.loads(raw)
    assert stored["digest"] == _canonical_sha256({k: v for k, v in stored.items() if k != "digest"})
    # the file is the pretty JSON of the plan: sorted keys, two spaces, one final newline
    assert raw == (json.dumps(stored, sort_keys=True, ensure_ascii=False, indent=2) + "\n").encode()
    if os.environ.get("KH_WRITE_GOLDEN"):
        GOLDEN.write_bytes(raw)
    assert raw == GOLDEN.read_bytes()
