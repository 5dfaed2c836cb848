import type { DecisionChoice, PipelineRecord, PipelineRunDetail, PipelineRunStatus, ReasonExplanation } from "../api/types";

/**
 * The four choices of the review prompt (O-11). The Japanese labels are the
 * design's own words and are shown in every interface language.
 */
export const DECISION_LABELS_JA: Record<DecisionChoice, string> = {
	approve: "公開を承認する",
	revise: "今回だけ修正を求める",
	reject: "公開しない",
	policy: "今後の方針として検討する",
};

export const HUMAN_DECISION = "HUMAN_DECISION";

/** Each reason code with the sidecar's Japanese and English explanation (empty when it has none). */
export function explainReasons(record: Pick<PipelineRecord, "reason_codes" | "reasons">): ReasonExplanation[] {
	const given = new Map(record.reasons.map((reason) => [reason.code, reason]));
	return record.reason_codes.map((code) => given.get(code) ?? { code, ja: "", en: "" });
}

/** True when the run waits for an external agent or an AI judge (not for a person). */
export function waitsForAgent(status: Pick<PipelineRunStatus, "waiting_for">): boolean {
	const waiting = status.waiting_for ?? "";
	return /^(?:agent|ai_judge)\b/i.test(waiting);
}

/** The run waits for a person to answer a question (`human:<question id> <kind>`). */
export function waitsForAnswer(status: Pick<PipelineRunStatus, "waiting_for">): boolean {
	return /^human:/.test(status.waiting_for ?? "");
}

/** The run waits for the person's publication decision (O-11): REVIEW_READY, `human:Q-n publication_decision`. */
export function waitsForDecision(status: Pick<PipelineRunStatus, "waiting_for" | "state">): boolean {
	const waiting = status.waiting_for ?? "";
	return status.state === "REVIEW_READY" || /publication_decision$/.test(waiting) || waiting.endsWith(HUMAN_DECISION);
}

export function waitsForAuthorization(status: Pick<PipelineRunStatus, "waiting_for" | "state">): boolean {
	return status.state === "CAPTURED";
}

function isDetail(status: PipelineRunStatus | PipelineRunDetail): status is PipelineRunDetail {
	return "human_budget" in status;
}

/** How many times the run has asked a person so far (the sidecar's budget figure in a detail view). */
export function humanDecisionCount(status: PipelineRunStatus | PipelineRunDetail): number {
	if (isDetail(status)) return status.human_budget.total_asked;
	return status.records.filter((record) => record.producer === "human").length;
}

/** The final publication decision's count and limit (asked again after each revision), from a detail view. */
export function finalDecisionBudget(status: PipelineRunStatus | PipelineRunDetail): { asked: number; limit: number } | null {
	return isDetail(status) ? status.human_budget.final_decision : null;
}

/** Block ids typed by the person ("B1, B2" or "B1 B2"), without duplicates. */
export function parseBlocks(text: string): string[] {
	const out: string[] = [];
	for (const part of text.split(/[\s,、，]+/)) {
		const id = part.trim();
		if (id && !out.includes(id)) out.push(id);
	}
	return out;
}

/** Records whose operation was done by an agent or an AI judge. */
export function agentRecords(status: PipelineRunStatus): PipelineRecord[] {
	return status.records.filter((record) => record.producer === "agent" || record.producer === "ai_judge");
}
