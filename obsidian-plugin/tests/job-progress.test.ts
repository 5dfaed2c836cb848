import { afterEach, describe, expect, it } from "vitest";
import type { JobView } from "../src/api/types";
import { applyLanguage } from "../src/i18n";
import { jobLine } from "../src/ui/job-progress";
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
