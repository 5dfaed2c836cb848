import { describe, expect, it } from "vitest";
import type { BatchPlan, BatchRunRecord } from "../src/api/types";
import { challengeMatches, expectedChallenge } from "../src/trust/challenge";
import { BatchApprovalModal, renderRunRecord, runFiles } from "../src/ui/batch-modal";
import { json } from "./helpers/fakes";
import { FakeHost, recordedTransport } from "./helpers/host";
import { hasRecorded, recorded } from "./helpers/recorded";
import { MarkdownView, type TextComponent as MockText, TFile, WorkspaceLeaf } from "./mocks/obsidian";

/** Inputs that must NOT enable Approve for `digest` (another plan's digest included). */
function nearMisses(digest: string, otherDigest: string): string[] {
	const exact = expectedChallenge(digest);
	return [
		"",
		"APPROVE_PRODUCTION",
		"APPROVE_PRODUCTION ",
		digest,
		`APPROVE_PRODUCTION ${digest.slice(0, -1)}`, // a prefix of the digest
		`APPROVE_PRODUCTION ${digest.slice(0, 8)}`,
		`APPROVE_PRODUCTION ${digest}0`,
		`approve_production ${digest}`, // other case
		`Approve_Production ${digest}`,
		`APPROVE_PRODUCTION ${digest.toUpperCase()}`,
		`APPROVE_PRODUCTION  ${digest}`, // extra space
		` ${exact}`, // leading space
		`${exact} `, // trailing space
		`${exact}\n`,
		`\t${exact}`,
		`APPROVE_PRODUCTION\u00a0${digest}`, // no-break space
		`APPROVE_PRODUCTION\u3000${digest}`, // ideographic space
		`ＡＰＰＲＯＶＥ_PRODUCTION ${digest}`, // full-width letters
		`APPROVE-PRODUCTION ${digest}`,
		`APPROVE_PRODUCTION:${digest}`,
		`APPROVE_PRODUCTION ${otherDigest}`, // another plan's digest
	];
}

describe("the typed challenge", () => {
	const digest = "3f9a1c0b7e2d";
	it("matches only the exact string", () => {
		expect(challengeMatches(`APPROVE_PRODUCTION ${digest}`, digest)).toBe(true);
		for (const input of nearMisses(digest, "8b0c55e1d4a7")) expect(challengeMatches(input, digest), JSON.stringify(input)).toBe(false);
		expect(challengeMatches("APPROVE_PRODUCTION ", "")).toBe(false);
	});
});

describe.runIf(hasRecorded("batch-plan"))("batch approval modal (recorded plan)", () => {
	const plan = hasRecorded("batch-plan") ? recorded<BatchPlan>("batch-plan") : (null as never);
	const other = hasRecorded("batch-plan-other") ? recorded<BatchPlan>("batch-plan-other") : plan;
	const record = hasRecorded("batch-approve") ? recorded<BatchRunRecord>("batch-approve") : (null as never);

	function open(routes = {}) {
		const host = new FakeHost(recordedTransport(routes));
		const modal = new BatchApprovalModal(host.host, plan);
		return { host, modal };
	}

	it("shows targets, before/after of the two blocks and the digest", async () => {
		const { modal } = open();
		modal.open();
		await modal.render();
		const el = modal.contentEl;
		expect(el.querySelector(".kh-digest code")?.textContent).toBe(plan.digest);
		expect(el.querySelectorAll(".kh-target")).toHaveLength(plan.targets.length);
		expect(el.querySelectorAll(".kh-blocks")).toHaveLength(plan.targets.length);
	});

	it("keeps Approve disabled for every near miss and enables it only for the exact string", async () => {
		const { modal } = open();
		modal.open();
		await modal.render();
		expect(modal.approveButton?.disabled).toBe(true);
		for (const input of nearMisses(plan.digest, other.digest === plan.digest ? "0".repeat(plan.digest.length) : other.digest)) {
			await (modal.input as unknown as MockText).simulateChange(input);
			expect(modal.approveButton?.disabled, JSON.stringify(input)).toBe(true);
		}
		await (modal.input as unknown as MockText).simulateChange(`APPROVE_PRODUCTION ${plan.digest}`);
		expect(modal.approveButton?.disabled).toBe(false);
	});

	it.runIf(hasRecorded("batch-approve"))("saves open targets first, then shows run status and result status side by side", async () => {
		const sent: unknown[] = [];
		const { host, modal } = open({
			[`POST /v1/batches/${plan.plan_id}/approve`]: (request: { body?: string }) => {
				sent.push(JSON.parse(request.body ?? "null"));
				return json(200, record);
			},
		});
		const leaf = new WorkspaceLeaf(host.app);
		const view = new MarkdownView(new TFile(plan.targets[0].path));
		leaf.view = view;
		host.app.workspace.leaves.push(leaf);
		modal.open();
		await modal.render();
		expect(modal.contentEl.querySelector(".kh-callout-warning")?.textContent).toContain(plan.targets[0].path);
		await (modal.input as unknown as MockText).simulateChange(`APPROVE_PRODUCTION ${plan.digest}`);
		await modal.approve();
		expect(view.saved).toBe(1);
		expect(sent).toEqual([{ challenge: `APPROVE_PRODUCTION ${plan.digest}`, via: "plugin" }]);
		const statuses = Array.from(modal.contentEl.querySelectorAll(".kh-run-status .kh-pill")).map((n) => n.textContent);
		expect(statuses[0]).toBe("Succeeded"); // the label alone when it says the code ("SUCCEEDED") in words
		expect(modal.contentEl.querySelectorAll(".kh-run-files tr")).toHaveLength(runFiles(record).length + 1);
		expect(host.writes).toBe(1);
		// A used plan is not offered again by "Approve pending batch".
		expect(host.consumed).toEqual(record.consumption === "CONSUMED" ? [plan.plan_id] : []);
		expect(modal.approveButton?.disabled).toBe(true);
	});
});

describe.runIf(hasRecorded("batch-approve"))("run record rendering (recorded)", () => {
	it("lists refused files with their reasons", () => {
		const record = recorded<BatchRunRecord>("batch-approve");
		const el = createDiv();
		renderRunRecord(el, record);
		for (const file of runFiles(record)) expect(el.textContent).toContain(file.path);
	});
});
