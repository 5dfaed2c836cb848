"""What a run shows: its status and detail, the list of runs, artifacts, the authorization prompt,
the Review Packet and the article HTML it recorded (checked against its SHA-256)."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from ..errors import Conflict, NotFound
from .contract import RunStatus, RunSummary, human_budget
from .runbook import RunBook


class RunReads:
    def __init__(self, book: RunBook) -> None:
        self.book = book

    def status(self, run_id: str) -> RunStatus:
        run, records = self.book.load(run_id)
        assert run.state is not None
        return RunStatus(
            run_id=run.run_id,
            state=run.state,
            waiting_for=run.waiting_for,
            records=[r.contract_view() for r in records],
        )

    def detail(self, run_id: str) -> dict[str, Any]:
        """The status plus questions, tasks, artifacts and the label (REST/MCP detail view)."""
        run, records = self.book.load(run_id)
        return {
            **self.status(run_id).model_dump(mode="json"),
            "request": run.request.model_dump(mode="json"),
            "label": run.label.model_dump(mode="json") if run.label else None,
            "questions": [q.model_dump(mode="json") for q in run.questions],
            "human_questions_asked": len(run.questions),
            "human_budget": human_budget(run),
            "tasks": [t.model_dump(mode="json") for t in run.tasks.values()],
            "artifacts": dict(sorted(run.artifacts.items())),
            "metrics": {r.operation: r.metrics for r in records if r.metrics},
            # who really acted for each agent / AI-judge record (client name and version, token kind)
            "acted_by": [
                {"seq": r.seq, "operation": r.operation, "acted_by": r.acted_by} for r in records if r.acted_by
            ],
        }

    def list_runs(self) -> list[RunSummary]:
        out = []
        for run in self.book.all_runs():
            assert run.state is not None
            out.append(
                RunSummary(
                    run_id=run.run_id,
                    state=run.state,
                    waiting_for=run.waiting_for,
                    title=run.request.title,
                    source=run.request.source,
                    path=run.request.path,
                    created_at=run.created_at,
                    updated_at=run.updated_at,
                )
            )
        return sorted(out, key=lambda s: (s.created_at, s.run_id))

    def artifact(self, run_id: str, name: str) -> Any:
        run, _ = self.book.load(run_id)
        sha = run.artifacts.get(name)
        if sha is None:
            raise NotFound(f"Run {run_id} has no artifact {name}.")
        return self.book.store.get_artifact(run_id, sha)

    def authorization_request(self, run_id: str) -> dict[str, Any]:
        """What the person sees before authorizing: the request's title, an excerpt of its (masked)
        question, the publishability answer and who gave it."""
        run, _ = self.book.load(run_id)
        request = self.book.store.get_artifact(run_id, run.artifacts["request"]) if "request" in run.artifacts else {}
        question = str(request.get("question_masked") or "")
        excerpt = " ".join(question.split())
        given = run.publishability
        open_q = next((q.question_id for q in run.questions if q.kind == "publishability" and q.answer is None), None)
        return {
            "run_id": run_id,
            "state": run.state,
            "title": str(request.get("title") or run.request.title),
            "excerpt": excerpt[:280] + ("…" if len(excerpt) > 280 else ""),
            "source": run.request.path if run.request.source == "note" else "api",
            "publishable": given.publishable if given else None,
            "publishability": given.model_dump(mode="json") if given else None,
            "publishability_ja": given.describe_ja() if given else f"未回答（{open_q or 'Q-01'}）",
            "publishability_en": given.describe_en() if given else f"not answered ({open_q or 'Q-01'})",
        }

    def review(self, run_id: str) -> dict[str, Any]:
        """The Review Packet of a run (markdown, SHA-256, candidate, choices) for the person."""
        run, _ = self.book.load(run_id)
        if "review_packet" not in run.artifacts:
            raise NotFound(f"Run {run_id} has no review packet yet (state {run.state}).")
        review = self.book.store.get_artifact(run_id, run.artifacts["review_packet"])
        return {
            "run_id": run_id,
            "state": run.state,
            "waiting_for": run.waiting_for,
            "review_packet_sha256": review["sha256"],
            "review_packet": review,
        }

    def article_html_path(self, run_id: str) -> Path:
        """The Review Packet's HTML file of the article (in the run folder), once its bytes are checked
        against the SHA-256 the packet recorded (`kh pipeline review --html` hands the path to a browser)."""
        return self._checked_article_html(run_id)[0]

    def article_html(self, run_id: str) -> str:
        """The Review Packet's HTML file of the article, read from the run folder: only the bytes whose
        SHA-256 the packet recorded (a file changed since, by hand or by another program, is refused)."""
        return self._checked_article_html(run_id)[1]

    def _checked_article_html(self, run_id: str) -> tuple[Path, str]:
        review = self.review(run_id)["review_packet"]
        name = review.get("article_html_file")
        if not name:
            raise NotFound(f"Run {run_id}'s Review Packet has no article HTML (made before this version).")
        sha = review.get("article_html_sha256")
        path, expected = self.book.store.run_dir(run_id) / str(name), str(sha) if sha else None
        try:
            data = self.book.store.read_bytes(run_id, path.name)
        except OSError as exc:
            raise NotFound(f"Run {run_id}'s article HTML cannot be read.") from exc
        actual = hashlib.sha256(data).hexdigest()
        if expected is None or actual != expected:
            raise Conflict(
                f"Run {run_id}'s article HTML ({path.name}) is not the one its Review Packet recorded "
                f"(SHA-256 {actual[:12]}…, recorded {expected[:12] + '…' if expected else 'none'}): it changed after "
                "the packet was made, so it is not shown. Read the Review Packet itself, or prepare the review again.",
                detail={"run_id": run_id, "file": path.name, "sha256": actual, "recorded_sha256": expected},
            )
        return path, data.decode("utf-8")
