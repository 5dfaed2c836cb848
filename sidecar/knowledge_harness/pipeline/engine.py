"""The pipeline engine: the one service every door (CLI, REST, MCP) calls, wired from its parts.

- `runbook.RunBook`: a run's stored head, records and artifacts, and the one way a record is written;
- `steps.StepLoop`: the next operation, running it once, stepping a run until it waits or ends;
- `intake.Intake`: capture, the run label, the person's answers;
- `decisions.Decisions`: O-11, the person's publication decision;
- `agent_door.AgentDoor`: the external agents' tasks and submissions;
- `run_reads.RunReads`: what a run shows.

Idempotency: an operation's inputs are hashed (`input_digest`); when a stored record has the same
digest and left the run where it is, the stored record stands and nothing is written. Changed
inputs make a new attempt in the history. RETRYABLE_ERROR records are retried by the next `advance`.

An operation plugs in by declaring its row (pipeline/ops/base.py `Operation`) and one line in
pipeline/registry.py; NEXT_BY_STATE, IN_PLACE, JUDGED_AUTHORS and the transition table are derived there.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

from ..vault.catalog import NoteCatalog
from ..vault.paths import Vault
from .agent_door import AgentDoor
from .config import PipelineConfig
from .decisions import Decisions
from .fetching import EvidenceFetcher, default_fetcher
from .intake import Intake
from .ops.base import Operation
from .registry import IN_PLACE, JUDGED_AUTHORS, NEXT_BY_STATE, OPERATION_REGISTRY
from .run_reads import RunReads
from .runbook import RunBook
from .steps import MAX_STEPS, StepLoop

__all__ = ["IN_PLACE", "JUDGED_AUTHORS", "MAX_STEPS", "NEXT_BY_STATE", "OPERATION_REGISTRY", "Pipeline"]


class Pipeline:
    """The facade: each method is its part's, so a door sees one service and a part stays small."""

    def __init__(
        self,
        vault: Vault,
        catalog: NoteCatalog | None = None,
        *,
        fetcher_factory: Callable[[], EvidenceFetcher] | None = None,
        clock: Callable[[], dt.datetime] | None = None,
        operations: dict[str, Operation] | None = None,
    ) -> None:
        self.book = RunBook(
            vault,
            catalog or NoteCatalog(vault),
            fetcher_factory or (lambda: default_fetcher(vault.root)),
            clock or (lambda: dt.datetime.now(dt.UTC)),
            operations if operations is not None else OPERATION_REGISTRY,
        )
        self.vault, self.catalog, self.store = self.book.vault, self.book.catalog, self.book.store
        self.reads = RunReads(self.book)
        self.loop = StepLoop(self.book, self.reads)
        self.intake = Intake(self.book, self.loop, self.reads)
        self.decisions = Decisions(self.book, self.loop, self.reads)
        self.agents = AgentDoor(self.book, self.loop, self.reads)
        # the run reads
        self.status = self.reads.status
        self.detail = self.reads.detail
        self.list_runs = self.reads.list_runs
        self.artifact = self.reads.artifact
        self.authorization_request = self.reads.authorization_request
        self.review = self.reads.review
        self.article_html_path = self.reads.article_html_path
        self.article_html = self.reads.article_html
        # the step loop
        self.next_operation = self.loop.next_operation
        self.advance = self.loop.advance
        self.run_operation = self.loop.run_operation
        # the person's inputs before review
        self.capture_note = self.intake.capture_note
        self.capture_text = self.intake.capture_text
        self.authorize = self.intake.authorize
        self.answer = self.intake.answer
        # O-11
        self.decide = self.decisions.decide
        # the external agent door
        self.next_task = self.agents.next_task
        self.get_task = self.agents.get_task
        self.submit = self.agents.submit

    @property
    def config(self) -> PipelineConfig:
        return self.book.config
