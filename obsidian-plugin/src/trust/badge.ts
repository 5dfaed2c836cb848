import type { Badge, Trigger } from "../api/types";
import { type MessageKey, t } from "../i18n";
import { proofLines, quotesOf } from "./proof";

/**
 * Tone of a badge, one CSS class each (kh-badge-<tone>), coloured with
 * Obsidian's CSS variables in styles.css.
 * - ok: Fresh at L2 or above, verified or reviewed
 * - due: like ok, but revalidate_after is in the next-batch window (≤ 7 days)
 * - stale: validated once, but a stale trigger fired
 * - disputed: the validator found a contradiction
 * - error: the trust metadata cannot be read
 * - info: verified or reviewed below L2 (no fetched evidence)
 * - neutral: unverified
 * - offline: the sidecar does not answer
 * - provisional: written by a batch run that did not succeed (never green)
 * - unrecorded: the trust blocks rest on no record (hand-written, copied, edited): counts as L0
 */
export type BadgeTone = "ok" | "due" | "stale" | "disputed" | "error" | "info" | "neutral" | "offline" | "provisional" | "unrecorded";

export const BADGE_TONES: readonly BadgeTone[] = [
	"ok",
	"due",
	"stale",
	"disputed",
	"error",
	"info",
	"neutral",
	"offline",
	"provisional",
	"unrecorded",
];

export interface BadgeModel {
	tone: BadgeTone;
	/** e.g. "L2". */
	level: string;
	status: string;
	/** "fresh", the stale triggers, or "" when the note was never validated. */
	freshness: string;
	/** e.g. "45 days left", "overdue by 3 days", "". */
	days: string;
	/** One line for the status bar and the editor. */
	text: string;
	/** Several lines for the tooltip. */
	tooltip: string;
	cls: string;
	triggers: string[];
}

const STATUS_KEYS: Record<string, MessageKey> = {
	verified: "trust.status.verified",
	reviewed: "trust.status.reviewed",
	disputed: "trust.status.disputed",
	unverified: "trust.status.unverified",
};

const TRIGGER_KEYS: Record<Trigger, MessageKey> = {
	content_changed: "trust.trigger.content_changed",
	references_changed: "trust.trigger.references_changed",
	age_expired: "trust.trigger.age_expired",
	no_baseline: "trust.trigger.no_baseline",
	evidence_unreachable: "trust.trigger.evidence_unreachable",
	evidence_missing: "trust.trigger.evidence_missing",
	future_dated: "trust.trigger.future_dated",
};

export function statusLabel(status: string): string {
	const key = STATUS_KEYS[status];
	return key ? t(key) : status;
}

export function triggerLabel(trigger: string): string {
	const key = (TRIGGER_KEYS as Record<string, MessageKey | undefined>)[trigger];
	return key ? t(key) : trigger;
}

export function windowLabel(window: string | null | undefined): string {
	switch (window) {
		case "next_batch":
			return t("trust.window.next_batch");
		case "prepare":
			return t("trust.window.prepare");
		case "watch":
			return t("trust.window.watch");
		default:
			return "";
	}
}

export function daysLabel(daysLeft: number | null | undefined): string {
	if (daysLeft === null || daysLeft === undefined) return "";
	if (daysLeft < 0) return t("trust.days.overdue", { days: -daysLeft });
	if (daysLeft === 0) return t("trust.days.today");
	return t("trust.days.left", { days: daysLeft });
}

/**
 * What stands behind the note's trust blocks (the sidecar's `record`): a
 * provisional or unrecorded note counts as L0 whatever its frontmatter says.
 * An older sidecar without the field still flags a failed run's note by
 * `provisional_run_id`, and answers without `record` count as recorded.
 */
export function recordOf(badge: Badge): "provisional" | "unrecorded" | null {
	if (badge.record === "provisional" || (badge.provisional_run_id ?? null) !== null) return "provisional";
	if (badge.record === "unrecorded") return "unrecorded";
	return null;
}

