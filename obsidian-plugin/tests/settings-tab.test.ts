import { describe, expect, it, vi } from "vitest";
import { KnowledgeHarnessSettingTab, type SettingsHost } from "../src/settings-tab";
import { normalizeSettings, type SettingKey } from "../src/settings";
import { OFFLINE } from "../src/status";
import {
	App,
	DropdownComponent,
	Plugin,
	settingsIn,
	TextAreaComponent,
	TextComponent,
	ToggleComponent,
} from "./mocks/obsidian";

function makeTab() {
	const saved: SettingKey[] = [];
	const host = Object.assign(new Plugin(new App()), {
		settings: normalizeSettings({}),
		saveSettings: vi.fn((key: SettingKey) => {
			saved.push(key);
			return Promise.resolve();
		}),
		restartSidecar: vi.fn(() => Promise.resolve()),
		showSidecarLog: vi.fn(() => undefined),
		readiness: () => ({ command: "kh", path: "/home/me/.local/bin/kh", snapshot: OFFLINE, pluginVersion: "0.1.0" }),
	});
	const tab = new KnowledgeHarnessSettingTab(host.app as never, host as unknown as Plugin & SettingsHost as never);
	return { tab, host, saved };
}

describe("settings tab", () => {
	it("renders the settings with sentence-case names", () => {
		const { tab } = makeTab();
		tab.renderSettings();
		const names = settingsIn(tab.containerEl).map((s) => s.nameEl.textContent);
		expect(names).toEqual([
			"Sidecar command",
			"Extra arguments",
			"PATH additions",
			"Port",
			"Start automatically",
			"When the sidecar stops",
			"Sidecar log level",
			"Show trust badges on",
			"Mark notes in the file explorer",
			"Restart sidecar",
			"Sidecar log",
		]);
		// No language setting: the plugin follows Obsidian's language.
		expect(names.join(" ")).not.toMatch(/language/i);
	});

	it("saves valid edits and ignores an invalid port", async () => {
		const { tab, host, saved } = makeTab();
		tab.renderSettings();
		const [command, args, pathAdditions, port, autoStart, restartPolicy, logLevel, badgeScope] = settingsIn(tab.containerEl).map((s) => s.components[0]);
		await (command as TextComponent).simulateChange("/opt/kh/bin/kh");
		await (args as TextAreaComponent).simulateChange("-m\nknowledge_harness");
		await (pathAdditions as TextAreaComponent).simulateChange("/opt/uv/bin");
		await (port as TextComponent).simulateChange("70000");
		expect((port as TextComponent).inputEl.classList.contains("kh-input-invalid")).toBe(true);
		await (port as TextComponent).simulateChange("8765");
		await (autoStart as ToggleComponent).simulateChange(false);
		await (restartPolicy as DropdownComponent).simulateChange("never");
		await (logLevel as DropdownComponent).simulateChange("debug");
		expect(Object.keys((logLevel as DropdownComponent).options)).toEqual(["error", "warning", "info", "debug"]);
		await (badgeScope as DropdownComponent).simulateChange("all");
		expect(Object.keys((badgeScope as DropdownComponent).options)).toEqual(["relevant", "all", "none"]);

		expect(host.settings).toMatchObject({
			sidecarCommand: "/opt/kh/bin/kh",
			sidecarArgs: ["-m", "knowledge_harness"],
			pathAdditions: ["/opt/uv/bin"],
			port: 8765,
			autoStart: false,
			restartPolicy: "never",
			sidecarLogLevel: "debug",
			badgeScope: "all",
		});
		expect(saved).toEqual(["sidecarCommand", "sidecarArgs", "pathAdditions", "port", "autoStart", "restartPolicy", "sidecarLogLevel", "badgeScope"]);
	});

	it("offers the same settings declaratively for Obsidian 1.13+", async () => {
		const { tab, host } = makeTab();
		const definitions = tab.getSettingDefinitions();
		const keys = definitions.map((d) => ("control" in d && d.control ? d.control.key : null));
		expect(keys).toEqual([
			null, // the readiness panel, drawn by its render function
			"sidecarCommand",
			"sidecarArgs",
			"pathAdditions",
			"port",
			"autoStart",
			"restartPolicy",
			"sidecarLogLevel",
			"badgeScope",
			"explorerMarkers",
			null,
			null,
		]);
		await tab.setControlValue("explorerMarkers", false);
		expect(host.settings.explorerMarkers).toBe(false);
		expect(tab.getControlValue("explorerMarkers")).toBe(false);

		expect(tab.getControlValue("port")).toBe(8765);
		await tab.setControlValue("port", 9000);
		await tab.setControlValue("port", -5);
		expect(host.settings.port).toBe(9000);
		await tab.setControlValue("sidecarArgs", "a\nb");
		expect(tab.getControlValue("sidecarArgs")).toBe("a\nb");

		const restart = definitions[definitions.length - 2];
		if (restart && "action" in restart && restart.action) restart.action(tab.containerEl, 0);
		expect(host.restartSidecar).toHaveBeenCalledTimes(1);
		const log = definitions[definitions.length - 1];
		if (log && "action" in log && log.action) log.action(tab.containerEl, 0);
		expect(host.showSidecarLog).toHaveBeenCalledTimes(1);
	});
});
