"""One error tree for the whole sidecar.

Modelled on httpx's exception hierarchy: every failure the sidecar reports is a
`HarnessError` with a stable machine `code`, an HTTP status for the REST edge, a CLI
exit code, a one-sentence message and optional structured detail. The doors (REST,
MCP, CLI) map it once at the edge; services just raise.
"""

from __future__ import annotations

import shlex
from typing import Any


class HarnessError(Exception):
    code = "error"
    http_status = 500
    exit_code = 2

    def __init__(self, message: str, *, detail: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.detail = detail

    def to_body(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message, "detail": self.detail}}


# -- request / input problems (exit 2) ------------------------------------------------------
class InputError(HarnessError):
    code = "invalid_input"
    http_status = 400


class PathRejected(InputError):
    """A path that is not a plain vault-relative note path (traversal, absolute, NUL, ...)."""

    code = "path_rejected"


class NotFound(InputError):
    code = "not_found"
    http_status = 404


class IndexMissing(NotFound):
    """The vault has no (readable) reasoning index; the message says how to build one."""

    code = "index_missing"

    @classmethod
    def for_vault(cls, root: object, problem: str = "The vault has no reasoning index yet") -> IndexMissing:
        command = f"kh index build {shlex.quote(str(root))}"
        return cls(
            f"{problem}: build it with `{command}` (or POST /v1/index/build), then ask again.",
            detail={"build": {"cli": command, "http": "POST /v1/index/build"}},
        )


class PayloadTooLarge(InputError):
    code = "payload_too_large"
    http_status = 413


class InvalidNote(InputError):
    """The note exists but cannot be processed (malformed YAML, not UTF-8, too big)."""

    code = "invalid_note"
    http_status = 422


class EvidenceTooLarge(InvalidNote):
    """The note's cited pages hold more text than one validation may judge."""

    code = "evidence_too_large"


# -- security --------------------------------------------------------------------------------
class Unauthorized(HarnessError):
    code = "unauthorized"
    http_status = 401


class Forbidden(HarnessError):
    """Authenticated, but this credential may not do this (exit 1 at the CLI: refused)."""

    code = "forbidden"
    http_status = 403
    exit_code = 1


class PersonRequired(Forbidden):
    """Only a person may do this: the person token, or an interactive terminal."""

    code = "person_required"


class MisdirectedRequest(HarnessError):
    code = "bad_host"
    http_status = 421


# -- refusals of a well-formed request (exit 1) ----------------------------------------------
class Refused(HarnessError):
    code = "refused"
    http_status = 409
    exit_code = 1


class PreconditionFailed(Refused):
    """The file changed since its hash was taken; nothing was written."""

    code = "precondition_failed"
    http_status = 412


class Conflict(Refused):
    code = "conflict"
    http_status = 409


class Busy(Refused):
    """Another process holds the vault's advisory lock."""

    code = "busy"
    http_status = 423


class NotWritable(HarnessError):
    """The operating system refused to create or write the sidecar's files (read-only vault,
    permissions, disk full); nothing was changed."""

    code = "not_writable"
    http_status = 507
    exit_code = 1


# -- the outside world ----------------------------------------------------------------------
class ExternalError(HarnessError):
    code = "external_error"
    http_status = 502
    exit_code = 1
