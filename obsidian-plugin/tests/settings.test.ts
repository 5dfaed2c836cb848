import { describe, expect, it } from "vitest";
import {
	applyControlValue,
	controlValue,
	DEFAULT_SETTINGS,
	formatArgs,
	normalizeSettings,
	parseArgs,
	parsePort,
} from "../src/settings";

describe("settings", () => {
	it("has the documented defaults", () => {
		expect(DEFAULT_SETTINGS).toEqual({
			sidecarCommand: "kh",
			sidecarArgs: [],
			port: 0,
			autoStart: true,
			language: "auto",
			explorerMarkers: true,
		});
		expect(Object.isFrozen(DEFAULT_SETTINGS)).toBe(true);
	});

	it("fills missing or ill-typed values with defaults and drops unknown keys", () => {
		expect(normalizeSettings(null)).toEqual(DEFAULT_SETTINGS);
		expect(normalizeSettings("nonsense")).toEqual(DEFAULT_SETTINGS);
		const loaded = normalizeSettings({
			sidecarCommand: "  /opt/kh/bin/kh ",
			sidecarArgs: ["-v", 3, "--x"],
			port: 70000,
			autoStart: "yes",
			language: "ja",
			explorerMarkers: false,
			token: "must-not-survive",
		});
		expect(loaded).toEqual({
			sidecarCommand: "/opt/kh/bin/kh",
			sidecarArgs: ["-v", "--x"],
			port: 0,
			autoStart: true,
			language: "ja",
			explorerMarkers: false,
		});
		expect(loaded).not.toHaveProperty("token");
	});

	it("returns a fresh args array, never the frozen default", () => {
		const settings = normalizeSettings({});
		settings.sidecarArgs.push("x");
		expect(DEFAULT_SETTINGS.sidecarArgs).toEqual([]);
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
		expect(applyControlValue(settings, "language", "fr")).toBe(false);
		expect(applyControlValue(settings, "autoStart", false)).toBe(true);
		expect(applyControlValue(settings, "token", "x")).toBe(false);
		expect(controlValue(settings, "token")).toBeUndefined();
	});
});
