import type { DecisionChoice, PipelineRecord, PipelineRunStatus, ReasonExplanation } from "../api/types";

/**
 * The four choices of the review prompt (O-11). The Japanese labels are the
 * seed's own words and are shown in every interface language.
 */
export const DECISION_LABELS_JA: Record<DecisionChoice, string> = {
	approve: "公開を承認する",
	revise: "今回だけ修正を求める",
	reject: "公開しない",
	policy: "今後の方針として検討する",
};

export const HUMAN_DECISION = "HUMAN_DECISION";

/** A reason code with its explanation from the sidecar, or the bare code when none came. */
export function explainReasons(record: PipelineRecord): ReasonExplanation[] {
	const given = new Map((record.reasons ?? []).map((reason) => [reason.code, reason]));
	return record.reason_codes.map((code) => given.get(code) ?? { code, ja: "", en: "" });
}

/** True when the run waits for an external agent or an AI judge (not for a person). */
export function waitsForAgent(status: Pick<PipelineRunStatus, "waiting_for">): boolean {
	const waiting = status.waiting_for ?? "";
	return /^(agent|ai_judge)\b/i.test(waiting);
}

/** The run waits for a person to answer a question (`human:<question id> <kind>`). */
export function waitsForAnswer(status: Pick<PipelineRunStatus, "waiting_for">): boolean {
	return /^human:/.test(status.waiting_for ?? "");
}

export function waitsForDecision(status: Pick<PipelineRunStatus, "waiting_for" | "state">): boolean {
	const waiting = status.waiting_for ?? "";
	return waiting === HUMAN_DECISION || /^decision\b/i.test(waiting) || status.state === "REVIEW_READY";
}

export function waitsForAuthorization(status: Pick<PipelineRunStatus, "waiting_for" | "state">): boolean {
	return status.state === "CAPTURED";
}

/** How many times the run has asked a person so far (the sidecar's figure when it sends one). */
export function humanDecisionCount(status: PipelineRunStatus & { human_questions_asked?: number }): number {
	if (typeof status.human_decisions === "number") return status.human_decisions;
	if (typeof status.human_questions_asked === "number") return status.human_questions_asked;
	return status.records.filter((record) => record.producer === "human").length;
}

/** Records whose operation was done by an agent or an AI judge. */
export function agentRecords(status: PipelineRunStatus): PipelineRecord[] {
	return status.records.filter((record) => record.producer === "agent" || record.producer === "ai_judge");
}
