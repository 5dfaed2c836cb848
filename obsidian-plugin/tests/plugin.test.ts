import { afterEach, describe, expect, it } from "vitest";
import { applyLanguage } from "../src/i18n";
import { SidecarOfflineError } from "../src/api/client";
import { mockState, Notice } from "./mocks/obsidian";
import { makePlugin } from "./helpers/plugin";
import type { KnowledgeHarnessSettingTab } from "../src/settings-tab";

describe("KnowledgeHarnessPlugin", () => {
	afterEach(() => {
		Notice.shown.length = 0;
		mockState.language = "en";
		applyLanguage("en");
	});

	it("registers its settings tab, status bar item and restart command", async () => {
		const { plugin, mock } = makePlugin({ autoStart: false });
		await plugin.onload();

		expect(mock.settingTabs).toHaveLength(1);
		// the sidecar's state, the active note's badge, the new candidates (hidden while there are none)
		expect(mock.statusBarItems).toHaveLength(3);
		expect(mock.statusBarItems[2].classList.contains("kh-hidden")).toBe(true);
		const status = mock.statusBarItems[0];
		expect(status.textContent).toBe("Knowledge Harness: stopped");
		expect(status.classList.contains("kh-status-stopped")).toBe(true);

		expect(mock.commands.map((c) => c.id)).toEqual([
			"restart-sidecar",
			"show-sidecar-log",
			"audit-vault",
			"validate-current-note",
			"show-trust-details",
			"plan-batch-canary",
			"plan-batch-pilot",
			"plan-batch-progressive",
			"plan-batch-added",
			"approve-pending-batch",
			"open-stale-list",
			"open-dashboard",
			"rebuild-index",
			"check-index",
			"search-index",
			"capture-current-note",
			"authorize-run",
			"advance-run",
			"review-run",
			"open-run",
			"connect-agent",
		]);
		expect(mock.commands[0].name).toBe("Restart sidecar");
		for (const command of mock.commands) {
			expect(command.hotkeys, command.id).toBeUndefined();
			expect(command.id).not.toContain("knowledge-harness");
			// sentence case: first letter upper case, no further capitalised words except names
			expect(command.name, command.id).toMatch(/^[A-Z][a-z]/);
			expect(command.name.split(" ").slice(1).filter((word) => /^[A-Z][a-z]/.test(word)), command.id).toEqual([]);
		}
		expect(mock.editorExtensions).toHaveLength(1);
		expect(mock.postProcessors).toHaveLength(1);
	});

	it("names every command in Japanese when Obsidian speaks Japanese", async () => {
		mockState.language = "ja";
		const { plugin, mock } = makePlugin({ autoStart: false });
		await plugin.onload();
		for (const command of mock.commands) expect(command.name, command.id).toMatch(/[\u3040-\u30ff\u4e00-\u9fff]/);
	});

	it("starts the sidecar on layout ready and shows its state", async () => {
		const { app, plugin, mock } = makePlugin(null);
		await plugin.onload();
		expect(plugin.children).toHaveLength(0);

		app.workspace.triggerLayoutReady();
		await plugin.clock.advance(0);
		const status = mock.statusBarItems[0];
		expect(status.textContent).toBe("Knowledge Harness: starting…");
		expect(plugin.configs[0]).toEqual({
			command: "kh",
			args: [],
			pathAdditions: [],
			vaultPath: "/home/me/vault",
			port: 8765, // fixed by default: an agent's MCP address survives a restart
			restartPolicy: "limited",
			maxRestarts: 5,
			logLevel: "warning",
			plugin: { version: "0.1.0", apiLevel: 2 },
			minSidecarApiLevel: 2,
		});

		plugin.children[0].listening(45678);
		await plugin.clock.advance(0);
		expect(status.textContent).toBe("Knowledge Harness: ready");
		expect(status.getAttribute("aria-label")).toContain("45678");

		// The launch token lives in memory only, never in data.json.
		await plugin.saveSettings();
		expect(JSON.stringify(mock.data)).not.toContain("t".repeat(64));

		plugin.onunload();
		await plugin.clock.advance(10_000);
		expect(plugin.children[0].exited).toBe(true);
	});

	it("does not start automatically when auto-start is off, and the client is offline", async () => {
		const { app, plugin } = makePlugin({ autoStart: false });
		await plugin.onload();
		app.workspace.triggerLayoutReady();
		await plugin.clock.advance(0);
		expect(plugin.children).toHaveLength(0);
		await expect(plugin.client.health()).rejects.toBeInstanceOf(SidecarOfflineError);
	});

	it("refuses vaults that are not on the file system", async () => {
		const { app, plugin } = makePlugin(null, { kind: "capacitor" });
		await plugin.onload();
		app.workspace.triggerLayoutReady();
		await plugin.clock.advance(0);
		expect(plugin.children).toHaveLength(0);
		expect(Notice.shown.some((m) => m.includes("file system"))).toBe(true);
	});

	it("speaks Japanese when Obsidian does", async () => {
		mockState.language = "ja";
		const { plugin, mock } = makePlugin({ autoStart: false });
		await plugin.onload();
		expect(mock.statusBarItems[0].textContent).toBe("Knowledge Harness: 停止中");
	});

	it("follows Obsidian's language even when an old data.json chose another, and offers no language setting", async () => {
		mockState.language = "ja";
		const { plugin, mock } = makePlugin({ autoStart: false, language: "en" });
		await plugin.onload();
		expect(mock.statusBarItems[0].textContent).toBe("Knowledge Harness: 停止中");
		expect(plugin.settings).not.toHaveProperty("language");
		const tab = mock.settingTabs[0] as unknown as KnowledgeHarnessSettingTab;
		const keys = tab.getSettingDefinitions().map((d) => ("control" in d && d.control ? d.control.key : null));
		expect(keys).not.toContain("language");
		mockState.language = "en";
		mockState.apiVersion = "1.8.0";
		mockState.momentLocale = "ja";
		// Before getLanguage() existed, moment's locale is Obsidian's language.
		const old = makePlugin({ autoStart: false });
		await old.plugin.onload();
		expect(old.mock.statusBarItems[0].textContent).toBe("Knowledge Harness: 停止中");
		mockState.apiVersion = "1.13.1";
		mockState.momentLocale = "en";
	});
});
