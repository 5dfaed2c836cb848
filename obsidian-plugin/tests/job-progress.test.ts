import { afterEach, describe, expect, it } from "vitest";
import type { JobView } from "../src/api/types";
import { applyLanguage, LOCALES } from "../src/i18n";
import { jobLine, STEP_NAMES } from "../src/ui/job-progress";
import "./mocks/obsidian";

const view = (extra: Partial<JobView>): JobView => ({
	job_id: "plugin-0123456789",
	action: "POST /v1/batches",
	state: "running",
	done: 0,
	total: null,
	step: "",
	elapsed_seconds: 3.4,
	cancel_requested: false,
	...extra,
});

afterEach(() => applyLanguage("en"));

describe("a long job's line", () => {
	it("counts from one, names the note or the step, and says when it is being cancelled", () => {
		expect(jobLine(view({}))).toBe("3 s");
		expect(jobLine(view({ done: 2, total: 8, step: "Keywords/鮮度.md" }))).toBe("3 of 8: Keywords/鮮度.md · 3 s");
		expect(jobLine(view({ done: 1, total: 2, step: "judge" }))).toBe("2 of 2: Judging the claims (an agent judge may take a while) · 3 s");
		expect(jobLine(view({ cancel_requested: true }))).toContain("Cancelling");
		applyLanguage("ja");
		expect(jobLine(view({ done: 0, total: 2, step: "fetch" }))).toBe("2 件中 1 件目: 引用先のページを取得中 · 3 秒");
	});
});

describe("an index build's line", () => {
	it("names its phase in the person's language, with the notes read of those to read", () => {
		const build = (extra: Partial<JobView>) => view({ action: "POST /v1/index/build", ...extra });
		expect(jobLine(build({ step: "wait", total: 0 }))).toBe("Waiting while another program writes to the vault · 3 s");
		expect(jobLine(build({ step: "parse", done: 41, total: 1500 }))).toBe("42 of 1500: Reading notes · 3 s");
		expect(jobLine(build({ step: "links", done: 1500, total: 1500 }))).toBe("1500 of 1500: Linking notes and writing the index · 3 s");
		applyLanguage("ja");
		expect(jobLine(build({ step: "scan", total: 0 }))).toBe("変更されたノートを探しています · 3 秒");
		expect(jobLine(build({ step: "parse", done: 0, total: 8 }))).toBe("8 件中 1 件目: ノートを読み込み中 · 3 秒");
	});

	it("has a text in every language for every coded step the sidecar sends", () => {
		// the codes of trust/validation_service.py (dry_run) and index/build.py (checkpoint), docs/http-api.md
		expect(Object.keys(STEP_NAMES).sort()).toEqual(["fetch", "judge", "links", "parse", "scan", "wait"]);
		for (const messages of Object.values(LOCALES)) {
			for (const key of Object.values(STEP_NAMES)) expect(messages[key].length).toBeGreaterThan(5);
		}
	});
});
