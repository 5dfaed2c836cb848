/**
 * New discovery candidates: one throttled notice (never one per note) and a status-bar
 * count of what the person has not looked at, from GET /v1/trust/candidates as recorded
 * from the real sidecar on examples/vault.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { CandidateItem, CandidateList } from "../src/api/types";
import { applyLanguage } from "../src/i18n";
import { candidateDetails } from "../src/ui/candidates-status";
import { CandidateWatcher, candidateKey, NOTICE_INTERVAL_MS, SEEN_STORAGE_KEY, type UnseenSummary } from "../src/trust/candidates";
import { StaleListView } from "../src/ui/stale-view";
import { FakeTransport, flush, json } from "./helpers/fakes";
import { FakeHost, recordedTransport } from "./helpers/host";
import { makePlugin } from "./helpers/plugin";
import { recorded } from "./helpers/recorded";
import { type MockRequestUrlParam, mockState, Notice, requestUrlMock, WorkspaceLeaf } from "./mocks/obsidian";
import { SidecarClient } from "../src/api/client";

const example = recorded<CandidateList>("candidates");

function list(candidates: CandidateItem[]): CandidateList {
	const counts: Record<string, number> = { next_batch: 0, stale: 0, provisional: 0, never_validated: 0 };
	for (const c of candidates) counts[c.reason] = (counts[c.reason] ?? 0) + 1;
	return { today: example.today, candidates, counts };
}

function never(path: string): CandidateItem {
	return { path, reason: "never_validated", days_left: null, triggers: [] };
}

/** A watcher on a fake sidecar whose answer the test changes, a manual clock and a store. */
function watcher(initial: CandidateList = example, stored?: unknown) {
	const state = { answer: initial, now: 0, stored, notices: [] as UnseenSummary[] };
	const transport = new FakeTransport(() => json(200, state.answer));
	const client = new SidecarClient(transport, { baseUrl: "http://127.0.0.1:9", token: "t".repeat(64) });
	const w = new CandidateWatcher(
		client,
		{ load: () => state.stored, save: (keys) => (state.stored = keys) },
		(summary) => state.notices.push(summary),
		() => state.now,
	);
	return { w, state, transport };
}

afterEach(() => {
	applyLanguage("en");
	mockState.language = "en";
	Notice.shown.length = 0;
	Notice.instances.length = 0;
	requestUrlMock.handler = () => Promise.reject(new Error("requestUrl is not mocked in this test"));
});

describe("candidate watcher", () => {
	it("announces the candidates the person has not seen once, counted by reason", async () => {
		const { w, state } = watcher();
		await w.check();
		expect(state.notices).toHaveLength(1);
		expect(state.notices[0]).toEqual({ count: 8, total: 8, byReason: { next_batch: 1, stale: 5, never_validated: 2 } });
		await w.check();
		await w.check();
		expect(state.notices).toHaveLength(1); // the same candidates: no second notice
		expect(w.summary().count).toBe(8);
	});

	it("10,000 new notes make one notice, not 10,000", async () => {
		const many = list(Array.from({ length: 10_000 }, (_, i) => never(`Inbox/${String(i)}.md`)));
		const { w, state } = watcher(many);
		await w.check();
		expect(state.notices).toHaveLength(1);
		expect(state.notices[0].count).toBe(10_000);
	});

	it("throttles notices: candidates that appear meanwhile wait for the next interval", async () => {
		const { w, state } = watcher(list([never("A.md")]));
		await w.check();
		expect(state.notices).toHaveLength(1);
		state.answer = list([never("A.md"), never("B.md")]);
		state.now = NOTICE_INTERVAL_MS - 1;
		await w.check();
		expect(state.notices).toHaveLength(1);
		expect(w.summary().count).toBe(2); // the status bar still counts it
		state.now = NOTICE_INTERVAL_MS;
		await w.check();
		expect(state.notices).toHaveLength(2);
		expect(state.notices[1].count).toBe(2);
	});

	it("forgets what the person saw, across restarts, until a note comes back for another reason", async () => {
		const { w, state } = watcher(list([never("A.md"), never("B.md")]));
		await w.check();
		w.markSeen();
		expect(w.summary().count).toBe(0);
		expect(state.stored).toEqual([candidateKey(never("A.md")), candidateKey(never("B.md"))]);

		// Obsidian restarts: the seen candidates stay seen, no notice.
		const restarted = watcher(list([never("A.md"), never("B.md")]), state.stored);
		await restarted.w.check();
		expect(restarted.state.notices).toHaveLength(0);
		expect(restarted.w.summary().count).toBe(0);

		// A validated, then stale: new again (another reason); B validated: forgotten.
		restarted.state.answer = list([{ path: "A.md", reason: "stale", days_left: -3, triggers: ["age_expired"] }]);
		restarted.state.now = NOTICE_INTERVAL_MS;
		await restarted.w.check();
		expect(restarted.w.summary()).toEqual({ count: 1, total: 1, byReason: { stale: 1 } });
		expect(restarted.state.notices).toHaveLength(1);
		expect(restarted.state.stored).toEqual([]);
	});

	it("shares one request between checks that overlap", async () => {
		const { w, transport } = watcher();
		await Promise.all([w.check(), w.check(), w.check()]);
		expect(transport.requests).toHaveLength(1);
	});

	it("words the reasons in English and Japanese", () => {
		const summary = { count: 3, total: 3, byReason: { stale: 1, never_validated: 2 } };
		expect(candidateDetails(summary)).toBe("2 never validated, 1 stale");
		applyLanguage("ja");
		expect(candidateDetails(summary)).toBe("未検証 2 件、鮮度切れ 1 件");
	});
});

