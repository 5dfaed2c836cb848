"""O-13 Record Outcome: final status, reason codes, artifacts, metrics, HANDOFF.md, proposals.

Runs once per terminal state. Proposals go to `.harness/DECISIONS.md` and are never adopted
automatically: repeated avoidable human questions (publishability, screening, the author's motive —
the same kind in 3 or more runs; the final publication decision is required and never counted) and, after 10 runs with
O-04 metrics, a review of the evidence limits. Nobody is called when there is no candidate.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from typing import Any

from ...errors import HarnessError
from ..blog import blog_repo
from ..contract import BUDGET_EXCEPTIONS, OPERATIONS, REASONS, ReasonCode, Result, State, Uncertainty
from .base import OpContext, Outcome, Prepared, Wait

OPERATION = "O-13"
REPEAT_THRESHOLD = 3
AVOIDABLE = frozenset(BUDGET_EXCEPTIONS)  # publishability, screening, author_motive
METRICS_RUNS = 10

NEXT_STEP = {
    State.REJECTED: "公開しない正常終了。対象外の理由を確認し、必要なら公開可能な内容で新しい依頼を作る。",
    State.NO_CANDIDATE: "公開しない正常終了。根拠や新規性が増えたら新しい依頼として再実行する。人間への確認は不要。",
    State.HOLD: "公開しない正常終了（保留）。記録された再開条件が満たされたら新しい実行で再開する。",
    State.APPROVED: "公開が承認された。公開後の確認は別途行う。",
}
RESULT_OF = {
    State.REJECTED: Result.REJECTED,
    State.NO_CANDIDATE: Result.NO_CANDIDATE,
    State.HOLD: Result.HOLD,
    State.APPROVED: Result.ADVANCE,
}


class RecordOutcome:
    operation = OPERATION

    def prepare(self, ctx: OpContext) -> Prepared | Wait:
        seqs = [r.seq for r in ctx.records]
        return Prepared(
            inputs={"state": ctx.run.state, "records": seqs, "artifacts": dict(sorted(ctx.run.artifacts.items()))},
            input_refs=[f"record:{r.seq:04d}-{r.operation}" for r in ctx.records],
        )

    def run(self, ctx: OpContext, prepared: Prepared) -> Outcome:
        run = ctx.run
        state = run.state
        assert state is not None
        final = ctx.records[-1] if ctx.records else None
        codes: list[str] = []
        for record in ctx.records:
            for code in record.reason_codes:
                if code not in codes:
                    codes.append(code)
        metrics: dict[str, Any] = {"records": len(ctx.records), "human_questions": len(run.questions)}
        for record in ctx.records:
            if record.operation == "O-04":
                metrics["evidence"] = dict(record.metrics)
            # O-04 cannot judge meaning: the packet's counts of contradictions, scope ambiguity and
            # stale sources (which include those O-04 carried over) complete the evidence metrics
            if record.operation == "O-05" and "evidence" in metrics:
                for key in ("contradictions", "scope_ambiguities", "stale_sources", "secondary_explanations"):
                    if key in record.metrics:
                        metrics["evidence"][key] = record.metrics[key]
        # repeated human questions across runs: only those that could have been avoided (the
        # exceptions of the budget); the final publication decision is required in every run
        kinds: Counter[str] = Counter()
        for other in ctx.all_runs():
            for kind in {q.kind for q in other.questions if q.kind in AVOIDABLE}:
                kinds[kind] += 1
        for q in run.questions:
            if q.kind in AVOIDABLE:
                kinds.setdefault(q.kind, 1)
        proposals: list[tuple[str, str]] = []
        out_codes = [ReasonCode.OUTCOME_RECORDED]
        repeated = {k: n for k, n in kinds.items() if n >= REPEAT_THRESHOLD and any(q.kind == k for q in run.questions)}
        for kind, count in sorted(repeated.items()):
            out_codes.append(ReasonCode.HUMAN_QUESTION_REPEATED)
            pid = f"repeated-question-{kind}-{count}"
            proposals.append(
                (
                    pid,
                    f"## 提案: 繰り返される人間への質問「{kind}」（{count}実行）\n\n"
                    f"- 問題: 同じ理由（{kind}）で人間への質問が{count}回の実行で発生した。\n"
                    "- 選択肢: (1) 現行方針を維持する (2) 依頼ノートの既定値（例: `publishable`）をテンプレートへ入れる "
                    "(3) 判定規則（pipeline.toml の markers）を見直す\n"
                    "- 影響: (2)(3)は質問を減らすが、誤判定時は公開側へ倒れる可能性がある。\n"
                    f"- 根拠: run {run.run_id} ほか。自動採用しない。",
                )
            )
        evidence_runs = [r for r in ctx.all_runs() if "evidence_set" in r.artifacts]
        if len(evidence_runs) >= METRICS_RUNS:
            pid = f"evidence-limits-after-{len(evidence_runs) // METRICS_RUNS * METRICS_RUNS}-runs"
            proposals.append(
                (
                    pid,
                    f"## 提案: O-04の初期上限の見直し（{len(evidence_runs)}実行分のMetrics）\n\n"
                    "- 問題: 初期上限（検索3ラウンド×4クエリ、取得20件、採用12件、同一ドメイン3件、15分）は固定の正解ではない。\n"
                    "- 選択肢: (1) 現行維持 (2) 取得数・採用数を調整 (3) ドメイン規則を調整\n"
                    "- 影響: 各runのmetrics（成功率、一次情報率、取得不能数）とO-05以降の根拠不足を比較して判断する。自動採用しない。",
                )
            )
        if proposals:
            out_codes.append(ReasonCode.POLICY_PROPOSAL_RECORDED)
        # the merge fact, checked again: a HOLD never hides a candidate that was merged meanwhile
        uncertainties: list[Uncertainty] = []
        merged_note = ""
        if state == State.HOLD and "publication_candidate" in run.artifacts:
            merged = _candidate_merged(ctx)
            metrics["candidate_merged"] = merged
            if merged:
                merged_note = "注意: 公開候補のcommitはbaseへmerge済みです（HOLDは未公開を意味しません）。"
                uncertainties.append(
                    Uncertainty(
                        item="公開候補のcommitがHOLDの間にbaseへmergeされている",
                        impact="記事は公開されている可能性がある。mergeを取り消すか、人間が公開状態を確認する",
                    )
                )
        handoff = _handoff(ctx, codes, metrics, proposals) + (f"\n{merged_note}\n" if merged_note else "")
        summary = (
            f"終了状態 {state} を記録しました（記録{len(ctx.records)}件、人間への質問{len(run.questions)}回）。"
            + ("公開候補なしのため人間は呼びません。" if state in (State.NO_CANDIDATE, State.REJECTED) else "")
            + merged_note
        )
        outcome_doc = {
            "run_id": run.run_id,
            "final_state": state,
            "final_record": final.seq if final else None,
            "reason_codes": codes,
            "artifacts": dict(sorted(run.artifacts.items())),
            "metrics": metrics,
            "next_step_ja": NEXT_STEP.get(state, ""),
            "proposals": [pid for pid, _ in proposals],
        }
        return Outcome(
            RESULT_OF[state],
            state,
            out_codes,
            summary,
            uncertainties=uncertainties,
            artifacts={"outcome": outcome_doc},
            metrics=metrics,
            text_files={"HANDOFF.md": handoff},
            proposals=proposals,
        )


def _candidate_merged(ctx: OpContext) -> bool | None:
    """Whether the run's publication candidate is on the base branch (None: the blog cannot be read)."""
    try:
        repo = blog_repo(ctx)
        if repo is None:
            return None
        return repo.is_merged(ctx.artifact("publication_candidate")["commit"])
    except HarnessError:
        return None


