import { afterEach, describe, expect, it } from "vitest";
import { applyLanguage } from "../src/i18n";
import { OFFLINE, statusView } from "../src/status";

describe("status bar text", () => {
	afterEach(() => {
		applyLanguage("en");
	});

	it("tells the truth in one word per state: starting, ready, slow, restarting, stopped", () => {
		expect(statusView({ ...OFFLINE, state: "starting" }).text).toBe("Knowledge Harness: starting…");
		expect(statusView({ ...OFFLINE, state: "ready", port: 5000 })).toMatchObject({
			text: "Knowledge Harness: ready",
			cls: "kh-status-ready",
		});
		expect(statusView({ ...OFFLINE, state: "slow", port: 5000 })).toMatchObject({ text: "Knowledge Harness: slow", cls: "kh-status-slow" });
		const restarting = statusView({ ...OFFLINE, state: "restarting", restartInMs: 4000, error: { kind: "exited", message: "", exitCode: 1 } });
		expect(restarting.text).toBe("Knowledge Harness: restarting…");
		expect(restarting.tooltip).toContain("4 s");
		expect(statusView(OFFLINE).text).toBe("Knowledge Harness: stopped");
	});

	it("explains why the sidecar is offline", () => {
		const view = statusView({
			...OFFLINE,
			error: { kind: "exited", message: "", exitCode: 3 },
		});
		expect(view.tooltip).toContain("code 3");
		applyLanguage("ja");
		expect(statusView(OFFLINE).text).toBe("Knowledge Harness: 停止中");
		expect(statusView({ ...OFFLINE, state: "slow" }).text).toBe("Knowledge Harness: 応答が遅れています");
	});
});
