/** Every view and modal renders from responses recorded from the real sidecar (scripts/capture-fixtures.py). */
import { afterEach, describe, expect, it } from "vitest";
import type { AuditReport, Badge, DryRunValidation, IndexHeadings, IndexSearchResult, PipelineRunDetail, StaleReport } from "../src/api/types";
import type { NoteDetail } from "../src/api/client";
import { applyLanguage } from "../src/i18n";
import { DECISION_LABELS_JA } from "../src/pipeline/model";
import { DashboardView } from "../src/ui/dashboard-view";
import { BadgeDetailsModal, renderDetails } from "../src/ui/details-modal";
import { IndexSearchModal } from "../src/ui/index-search";
import { PipelineRunView, ReviewModal } from "../src/ui/pipeline-view";
import { StaleListView } from "../src/ui/stale-view";
import { ValidateModal } from "../src/ui/validate-modal";
import { flush, json } from "./helpers/fakes";
import { FakeHost, recordedTransport } from "./helpers/host";
import { recorded } from "./helpers/recorded";
import { type ItemView as MockItemView, WorkspaceLeaf } from "./mocks/obsidian";

const audit = recorded<AuditReport>("audit");
const stale = recorded<StaleReport>("stale");
const badges = recorded<Record<string, Badge>>("badges");

function texts(el: HTMLElement, selector: string): string[] {
	return Array.from(el.querySelectorAll(selector)).map((node) => node.textContent ?? "");
}

afterEach(() => applyLanguage("en", "en"));

describe("stale list view", () => {
	it("shows the windows, stale notes by trigger, disputed notes and metadata errors with counts", async () => {
		const host = new FakeHost(recordedTransport({ "GET /v1/trust/stale": "stale", "GET /v1/trust/audit": "audit" }));
		const view = new StaleListView(new WorkspaceLeaf(host.app) as never, host.host);
		await view.onOpen();
		const el = view.contentEl;
		const sections = Array.from(el.querySelectorAll<HTMLElement>(".kh-section"));
		const count = (cls: string) => el.querySelector(`.${cls} .kh-count`)?.textContent;
		expect(count("kh-window-next_batch")).toBe(String(stale.windows.next_batch?.length ?? 0));
		expect(count("kh-window-prepare")).toBe(String(stale.windows.prepare?.length ?? 0));
		expect(count("kh-window-watch")).toBe(String(stale.windows.watch?.length ?? 0));
		for (const item of stale.stale) {
			for (const trigger of item.triggers) {
				expect(texts(el.querySelector<HTMLElement>(`.kh-trigger-${trigger}`)!, ".kh-note-link")).toContain(item.path);
			}
		}
		expect(texts(el.querySelector<HTMLElement>(".kh-disputed")!, ".kh-note-link")).toEqual(audit.disputed);
		expect(texts(el.querySelector<HTMLElement>(".kh-errors")!, ".kh-note-link")).toEqual(audit.errors.map((e) => e.path));
		expect(sections.length).toBe(3 + 4 + 2);

		// click opens the note
		el.querySelector<HTMLElement>(".kh-disputed .kh-note-link")!.click();
		expect(host.opened[0]?.path).toBe(audit.disputed[0]);

		// select notes, then plan a batch from them
		const button = el.querySelector<HTMLButtonElement>(".kh-toolbar button")!;
		expect(button.disabled).toBe(true);
		const boxes = el.querySelectorAll<HTMLInputElement>("input[type=checkbox]");
		boxes[0].checked = true;
		boxes[0].dispatchEvent(new Event("change"));
		expect(button.disabled).toBe(false);
		button.click();
		expect(host.plans).toEqual([{ stage: "progressive", paths: [boxes[0].getAttribute("aria-label")] }]);
		expect((view as unknown as MockItemView).actions.map((a) => a.icon)).toContain("refresh-cw");
	});

	it("says so when the sidecar is offline", async () => {
		const host = new FakeHost(recordedTransport({}));
		host.transport.handler = () => null;
		const view = new StaleListView(new WorkspaceLeaf(host.app) as never, host.host);
		await view.onOpen();
		expect(view.contentEl.querySelector(".kh-error")?.textContent).toContain("not running");
	});
});

describe("coverage dashboard", () => {
	it("draws the audit figures and an SVG gauge, and says there is no trend when the sidecar has none", async () => {
		const host = new FakeHost(recordedTransport({ "GET /v1/trust/audit": "audit" }));
		const view = new DashboardView(new WorkspaceLeaf(host.app) as never, host.host);
		await view.onOpen();
		const el = view.contentEl;
		const svg = el.querySelector("svg.kh-gauge")!;
		expect(svg.namespaceURI).toBe("http://www.w3.org/2000/svg");
		expect(svg.getAttribute("aria-label")).toContain((audit.coverage * 100).toFixed(1));
		expect(svg.querySelector(".kh-gauge-threshold")).not.toBeNull();
		expect(svg.querySelector("text")?.textContent).toBe(`${(audit.coverage * 100).toFixed(1)}%`);
		const figures = texts(el, ".kh-audit-figures td");
		expect(figures).toEqual([
			String(audit.raw),
			String(audit.evidence_capable),
			String(audit.fresh_l2),
			`${(audit.coverage * 100).toFixed(2)}%`,
			String(audit.threshold_count),
			String(audit.surplus),
		]);
		expect(view.data?.trend).toBeNull();
		expect(el.textContent).toContain("current audit only");
	});
});

