"""One error tree for every failure that crosses a door (REST, MCP, CLI).

Modelled on httpx's exception hierarchy: every failure the sidecar reports is a `HarnessError`
with a stable machine `code`, an HTTP status for the REST edge, a CLI exit code, a one-sentence
message and optional structured detail. Services just raise; the doors render the one envelope
`{"error": {"code", "message", "detail"}}` from here (api/app.py's exception handlers, api/mcp.py's
tool and resource results, cli's `main`). The codes are a public contract: the plugin and agents
branch on them, so a code string or status never changes.

    code                     HTTP  exit
    HarnessError             error                    500   2
    ├── InputError           invalid_input            400   2
    │   ├── TomlInvalid      invalid_input            400   2   (a settings file; line and column)
    │   ├── PathRejected     path_rejected            400   2
    │   ├── NotFound         not_found                404   2
    │   │   └── IndexMissing index_missing            404   2
    │   ├── MethodNotAllowed method_not_allowed       405   2   (REST only)
    │   ├── PayloadTooLarge  payload_too_large        413   2
    │   ├── InvalidRequest   invalid_request          422   2   (a body or arguments off the schema)
    │   └── InvalidNote      invalid_note             422   2
    │       └── EvidenceTooLarge evidence_too_large   422   2
    ├── Unauthorized         unauthorized             401   2
    ├── Forbidden            forbidden                403   1
    │   └── PersonRequired   person_required          403   1
    ├── MisdirectedRequest   bad_host                 421   2
    ├── Refused              refused                  409   1
    │   ├── PreconditionFailed precondition_failed    412   1
    │   ├── Conflict         conflict                 409   1
    │   │   └── IllegalTransition illegal_transition  409   1   (a pipeline run's state machine)
    │   ├── Busy             busy                     423   1
    │   ├── SpliceRefused    write_refused            409   1   (no byte-exact metadata write)
    │   ├── DecisionRefused  decision_refused         422   1   (O-11 review decision)
    │   ├── ChallengeRefused challenge_refused        409   1   (batch approval gate)
    │   ├── PlanExpired      plan_expired             409   1
    │   ├── Cancelled        cancelled                409   1   (long work the person cancelled)
    │   └── PlanTampered     plan_tampered            409   1
    ├── SubmissionRefused    submission_refused       422   1   (an agent's task output)
    ├── NotWritable          not_writable             507   1
    ├── WriteFailed          write_failed             507   1
    ├── ExternalError        external_error           502   1
    │   └── BlogRepoError    blog_repo_error          502   1
    ├── HttpError            http_error               any   2   (REST only: another HTTP status)
    └── InternalError        internal_error           500   2   (an unexpected crash; the log has it)

Not in the tree, on purpose: exceptions that never leave their module or service, because the
failure becomes data there (a finding, an evidence record, a note problem) or picks another path:
`ChatError` (trust/validate/llm_client.py), `JudgeFailed` and `UnknownJudge` (trust/validate/judges/),
`FetchFailure` (trust/validate/evidence.py), `ExtractionFailed` (trust/validate/extraction.py), `ProviderError`
(pipeline/search.py), `YamlRejected` (vault/yamlsafe.py) and `DuplicateKey` (vault/yaml_loader.py), `LayerOutOfOrder`
(index/layer_stream.py), `NotOneShot` (index/one_shot.py: the build takes the full path), and private
control flow such as index/parse.py's `_GiveUp` and vault/yamlsafe.py's `_NotSimple`. One that escaped would reach a door as `internal_error`.

This module is the lowest layer (import-linter): it imports nothing from the package, so every
layer, `core/` included, may raise these.
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


class TomlInvalid(InputError):
    """A TOML settings file that is not UTF-8 TOML; `line` and `column` (1-based) locate the problem."""

    def __init__(self, what: str, reason: str, line: int, column: int) -> None:
        super().__init__(f"{what[:1].upper()}{what[1:]} is not valid TOML: {reason} (at line {line}, column {column}).")
        self.reason = reason
        self.line = line
        self.column = column


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
            f"{problem}: build it with `{command}` (or POST /v1/index/build, or the MCP tool index_build), "
            "then ask again.",
            detail={"build": {"cli": command, "http": "POST /v1/index/build", "mcp": "index_build"}},
        )


class MethodNotAllowed(InputError):
    code = "method_not_allowed"
    http_status = 405


class InvalidRequest(InputError):
    """A REST body or MCP arguments off the schema; `detail` lists field locations and messages."""

    code = "invalid_request"
    http_status = 422


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


class IllegalTransition(Conflict):
    code = "illegal_transition"


class Cancelled(Refused):
    """Long work stopped because the person (or the plugin, on a timeout) cancelled it: nothing stored."""

    code = "cancelled"
    http_status = 409


class Busy(Refused):
    """Another process holds the vault's advisory lock."""

    code = "busy"
    http_status = 423


class SpliceRefused(Refused):
    """The metadata-only writer cannot be sure of a byte-exact result; nothing is written."""

    code = "write_refused"


class DecisionRefused(Refused):
    """A decision that cannot be accepted as given: nothing is recorded, the run stays where it was."""

    code = "decision_refused"
    http_status = 422


class ChallengeRefused(Refused):
    code = "challenge_refused"


class PlanExpired(Refused):
    code = "plan_expired"


class PlanTampered(Refused):
    code = "plan_tampered"


class SubmissionRefused(HarnessError):
    """An agent's task output breaks the contract; `detail["reasons"]` says where and why."""

    code = "submission_refused"
    http_status = 422
    exit_code = 1


class NotWritable(HarnessError):
    """The operating system refused to create or write the sidecar's files (read-only vault,
    permissions, disk full); nothing was changed."""

    code = "not_writable"
    http_status = 507
    exit_code = 1


class WriteFailed(HarnessError):
    """The operating system refused the write (disk full, read-only, quota); the note is untouched."""

    code = "write_failed"
    http_status = 507
    exit_code = 1


# -- the outside world ----------------------------------------------------------------------
class ExternalError(HarnessError):
    code = "external_error"
    http_status = 502
    exit_code = 1


class BlogRepoError(ExternalError):
    code = "blog_repo_error"


# -- the doors' own ----------------------------------------------------------------------------
class HttpError(HarnessError):
    """An HTTP status the framework answered that has no code of its own (REST only)."""

    code = "http_error"

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.http_status = status


class InternalError(HarnessError):
    """An unexpected exception: only its type is told; the traceback stays in the log."""

    code = "internal_error"
