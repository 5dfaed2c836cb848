"""What a module keeps in memory: the shape of its cache object, and when to freeze long-lived objects.

Every cache is an object someone owns (api/context.py's `Runtime` lists the sidecar's).

The cyclic garbage collector's full collections walk every tracked object. A sidecar holds two
large sets that live as long as the process: the objects its imports leave (FastAPI, pydantic,
MCP: ~139,000) and the parsed notes an audit keeps. `python -m bench gc_pause` measures a full
collection (median of 7, CPU time): after start-up ~100 ms unfrozen, 0.0 ms frozen; after
auditing a 10,000-note vault ~180 ms unfrozen, 0.2 ms frozen. Those pauses land on
whichever request triggers a collection, so both moments freeze (the serve lifespan after start,
the audit after parsing many notes), and both call `freeze_long_lived` here. Frozen objects are
still freed by reference counting; only cycles among them would outlive their use.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol


class Memory(Protocol):
    """A cache object: it tells its sizes and can forget everything."""

    def sizes(self) -> dict[str, int]: ...

    def clear(self) -> None: ...


def freeze_long_lived(*, collect_first: bool) -> None:
    """Move every object alive now out of the cyclic GC's reach (see the module docstring).

    `collect_first` frees the garbage cycles of start-up first, so they are not kept for good;
    after an audit the extra full collection would itself be the pause the freeze avoids.
    """
    if collect_first:
        gc.collect()
    gc.freeze()


@contextmanager
def paused_gc() -> Iterator[None]:
    """The cyclic GC paused for a burst that makes many objects and frees no cycle (a build, a
    staleness scan of 10,000 notes): a full collection meanwhile walks every object the process
    holds unfrozen. Measured: the first search after `kh index build` changed one note spent
    ~170 ms of its ~250 ms in collections during the staleness scan's 10,000 stats. Another
    thread's pause may end it early; that only lets a collection run."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
