/** Every view and modal renders from responses recorded from the real sidecar (scripts/capture-fixtures.py). */
import { afterEach, describe, expect, it } from "vitest";
import type {
	AuditReport,
	Badge,
	AuthorizationRequest,
	DecisionChoices,
	DecisionResponse,
	DryRunValidation,
	IndexHeadings,
	IndexSearchResult,
	PipelineRunDetail,
	ReviewResponse,
	StaleReport,
} from "../src/api/types";
import type { NoteDetail } from "../src/api/client";
import { applyLanguage, localDateTime, t } from "../src/i18n";
import { DECISION_LABELS_JA } from "../src/pipeline/model";
import { DashboardView } from "../src/ui/dashboard-view";
import { BadgeDetailsModal, renderDetails } from "../src/ui/details-modal";
import { IndexSearchModal, type IndexSuggestion, SEARCH_DEBOUNCE_MS } from "../src/ui/index-search";
import { AuthorizeModal, offeredChoices, PipelineRunView, ReviewModal, RUN_POLL_MS } from "../src/ui/pipeline-view";
import { StaleListView } from "../src/ui/stale-view";
import { WINDOWS } from "../src/api/types";
import { triggerLabel } from "../src/trust/badge";
import { ValidateModal } from "../src/ui/validate-modal";
import { FakeClock, FakeTransport, flush, json } from "./helpers/fakes";
import { FakeHost, recordedTransport } from "./helpers/host";
import { recorded } from "./helpers/recorded";
import { type ItemView as MockItemView, Notice, WorkspaceLeaf } from "./mocks/obsidian";

const audit = recorded<AuditReport>("audit");
const stale = recorded<StaleReport>("stale");
const badges = recorded<Record<string, Badge>>("badges");

function texts(el: HTMLElement, selector: string): string[] {
	return Array.from(el.querySelectorAll(selector)).map((node) => node.textContent ?? "");
}

afterEach(() => applyLanguage("en"));

