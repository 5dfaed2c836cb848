"""Hypothesis example counts that follow the loaded profile (tests/conftest.py registers them).

A property test states how heavy it is relative to an ordinary one, not an absolute count:
`@settings(max_examples=examples(3))` runs 3 × the profile's `max_examples` — 300 under the default
`ci` profile, 60,000 under `fuzz` (`make fuzz`, `HYPOTHESIS_PROFILE=fuzz`). A test whose single example
is slow (it builds a vault, starts a process) takes a weight below 1. The conftest loads the profile
before any test module is imported, so reading it at decoration time sees the right one.
"""

from __future__ import annotations

from hypothesis import settings


def examples(weight: float) -> int:
    """`weight` × the loaded profile's max_examples, at least 1."""
    if weight <= 0:
        raise ValueError("weight must be positive")
    return max(1, round(weight * settings.default.max_examples))