def _handoff(ctx: OpContext, codes: list[str], metrics: dict[str, Any], proposals: list[tuple[str, str]]) -> str:
    run = ctx.run
    lines = [
        f"# HANDOFF — {run.run_id}",
        "",
        f"- 依頼: {run.request.title}（{run.request.source}{': ' + run.request.path if run.request.path else ''}）",
        f"- 終了状態: **{run.state}**",
        f"- 次の一手: {NEXT_STEP.get(run.state, '') if run.state else ''}",
        f"- 人間への質問: {len(run.questions)}回",
        "",
        "## 経過",
        "",
        "| # | Operation | 状態 | 結果 | 担当 | 要約 |",
        "|---|---|---|---|---|---|",
    ]
    for r in ctx.records:
        name = OPERATIONS.get(r.operation, "")
        lines.append(
            f"| {r.seq} | {r.operation} {name} | {r.state_before or '—'} → {r.state_after} | {r.result} | {r.producer} | {r.summary_ja.replace('|', '/')} |"
        )
    lines += ["", "## 理由コード", ""]
    for code in codes:
        ja, en = REASONS.get(ReasonCode(code), ("", ""))
        lines.append(f"- `{code}` — {ja} / {en}")
    uncertain = [u for r in ctx.records for u in r.uncertainties]
    if uncertain:
        lines += ["", "## 未確認事項と影響", ""]
        seen: set[str] = set()
        for u in uncertain:
            if u.item not in seen:
                seen.add(u.item)
                lines.append(f"- {u.item} — {u.impact}")
    if run.questions:
        lines += ["", "## 人間への質問", ""]
        for q in run.questions:
            lines.append(f"- {q.question_id} ({q.kind}): {q.question_ja} → {q.answer or '未回答'}")
    lines += ["", "## 成果物 (SHA-256)", ""]
    for name, sha in sorted(run.artifacts.items()):
        lines.append(f"- {name}: `{sha}`")
    evidence = metrics.get("evidence")
    if evidence:
        lines += ["", "## Metrics (O-04)", ""]
        for key, value in evidence.items():
            lines.append(f"- {key}: {value}")
    if proposals:
        lines += ["", "## 方針変更候補（DECISIONS.mdへ提案、自動採用しない）", ""]
        lines += [f"- {pid}" for pid, _ in proposals]
    digest = hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()[:12]
    lines += ["", f"<!-- handoff {digest} -->", ""]
    return "\n".join(lines)