describe("stale list view", () => {
	const rolloutCanary = { next_stage: "canary", succeeded: [], limits: { canary: 2, pilot: 10, progressive: 50 } };

	it("shows one row per note with its triggers as chips, in groups with counts, and opens a note on click", async () => {
		const host = new FakeHost(recordedTransport({ "GET /v1/trust/stale": "stale", "GET /v1/trust/audit": "audit" }));
		const view = new StaleListView(new WorkspaceLeaf(host.app) as never, host.host);
		await view.onOpen();
		const el = view.contentEl;
		const count = (group: string) => el.querySelector(`.kh-group-${group} .kh-count`)?.textContent;
		const staleRows = el.querySelectorAll(".kh-row-stale");
		expect(staleRows).toHaveLength(stale.stale.length); // once per note, not once per trigger
		expect(count("stale")).toBe(String(stale.stale.length));
		for (const item of stale.stale) {
			const row = Array.from(staleRows).find((r) => r.querySelector(".kh-note-link")?.textContent === item.path);
			expect(texts(row as HTMLElement, ".kh-chip").slice(0, item.triggers.length)).toEqual(item.triggers.map((tr) => triggerLabel(tr)));
		}
		expect(texts(el, ".kh-row-disputed .kh-note-link")).toEqual(audit.disputed);
		expect(texts(el, ".kh-row-errors .kh-note-link")).toEqual(audit.errors.map((e) => e.path));
		el.querySelector<HTMLElement>(".kh-row-disputed .kh-note-link")!.click();
		expect(host.opened[0]?.path).toBe(audit.disputed[0]);
		expect((view as unknown as MockItemView).actions.map((a) => a.icon)).toContain("refresh-cw");
	});

	it("on a fresh vault the main button plans the canary, at most its limit, and says so", async () => {
		const host = new FakeHost(recordedTransport({ "GET /v1/trust/stale": "stale", "GET /v1/trust/audit": "audit" }));
		const served = host.transport.handler;
		host.transport.handler = (request) =>
			new URL(request.url).pathname === "/v1/batches/next" ? json(200, rolloutCanary) : served(request);
		const view = new StaleListView(new WorkspaceLeaf(host.app) as never, host.host);
		await view.onOpen();
		const el = view.contentEl;
		const button = el.querySelector<HTMLButtonElement>(".kh-plan")!;
		expect(button.textContent).toBe("Plan batch: Canary");
		expect(button.disabled).toBe(false);
		el.querySelector<HTMLButtonElement>(".kh-select-all")!.click();
		const selectable = stale.stale.length + WINDOWS.reduce((n, w) => n + (stale.windows[w] ?? []).filter((i) => !stale.stale.some((s) => s.path === i.path)).length, 0);
		expect(view.selected.size).toBe(selectable);
		expect(button.textContent).toBe(`Plan batch: Canary (2 of ${String(selectable)})`);
		button.click();
		expect(host.plans).toEqual([{ stage: "canary", paths: stale.stale.slice(0, 2).map((s) => s.path) }]);
		el.querySelector<HTMLButtonElement>(".kh-select-none")!.click();
		expect(view.selected.size).toBe(0);
		button.click();
		expect(host.plans[1]).toEqual({ stage: "canary", paths: undefined }); // the sidecar picks the canary's notes
	});

	it("filters by trigger and folder, collapses a group, and keeps unchanged rows when an audit updates it", async () => {
		const host = new FakeHost(recordedTransport({ "GET /v1/trust/stale": "stale", "GET /v1/trust/audit": "audit" }));
		const view = new StaleListView(new WorkspaceLeaf(host.app) as never, host.host);
		await view.onOpen();
		const el = view.contentEl;
		const trigger = el.querySelector<HTMLSelectElement>(".kh-filter-trigger")!;
		const first = stale.stale[0];
		trigger.value = first.triggers[0];
		trigger.dispatchEvent(new Event("change"));
		expect(texts(el, ".kh-row .kh-note-link")).toEqual(stale.stale.filter((s) => s.triggers.includes(first.triggers[0])).map((s) => s.path));
		trigger.value = "";
		trigger.dispatchEvent(new Event("change"));
		const folder = el.querySelector<HTMLSelectElement>(".kh-filter-folder")!;
		expect(Array.from(folder.options).map((o) => o.value)).toContain("Keywords");
		folder.value = "Keywords";
		folder.dispatchEvent(new Event("change"));
		expect(texts(el, ".kh-row .kh-note-link").every((p) => p.startsWith("Keywords/"))).toBe(true);
		folder.value = "";
		folder.dispatchEvent(new Event("change"));

		el.querySelector<HTMLElement>(".kh-group-stale")!.click();
		expect(el.querySelectorAll(".kh-row-stale")).toHaveLength(0);
		expect(el.querySelector(".kh-group-stale")?.getAttribute("aria-expanded")).toBe("false");
		el.querySelector<HTMLElement>(".kh-group-stale")!.click();

		const toolbar = el.querySelector(".kh-toolbar");
		const kept = el.querySelector(".kh-row-disputed");
		const box = el.querySelector<HTMLInputElement>(".kh-row-stale input[type=checkbox]")!;
		box.checked = true;
		box.dispatchEvent(new Event("change"));
		const chosen = box.getAttribute("aria-label");
		const extra = { ...first, path: "Keywords/zz-new.md", triggers: ["content_changed"] as typeof first.triggers };
		view.show({ stale: { ...stale, stale: [...stale.stale, extra] }, audit });
		expect(el.querySelector(".kh-toolbar")).toBe(toolbar); // updated in place, not rebuilt
		expect(el.querySelector(".kh-row-disputed")).toBe(kept); // an unchanged row keeps its node
		expect(el.querySelectorAll(".kh-row-stale")).toHaveLength(stale.stale.length + 1);
		expect([...view.selected]).toEqual([chosen]);
	});

	it("keeps at most 200 rows in the DOM for 10,000 stale notes, and scrolling shows the others", async () => {
		const many = Array.from({ length: 10_000 }, (_, i) => ({
			...stale.stale[0],
			path: `Folder ${String(i % 40)}/note ${String(i).padStart(5, "0")}.md`,
			triggers: i % 3 === 0 ? (["content_changed", "age_expired"] as typeof stale.stale[0]["triggers"]) : (["age_expired"] as typeof stale.stale[0]["triggers"]),
		}));
		const host = new FakeHost(recordedTransport({ "GET /v1/trust/audit": "audit" }));
		const served = host.transport.handler;
		host.transport.handler = (request) =>
			new URL(request.url).pathname === "/v1/trust/stale" ? json(200, { ...stale, stale: many }) : served(request);
		const view = new StaleListView(new WorkspaceLeaf(host.app) as never, host.host);
		await view.onOpen();
		const el = view.contentEl;
		expect(view.items.length).toBeGreaterThan(10_000);
		const rows = () => el.querySelectorAll(".kh-row").length;
		expect(rows()).toBeGreaterThan(0);
		expect(rows()).toBeLessThanOrEqual(200);
		expect(el.querySelectorAll("input[type=checkbox]").length).toBeLessThanOrEqual(200);
		expect(el.querySelectorAll("*").length).toBeLessThan(2_000);
		const scroller = el.querySelector<HTMLElement>(".kh-stale-scroller")!;
		scroller.scrollTop = 5_000 * 30;
		scroller.dispatchEvent(new Event("scroll"));
		expect(rows()).toBeLessThanOrEqual(200);
		expect(texts(el, ".kh-row .kh-note-link")).toContain(many[4_999].path);
		el.querySelector<HTMLButtonElement>(".kh-select-all")!.click();
		const windowed = WINDOWS.reduce((n, w) => n + (stale.windows[w] ?? []).length, 0);
		expect(view.selected.size).toBe(10_000 + windowed);
		expect(el.querySelector(".kh-selection")?.textContent).toBe(`${String(10_000 + windowed)} selected`);
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
		// the snapshot's time in the person's local time, not the raw UTC timestamp
		expect(el.textContent).toContain(localDateTime(evidence.sources[0].fetched_at));
		expect(el.textContent).not.toContain(evidence.sources[0].fetched_at);
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
	const status = recorded<PipelineRunDetail>("pipeline-detail");
	const atReview = recorded<PipelineRunDetail>("pipeline-detail-review");
	const review = recorded<ReviewResponse>("pipeline-review");
	const choices = recorded<DecisionChoices>("pipeline-decision-choices");
	const refused = recorded<{ status: number; body: unknown }>("pipeline-decision-refused");
	const decided = recorded<DecisionResponse>("pipeline-decision");

	it("follows a run that moves while it is open, and leaves the view alone while it does not", async () => {
		const host = new FakeHost(recordedTransport({ [`GET /v1/pipeline/runs/${status.run_id}/detail`]: "pipeline-detail" }));
		const view = new PipelineRunView(new WorkspaceLeaf(host.app) as never, host.host);
		await view.onOpen();
		await view.setRun(status.run_id);
		const first = view.contentEl.firstElementChild;
		expect(await view.poll()).toBe(false); // the same run: nothing redrawn
		expect(view.contentEl.firstElementChild).toBe(first);
		// the agents moved it on: the next look redraws it at its new state
		host.transport.handler = () => json(200, atReview);
		expect(await view.poll()).toBe(true);
		expect(view.status?.state).toBe(atReview.state);
		expect(view.contentEl.querySelectorAll(".kh-record")).toHaveLength(atReview.records.length);
		host.transport.handler = () => null; // offline: the view keeps what it showed
		expect(await view.poll()).toBe(false);
		expect(view.status?.state).toBe(atReview.state);
		expect(RUN_POLL_MS).toBeLessThanOrEqual(10_000);
		view.unload();
	});

	it("shows operations, results, reason codes with Japanese explanations, what the run waits for and the human-decision count", async () => {
		applyLanguage("ja");
		const host = new FakeHost(recordedTransport({ [`GET /v1/pipeline/runs/${status.run_id}/detail`]: "pipeline-detail" }));
		const view = new PipelineRunView(new WorkspaceLeaf(host.app) as never, host.host);
		await view.setRun(status.run_id);
		const el = view.contentEl;
		expect(el.querySelectorAll(".kh-record")).toHaveLength(status.records.length);
		expect(texts(el, ".kh-reason code")).toEqual(status.records.flatMap((r) => r.reason_codes));
		const explained = status.records.flatMap((r) => r.reasons.map((reason) => reason.ja));
		expect(explained.length).toBeGreaterThan(0);
		expect(explained.every((ja) => ja.length > 0)).toBe(true);
		expect(texts(el, ".kh-reason-ja")).toEqual(explained);
		expect(texts(el, ".kh-reason-ja")).toContain("人間が実行ラベルを付けた");
		expect(el.querySelectorAll(".kh-reason-en")).toHaveLength(0);
		for (const record of status.records) expect(el.textContent).toContain(record.summary_ja);
		expect(el.textContent).toContain(`人間の判断: ${status.human_budget.total_asked} 回`);
	});

	it("speaks English in an English interface: reasons explained in English, codes with translated labels", async () => {
		const host = new FakeHost(recordedTransport({ [`GET /v1/pipeline/runs/${status.run_id}/detail`]: "pipeline-detail" }));
		const view = new PipelineRunView(new WorkspaceLeaf(host.app) as never, host.host);
		await view.setRun(status.run_id);
		const el = view.contentEl;
		const explained = status.records.flatMap((r) => r.reasons.map((reason) => reason.en));
		expect(explained.every((en) => en.length > 0)).toBe(true);
		expect(texts(el, ".kh-reason-en")).toEqual(explained);
		expect(el.querySelectorAll(".kh-reason-ja")).toHaveLength(0);
		for (const node of Array.from(el.querySelectorAll(".kh-reason, .kh-result, .kh-pill"))) {
			expect(node.textContent ?? "", node.className).not.toMatch(/[\u3040-\u30ff\u4e00-\u9fff]/);
		}
		// A state code is shown by its label, once: "Evidence ready", not "Evidence ready (EVIDENCE_READY)".
		expect(el.querySelector(".kh-run-facts .kh-pill")?.textContent).toMatch(/^[A-Z][a-z][^()]*$/);
		// The recorded Japanese summary is labelled as such.
		expect(el.textContent).toContain("Summary (Japanese, as recorded)");
		expect(status.waiting_for).toMatch(/^agent:/);
		expect(el.querySelector(".kh-waiting-agent")?.textContent).toContain(status.waiting_for);
		expect(el.textContent).toContain(`Human decisions: ${status.human_budget.total_asked}`);
		expect(el.querySelector("button.mod-cta")?.textContent ?? "").not.toBe("Review");
	});

	it("offers the review at REVIEW_READY and counts the publication decision against its budget", async () => {
		const host = new FakeHost(recordedTransport({ [`GET /v1/pipeline/runs/${atReview.run_id}/detail`]: "pipeline-detail-review" }));
		const view = new PipelineRunView(new WorkspaceLeaf(host.app) as never, host.host);
		await view.setRun(atReview.run_id);
		const el = view.contentEl;
		expect(atReview.state).toBe("REVIEW_READY");
		expect(el.textContent).toContain(`Human decisions: ${atReview.human_budget.total_asked}`);
		const final = atReview.human_budget.final_decision;
		expect(el.textContent).toContain(`Publication decision asked: ${final.asked} of ${final.limit}`);
		expect(texts(el, "button")).toContain("Review");
		// the publication decision is not offered as a plain answer button
		expect(el.querySelectorAll("[data-answer]")).toHaveLength(0);
	});

	it("shows the request, an excerpt and who answered publishability before the person authorizes", async () => {
		applyLanguage("ja");
		const shown = recorded<AuthorizationRequest>("pipeline-authorization");
		const authorized: string[] = [];
		const host = new FakeHost(
			recordedTransport({
				[`GET /v1/pipeline/runs/${shown.run_id}/authorization`]: "pipeline-authorization",
				[`POST /v1/pipeline/runs/${shown.run_id}/authorize`]: (request) => {
					authorized.push(request.body ?? "");
					return json(200, recorded("pipeline-authorize"));
				},
			}),
		);
		const done: unknown[] = [];
		const modal = new AuthorizeModal(host.host, shown.run_id, (status) => done.push(status));
		modal.open();
		await flush();
		const el = modal.contentEl;
		expect(el.textContent).toContain(shown.title);
		expect(el.textContent).toContain(shown.excerpt);
		expect(el.querySelector(".kh-authorize-publishability")?.textContent).toContain(shown.publishability_ja);
		expect(shown.publishability_ja).toContain("公開してよい");
		expect(authorized).toHaveLength(0); // nothing is sent before the person confirms
		await modal.confirm();
		expect(authorized).toEqual([JSON.stringify({ via: "plugin" })]);
		expect(done).toHaveLength(1);
	});

	function reviewHost(answer: (body: Record<string, unknown>) => ReturnType<typeof json>) {
		const sent: Record<string, unknown>[] = [];
		const host = new FakeHost(
			recordedTransport({
				[`GET /v1/pipeline/runs/${review.run_id}/review`]: "pipeline-review",
				"GET /v1/pipeline/decision-choices": "pipeline-decision-choices",
				[`POST /v1/pipeline/runs/${review.run_id}/decision`]: (request) => {
					const body = JSON.parse(request.body ?? "null") as Record<string, unknown>;
					sent.push(body);
					return answer(body);
				},
			}),
		);
		return { host, sent };
	}

	it("shows the Review Packet and the four choices in the sidecar's Japanese", async () => {
		applyLanguage("ja");
		const { host } = reviewHost(() => json(200, decided));
		const modal = new ReviewModal(host.host, review.run_id, () => undefined);
		modal.open();
		await flush();
		const el = modal.contentEl;
		expect(el.querySelector(".kh-review-markdown")?.textContent).toBe(review.review_packet.markdown);
		expect(el.textContent).toContain("公開候補の確認待ち");
		expect(el.textContent).toContain(review.review_packet.commit.slice(0, 12));
		expect(el.textContent).toContain(review.review_packet_sha256.slice(0, 12));
		expect(texts(el, ".kh-choice-label")).toEqual(["公開を承認する", "今回だけ修正を求める", "公開しない", "今後の方針として検討する"]);
		expect(texts(el, ".kh-choice-label")).toEqual(choices.choices.map((c) => c.label_ja));
		expect(texts(el, ".kh-choice-effect")).toEqual(choices.choices.map((c) => c.effect_ja));
		expect(Object.values(DECISION_LABELS_JA)).toEqual(choices.choices.map((c) => c.label_ja));
		expect(host.transport.paths()).not.toContain(`POST /v1/pipeline/runs/${review.run_id}/decisions`);
	});

	it("leaves out a choice the run's Review Packet no longer offers (revise after two AI revisions)", () => {
		const all = (["approve", "revise", "reject", "policy"] as const).map((code) => ({ code, label_ja: DECISION_LABELS_JA[code], effect_ja: "", message_ja: "" }));
		const round3 = { ...review, review_packet: { ...review.review_packet, choices: review.review_packet.choices.filter((c) => c.code !== "revise") } };
		expect(offeredChoices(all, round3).map((c) => c.code)).toEqual(["approve", "reject", "policy"]);
		expect(offeredChoices(all, review).map((c) => c.code)).toEqual(["approve", "revise", "reject", "policy"]);
	});

	it("words the four choices from the catalogue in an English interface", async () => {
		const { host } = reviewHost(() => json(200, decided));
		const modal = new ReviewModal(host.host, review.run_id, () => undefined);
		modal.open();
		await flush();
		const el = modal.contentEl;
		expect(texts(el, ".kh-choice-label")).toEqual(["Approve publication", "Ask for a revision this time only", "Do not publish", "Consider as a future policy"]);
		for (const text of [...texts(el, ".kh-choice-label"), ...texts(el, ".kh-choice-effect")]) expect(text).not.toMatch(/[\u3040-\u30ff\u4e00-\u9fff]/);
	});

	it("sends an approval with the packet's commit and SHA-256 and shows the 409 refusal before the merge", async () => {
		const { host, sent } = reviewHost(() => json(refused.status, refused.body));
		const done: unknown[] = [];
		const modal = new ReviewModal(host.host, review.run_id, (next) => done.push(next));
		modal.open();
		await flush();
		expect(modal.submitButton?.disabled).toBe(true);
		modal.select("approve");
		expect(modal.submitButton?.disabled).toBe(false);
		await modal.submit();
		expect(sent).toEqual([
			{ via: "plugin", choice: "approve", review_packet_sha256: review.review_packet_sha256, commit: review.review_packet.commit },
		]);
		expect(refused.status).toBe(409);
		expect(modal.contentEl.querySelector(".kh-error")?.textContent).toContain("mergeしてから承認してください");
		expect(done).toHaveLength(0);
		expect(modal.answer).toBeNull();
		// an approval carries no instructions or blocks
		modal.instructions = "直してください";
		expect(modal.canSubmit()).toBe(false);
	});

	it("needs instructions and target blocks for a revision, then shows the seed's message", async () => {
		applyLanguage("ja");
		const { host, sent } = reviewHost(() => json(200, decided));
		const done: unknown[] = [];
		const modal = new ReviewModal(host.host, review.run_id, (next) => done.push(next));
		modal.open();
		await flush();
		modal.select("revise");
		expect(modal.canSubmit()).toBe(false);
		modal.instructions = "B2 の結論の前に、限界をもう一文だけ具体的に書いてください。";
		expect(modal.canSubmit()).toBe(false);
		modal.blocksText = "B2、 B2";
		expect(modal.canSubmit()).toBe(true);
		await modal.submit();
		expect(sent).toEqual([
			{
				via: "plugin",
				choice: "revise",
				review_packet_sha256: review.review_packet_sha256,
				instructions: "B2 の結論の前に、限界をもう一文だけ具体的に書いてください。",
				blocks: ["B2"],
			},
		]);
		expect(decided.message_ja).toBe("修正後に再確認します");
		expect(modal.contentEl.querySelector(".kh-review-message")?.textContent).toBe(decided.message_ja);
		expect(modal.contentEl.textContent).toContain(decided.record.reasons[0].ja);
		expect(done).toEqual([decided.status]);
		expect(modal.canSubmit()).toBe(false);
	});

	it("lets reject and policy go without blocks", async () => {
		const { host } = reviewHost(() => json(200, decided));
		const modal = new ReviewModal(host.host, review.run_id, () => undefined);
		modal.open();
		await flush();
		for (const choice of ["reject", "policy"] as const) {
			modal.select(choice);
			expect(modal.canSubmit()).toBe(true);
			expect(modal.decision()).toEqual({ choice, review_packet_sha256: review.review_packet_sha256, via: "plugin" });
		}
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

	it("reads further pages of a long note's headings to find the one chosen", async () => {
		const base = recorded<IndexHeadings>("index-headings");
		const heading = (title: string, line: number) => ({ title, line, end_line: line, level: 1, children: [] });
		const offsets: string[] = [];
		const host = new FakeHost(
			recordedTransport({
				"GET /v1/index/notes/long.md/headings": (request) => {
					const offset = new URL(request.url).searchParams.get("offset") ?? "0";
					offsets.push(offset);
					const second = offset === "1000";
					return json(200, {
						...base,
						path: "long.md",
						headings: [second ? heading("Far down", 4321) : heading("Near the top", 3)],
						heading_count: 1001,
						offset: Number(offset),
						limit: 1000,
						truncated: !second,
						next_offset: second ? null : 1000,
					});
				},
			}),
		);
		const modal = new IndexSearchModal(host.host);
		const hit = { path: "long.md", title: "Long" } as IndexSuggestion["hit"];
		expect(await modal.jump({ hit, heading: "Far down" })).toBe(4321);
		expect(offsets).toEqual(["0", "1000"]);
		expect(await modal.jump({ hit, heading: "Nowhere" })).toBeUndefined();
		expect(host.opened.at(-1)).toEqual({ path: "long.md", line: undefined });
	});

	it("searches once per pause in typing, not once per keystroke", async () => {
		const result = recorded<IndexSearchResult>("index-search");
		const host = new FakeHost(recordedTransport({ "GET /v1/index/search": "index-search" }));
		const clock = new FakeClock();
		const modal = new IndexSearchModal(host.host, (ms) => new Promise((resolve) => clock.setTimeout(resolve, ms)));
		const query = result.query;
		const typed = Array.from({ length: query.length }, (_, i) => modal.getSuggestions(query.slice(0, i + 1)));
		await clock.advance(SEARCH_DEBOUNCE_MS);
		const answers = await Promise.all(typed);
		const searches = host.transport.requests.filter((r) => r.url.includes("/v1/index/search"));
		expect(searches).toHaveLength(1);
		expect(new URL(searches[0].url).searchParams.get("q")).toBe(query);
		expect(answers.at(-1)?.length).toBeGreaterThan(0);
	});

	it("shows a failure once in the list, never as a notice per keystroke", async () => {
		const host = new FakeHost(new FakeTransport(() => null));
		const clock = new FakeClock();
		const modal = new IndexSearchModal(host.host, (ms) => new Promise((resolve) => clock.setTimeout(resolve, ms)));
		const typed = ["r", "ra", "rag"].map((q) => modal.getSuggestions(q));
		await clock.advance(SEARCH_DEBOUNCE_MS);
		expect(await Promise.all(typed)).toEqual([[], [], []]);
		expect(host.errors).toEqual([]);
		expect(Notice.shown).toEqual([]);
		expect(modal.emptyStateText).toBe(`Search failed: ${t("error.offline")}`);
	});
});
