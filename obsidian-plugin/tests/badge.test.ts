import { EditorState } from "@codemirror/state";
import { EditorView } from "@codemirror/view";
import { afterEach, describe, expect, it } from "vitest";
import { SidecarClient } from "../src/api/client";
import { type Badge, LEVELS, STATUSES, type Trigger, TRIGGERS } from "../src/api/types";
import { applyLanguage } from "../src/i18n";
import { badgeModel } from "../src/trust/badge";
import {
	BATCH_SIZE,
	BadgeController,
	MAX_IN_FLIGHT,
	BadgeStore,
	badgeEditorExtension,
	modelForState,
	readingBadgePostProcessor,
	renderBadge,
} from "../src/ui/badges";
import { editorInfoField, editorInfoFileMock, Notice, TFile } from "./mocks/obsidian";
import { FakeClock, FakeTransport, json } from "./helpers/fakes";
import { recorded } from "./helpers/recorded";

const badges = recorded<Record<string, Badge>>("badges");

/** Every subset of the four triggers (16). */
function subsets(items: readonly Trigger[]): Trigger[][] {
	return Array.from({ length: 1 << items.length }, (_, mask) => items.filter((_, i) => mask & (1 << i)));
}

/** A badge of the recorded shape with the given level, status and triggers. */
function variant(level: number, status: string, triggers: Trigger[], extra: Partial<Badge> = {}): Badge {
	const base = Object.values(badges).find((b) => b.validator !== null && !b.error) ?? Object.values(badges)[0];
	return { ...base, level, status, triggers, fresh: triggers.length === 0, error: null, window: null, ...extra };
}

describe("badgeModel", () => {
	afterEach(() => applyLanguage("en"));


	it("draws a verified L2 note whose blocks rest on no record as unrecorded, never green, with the reason and how to count it", () => {
		const reason = "The verification block names no run: no record says who wrote it (hand-written).";
		const badge = variant(2, "verified", [], { fresh: false, fresh_l2: false, record: "unrecorded", record_reason: reason, counted_level: 0 });
		const model = badgeModel(badge);
		expect([model.tone, model.cls]).toEqual(["unrecorded", "kh-badge-unrecorded"]);
		expect(model.text).toBe("L2 · Verified · Unrecorded");
		expect(model.tooltip).toContain(reason);
		expect(model.tooltip).toContain("kh trust adopt");
		applyLanguage("ja");
		expect(badgeModel(badge).text).toContain("記録なし");
	});

	it("draws a note of a failed run as provisional even from a sidecar that only sends provisional_run_id", () => {
		const badge = variant(2, "verified", [], { provisional_run_id: "run-20261205T000000Z-0123abcd" });
		expect(badgeModel(badge).tone).toBe("provisional");
		expect(badgeModel(variant(2, "verified", [], { record: "recorded" })).tone).not.toMatch(/provisional|unrecorded/);
	});
	const combos = LEVELS.flatMap((level) => STATUSES.flatMap((status) => subsets(TRIGGERS).map((triggers) => ({ level, status, triggers }))));

	it("covers every level × status × trigger combination (2048)", () => {
		expect(combos).toHaveLength(4 * 4 * 128);
	});

	it.each(combos)("L$level $status $triggers", ({ level, status, triggers }) => {
		for (const locale of ["en", "ja"] as const) {
			applyLanguage(locale);
			const model = badgeModel(variant(level, status, triggers));
			expect(model.level).toBe(`L${level}`);
			expect(model.text.startsWith(`L${level} · `)).toBe(true);
			expect(model.triggers).toHaveLength(triggers.length);
			for (const label of model.triggers) expect(model.text).toContain(label);
			let tone: string;
			if (status === "disputed") tone = "disputed";
			else if (triggers.length > 0) tone = "stale";
			else if (status === "verified" || status === "reviewed") tone = level >= 2 ? "ok" : "info";
			else tone = "neutral";
			expect(model.tone).toBe(tone);
			expect(model.cls).toBe(`kh-badge-${tone}`);
			expect(model.tooltip.split("\n").length).toBeGreaterThanOrEqual(3);
			if (triggers.length === 0) expect(model.text).toContain(locale === "en" ? "Fresh" : "新鮮");
		}
	});

	it("marks the next-batch window as due, and shows days left or overdue", () => {
		expect(badgeModel(variant(2, "verified", [], { window: "next_batch", days_left: 4 })).tone).toBe("due");
		expect(badgeModel(variant(2, "verified", [], { days_left: 4 })).days).toBe("4 days left");
		expect(badgeModel(variant(2, "verified", [], { days_left: 1 })).days).toBe("1 day left");
		expect(badgeModel(variant(2, "verified", ["age_expired"], { days_left: -14 })).days).toBe("Overdue by 14 days");
		expect(badgeModel(variant(2, "verified", ["age_expired"], { days_left: -1 })).days).toBe("Overdue by 1 day");
	});

	it("renders every recorded badge of examples/vault", () => {
		const tones = new Set<string>();
		for (const [path, badge] of Object.entries(badges)) {
			const model = badgeModel(badge);
			expect(model.text, path).toMatch(/^L[0-3] · /);
			tones.add(model.tone);
		}
		// examples/vault holds notes at every trust state.
		for (const tone of ["ok", "due", "stale", "disputed", "error", "neutral"]) expect(tones, tone).toContain(tone);
	});

	it("shows a metadata error from the recorded broken note", () => {
		const broken = Object.values(badges).find((b) => b.error);
		expect(broken).toBeDefined();
		const model = badgeModel(broken!);
		expect(model.tone).toBe("error");
		expect(model.tooltip).toContain(String(broken!.error!.line));
	});
});

