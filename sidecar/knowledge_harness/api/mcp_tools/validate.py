"""MCP tools: `validate` (the read-only validator, same schema as POST /v1/validate) and
`validate_note_dry_run` (evidence + validator + proposed blocks for one note, writes nothing but
evidence snapshots)."""

from __future__ import annotations

from typing import Any

import anyio
from mcp.server.mcpserver import MCPServer

from ...trust.validate.judge_budget import spend_for_note_dry_run, spend_for_validation
from ...trust.validate.validation_models import ClaimIn, EvidenceIn, ValidationOptions, ValidationRequest
from ...trust.validate.validation_service import dry_run, validate_request
from ..context import AppContext


def register(mcp: MCPServer, ctx: AppContext) -> None:
    @mcp.tool(
        name="validate",
        description=(
            "Judge claims against the evidence texts you give (touches no note): verdict pass|warn|fail|"
            "unverifiable, score, and per claim supported|unsupported|contradicted|no_evidence with a quote."
        ),
    )
    async def validate(
        claims: list[ClaimIn], evidence: list[EvidenceIn], options: ValidationOptions | None = None
    ) -> dict[str, Any]:
        request = ValidationRequest(claims=claims, evidence=evidence, options=options)
        # every MCP client is an agent: a paid judge spends the machine's agent budget (or is refused)
        await anyio.to_thread.run_sync(spend_for_validation, ctx.vault, options.judge if options else None)
        result = await anyio.to_thread.run_sync(validate_request, ctx.vault.root, request)
        return result.model_dump()

    @mcp.tool(
        name="validate_note_dry_run",
        description=(
            "Dry-run validation of one note: fetches its cited pages (SSRF-guarded; refetch=true ignores recent "
            "snapshots), judges each claim, returns findings and the proposed verification/evidence blocks. Writes "
            "only evidence snapshots; applying them is the person's typed approval (plugin or terminal)."
        ),
    )
    async def validate_note_dry_run(path: str, judge: str | None = None, refetch: bool = False) -> dict[str, Any]:
        await anyio.to_thread.run_sync(spend_for_note_dry_run, ctx.vault, path, judge)
        report = await dry_run(ctx.vault, path, judge_name=judge, refetch=refetch, workers=ctx.runtime.extraction)
        return report.model_dump(mode="json")