describe("trust details and validation", () => {
	it("renders a verified note's details with its evidence sources, validator and run id", () => {
		const note = recorded<NoteDetail>("note-verified");
		const el = createDiv();
		renderDetails(el, badges[note.path], note);
		const evidence = note.properties.evidence as { sources: { url: string; fetched_at: string }[] };
		expect(texts(el, ".kh-source-url")).toEqual(evidence.sources.map((s) => s.url));
		expect(el.textContent).toContain(evidence.sources[0].fetched_at);
		expect(el.textContent).toContain(String((note.properties.verification as { run_id: string }).run_id));
		expect(el.textContent).toContain(badges[note.path].validator!);
	});

	it("opens the details modal from the badge with the sidecar's answers", async () => {
		const note = recorded<NoteDetail>("note-disputed");
		const host = new FakeHost(
			recordedTransport({ [`GET /v1/trust/notes/${note.path}`]: () => json(200, badges[note.path]), [`GET /v1/notes/${note.path}`]: "note-disputed" }),
		);
		const modal = new BadgeDetailsModal(host.host, note.path);
		modal.open();
		await flush();
		expect(modal.contentEl.querySelector(".kh-badge-disputed")).not.toBeNull();
		expect(modal.contentEl.querySelector("button")?.textContent).toContain("dry run");
	});

	for (const name of ["validate-unverified", "validate-disputed"]) {
		it(`shows findings with quotes and the two blocks before/after (${name})`, () => {
			const result = recorded<DryRunValidation>(name);
			const host = new FakeHost(recordedTransport({}));
			const modal = new ValidateModal(host.host, result.path, result);
			modal.open();
			const el = modal.contentEl;
			expect(el.querySelectorAll(".kh-finding")).toHaveLength(result.findings.length);
			const quotes = result.findings.filter((f) => f.quote).map((f) => f.quote);
			expect(texts(el, ".kh-quote")).toEqual(quotes);
			const columns = el.querySelectorAll(".kh-blocks-column");
			expect(columns).toHaveLength(2);
			const after = columns[1].textContent ?? "";
			expect(after).toContain("verification:");
			expect(after).toContain("evidence:");
			expect(after).toContain(`status: ${String(result.proposed.verification?.status)}`);
			expect(el.querySelectorAll(".kh-line-added").length).toBeGreaterThan(0);
			// a finding's line jumps into the note
			el.querySelector<HTMLElement>(".kh-line-link")?.click();
			if (result.findings[0]?.line) expect(host.opened[0]).toEqual({ path: result.path, line: result.findings[0].line });
		});
	}
});

describe("pipeline run view and review prompt", () => {
	const status = recorded<PipelineRunDetail>("pipeline-status");

	it("shows operations, results, reason codes, what the run waits for and the human-decision count", async () => {
		const host = new FakeHost(recordedTransport({ [`GET /v1/pipeline/runs/${status.run_id}/detail`]: "pipeline-status" }));
		const view = new PipelineRunView(new WorkspaceLeaf(host.app) as never, host.host);
		await view.setRun(status.run_id);
		const el = view.contentEl;
		expect(el.querySelectorAll(".kh-record")).toHaveLength(status.records.length);
		expect(texts(el, ".kh-reason code")).toEqual(status.records.flatMap((r) => r.reason_codes));
		for (const record of status.records) expect(el.textContent).toContain(record.summary_ja);
		if (status.waiting_for?.startsWith("agent:")) {
			expect(el.querySelector(".kh-waiting-agent")?.textContent).toContain(status.waiting_for);
		}
		expect(el.textContent).toContain("Human decisions: 0");
	});

	it("offers the four Japanese choices and needs instructions only for a revision", async () => {
		const decided: unknown[] = [];
		const host = new FakeHost(
			recordedTransport({
				[`POST /v1/pipeline/runs/${status.run_id}/decisions`]: (request) => {
					decided.push(JSON.parse(request.body ?? "null"));
					return json(200, status);
				},
			}),
		);
		const done: unknown[] = [];
		const modal = new ReviewModal(host.host, status, (next) => done.push(next));
		modal.open();
		expect(texts(modal.contentEl, ".kh-choice-ja")).toEqual(["公開を承認する", "今回だけ修正を求める", "公開しない", "今後の方針として検討する"]);
		expect(Object.values(DECISION_LABELS_JA)).toHaveLength(4);
		expect(modal.submitButton?.disabled).toBe(true);
		modal.select("revise");
		expect(modal.submitButton?.disabled).toBe(true);
		modal.instructions = "  ";
		expect(modal.canSubmit()).toBe(false);
		modal.instructions = "結論を先に書いてください";
		expect(modal.canSubmit()).toBe(true);
		await modal.submit();
		expect(decided).toEqual([{ choice: "revise", instructions: "結論を先に書いてください" }]);
		expect(done).toHaveLength(1);
		modal.open();
		modal.select("approve");
		expect(modal.canSubmit()).toBe(true);
	});
});

describe("index search", () => {
	it("lists matched headings and jumps to a heading's line", async () => {
		const result = recorded<IndexSearchResult>("index-search");
		const headings = recorded<IndexHeadings>("index-headings");
		const host = new FakeHost(
			recordedTransport({ "GET /v1/index/search": "index-search", [`GET /v1/index/notes/${headings.path}/headings`]: "index-headings" }),
		);
		const modal = new IndexSearchModal(host.host);
		const suggestions = await modal.getSuggestions(result.query);
		expect(suggestions.length).toBeGreaterThanOrEqual(result.hits.length);
		const el = createDiv();
		modal.renderSuggestion(suggestions[0], el);
		expect(el.textContent).toContain(suggestions[0].hit.title);
		const withHeading = suggestions.find((s) => s.heading && s.hit.path === headings.path);
		expect(withHeading, "the recorded search should match a heading of the recorded note").toBeDefined();
		const line = await modal.jump(withHeading!);
		expect(typeof line).toBe("number");
		expect(host.opened.at(-1)).toEqual({ path: headings.path, line });
	});
});