describe("badge rendering and updates", () => {
	afterEach(() => {
		Notice.shown.length = 0;
		editorInfoFileMock.file = null;
	});

	it("draws the hollow dot, and shows no notice, when the sidecar does not answer", async () => {
		const transport = new FakeTransport(() => null);
		const store = new BadgeStore();
		const controller = new BadgeController(new SidecarClient(transport, { baseUrl: "http://127.0.0.1:1", token: "x" }), store);
		for (let i = 0; i < 20; i++) await controller.refresh("Keywords/RAG.md");
		expect(store.get("Keywords/RAG.md")).toEqual({ kind: "offline" });
		expect(Notice.shown).toEqual([]);
		// The badge does not silently vanish: the hollow dot says it cannot be fetched (no notice per note).
		const el = createDiv();
		renderBadge(el, modelForState(store.get("Keywords/RAG.md")));
		expect(el.classList.contains("kh-hidden")).toBe(false);
		expect(el.classList.contains("kh-badge-offline")).toBe(true);
		expect(el.querySelector(".kh-badge-dot")).not.toBeNull();
		// with the "trust-relevant notes" scope, only where a relevant badge was shown before
		renderBadge(el, modelForState(store.get("Keywords/RAG.md"), "relevant"));
		expect(el.classList.contains("kh-hidden")).toBe(true);
	});

	it("debounces metadata changes into one batch request and skips non-notes", async () => {
		const [path, badge] = Object.entries(badges)[0];
		const transport = new FakeTransport(() => json(200, { badges: { [path]: badge }, errors: {} }));
		const clock = new FakeClock();
		const controller = new BadgeController(new SidecarClient(transport, { baseUrl: "http://127.0.0.1:1", token: "x" }), new BadgeStore(), {
			timers: clock,
			debounceMs: 300,
		});
		for (let i = 0; i < 5; i++) controller.refreshSoon(path);
		controller.refreshSoon("image.png");
		await clock.advance(299);
		expect(transport.requests).toHaveLength(0);
		await clock.advance(1);
		await controller.idle();
		expect(transport.paths()).toEqual(["POST /v1/trust/badges"]);
		expect(JSON.parse(transport.requests[0].body ?? "{}")).toEqual({ paths: [path] });
		expect(controller.store.get(path)).toEqual({ kind: "ready", badge });
	});

	it("asks for 10,000 changed notes in batches, never more than the cap in flight", async () => {
		const paths = Array.from({ length: 10_000 }, (_, i) => `Notes/n${i}.md`);
		const [, badge] = Object.entries(badges)[0];
		let inFlight = 0;
		let peak = 0;
		const transport = new FakeTransport(async (request) => {
			inFlight++;
			peak = Math.max(peak, inFlight);
			await new Promise((resolve) => window.setTimeout(resolve, 0));
			inFlight--;
			const asked = (JSON.parse(request.body ?? "{}") as { paths: string[] }).paths;
			return json(200, { badges: Object.fromEntries(asked.map((p) => [p, { ...badge, path: p }])), errors: {} });
		});
		const clock = new FakeClock();
		const store = new BadgeStore(20_000);
		const controller = new BadgeController(new SidecarClient(transport, { baseUrl: "http://127.0.0.1:1", token: "x" }), store, { timers: clock });
		for (const path of paths) controller.refreshSoon(path);
		await clock.advance(300);
		await controller.idle();
		expect(transport.requests).toHaveLength(10_000 / BATCH_SIZE);
		expect(transport.requests.every((r) => r.url.endsWith("/v1/trust/badges"))).toBe(true);
		expect(Math.max(...transport.requests.map((r) => (JSON.parse(r.body ?? "{}") as { paths: string[] }).paths.length))).toBe(BATCH_SIZE);
		expect(peak).toBeLessThanOrEqual(MAX_IN_FLIGHT);
		expect(controller.peakInFlight).toBeLessThanOrEqual(MAX_IN_FLIGHT);
		expect(store.size).toBe(10_000);
		for (const path of [paths[0], paths[5_000], paths[9_999]]) expect(store.get(path)).toMatchObject({ kind: "ready" });
	});

	it("falls back to one request per note, under the same cap, when the sidecar has no batch route", async () => {
		const [path, badge] = Object.entries(badges)[0];
		const transport = new FakeTransport((request) =>
			request.url.endsWith("/v1/trust/badges")
				? json(404, { error: { code: "not_found", message: "No route /v1/trust/badges.", detail: null } })
				: json(200, badge),
		);
		const controller = new BadgeController(new SidecarClient(transport, { baseUrl: "http://127.0.0.1:1", token: "x" }), new BadgeStore());
		await controller.refresh(path);
		await controller.idle();
		expect(transport.requests.map((r) => `${r.method} ${decodeURIComponent(new URL(r.url).pathname)}`)).toEqual([
			"POST /v1/trust/badges",
			`GET /v1/trust/notes/${path}`,
		]);
		expect(controller.store.get(path)).toEqual({ kind: "ready", badge });
	});

	it("keeps a bounded store: the least recently used badges go, the ones on screen stay", () => {
		const [, badge] = Object.entries(badges)[0];
		const store = new BadgeStore(3);
		const unwatch = store.watch("shown.md");
		store.set("shown.md", { kind: "ready", badge });
		store.set("a.md", { kind: "ready", badge });
		store.set("b.md", { kind: "ready", badge });
		store.get("a.md");
		store.set("c.md", { kind: "ready", badge });
		store.set("d.md", { kind: "ready", badge });
		expect(store.size).toBe(3);
		expect(store.has("shown.md")).toBe(true);
		expect(store.has("b.md")).toBe(false);
		unwatch();
		store.set("e.md", { kind: "ready", badge });
		expect(store.has("shown.md")).toBe(false);
	});

	it("asks again only for the badges on screen after the sidecar comes back", async () => {
		const [path, badge] = Object.entries(badges)[0];
		const transport = new FakeTransport((request) => {
			const asked = (JSON.parse(request.body ?? "{}") as { paths: string[] }).paths;
			return json(200, { badges: Object.fromEntries(asked.map((p) => [p, badge])), errors: {} });
		});
		const store = new BadgeStore();
		for (let i = 0; i < 50; i++) store.set(`seen${i}.md`, { kind: "offline" });
		const unwatch = store.watch(path);
		const controller = new BadgeController(new SidecarClient(transport, { baseUrl: "http://127.0.0.1:1", token: "x" }), store);
		await controller.refreshVisible();
		expect(transport.requests).toHaveLength(1);
		expect(JSON.parse(transport.requests[0].body ?? "{}")).toEqual({ paths: [path] });
		unwatch();
	});

	it("redraws the editor badge only when its note's badge changes, not on every editor update", () => {
		const [path, badge] = Object.entries(badges).find(([, b]) => b.keyword)!;
		editorInfoFileMock.file = new TFile(path);
		const store = new BadgeStore();
		store.set(path, { kind: "ready", badge });
		const parent = createDiv();
		document.body.appendChild(parent);
		const view = new EditorView({
			state: EditorState.create({ doc: "# Note\n", extensions: [editorInfoField, badgeEditorExtension(store, () => undefined)] }),
			parent,
		});
		const badgeEl = parent.querySelector<HTMLElement>(".kh-editor-badge .kh-badge")!;
		const textEl = badgeEl.querySelector(".kh-badge-text");
		expect(textEl).not.toBeNull();
		for (let i = 0; i < 10; i++) view.dispatch({ changes: { from: view.state.doc.length, insert: "x" } });
		store.set("other.md", { kind: "ready", badge });
		// The very same element: nothing was rebuilt.
		expect(badgeEl.querySelector(".kh-badge-text")).toBe(textEl);
		store.set(path, { kind: "ready", badge: { ...badge, status: "disputed" } });
		expect(badgeEl.querySelector(".kh-badge-text")).not.toBe(textEl);
		expect(store.isWatched(path)).toBe(true);
		view.destroy();
		expect(store.isWatched(path)).toBe(false);
		parent.remove();
	});

	it("can be reached and opened from the keyboard", () => {
		const [path, badge] = Object.entries(badges)[0];
		const store = new BadgeStore();
		store.set(path, { kind: "ready", badge });
		const children: { load(): void }[] = [];
		const opened: string[] = [];
		const el = createDiv();
		readingBadgePostProcessor(store, (p) => opened.push(p))(el, {
			sourcePath: path,
			getSectionInfo: () => ({ lineStart: 0, lineEnd: 0, text: "" }),
			addChild: (child: { load(): void }) => children.push(child),
		} as never);
		children[0].load();
		const badgeEl = el.querySelector<HTMLElement>(".kh-reading-badge")!;
		expect(badgeEl.getAttribute("tabindex")).toBe("0");
		expect(badgeEl.getAttribute("role")).toBe("button");
		badgeEl.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter" }));
		expect(opened).toEqual([path]);
	});

	it("shows the badge in a CodeMirror 6 panel and redraws on store changes", () => {
		const [path, badge] = Object.entries(badges).find(([, b]) => b.status === "disputed")!;
		editorInfoFileMock.file = new TFile(path);
		const store = new BadgeStore();
		const clicked: string[] = [];
		const parent = createDiv();
		document.body.appendChild(parent);
		const view = new EditorView({
			state: EditorState.create({ doc: "# Note\n", extensions: [editorInfoField, badgeEditorExtension(store, (p) => clicked.push(p))] }),
			parent,
		});
		const badgeEl = parent.querySelector<HTMLElement>(".kh-editor-badge .kh-badge")!;
		expect(badgeEl.classList.contains("kh-hidden")).toBe(true);
		store.set(path, { kind: "ready", badge });
		expect(badgeEl.classList.contains("kh-badge-disputed")).toBe(true);
		expect(badgeEl.textContent).toContain("Disputed");
		badgeEl.click();
		expect(clicked).toEqual([path]);
		view.destroy();
		parent.remove();
	});

	it("adds a badge above the first section in reading view", () => {
		const [path, badge] = Object.entries(badges).find(([, b]) => b.fresh_l2)!;
		const store = new BadgeStore();
		store.set(path, { kind: "ready", badge });
		const children: { load(): void }[] = [];
		const processor = readingBadgePostProcessor(store, () => undefined);
		const first = createDiv();
		const later = createDiv();
		const ctx = (line: number) => ({
			sourcePath: path,
			getSectionInfo: () => ({ lineStart: line, lineEnd: line, text: "" }),
			addChild: (child: { load(): void }) => children.push(child),
		});
		processor(first, ctx(0) as never);
		processor(later, ctx(5) as never);
		expect(children).toHaveLength(1);
		children[0].load();
		expect(first.querySelector(".kh-reading-badge")?.textContent).toContain("L2");
		expect(later.querySelector(".kh-reading-badge")).toBeNull();
	});
});
