/** A finding's proof under its claim: the quotes as found in the snapshot, their source link and offsets. */
import { describe, expect, it } from "vitest";
import type { ValidatorInfo } from "../src/api/types";
import { applyLanguage } from "../src/i18n";
import { judgeLabel, type ProvenFinding, renderProof, sourceUrls } from "../src/ui/quotes";
import "./mocks/obsidian";

// the page and the quote as the sidecar's gate recorded them: text === page.slice(start, end)
const PAGE = "History.\nThe Eiffel Tower was completed in 1889.  It is 330 metres tall.";
const START = PAGE.indexOf("The Eiffel");
const END = START + "The Eiffel Tower was completed in 1889".length;

function finding(overrides: Partial<ProvenFinding> = {}): ProvenFinding {
	return {
		claim_id: "c1",
		verdict: "supported",
		source_id: "s1",
		quote: "the eiffel tower was completed in 1889",
		quotes: [{ source_id: "s1", start: START, end: END, text: PAGE.slice(START, END) }],
		reason_code: null,
		self_judged: false,
		...overrides,
	};
}

describe("the proof of a finding", () => {
	const urls = sourceUrls([{ source_id: "s1", url: "https://example.org/eiffel" }]);

	it("shows each quote as the page's words with its source link and offsets", () => {
		applyLanguage("en");
		const el = createDiv();
		renderProof(el, finding(), urls);
		expect(el.querySelector(".kh-quote")?.textContent).toBe("The Eiffel Tower was completed in 1889");
		const link = el.querySelector<HTMLAnchorElement>(".kh-quote-link");
		expect(link?.getAttribute("href")).toBe("https://example.org/eiffel");
		expect(el.querySelector(".kh-quote-source")?.textContent).toContain(`${START}–${END}`);
	});

	it("says why the gate refused a finding and flags a self-judged one, in Japanese too", () => {
		applyLanguage("ja");
		const el = createDiv();
		renderProof(el, finding({ verdict: "unsupported", quotes: [], reason_code: "quote_not_found", self_judged: true }), urls);
		expect(el.querySelector(".kh-quote")?.textContent).toBe("the eiffel tower was completed in 1889");
		expect(el.querySelector(".kh-gate")?.textContent).toContain("quote_not_found");
		expect(el.querySelector(".kh-gate")?.textContent).toContain("引用がソースにない");
		expect(el.querySelector(".kh-self-judged")?.textContent).toContain("self_judged");
		applyLanguage("en");
	});

	it("names the judge as the sidecar's records do", () => {
		const agent = { name: "agent", version: "1", model: null, client: "claude-code", client_version: "2.1" } as ValidatorInfo;
		expect(judgeLabel(agent)).toBe("agent:claude-code 2.1");
		expect(judgeLabel({ name: "openai_compat", version: "2", model: "qwen2.5" })).toBe("openai_compat:qwen2.5");
		expect(judgeLabel({ name: "lexical", version: "8" })).toBe("lexical-8");
	});
});
