"""`kh` on a machine whose clock reads KH_TEST_NOW (e.g. 2026-12-02T09:00:00Z) when it starts, then runs on.

The example vault's states hold on its fixed date (examples/README.md); a plan that is to be approved must be
dated by the clock (docs/approval.md), so the approval-gate tests set the clock, not a `--today`. A stand-in for
a system clock that cannot be set here: the product reads no such variable, only this launcher does.
Run as `python tests/support/clocked_kh.py <kh args>`.
"""

from __future__ import annotations

import datetime as dt
import os
import sys
import time

from knowledge_harness.core import clock


def _install(start: dt.datetime) -> None:
    began = time.monotonic()

    def now_utc() -> dt.datetime:
        return (start + dt.timedelta(seconds=time.monotonic() - began)).replace(microsecond=0)

    clock.now_utc = now_utc  # before the CLI's modules import it by name
    clock.now_utc_z = lambda: clock.utc_z(now_utc())


if __name__ == "__main__":
    _install(clock.parse_utc_z(os.environ["KH_TEST_NOW"]))
    from knowledge_harness.cli import main

    sys.exit(main())
