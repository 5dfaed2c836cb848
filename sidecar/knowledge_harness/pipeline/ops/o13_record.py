"""O-13 Record Outcome: final status, reason codes, artifacts, metrics, HANDOFF.md, proposals.

Runs once per terminal state. Proposals go to `.harness/DECISIONS.md` and to records a person
accepts or declines (pipeline/proposals.py); they are never adopted automatically: repeated
avoidable human questions (publishability, screening, the author's motive — the same kind in 3 or
more runs; the final publication decision is required and never counted) and, after every 10 runs
with O-04 metrics, a review of the evidence limits carrying the figures of those 10 runs. Every
HOLD, REJECTED and NO_CANDIDATE outcome states its resume condition (`resume_condition_ja`, from
the reason codes of the record that ended the run). Nobody is called when there is no candidate.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections import Counter
from typing import Any

from ...errors import HarnessError
from ..blog import blog_repo
from ..config import EvidenceSettings
from ..contract import BUDGET_EXCEPTIONS, REASONS, TERMINAL, OperationRecord, ReasonCode, Result, State, Uncertainty
from ..proposals import ProposalSpec
from ..run_store import RunStore
from .base import OpContext, Outcome, Prepared, ProgramStep, Wait, moves
from .o11_decide import RESUME_CONFLICT, RESUME_POLICY, RESUME_PR, RESUME_REJECT, RESUME_TIMEOUT
from .o12_feedback import RESUME_REFERENCES

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
_NEW_RUN = "依頼ノートを更新して新しい実行として取り込む（kh pipeline capture）"
# reason code of the record that ended the run → what has to change before the work can resume
RESUME: dict[str, str] = {
    ReasonCode.NOT_PUBLISHABLE: f"再開条件: 公開してよい内容に書き直し、publishable を明示して{_NEW_RUN}。",
    ReasonCode.PRIVATE_MARKER: f"再開条件: 非公開の内容を除いた依頼に書き直して{_NEW_RUN}。",
    ReasonCode.SCREEN_ANSWERED_PRIVATE: f"再開条件: 公開してよい内容だけの依頼に書き直して{_NEW_RUN}。",
    ReasonCode.EVIDENCE_NONE: f"再開条件: 取得できる根拠（到達できるURL、vaultのノート、検索）が用意できたら{_NEW_RUN}。",
    ReasonCode.PACKET_NO_FACTS: f"再開条件: 核心主張を支える一次情報が見つかったら{_NEW_RUN}。",
    ReasonCode.JUDGE_AXIS_FAIL: f"再開条件: 根拠・新規性・読者価値が増えたら{_NEW_RUN}。人間への確認は不要。",
    ReasonCode.JUDGE_AXIS_UNCERTAIN: f"再開条件: 判定できなかった軸の根拠（一次情報、過去記事との差分）が揃ったら{_NEW_RUN}。",
    ReasonCode.JUDGE_LOW_CONFIDENCE: f"再開条件: 確信度の低い軸を支える根拠が増えたら{_NEW_RUN}。",
    ReasonCode.UNCERTAINTY_IMPACT_HIGH: f"再開条件: 核心主張に影響する不確実性が根拠で解消したら{_NEW_RUN}。",
    ReasonCode.NO_PAST_ARTICLES: f"再開条件: マシン設定の [blogs.NAME] にブログを登録し [blog] name で指定して過去記事を読めるようにし、{_NEW_RUN}。",
    ReasonCode.DRAFT_PROGRAM_ERRORS: f"再開条件: 記録された検証エラー（行番号つき）を生まない根拠・設定にして{_NEW_RUN}。",
    ReasonCode.REVISION_LIMIT_REACHED: f"再開条件: AI修正の上限に達したため、{_NEW_RUN}（同じ記事への追加の修正判断は求めない）。",
    ReasonCode.REVISION_CANNOT_APPLY: f"再開条件: 修正に必要な根拠が揃ったら{_NEW_RUN}。",
    ReasonCode.UNKNOWN_TARGET_BLOCK: f"再開条件: 存在するブロックを対象にした修正要求として{_NEW_RUN}。",
    ReasonCode.DECISION_REJECTED: RESUME_REJECT,
    ReasonCode.DECISION_POLICY: RESUME_POLICY,
    ReasonCode.DECISION_CONFLICT: RESUME_CONFLICT,
    ReasonCode.DECISION_TIMEOUT: RESUME_TIMEOUT,
    ReasonCode.PR_MISMATCH: RESUME_PR,
    ReasonCode.REVISION_REFERENCE_MISMATCH: RESUME_REFERENCES,
}
GENERIC_RESUME = {
    State.REJECTED: f"再開条件: 対象外の理由（理由コード）を解消した公開可能な内容で{_NEW_RUN}。",
    State.NO_CANDIDATE: f"再開条件: 根拠や新規性が増えたら{_NEW_RUN}。人間への確認は不要。",
    State.HOLD: f"再開条件: 記録された理由コードと未確認事項が解消したら{_NEW_RUN}。",
}


def ending_record(records: list[OperationRecord], state: State) -> OperationRecord | None:
    """The record that moved the run into its final state (not O-13's own)."""
    for record in reversed(records):
        if record.operation != OPERATION and record.state_after == state and record.state_before != state:
            return record
    return None


def resume_condition(records: list[OperationRecord], state: State) -> str | None:
    """What has to change before the work can resume; None for APPROVED."""
    if state not in GENERIC_RESUME:
        return None
    ending = ending_record(records, state)
    for code in ending.reason_codes if ending else []:
        if code in RESUME:
            return RESUME[code]
    return GENERIC_RESUME[state]


RESULT_OF = {
    State.REJECTED: Result.REJECTED,
    State.NO_CANDIDATE: Result.NO_CANDIDATE,
    State.HOLD: Result.HOLD,
    State.APPROVED: Result.ADVANCE,
}


class RecordOutcome(ProgramStep):
    operation = OPERATION
    name = "Record Outcome"
    transitions = moves({t: {t} for t in TERMINAL})

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
        codes = _reason_codes_of_the_run(ctx.records)
        metrics = _run_metrics(ctx)
        repeated = _repeated_question_proposals(ctx)
        proposals = list(repeated)
        limits = evidence_limits_proposal(ctx)
        if limits is not None:
            proposals.append(limits)
        out_codes = [ReasonCode.OUTCOME_RECORDED, *(ReasonCode.HUMAN_QUESTION_REPEATED for _ in repeated)]
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
        resume = resume_condition(ctx.records, state)
        handoff = _handoff(ctx, codes, metrics, proposals, resume) + (f"\n{merged_note}\n" if merged_note else "")
        summary = (
            f"終了状態 {state} を記録しました（記録{len(ctx.records)}件、人間への質問{len(run.questions)}回）。"
            + ("公開候補なしのため人間は呼びません。" if state in (State.NO_CANDIDATE, State.REJECTED) else "")
            + merged_note
            + (resume or "")
        )
        outcome_doc = {
            "run_id": run.run_id,
            "final_state": state,
            "final_record": final.seq if final else None,
            "reason_codes": codes,
            "artifacts": dict(sorted(run.artifacts.items())),
            "metrics": metrics,
            "next_step_ja": NEXT_STEP.get(state, ""),
            "resume_condition_ja": resume,
            "proposals": [p.proposal_id for p in proposals],
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
            proposals=[*proposals],
        )


def _reason_codes_of_the_run(records: list[OperationRecord]) -> list[str]:
    """Every reason code of the run's records, once, in the order they first appeared."""
    codes: list[str] = []
    for record in records:
        for code in record.reason_codes:
            if code not in codes:
                codes.append(code)
    return codes


def _run_metrics(ctx: OpContext) -> dict[str, Any]:
    metrics: dict[str, Any] = {"records": len(ctx.records), "human_questions": len(ctx.run.questions)}
    for record in ctx.records:
        if record.operation == "O-04":
            metrics["evidence"] = dict(record.metrics)
        # O-04 cannot judge meaning: the packet's counts of contradictions, scope ambiguity and
        # stale sources (which include those O-04 carried over) complete the evidence metrics
        if record.operation == "O-05" and "evidence" in metrics:
            for key in ("contradictions", "scope_ambiguities", "stale_sources", "secondary_explanations"):
                if key in record.metrics:
                    metrics["evidence"][key] = record.metrics[key]
    return metrics


def _repeated_question_proposals(ctx: OpContext) -> list[ProposalSpec]:
    """One proposal per question kind this run asked that was asked in REPEAT_THRESHOLD runs or more.

    Only the avoidable questions (the budget's exceptions) count; the final publication decision is
    required in every run."""
    run = ctx.run
    kinds: Counter[str] = Counter()
    for other in ctx.all_runs():
        for kind in {q.kind for q in other.questions if q.kind in AVOIDABLE}:
            kinds[kind] += 1
    for q in run.questions:
        if q.kind in AVOIDABLE:
            kinds.setdefault(q.kind, 1)
    proposals: list[ProposalSpec] = []
    repeated = {k: n for k, n in kinds.items() if n >= REPEAT_THRESHOLD and any(q.kind == k for q in run.questions)}
    for kind, count in sorted(repeated.items()):
        pid = f"repeated-question-{kind}-{count}"
        asked_in = sorted(o.run_id for o in ctx.all_runs() if any(q.kind == kind for q in o.questions))
        options = [
            "現行方針を維持する",
            "依頼ノートの既定値（例: `publishable`）をテンプレートへ入れる",
            "判定規則（pipeline.toml の markers）を見直す",
        ]
        proposals.append(
            ProposalSpec(
                pid,
                f"## 提案: 繰り返される人間への質問「{kind}」（{count}実行）\n\n"
                f"- 問題: 同じ理由（{kind}）で人間への質問が{count}回の実行で発生した。\n"
                "- 選択肢: (1) 現行方針を維持する (2) 依頼ノートの既定値（例: `publishable`）をテンプレートへ入れる "
                "(3) 判定規則（pipeline.toml の markers）を見直す\n"
                "- 影響: (2)(3)は質問を減らすが、誤判定時は公開側へ倒れる可能性がある。\n"
                f"- 根拠: run {', '.join(asked_in)}。自動採用しない。",
                kind="repeated_question",
                title_ja=f"繰り返される人間への質問「{kind}」（{count}実行）",
                options=options,
                figures={"question_kind": kind, "runs_asked": count, "runs": asked_in},
                source_runs=asked_in,
            )
        )
    return proposals


def _candidate_merged(ctx: OpContext) -> bool | None:
    """Whether the run's publication candidate is on the base branch, after fetching the configured
    remote when it can be reached (merge, squash or rebase); None: the blog cannot be read."""
    try:
        repo = blog_repo(ctx)
        if repo is None:
            return None
        with contextlib.suppress(HarnessError):
            repo.fetch()
        cand = ctx.artifact("publication_candidate")
        return repo.merge_fact(cand["commit"], cand["path"], cand["sha256"]).merged
    except HarnessError:
        return None


# O-04 metrics carried into the limits proposal, per run and summed or averaged over the runs
LIMIT_FIGURES = (
    "searches",
    "fetch_attempts",
    "success_rate",
    "adopted",
    "primary_ratio",
    "duplicates",
    "unreachable",
    "contradictions",
    "missing_points",
    "seconds",
)
# reason codes that tell the limits were binding, or that later operations found evidence lacking
LIMIT_SIGNALS = (
    ReasonCode.LIMIT_REACHED,
    ReasonCode.TIME_LIMIT_REACHED,
    ReasonCode.DOMAIN_CAP_APPLIED,
    ReasonCode.PRIMARY_TARGET_UNMET,
    ReasonCode.FETCH_FAILED,
)
SHORTFALL_SIGNALS = (ReasonCode.PACKET_NO_FACTS, ReasonCode.JUDGE_AXIS_FAIL, ReasonCode.JUDGE_AXIS_UNCERTAIN)


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def evidence_limits_proposal(ctx: OpContext) -> ProposalSpec | None:
    """Every 10 runs with O-04 metrics: a proposal to review the evidence limits, with the figures of
    those 10 runs (per run and in total), which limits bound, and the shortfalls found later."""
    evidence_runs = sorted((r for r in ctx.all_runs() if "evidence_set" in r.artifacts), key=lambda r: r.run_id)
    if len(evidence_runs) < METRICS_RUNS:
        return None
    block = len(evidence_runs) // METRICS_RUNS * METRICS_RUNS
    window = evidence_runs[block - METRICS_RUNS : block]
    store = RunStore(ctx.vault)
    per_run: list[dict[str, Any]] = []
    signals: Counter[str] = Counter()
    shortfalls: Counter[str] = Counter()
    for other in window:
        records = [OperationRecord.model_validate(r) for r in store.read_records(other.run_id)]
        o04 = next((r for r in reversed(records) if r.operation == "O-04" and r.result != Result.RETRYABLE_ERROR), None)
        row: dict[str, Any] = {"run_id": other.run_id, "final_state": str(other.state)}
        row.update({key: (o04.metrics.get(key) if o04 else None) for key in LIMIT_FIGURES})
        per_run.append(row)
        codes = {c for r in records for c in r.reason_codes}
        signals.update(c.value for c in LIMIT_SIGNALS if c in codes)
        shortfalls.update(c.value for c in SHORTFALL_SIGNALS if c in codes)
    totals: dict[str, Any] = {}
    for key in LIMIT_FIGURES:
        values = [v for v in (_number(row[key]) for row in per_run) if v is not None]
        if not values:
            totals[key] = None
        elif key in ("success_rate", "primary_ratio"):
            totals[key] = round(sum(values) / len(values), 4)
        else:
            totals[key] = round(sum(values), 2)
    limits: EvidenceSettings = ctx.config.evidence
    current = {
        "rounds": limits.rounds,
        "queries_per_round": limits.queries_per_round,
        "max_fetches": limits.max_fetches,
        "max_adopted": limits.max_adopted,
        "per_domain": limits.per_domain,
        "time_limit_seconds": limits.time_limit_seconds,
        "primary_target": limits.primary_target,
        "reaction_target": limits.reaction_target,
    }
    run_ids = [str(r["run_id"]) for r in per_run]
    signal_counts = dict(sorted(signals.items()))
    shortfall_counts = dict(sorted(shortfalls.items()))
    figures: dict[str, Any] = {
        "runs": run_ids,
        "per_run": per_run,
        "totals": totals,
        "limit_signals": signal_counts,
        "later_shortfalls": shortfall_counts,
        "current_limits": current,
    }
    mean_fetches = (totals["fetch_attempts"] or 0) / len(window)
    mean_adopted = (totals["adopted"] or 0) / len(window)
    table = [
        "| run | 検索 | 取得試行 | 成功率 | 採用 | 一次情報率 | 重複 | 取得不能 | 矛盾 | 不足論点 | 秒 |",
        "|---|" + "---|" * 10,
    ]
    for row in per_run:
        table.append(
            "| " + " | ".join(str(row[k]) if row[k] is not None else "—" for k in ("run_id", *LIMIT_FIGURES)) + " |"
        )
    signal_text = "、".join(f"{k} {n}件" for k, n in signal_counts.items()) or "なし"
    shortfall_text = "、".join(f"{k} {n}件" for k, n in shortfall_counts.items()) or "なし"
    options = [
        "現行の上限を維持する",
        f"取得数・採用数の上限を実績に合わせる（現行 取得{limits.max_fetches}件・採用{limits.max_adopted}件、"
        f"実績平均 取得試行{mean_fetches:.1f}件・採用{mean_adopted:.1f}件）",
        f"ドメイン規則・同一ドメイン上限（現行{limits.per_domain}件）を見直す",
    ]
    markdown = "\n".join(
        [
            f"## 提案: O-04の初期上限の見直し（{block}実行目までの直近{METRICS_RUNS}実行のMetrics）",
            "",
            "- 問題: 初期上限（検索3ラウンド×4クエリ、取得20件、採用12件、同一ドメイン3件、15分）は固定の正解ではない。",
            f"- 現行: {', '.join(f'{k}={v}' for k, v in current.items())}",
            f"- 合計・平均: {', '.join(f'{k}={v}' for k, v in totals.items())}",
            f"- 上限に達した・目標に届かない実行: {signal_text}",
            f"- 後続Operationで判明した根拠不足: {shortfall_text}",
            "- 選択肢: " + " ".join(f"({i}) {o}" for i, o in enumerate(options, start=1)),
            "- 影響: 上限を上げると処理時間と取得数が増え、下げると根拠不足が増える可能性がある。自動採用しない。",
            "",
            *table,
        ]
    )
    return ProposalSpec(
        f"evidence-limits-after-{block}-runs",
        markdown,
        kind="evidence_limits",
        title_ja=f"O-04の初期上限の見直し（直近{METRICS_RUNS}実行のMetrics）",
        options=options,
        figures=figures,
        source_runs=run_ids,
    )


def _handoff(
    ctx: OpContext,
    codes: list[str],
    metrics: dict[str, Any],
    proposals: list[ProposalSpec],
    resume: str | None,
) -> str:
    run = ctx.run
    lines = [
        f"# HANDOFF — {run.run_id}",
        "",
        f"- 依頼: {run.request.title}（{run.request.source}{': ' + run.request.path if run.request.path else ''}）",
        f"- 終了状態: **{run.state}**",
        f"- 次の一手: {NEXT_STEP.get(run.state, '') if run.state else ''}",
        *([f"- {resume}"] if resume else []),
        f"- 人間への質問: {len(run.questions)}回",
        "",
        "## 経過",
        "",
        "| # | Operation | 状態 | 結果 | 担当 | 要約 |",
        "|---|---|---|---|---|---|",
    ]
    for r in ctx.records:
        name = ctx.operation_names.get(r.operation, "")
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
        lines += [f"- {p.proposal_id}（kh pipeline policy accept|decline）" for p in proposals]
    digest = hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()[:12]
    lines += ["", f"<!-- handoff {digest} -->", ""]
    return "\n".join(lines)
