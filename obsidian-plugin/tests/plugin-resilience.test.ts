/**
 * The plugin against a misbehaving or busy world: a sidecar that crashes in a
 * loop or hangs, settings that arrive through a synced data.json, renames and
 * deletions, and the badge scope setting.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Badge } from "../src/api/types";
import { applyLanguage } from "../src/i18n";
import { DEVICE_STORAGE_KEY } from "../src/settings";
import { App, FileSystemAdapter, Menu, type MockRequestUrlParam, mockState, Notice, requestUrlMock, TFile } from "./mocks/obsidian";
import { makePlugin, type TestPlugin } from "./helpers/plugin";
import { recorded } from "./helpers/recorded";

const badges = recorded<Record<string, Badge>>("badges");
const KEYWORD = "Keywords/RAG.md";
const DIARY = "MOC/CI.md";

/** Answers POST /v1/trust/badges from the recorded badges; counts the requests. */
function answerBadges(): { requests: MockRequestUrlParam[] } {
	const seen: MockRequestUrlParam[] = [];
	requestUrlMock.handler = (param) => {
		seen.push(param);
		const url = new URL(param.url);
		if (param.method === "POST" && url.pathname === "/v1/trust/badges") {
			const { paths } = JSON.parse(typeof param.body === "string" ? param.body : "{}") as { paths: string[] };
			const found = Object.fromEntries(paths.filter((p) => badges[p]).map((p) => [p, badges[p]]));
			const errors = Object.fromEntries(paths.filter((p) => !badges[p]).map((p) => [p, { code: "not_found", message: "No such note.", detail: null }]));
			return Promise.resolve({ status: 200, text: JSON.stringify({ badges: found, errors }) });
		}
		return Promise.resolve({ status: 404, text: JSON.stringify({ error: { code: "not_found", message: `No route ${url.pathname}.`, detail: null } }) });
	};
	return { requests: seen };
}

async function readyPlugin(data: unknown = null, app?: App): Promise<{ plugin: TestPlugin; app: App; status: HTMLElement; badge: HTMLElement }> {
	const made = makePlugin(data, new FileSystemAdapter("/home/me/vault"), app);
	const { plugin, mock } = made;
	await plugin.onload();
	made.app.workspace.triggerLayoutReady();
	await plugin.clock.advance(0);
	plugin.children[plugin.children.length - 1].listening(45678);
	await plugin.clock.advance(0);
	return { plugin, app: made.app, status: mock.statusBarItems[0], badge: mock.statusBarItems[1] };
}

afterEach(() => {
	Notice.shown.length = 0;
	Notice.instances.length = 0;
	mockState.language = "en";
	applyLanguage("en");
	requestUrlMock.handler = () => Promise.reject(new Error("requestUrl is not mocked in this test"));
});

describe("a sidecar that keeps crashing", () => {
	it("shows one notice after repeated failures, and its log shows the last lines it wrote", async () => {
		const { app, plugin, mock } = makePlugin(null);
		plugin.onSpawn = (child) => {
			child.stderr.emit("data", `Traceback (most recent call last):\nValueError: broken config ${plugin.children.length}\n`);
			child.exit(1);
		};
		await plugin.onload();
		app.workspace.triggerLayoutReady();
		await plugin.clock.advance(0);
		const status = mock.statusBarItems[0];
		expect(status.textContent).toBe("Knowledge Harness: restarting…");
		expect(Notice.shown).toEqual([]);

		// 1 + 5 restarts with backoff (1, 2, 4, 8, 16 s): then the limited policy gives up.
		await plugin.clock.advance(60_000);
		expect(plugin.children).toHaveLength(6);
		expect(status.textContent).toBe("Knowledge Harness: stopped");
		const notices = Notice.instances.filter((n) => n.message.includes("in a row"));
		expect(notices).toHaveLength(1);
		expect(notices[0].message).toContain("6 times in a row");
		expect(notices[0].duration).toBe(0);

		// Nothing more happens on its own, and no second notice.
		await plugin.clock.advance(600_000);
		expect(plugin.children).toHaveLength(6);
		expect(Notice.instances.filter((n) => n.message.includes("in a row"))).toHaveLength(1);

		// The notice's button opens the log with the sidecar's last stderr lines.
		notices[0].noticeEl.querySelector("button")?.click();
		expect(plugin.logs).toHaveLength(1);
		const text = plugin.logs[0].contentEl.querySelector(".kh-log")?.textContent ?? "";
		expect(text).toContain("ValueError: broken config 6");
		expect(text).toContain("Traceback (most recent call last):");
	});

	it("keeps restarting with the always policy, and says so once", async () => {
		const { app, plugin } = makePlugin({ restartPolicy: "always" });
		plugin.onSpawn = (child) => child.exit(1);
		await plugin.onload();
		app.workspace.triggerLayoutReady();
		await plugin.clock.advance(10 * 60_000);
		expect(plugin.children.length).toBeGreaterThan(10);
		const notices = Notice.shown.filter((m) => m.includes("keeps restarting"));
		expect(notices).toHaveLength(1);
	});
});

