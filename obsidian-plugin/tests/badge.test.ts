import { EditorState } from "@codemirror/state";
import { EditorView } from "@codemirror/view";
import { afterEach, describe, expect, it } from "vitest";
import { SidecarClient } from "../src/api/client";
import { type Badge, LEVELS, STATUSES, type Trigger, TRIGGERS } from "../src/api/types";
import { applyLanguage } from "../src/i18n";
import { badgeModel, offlineBadgeModel } from "../src/trust/badge";
import {
	BadgeController,
	BadgeStore,
	badgeEditorExtension,
	modelForState,
	readingBadgePostProcessor,
	renderBadge,
} from "../src/ui/badges";
import { editorInfoField, editorInfoFileMock, Notice, TFile } from "./mocks/obsidian";
import { FakeTransport, json } from "./helpers/fakes";
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
	afterEach(() => applyLanguage("en", "en"));

	const combos = LEVELS.flatMap((level) => STATUSES.flatMap((status) => subsets(TRIGGERS).map((triggers) => ({ level, status, triggers }))));

	it("covers every level × status × trigger combination (256)", () => {
		expect(combos).toHaveLength(4 * 4 * 16);
	});

	it.each(combos)("L$level $status $triggers", ({ level, status, triggers }) => {
		for (const locale of ["en", "ja"] as const) {
			applyLanguage(locale, locale);
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
			if (triggers.length === 0) expect(model.text).toContain(locale === "en" ? "fresh" : "新鮮");
		}
	});

	it("marks the next-batch window as due, and shows days left or overdue", () => {
		expect(badgeModel(variant(2, "verified", [], { window: "next_batch", days_left: 4 })).tone).toBe("due");
		expect(badgeModel(variant(2, "verified", [], { days_left: 4 })).days).toBe("4 days left");
		expect(badgeModel(variant(2, "verified", ["age_expired"], { days_left: -14 })).days).toBe("overdue by 14 days");
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

	it("renders the offline badge, never a notice, when the sidecar does not answer", async () => {
		const transport = new FakeTransport(() => null);
		const store = new BadgeStore();
		const controller = new BadgeController(new SidecarClient(transport, { baseUrl: "http://127.0.0.1:1", token: "x" }), store, 10);
		for (let i = 0; i < 20; i++) await controller.refresh("Keywords/RAG.md");
		expect(store.get("Keywords/RAG.md")).toEqual({ kind: "offline" });
		expect(Notice.shown).toEqual([]);
		const el = createDiv();
		renderBadge(el, modelForState(store.get("Keywords/RAG.md")));
		expect(el.classList.contains("kh-badge-offline")).toBe(true);
		expect(el.textContent).toBe(offlineBadgeModel().text);
	});

	it("debounces metadata changes into one request and skips non-notes", async () => {
		const [path, badge] = Object.entries(badges)[0];
		const transport = new FakeTransport(() => json(200, badge));
		const controller = new BadgeController(new SidecarClient(transport, { baseUrl: "http://127.0.0.1:1", token: "x" }), new BadgeStore(), 5);
		for (let i = 0; i < 5; i++) controller.refreshSoon(path);
		controller.refreshSoon("image.png");
		await new Promise((resolve) => window.setTimeout(resolve, 30));
		expect(transport.requests).toHaveLength(1);
		expect(controller.store.get(path)).toEqual({ kind: "ready", badge });
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
		expect(badgeEl.textContent).toContain("disputed");
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
