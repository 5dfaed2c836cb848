import { describe, expect, it } from "vitest";
import {
	applyControlValue,
	controlValue,
	DEFAULT_SETTINGS,
	DEVICE_KEYS,
	devicePart,
	formatArgs,
	loadSettings,
	normalizeSettings,
	parseArgs,
	parsePort,
	SYNCED_KEYS,
	syncedPart,
} from "../src/settings";

describe("settings", () => {
	it("has the documented defaults and no language setting", () => {
		expect(DEFAULT_SETTINGS).toEqual({
			sidecarCommand: "kh",
			sidecarArgs: [],
			pathAdditions: [],
			port: 8765,
			autoStart: true,
			explorerMarkers: true,
			badgeScope: "relevant",
			restartPolicy: "limited",
			sidecarLogLevel: "warning",
		});
		expect(Object.isFrozen(DEFAULT_SETTINGS)).toBe(true);
		expect(Object.keys(DEFAULT_SETTINGS)).not.toContain("language");
	});

	it("keeps what runs on this device and the rest in data.json, never both", () => {
		expect([...SYNCED_KEYS, ...DEVICE_KEYS].sort()).toEqual(Object.keys(DEFAULT_SETTINGS).sort());
		const settings = normalizeSettings({ port: 8765 }, { sidecarCommand: "/opt/kh", sidecarArgs: ["-v"], pathAdditions: ["/opt/bin"] });
		expect(Object.keys(syncedPart(settings)).sort()).toEqual([...SYNCED_KEYS].sort());
		expect(devicePart(settings)).toEqual({ sidecarCommand: "/opt/kh", sidecarArgs: ["-v"], pathAdditions: ["/opt/bin"] });
		expect(JSON.stringify(syncedPart(settings))).not.toContain("/opt/kh");
	});

	it("fills missing or ill-typed values with defaults and drops unknown keys", () => {
		expect(normalizeSettings(null)).toEqual(DEFAULT_SETTINGS);
		expect(normalizeSettings("nonsense", 7)).toEqual(DEFAULT_SETTINGS);
		const loaded = normalizeSettings(
			{ port: 70000, autoStart: "yes", language: "ja", explorerMarkers: false, badgeScope: "some", restartPolicy: "always", sidecarLogLevel: "loud", token: "must-not-survive" },
			{ sidecarCommand: "  /opt/kh/bin/kh ", sidecarArgs: ["-v", 3, "--x"], pathAdditions: "nope" },
		);
		expect(loaded).toEqual({
			sidecarCommand: "/opt/kh/bin/kh",
			sidecarArgs: ["-v", "--x"],
			pathAdditions: [],
			port: 8765,
			autoStart: true,
			explorerMarkers: false,
			badgeScope: "relevant",
			restartPolicy: "always",
			sidecarLogLevel: "warning",
		});
		expect(loaded).not.toHaveProperty("token");
		expect(loaded).not.toHaveProperty("language");
	});

	it("returns fresh lists, never the frozen defaults", () => {
		const settings = normalizeSettings({});
		settings.sidecarArgs.push("x");
		settings.pathAdditions.push("y");
		expect(DEFAULT_SETTINGS.sidecarArgs).toEqual([]);
		expect(DEFAULT_SETTINGS.pathAdditions).toEqual([]);
	});

	it("parses ports and argument lists", () => {
		expect(parsePort("0")).toBe(0);
		expect(parsePort(" 8765 ")).toBe(8765);
		expect(parsePort("65536")).toBeNull();
		expect(parsePort("-1")).toBeNull();
		expect(parsePort("80.5")).toBeNull();
		expect(parsePort("")).toBeNull();
		expect(parseArgs("-m\n knowledge_harness.cli \n\n")).toEqual(["-m", "knowledge_harness.cli"]);
		expect(formatArgs(["-m", "x"])).toBe("-m\nx");
	});

	it("applies control values with validation", () => {
		const settings = normalizeSettings({});
		expect(applyControlValue(settings, "port", 8080)).toBe(true);
		expect(applyControlValue(settings, "port", 1.5)).toBe(false);
		expect(applyControlValue(settings, "port", "99999")).toBe(false);
		expect(settings.port).toBe(8080);
		expect(applyControlValue(settings, "sidecarCommand", "  ")).toBe(true);
		expect(settings.sidecarCommand).toBe("kh");
		expect(applyControlValue(settings, "sidecarArgs", "a\nb")).toBe(true);
		expect(controlValue(settings, "sidecarArgs")).toBe("a\nb");
		expect(applyControlValue(settings, "pathAdditions", "/opt/bin\n\n/usr/local/bin")).toBe(true);
		expect(settings.pathAdditions).toEqual(["/opt/bin", "/usr/local/bin"]);
		expect(applyControlValue(settings, "badgeScope", "none")).toBe(true);
		expect(applyControlValue(settings, "badgeScope", "some")).toBe(false);
		expect(settings.badgeScope).toBe("none");
		expect(applyControlValue(settings, "restartPolicy", "never")).toBe(true);
		expect(applyControlValue(settings, "restartPolicy", "sometimes")).toBe(false);
		expect(applyControlValue(settings, "sidecarLogLevel", "info")).toBe(true);
		expect(settings.sidecarLogLevel).toBe("info");
		expect(applyControlValue(settings, "sidecarLogLevel", "trace")).toBe(false);
		expect(applyControlValue(settings, "language", "ja")).toBe(false);
		expect(applyControlValue(settings, "autoStart", false)).toBe(true);
		expect(applyControlValue(settings, "token", "x")).toBe(false);
		expect(controlValue(settings, "token")).toBeUndefined();
	});
});

describe("per-device settings migration", () => {
	it("takes the command, arguments and PATH additions over from an old data.json once", () => {
		const old = { sidecarCommand: "/Users/me/.local/bin/kh", sidecarArgs: ["-v"], port: 9000, language: "ja" };
		const first = loadSettings(old, null);
		expect(first.settings).toMatchObject({ sidecarCommand: "/Users/me/.local/bin/kh", sidecarArgs: ["-v"], port: 9000 });
		expect(first.deviceToStore).toEqual({ sidecarCommand: "/Users/me/.local/bin/kh", sidecarArgs: ["-v"], pathAdditions: [] });
		expect(first.migrated).toEqual(first.deviceToStore);
		expect(first.rewriteData).toBe(true);
	});

	it("ignores device values in a synced data.json once this device has its own", () => {
		const synced = { sidecarCommand: "/tmp/evil", sidecarArgs: ["--steal"], port: 9000 };
		const loaded = loadSettings(synced, { sidecarCommand: "kh", sidecarArgs: [], pathAdditions: [] });
		expect(loaded.settings.sidecarCommand).toBe("kh");
		expect(loaded.settings.sidecarArgs).toEqual([]);
		expect(loaded.settings.port).toBe(9000);
		expect(loaded.migrated).toBeNull();
		expect(loaded.deviceToStore).toBeNull();
		// data.json is rewritten without them.
		expect(loaded.rewriteData).toBe(true);
	});

	it("stores the defaults for a new device and leaves a clean data.json alone", () => {
		const loaded = loadSettings({ port: 0 }, null);
		expect(loaded.deviceToStore).toEqual({ sidecarCommand: "kh", sidecarArgs: [], pathAdditions: [] });
		expect(loaded.migrated).toBeNull();
		expect(loaded.rewriteData).toBe(false);
	});
});