describe("a hung sidecar", () => {
	it("turns the status bar from ready to slow when its liveness check times out, and back", async () => {
		const { plugin, status } = await readyPlugin();
		expect(status.textContent).toBe("Knowledge Harness: ready");
		plugin.healthHung = true;
		await plugin.clock.advance(15_000 + 5_000);
		expect(status.textContent).toBe("Knowledge Harness: slow");
		expect(status.classList.contains("kh-status-slow")).toBe(true);
		plugin.healthHung = false;
		await plugin.clock.advance(15_000);
		expect(status.textContent).toBe("Knowledge Harness: ready");
	});
});

describe("per-device settings", () => {
	it("moves the command from an old data.json to this device once, and data.json forgets it", async () => {
		const app = new App(new FileSystemAdapter("/home/me/vault"));
		const { plugin, mock } = makePlugin({ sidecarCommand: "/Users/me/.local/bin/kh", sidecarArgs: ["-v"], port: 0, language: "ja" }, undefined, app);
		await plugin.onload();
		expect(app.loadLocalStorage(DEVICE_STORAGE_KEY)).toEqual({ sidecarCommand: "/Users/me/.local/bin/kh", sidecarArgs: ["-v"], pathAdditions: [] });
		expect(mock.data).not.toHaveProperty("sidecarCommand");
		expect(mock.data).not.toHaveProperty("sidecarArgs");
		expect(mock.data).not.toHaveProperty("language");
		expect(Notice.shown.some((m) => m.includes("/Users/me/.local/bin/kh"))).toBe(true);
		app.workspace.triggerLayoutReady();
		await plugin.clock.advance(0);
		expect(plugin.children[0].command).toBe("/Users/me/.local/bin/kh");
		expect(plugin.children[0].args.slice(0, 2)).toEqual(["-v", "serve"]);
	});

	it("runs this device's command even when a synced data.json names another", async () => {
		const app = new App(new FileSystemAdapter("/home/me/vault"));
		app.saveLocalStorage(DEVICE_STORAGE_KEY, { sidecarCommand: "/opt/kh/bin/kh", sidecarArgs: [], pathAdditions: ["/opt/kh/bin"] });
		const { plugin, mock } = makePlugin({ sidecarCommand: "/tmp/evil", sidecarArgs: ["--steal"] }, undefined, app);
		await plugin.onload();
		app.workspace.triggerLayoutReady();
		await plugin.clock.advance(0);
		expect(plugin.children[0].command).toBe("/opt/kh/bin/kh");
		expect(plugin.children[0].args).not.toContain("--steal");
		expect(plugin.configs[0].pathAdditions).toEqual(["/opt/kh/bin"]);
		expect(JSON.stringify(mock.data)).not.toContain("evil");
	});

	it("saves device settings to local storage only, and the rest to data.json", async () => {
		const app = new App(new FileSystemAdapter("/home/me/vault"));
		const { plugin, mock } = makePlugin(null, undefined, app);
		await plugin.onload();
		plugin.settings.sidecarCommand = "/usr/local/bin/kh";
		await plugin.saveSettings("sidecarCommand");
		plugin.settings.port = 8765;
		await plugin.saveSettings("port");
		expect(app.loadLocalStorage(DEVICE_STORAGE_KEY)).toMatchObject({ sidecarCommand: "/usr/local/bin/kh" });
		expect(mock.data).toEqual({ port: 8765, autoStart: true, explorerMarkers: true, badgeScope: "relevant", restartPolicy: "limited", sidecarLogLevel: "warning" });
	});
});

describe("vault events", () => {
	it("moves a badge on rename, forgets it on delete, and ignores events before the layout is ready", async () => {
		answerBadges();
		const { app, plugin, mock } = makePlugin(null);
		await plugin.onload();
		plugin.badges.set("early.md", { kind: "offline" });
		app.vault.trigger("delete", new TFile("early.md"));
		expect(plugin.badges.has("early.md")).toBe(true);

		app.workspace.triggerLayoutReady();
		await plugin.clock.advance(0);
		plugin.children[0].listening(45678);
		await plugin.clock.advance(0);
		void mock;
		plugin.badges.set(KEYWORD, { kind: "ready", badge: badges[KEYWORD] });
		app.vault.trigger("rename", new TFile("Keywords/RAG2.md"), KEYWORD);
		expect(plugin.badges.has(KEYWORD)).toBe(false);
		expect(plugin.badges.get("Keywords/RAG2.md")).toMatchObject({ kind: "ready" });
		app.vault.trigger("delete", new TFile("Keywords/RAG2.md"));
		expect(plugin.badges.has("Keywords/RAG2.md")).toBe(false);
	});

	it("an edit of a note makes the whole-vault views follow (through the shared audit), not only its badge", async () => {
		answerBadges();
		const { app, plugin } = makePlugin(null);
		await plugin.onload();
		app.workspace.triggerLayoutReady();
		await plugin.clock.advance(0);
		const edited = vi.spyOn(plugin.audits, "edited");
		app.metadataCache.trigger("changed", new TFile("Notes/any.md"));
		app.metadataCache.trigger("changed", new TFile("picture.png"));
		expect(edited).toHaveBeenCalledTimes(1);
		plugin.onunload();
	});
});