describe("stale list with candidates", () => {
	it("lists the notes waiting for a first validation and marks what is new", async () => {
		const host = new FakeHost(
			recordedTransport({ "GET /v1/trust/stale": "stale", "GET /v1/trust/audit": "audit", "GET /v1/trust/candidates": "candidates" }),
		);
		await host.candidates.check();
		const view = new StaleListView(new WorkspaceLeaf(host.app) as never, host.host);
		await view.onOpen();
		const el = view.contentEl;
		const firsts = Array.from(el.querySelectorAll(".kh-row-never .kh-note-link")).map((a) => a.textContent);
		expect(firsts).toEqual(["Keywords/Embedding.md", "Keywords/RAG.md"]);
		expect(el.querySelectorAll(".kh-row-never .kh-new")).toHaveLength(2);
		const marked = el.querySelectorAll(".kh-new").length;
		expect(marked).toBeGreaterThan(2);

		host.candidates.markSeen(); // re-renders without the marks
		expect(view.contentEl.querySelectorAll(".kh-new")).toHaveLength(0);
		expect(view.contentEl.querySelectorAll(".kh-row-never .kh-note-link")).toHaveLength(2);
	});
});

describe("the plugin with new candidates", () => {
	function answer(candidates: CandidateList): MockRequestUrlParam[] {
		const seen: MockRequestUrlParam[] = [];
		requestUrlMock.handler = (param) => {
			seen.push(param);
			const path = new URL(param.url).pathname;
			if (path === "/v1/trust/candidates") return Promise.resolve({ status: 200, text: JSON.stringify(candidates) });
			if (path === "/v1/trust/audit") return Promise.resolve({ status: 200, text: JSON.stringify(recorded("audit")) });
			return Promise.resolve({ status: 404, text: JSON.stringify({ error: { code: "not_found", message: `No route ${path}.`, detail: null } }) });
		};
		return seen;
	}

	async function ready(language = "en") {
		mockState.language = language;
		const made = makePlugin(null);
		await made.plugin.onload();
		made.app.workspace.triggerLayoutReady();
		await made.plugin.clock.advance(0);
		made.plugin.children[made.plugin.children.length - 1].listening(45678);
		await made.plugin.clock.advance(0);
		return { ...made, item: made.mock.statusBarItems[2] };
	}

	it("checks after each shared audit: one notice with a button, and a count in the status bar until the person looks", async () => {
		const requests = answer(example);
		const { plugin, app, item } = await ready();
		expect(item.classList.contains("kh-hidden")).toBe(true);
		await plugin.audits.fetch();
		await flush();
		await flush();
		expect(requests.filter((r) => r.url.includes("/v1/trust/candidates"))).toHaveLength(1);
		expect(item.classList.contains("kh-hidden")).toBe(false);
		expect(item.textContent).toBe("8 new candidates");
		expect(item.getAttribute("aria-label")).toContain("2 never validated, 5 stale, 1 due within 7 days");
		const notices = Notice.instances.filter((n) => n.message.includes("wait for validation"));
		expect(notices).toHaveLength(1);
		expect(notices[0].message).toContain("8 notes wait for validation since you last looked");

		await plugin.audits.fetch(); // the same candidates after another audit: no second notice
		await flush();
		await flush();
		expect(Notice.instances.filter((n) => n.message.includes("wait for validation"))).toHaveLength(1);

		item.click(); // opens the stale list: the person has seen them
		await flush();
		expect(item.classList.contains("kh-hidden")).toBe(true);
		expect(app.loadLocalStorage(SEEN_STORAGE_KEY)).toHaveLength(8);
		plugin.onunload();
	});

	it("says it in Japanese in a Japanese Obsidian", async () => {
		answer(list([never("ノート/新規.md")]));
		const { plugin, item } = await ready("ja");
		await plugin.checkCandidates();
		expect(item.textContent).toBe("新しい候補 1 件");
		expect(Notice.instances.at(-1)?.message).toContain("1 件のノートが検証待ちになりました（未検証 1 件）");
		plugin.onunload();
	});

	it("stays quiet when the sidecar does not answer", async () => {
		requestUrlMock.handler = () => Promise.reject(new Error("connect ECONNREFUSED"));
		const { plugin, item } = await ready();
		await plugin.checkCandidates();
		expect(item.classList.contains("kh-hidden")).toBe(true);
		expect(Notice.instances.filter((n) => n.message.includes("validation"))).toHaveLength(0);
		plugin.onunload();
	});
});
