import { afterEach, describe, expect, it } from "vitest";
import type { BadgeQuote } from "../src/api/types";
import { applyLanguage } from "../src/i18n";
import { HOVER_CLAIMS, proofLines } from "../src/trust/proof";
import { renderBadgeProof } from "../src/ui/quotes";
import "./mocks/obsidian";

const quote = (n: number, extra: Partial<BadgeQuote> = {}): BadgeQuote => ({
	claim_id: `c-${String(n)}`,
	claim: `claim ${String(n)}`,
	verdict: "supported",
	quote: `quote ${String(n)}`,
	source_url: `https://example.org/${String(n)}`,
	...extra,
});

afterEach(() => applyLanguage("en"));

describe("the proof in a badge's hover", () => {
	it("is absent when no run recorded quotes (an older sidecar, or a note written by hand)", () => {
		expect(proofLines([])).toEqual([]);
	});

	it("shows the first claims, says how many more, and marks a claim without quote or source", () => {
		const quotes = [quote(1, { verdict: "contradicted" }), quote(2, { quote: "", source_url: null, verdict: "no_evidence", claim: null }), quote(3), quote(4), quote(5)];
		const lines = proofLines(quotes);
		expect(lines[0]).toBe("Claims: 3 of 5 supported, with their quotes:");
		expect(lines.slice(1, 4)).toEqual(["✗ claim 1", "  “quote 1”", "  https://example.org/1"]);
		expect(lines.slice(4, 6)).toEqual(["– c-2", "  No quote recorded"]);
		expect(lines.at(-1)).toBe(`…and ${String(5 - HOVER_CLAIMS)} more claims (click for all).`);
		applyLanguage("ja");
		expect(proofLines(quotes).at(-1)).toBe(`…ほか ${String(5 - HOVER_CLAIMS)} 件の主張（クリックですべて表示）。`);
	});

	it("draws a note without recorded claims as a plain sentence, not an empty list", () => {
		const el = createDiv();
		renderBadgeProof(el, []);
		expect(el.querySelector(".kh-badge-proof")).toBeNull();
		expect(el.querySelector(".kh-proof-none")?.textContent).toContain("No claims recorded");
	});
});
