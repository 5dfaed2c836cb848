"""The OpenAPI document as the sidecar really answers: every error is the `{"error": …}` envelope.

FastAPI documents its own 422 body (`HTTPValidationError`, `{"detail": [...]}`), which the
sidecar never sends (app.py answers every error with the envelope). This document replaces it,
and adds a `default` response so clients and schemathesis check 401, 404, 409, 413, … too.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from pydantic import BaseModel, ConfigDict, Field

_REF = "#/components/schemas/{model}"


class ErrorInfo(BaseModel):
    code: str = Field(description="Stable machine-readable code, e.g. `invalid_request`, `stale_plan`.")
    message: str = Field(description="What happened, for a person.")
    detail: Any = Field(default=None, description="Structured detail (e.g. the fields that failed), or null.")
    lang: str | None = Field(
        default=None,
        description="Present when the request named its language (Accept-Language: ja or en): `message` is then "
        "written for a person in that language, by the error's code.",
    )
    message_en: str | None = Field(default=None, description="With `lang`: the service's own English message.")


class ErrorBody(BaseModel):
    """The body of every error answer (docs/http-api.md)."""

    model_config = ConfigDict(extra="forbid")
    error: ErrorInfo


def _content() -> dict[str, Any]:
    return {"application/json": {"schema": {"$ref": _REF.format(model="ErrorBody")}}}


def envelope_openapi(app: FastAPI) -> dict[str, Any]:
    """app.openapi(): FastAPI's document with the error envelope documented (built once)."""
    if app.openapi_schema:
        return app.openapi_schema
    schema = get_openapi(title=app.title, version=app.version, routes=app.routes)
    components = schema.setdefault("components", {}).setdefault("schemas", {})
    for name in ("HTTPValidationError", "ValidationError"):
        components.pop(name, None)
    error_schema = ErrorBody.model_json_schema(ref_template=_REF)
    components.update(error_schema.pop("$defs", {}))
    components["ErrorBody"] = error_schema
    for operations in schema.get("paths", {}).values():
        for operation in operations.values():
            responses = operation.setdefault("responses", {})
            if "422" in responses:
                responses["422"] = {
                    "description": "The request does not match the expected schema (`invalid_request`).",
                    "content": _content(),
                }
            responses["default"] = {
                "description": "Any other error (401 token, 404, 409, 413, 423 busy, …), as the error envelope.",
                "content": _content(),
            }
    app.openapi_schema = schema
    return schema
