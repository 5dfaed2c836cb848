import type { BadgeQuote, ValidationFinding, ValidatorInfo } from "../api/types";
import { t } from "../i18n";
import { codeLabel } from "./errors";

/** What a finding needs to show its proof (a validator finding, or one located in the note). */
export type ProvenFinding = Pick<ValidationFinding, "claim_id" | "verdict" | "source_id" | "quote" | "quotes" | "reason_code" | "self_judged">;

/**
 * A finding's proof under its claim: each quote found in its source, as the
 * page's own words, with a link to the source and the characters it spans in
 * the evidence snapshot; then why the quote gate refused it, if it did, and
 * whether the judge was the note's own generator. A finding without located
 * quotes (an older answer) shows its quote as before.
 */
export function renderProof(parent: HTMLElement, finding: ProvenFinding, urls: ReadonlyMap<string, string>): void {
	const quotes = finding.quotes ?? [];
	for (const quote of quotes) {
		const box = parent.createDiv({ cls: "kh-proof" });
		box.createEl("blockquote", { cls: "kh-quote", text: quote.text });
		const where = box.createDiv({ cls: "kh-muted kh-quote-source" });
		const url = urls.get(quote.source_id);
		if (url) {
			const link = where.createEl("a", { cls: "kh-quote-link", text: url });
			link.href = url;
		}
		else where.createSpan({ text: quote.source_id });
		where.createSpan({ text: ` · ${t("proof.characters", { start: quote.start, end: quote.end })}` });
	}
	if (quotes.length === 0 && finding.quote) parent.createEl("blockquote", { cls: "kh-quote", text: finding.quote });
	if (finding.reason_code) parent.createDiv({ cls: "kh-pill kh-verdict-warn kh-gate", text: codeLabel(finding.reason_code) });
	if (finding.self_judged) parent.createDiv({ cls: "kh-muted kh-self-judged", text: t("proof.selfJudged") });
}

/** Source id → URL, from a dry run's or a plan target's sources. */
export function sourceUrls(sources: readonly { source_id: string; url: string }[]): Map<string, string> {
	return new Map(sources.map((source) => [source.source_id, source.url]));
}

/** Who judged, as the sidecar's records name it: lexical-8, openai_compat:<model>, agent:<client> <version>. */
export function judgeLabel(info: ValidatorInfo): string {
	if (info.name === "agent") return `agent:${[info.client ?? "unknown client", info.client_version].filter(Boolean).join(" ")}`;
	if (info.name === "openai_compat" && info.model) return `openai_compat:${info.model}`;
	return info.model ?? `${info.name}-${info.version}`;
}

const VERDICT_CLASS: Record<string, string> = {
	supported: "kh-verdict-ok",
	unsupported: "kh-verdict-warn",
	contradicted: "kh-verdict-bad",
	no_evidence: "kh-verdict-none",
};

/**
 * A badge's proof, claim by claim: the claim, its verdict, the quote found in
 * the page (the page's own words) and a link to the page. Used by the badge's
 * details and the stale list's proof window.
 */
export function renderBadgeProof(parent: HTMLElement, quotes: readonly BadgeQuote[]): void {
	if (quotes.length === 0) {
		parent.createEl("p", { cls: "kh-muted kh-proof-none", text: t("proof.none") });
		return;
	}
	const list = parent.createEl("ol", { cls: "kh-claims kh-badge-proof" });
	for (const q of quotes) {
		const item = list.createEl("li", { cls: "kh-claim" });
		const head = item.createDiv({ cls: "kh-claim-head" });
		head.createSpan({ cls: `kh-pill ${VERDICT_CLASS[q.verdict] ?? "kh-verdict-none"}`, text: codeLabel(q.verdict) });
		head.createSpan({ cls: "kh-claim-text", text: ` ${q.claim ?? q.claim_id}` });
		const box = item.createDiv({ cls: "kh-proof" });
		if (q.quote) box.createEl("blockquote", { cls: "kh-quote", text: q.quote });
		else box.createDiv({ cls: "kh-muted", text: t("proof.noQuote") });
		if (q.source_url) {
			const link = box.createDiv({ cls: "kh-muted kh-quote-source" }).createEl("a", { cls: "kh-quote-link", text: q.source_url });
			link.href = q.source_url;
		}
	}
}