function recordLines(badge: Badge): string[] {
	const record = recordOf(badge);
	if (record === null) return [];
	const reason = badge.record_reason ?? "";
	return [t(`badge.tooltip.${record}`), ...(reason ? [reason] : []), t(`badge.tooltip.${record}.how`)];
}

function toneOf(badge: Badge): BadgeTone {
	if (badge.error) return "error";
	if (badge.status === "disputed") return "disputed";
	const record = recordOf(badge);
	if (record !== null && (badge.status === "verified" || badge.status === "reviewed" || badge.level > 0)) return record;
	if (badge.triggers.length > 0) return "stale";
	if (badge.status === "verified" || badge.status === "reviewed") {
		if (badge.level < 2) return "info";
		return badge.window === "next_batch" ? "due" : "ok";
	}
	return "neutral";
}

/**
 * "n of m claims supported" when a plan recorded its counts and not every claim was supported;
 * "" otherwise (a note validated before the counts were written shows nothing).
 */
export function claimsText(supported: number | null | undefined, total: number | null | undefined): string {
	if (typeof supported !== "number" || typeof total !== "number" || total <= 0 || supported >= total) return "";
	return t("trust.claims", { supported, total });
}

/** The "n of m" line of a reviewed note's hover. */
export function badgeClaims(badge: Badge): string {
	return badge.status === "reviewed" ? claimsText(badge.claims_supported, badge.claims_total) : "";
}

/** What a badge shows for the sidecar's answer about one note (pure). */
export function badgeModel(badge: Badge): BadgeModel {
	const tone = toneOf(badge);
	const level = `L${badge.level}`;
	const status = badge.error ? t("trust.metadataError") : statusLabel(badge.status);
	const triggers = badge.triggers.map(triggerLabel);
	const validated = badge.last_validated !== null || badge.validator !== null;
	let freshness = "";
	const recordWord = tone === "provisional" || tone === "unrecorded" ? t(`trust.record.${tone}`) : "";
	if (recordWord) freshness = [recordWord, ...triggers].join(", ");
	else if (triggers.length > 0) freshness = triggers.join(", ");
	else if (badge.fresh && validated) freshness = t("trust.fresh");
	const days = recordWord ? "" : daysLabel(badge.days_left);
	const text = [level, status, freshness, days].filter((part) => part.length > 0).join(" · ");

	const lines = [t("badge.tooltip.level", { level, name: badge.level_name }), t("badge.tooltip.status", { status })];
	lines.push(...recordLines(badge));
	const claims = badgeClaims(badge);
	if (claims) lines.push(claims);
	if (triggers.length > 0) lines.push(t("badge.tooltip.stale", { triggers: triggers.join(", ") }));
	else if (freshness && !recordWord) lines.push(freshness);
	if (badge.revalidate_after) {
		lines.push(t("badge.tooltip.revalidate", { date: badge.revalidate_after, days }));
	}
	const window = windowLabel(badge.window);
	if (window) lines.push(window);
	if (badge.validator) lines.push(t("badge.tooltip.validator", { validator: badge.validator, date: badge.last_validated ?? "?" }));
	if (badge.error) lines.push(t("badge.tooltip.error", { message: badge.error.message, line: badge.error.line ?? "?" }));
	lines.push(...proofLines(quotesOf(badge)));
	lines.push(t("badge.tooltip.click"));

	return { tone, level, status, freshness, days, text, tooltip: lines.join("\n"), cls: `kh-badge-${tone}`, triggers };
}

/** The neutral badge shown while the sidecar does not answer (never a notice). */
export function offlineBadgeModel(): BadgeModel {
	const text = t("badge.offline");
	return {
		tone: "offline",
		level: "",
		status: "",
		freshness: "",
		days: "",
		text,
		tooltip: t("badge.offline.tooltip"),
		cls: "kh-badge-offline",
		triggers: [],
	};
}
