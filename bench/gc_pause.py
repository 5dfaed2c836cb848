"""GC pause: a full cyclic-GC collection in a sidecar process, with and without freezing.

core/memory.py freezes long-lived objects twice: after start-up (the imports' objects) and after
an audit parses many notes. This measures what that buys: in a fresh process that imports the
REST app and builds it on a generated 10,000-note vault, the CPU time of a full `gc.collect()`
(median of 7) after the imports and after one audit, once with the sidecar's freezes and once
with `gc.freeze` made a no-op. Environment: KH_GC_NOTES (default 10000).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench.make_vault import make_vault

_CHILD = r"""
import gc, json, statistics, sys, time
from pathlib import Path
if sys.argv[2] == "nofreeze":
    gc.freeze = lambda: None
from knowledge_harness.api.app import create_app
from knowledge_harness.api.context import AppContext
from knowledge_harness.core.memory import freeze_long_lived
from knowledge_harness.settings import Settings
from knowledge_harness.trust.audit.audit import current_policy, run_audit

def full_gc_ms():
    cpu = []
    for _ in range(7):
        start = time.process_time()
        gc.collect()
        cpu.append(time.process_time() - start)
    return statistics.median(cpu) * 1e3

settings = Settings(vault=Path(sys.argv[1]), host="127.0.0.1", port=0, token="t" * 32)
ctx = AppContext.create(settings)
create_app(settings, ctx)
freeze_long_lived(collect_first=True)  # what the serve lifespan does
out = {"imports_ms": full_gc_ms(), "imports_tracked": len(gc.get_objects())}
run_audit(ctx.catalog, current_policy(ctx.vault.root, auditor=ctx.auditor))
out |= {"audit_ms": full_gc_ms(), "audit_tracked": len(gc.get_objects())}
print(json.dumps(out))
"""


def _measure(vault: Path, mode: str) -> dict[str, float]:
    done = subprocess.run([sys.executable, "-c", _CHILD, str(vault), mode], capture_output=True, text=True, check=True)
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def run() -> dict[str, Any]:
    notes = int(os.environ.get("KH_GC_NOTES", "10000"))
    with tempfile.TemporaryDirectory(prefix="kh-gc-") as tmp:
        vault = Path(tmp) / "vault"
        make_vault(vault, notes)
        frozen, unfrozen = _measure(vault, "freeze"), _measure(vault, "nofreeze")
    figures = []
    for moment, label in (("imports", "after start-up"), ("audit", f"after auditing {notes:,} notes")):
        for name, result in (("frozen", frozen), ("not frozen", unfrozen)):
            figures.append(
                {
                    "name": f"full GC {label}, {name} ({int(result[moment + '_tracked']):,} tracked objects)",
                    "value": round(result[moment + "_ms"], 1),
                    "unit": "ms CPU",
                }
            )
    return {
        "title": "GC pause (core/memory.py freeze_long_lived)",
        "command": "python -m bench gc_pause",
        "figures": figures,
        "notes": "Median of 7 full collections, CPU time, in a fresh process per mode.",
    }


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))
