import { t } from "../i18n";
import type { UnseenSummary } from "../trust/candidates";

const CANDIDATE_REASONS = ["never_validated", "stale", "next_batch", "provisional", "unrecorded"] as const;

/** "2 never validated, 1 stale": the reasons of the unseen candidates, in a fixed order. */
export function candidateDetails(summary: UnseenSummary): string {
	return CANDIDATE_REASONS.filter((reason) => (summary.byReason[reason] ?? 0) > 0)
		.map((reason) => t(`candidates.reason.${reason}`, { count: summary.byReason[reason] ?? 0 }))
		.join(t("candidates.separator"));
}

/** The status-bar count of candidates the person has not seen (hidden while there are none). */
export function renderCandidateStatus(el: HTMLElement, summary: UnseenSummary): void {
	el.toggleClass("kh-hidden", summary.count === 0);
	el.setText(summary.count > 0 ? t("candidates.status", { count: summary.count }) : "");
	el.setAttr("aria-label", summary.count > 0 ? t("candidates.tooltip", { details: candidateDetails(summary) }) : "");
	el.setAttr("data-tooltip-position", "top");
	el.setAttr("tabindex", summary.count > 0 ? "0" : "-1");
}

/** The body of the "new candidates" notice: what waits, and a button to the stale list. */
export function renderCandidateNotice(parent: DocumentFragment | HTMLElement, summary: UnseenSummary, onOpen: () => void): void {
	parent.createDiv({ text: t("candidates.notice", { count: summary.count, details: candidateDetails(summary) }) });
	const button = parent.createEl("button", { cls: "kh-notice-button", text: t("candidates.open") });
	button.addEventListener("click", onOpen);
}
