"""TOML settings files (`.harness/pipeline.toml`, `policy.toml`, the machine configuration): one reader.

A file is UTF-8 TOML or it is refused with one error, `TomlInvalid`, naming the file and the line
and column of the first problem. A missing file is not an error here: each caller knows its default.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..errors import InputError, TomlInvalid

_WHERE = re.compile(r"\s*\(at line (\d+), column (\d+)\)$")


def parse_toml(raw: bytes, *, what: str) -> dict[str, Any]:
    """The TOML document in `raw`; `what` names it in the error ("the policy file /v/.harness/policy.toml")."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise TomlInvalid(what, "not UTF-8 text", line, column) from exc
    import tomllib  # here: most `kh index build` runs read no TOML file (start-up time)

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        reason = str(exc)
        found = _WHERE.search(reason)
        if found is None:  # "(at end of document)"
            lines = text.split("\n")
            raise TomlInvalid(what, reason, len(lines), len(lines[-1]) + 1) from exc
        raise TomlInvalid(what, reason[: found.start()], int(found[1]), int(found[2])) from exc


def read_toml(path: Path, *, what: str) -> dict[str, Any] | None:
    """The TOML file at `path`, or None when there is none; `InputError` when it cannot be read."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise InputError(f"Cannot read {what}: {exc.strerror}.") from exc
    return parse_toml(raw, what=what)
