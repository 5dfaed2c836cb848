"""JSON for the index's files: the same bytes whether orjson or the standard library writes them.

orjson reads and writes the index's large files several times faster than the standard
library, but importing it costs a new process ~20 ms (it imports dataclasses, inspect, uuid,
datetime and json), about a sixth of a `kh index build` after a one-line edit, which reads and
writes little JSON. That build runs inside `standard_library_only()`; everything else, the full
build included, uses orjson, imported on first use.

Both give the same bytes for the values the index holds — str, int, bool, None, lists and
str-keyed dicts, never a float: compact separators, UTF-8 with only `"`, `\\` and control
characters escaped (as \\n, \\t, \\u001f, ...), keys sorted by code point when asked
(tests/core/test_jsoncodec.py checks every code point and generated values). Reading errors are
ValueError either way (both libraries' JSONDecodeError derive from it).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any

_standard_library = False
_orjson: ModuleType | None = None


def _fast() -> ModuleType:
    global _orjson
    if _orjson is None:
        import orjson

        _orjson = orjson
    return _orjson


def load_fast_codec() -> None:
    """Import orjson now, unless the standard library is to write: before forking helper
    processes, which would each import it again (~20 ms: it imports dataclasses, inspect, uuid)."""
    if not _standard_library:
        _fast()


def loads(data: bytes | str) -> Any:
    if _standard_library:
        return json.loads(data)
    return _fast().loads(data)


def dumps(value: Any, *, sort_keys: bool = False, newline: bool = False) -> bytes:
    """Compact JSON as UTF-8 bytes; `newline` appends "\\n"."""
    if _standard_library:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=sort_keys, allow_nan=False)
        return (text + "\n").encode() if newline else text.encode()
    orjson = _fast()
    option = (orjson.OPT_SORT_KEYS if sort_keys else 0) | (orjson.OPT_APPEND_NEWLINE if newline else 0)
    result: bytes = orjson.dumps(value, option=option)
    return result


@contextmanager
def standard_library_only(*, even_if_loaded: bool = False) -> Iterator[None]:
    """The standard library reads and writes meanwhile, unless orjson is already loaded (then it
    costs nothing more to use it) and `even_if_loaded` is False; nested calls keep the outer choice."""
    global _standard_library
    before = _standard_library
    _standard_library = before or even_if_loaded or "orjson" not in sys.modules
    try:
        yield
    finally:
        _standard_library = before
