import type { Badge, BadgeQuote } from "../api/types";
import { t } from "../i18n";

/**
 * The proof behind a badge, as text lines for its hover (pure): each claim
 * with its verdict, the quote found in the page, and the page. A tooltip is
 * short: the first few claims, then how many more the details show.
 */
export const HOVER_CLAIMS = 3;
const HOVER_CHARS = 120;

const MARKS: Record<string, string> = { supported: "✓", contradicted: "✗", unsupported: "?", no_evidence: "–" };

export function quotesOf(badge: Pick<Badge, "quotes">): BadgeQuote[] {
	// an older sidecar sends no quotes
	return badge.quotes ?? [];
}

function clip(text: string): string {
	const line = text.replace(/\s+/g, " ").trim();
	return line.length <= HOVER_CHARS ? line : `${line.slice(0, HOVER_CHARS - 1)}…`;
}

export function verdictMark(verdict: string): string {
	return MARKS[verdict] ?? "·";
}

/** The hover's lines for the quotes, [] when the badge has none. */
export function proofLines(quotes: readonly BadgeQuote[]): string[] {
	if (quotes.length === 0) return [];
	const supported = quotes.filter((q) => q.verdict === "supported").length;
	const lines = [t("proof.hover.head", { supported, total: quotes.length })];
	for (const q of quotes.slice(0, HOVER_CLAIMS)) {
		lines.push(`${verdictMark(q.verdict)} ${clip(q.claim ?? q.claim_id)}`);
		lines.push(q.quote ? `  “${clip(q.quote)}”` : `  ${t("proof.noQuote")}`);
		if (q.source_url) lines.push(`  ${q.source_url}`);
	}
	if (quotes.length > HOVER_CLAIMS) lines.push(t("proof.hover.more", { count: quotes.length - HOVER_CLAIMS }));
	return lines;
}