describe("badge scope", () => {
	async function activeBadge(scope: string, path: string): Promise<{ badge: HTMLElement; requests: MockRequestUrlParam[] }> {
		const { requests } = answerBadges();
		const app = new App(new FileSystemAdapter("/home/me/vault"));
		app.workspace.activeFile = new TFile(path);
		const { plugin, badge } = await readyPlugin({ badgeScope: scope }, app);
		await plugin.badgeController.idle();
		return { badge, requests };
	}

	it("shows no badge on a note the audit does not count, by default", async () => {
		expect(badges[DIARY].keyword || badges[DIARY].evidence_capable).toBe(false);
		const { badge, requests } = await activeBadge("relevant", DIARY);
		expect(requests.length).toBeGreaterThan(0);
		expect(badge.classList.contains("kh-hidden")).toBe(true);
	});

	it("shows the badge of a keyword note by default", async () => {
		const { badge } = await activeBadge("relevant", KEYWORD);
		expect(badge.classList.contains("kh-hidden")).toBe(false);
		expect(badge.textContent).toMatch(/^L\d · /);
		expect(badge.getAttribute("tabindex")).toBe("0");
	});

	it("turns the badges on screen into hollow dots when the sidecar goes away, and asks again when it is back", async () => {
		const { requests } = answerBadges();
		const app = new App(new FileSystemAdapter("/home/me/vault"));
		app.workspace.activeFile = new TFile(KEYWORD);
		const { plugin, badge, status } = await readyPlugin(null, app);
		await plugin.badgeController.idle();
		expect(badge.classList.contains("kh-hidden")).toBe(false);
		plugin.children[0].exit(1);
		await plugin.clock.advance(0);
		expect(status.textContent).toBe("Knowledge Harness: restarting…");
		expect(badge.classList.contains("kh-hidden")).toBe(false);
		expect(badge.classList.contains("kh-badge-offline")).toBe(true); // the hollow dot, not a vanished badge
		expect(Notice.shown).toEqual([]);
		const before = requests.length;
		await plugin.clock.advance(1000);
		plugin.children[1].listening(45679);
		await plugin.clock.advance(0);
		await plugin.badgeController.idle();
		expect(requests.length).toBe(before + 1);
		expect(badge.classList.contains("kh-hidden")).toBe(false);
		expect(badge.classList.contains("kh-badge-offline")).toBe(false);
	});

	it("shows it on every note with the all setting", async () => {
		const { badge } = await activeBadge("all", DIARY);
		expect(badge.classList.contains("kh-hidden")).toBe(false);
		expect(badge.textContent).toContain("L0");
	});

	it("asks nothing and shows nothing with the none setting", async () => {
		const { badge, requests } = await activeBadge("none", KEYWORD);
		expect(requests.filter((r) => r.url.includes("/v1/trust/"))).toEqual([]);
		expect(badge.classList.contains("kh-hidden")).toBe(true);
	});
});

describe("file menu and views", () => {
	it("offers validate, trust details and add to plan on notes only", async () => {
		const { app, plugin } = makePlugin({ autoStart: false });
		await plugin.onload();
		const menu = new Menu();
		app.workspace.trigger("file-menu", menu, new TFile(KEYWORD), "file-explorer");
		expect(menu.items.map((item) => item.title)).toEqual(["Validate trust (dry run)", "Show trust details", "Add to batch plan"]);
		menu.items[2].click();
		expect(plugin.planBasket.has(KEYWORD)).toBe(true);
		const other = new Menu();
		app.workspace.trigger("file-menu", other, new TFile("image.png"), "file-explorer");
		expect(other.items).toEqual([]);
	});

	it("reveals the views it opens, so a collapsed sidebar does not hide them", async () => {
		answerBadges();
		const { app, plugin } = makePlugin({ autoStart: false });
		await plugin.onload();
		const leaf = await plugin.activateView("kh-stale-list");
		expect(app.workspace.revealed).toEqual([leaf]);
	});

	it("does not reopen a plan that was used or has expired", async () => {
		const { plugin } = makePlugin({ autoStart: false });
		await plugin.onload();
		const plan = recorded<{ plan_id: string; expires_at: string }>("batch-plan");
		plugin.pendingPlan = { ...plan, expires_at: "2000-01-01T00:00:00Z" } as never;
		plugin.approvePending();
		expect(Notice.shown.at(-1)).toContain("expired");
		expect(plugin.pendingPlan).toBeNull();
		plugin.pendingPlan = { ...plan, expires_at: "2999-01-01T00:00:00Z" } as never;
		plugin.planConsumed(plan.plan_id);
		plugin.approvePending();
		expect(Notice.shown.at(-1)).toContain("No batch plan is pending");
	});
});
