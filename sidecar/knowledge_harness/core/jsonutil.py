"""JSON in the two forms the sidecar relies on: canonical bytes to hash, and plain values to emit."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any


def canonical_json(value: Any) -> bytes:
    """Canonical JSON bytes: sorted keys, UTF-8, no insignificant whitespace (same value, same hash)."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def jsonable(value: Any) -> Any:
    """YAML property values as JSON: dates become ISO strings, keys strings, sets lists."""
    if isinstance(value, dt.datetime | dt.date):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set):
        return [jsonable(v) for v in value]
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return value
