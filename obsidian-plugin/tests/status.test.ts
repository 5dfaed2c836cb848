import { afterEach, describe, expect, it } from "vitest";
import { applyLanguage } from "../src/i18n";
import { OFFLINE, statusView } from "../src/status";

describe("status bar text", () => {
	afterEach(() => {
		applyLanguage("en", "en");
	});

	it("names the three states", () => {
		expect(statusView({ ...OFFLINE, state: "starting" }).text).toBe("Sidecar starting…");
		expect(statusView({ ...OFFLINE, state: "ready", port: 5000 })).toMatchObject({
			text: "Sidecar ready",
			cls: "kh-status-ready",
		});
		expect(statusView(OFFLINE).text).toBe("Sidecar offline");
	});

	it("explains why the sidecar is offline", () => {
		const view = statusView({
			...OFFLINE,
			error: { kind: "exited", message: "", exitCode: 3 },
		});
		expect(view.tooltip).toContain("code 3");
		applyLanguage("ja", "en");
		expect(statusView(OFFLINE).text).toBe("サイドカー停止中");
	});
});
