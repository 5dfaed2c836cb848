/**
 * The dashboard on a vault where nothing counts yet: it shows the `kh init` report
 * (recorded from the real sidecar on a vault of plain notes) and writes the proposed
 * rule only after the person confirms it.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { AuditReport, InitReport } from "../src/api/types";
import { applyLanguage } from "../src/i18n";
import { DashboardView } from "../src/ui/dashboard-view";
import { hasProposal, InitPolicyModal, needsOnboarding } from "../src/ui/onboarding";
import { flush, json } from "./helpers/fakes";
import { FakeHost, recordedTransport, type Routes } from "./helpers/host";
import { recorded } from "./helpers/recorded";
import { type Modal as MockModal, Notice, WorkspaceLeaf } from "./mocks/obsidian";

const isOpen = (modal: InitPolicyModal) => (modal as unknown as MockModal).isOpen;

const emptyAudit = recorded<AuditReport>("init-audit");
const auditAfter = recorded<AuditReport>("init-audit-after");
const exampleAudit = recorded<AuditReport>("audit");
const report = recorded<InitReport>("init-report");
const existing = recorded<InitReport>("init-report-existing");
const refused = recorded<{ status: number; body: unknown }>("init-write-refused");
const changed = recorded<{ status: number; body: unknown }>("init-write-changed");

afterEach(() => {
	applyLanguage("en");
	Notice.shown.length = 0;
});

function texts(el: ParentNode, selector: string): string[] {
	return Array.from(el.querySelectorAll(selector)).map((node) => node.textContent ?? "");
}

async function openDashboard(routes: Routes) {
	const host = new FakeHost(recordedTransport({ "GET /v1/trust/audits": () => json(200, { audits: [], skipped_lines: 0 }), ...routes }));
	const view = new DashboardView(new WorkspaceLeaf(host.app) as never, host.host);
	await view.onOpen();
	return { host, view, el: view.contentEl };
}

describe("the dashboard when nothing counts", () => {
	it("knows when the figures would be zeros", () => {
		expect(needsOnboarding(emptyAudit)).toBe(true);
		expect(needsOnboarding(exampleAudit)).toBe(false);
		expect(needsOnboarding({ raw: 3, evidence_capable: 0 })).toBe(true);
		expect(hasProposal(report)).toBe(true);
		expect(hasProposal({ ...report, proposed_rule: { ...report.current_rule } })).toBe(false);
	});

	it("shows the kh init report instead of zeros, and asks for it only then", async () => {
		const { host, el } = await openDashboard({ "GET /v1/trust/audit": "init-audit", "GET /v1/trust/init": "init-report" });
		expect(host.transport.paths()).toContain("GET /v1/trust/init");
		expect(el.querySelector(".kh-gauge-box")).toBeNull();
		const figures = el.querySelector(".kh-init-figures")!;
		expect(texts(figures, "th")).toEqual([
			"Notes",
			"By folder",
			"By tag",
			"With a provenance block",
			"Citing sources the audit recognizes",
			"Citing web addresses the audit does not recognize",
		]);
		expect(texts(figures, "td")).toEqual(["4", "Research 2, 日記 1, 調査 1", "#調査 1", "0", "2", "1"]);
		expect(el.querySelector(".kh-init-examples")?.textContent).toContain("Research/git.md");
		expect(texts(el, ".kh-init-counts td")).toEqual([
			"Raw keywords 0 · Evidence-capable 0 · Fresh L2 0",
			"Raw keywords 3 · Evidence-capable 2 · Fresh L2 0",
		]);
		expect(el.querySelector(".kh-init-toml")?.textContent).toBe(report.proposed_toml);
		expect(el.querySelector(".kh-legend")).not.toBeNull();

		const counted = await openDashboard({ "GET /v1/trust/audit": "audit", "GET /v1/trust/init": "init-report" });
		expect(counted.host.transport.paths()).not.toContain("GET /v1/trust/init");
		expect(counted.el.querySelector(".kh-onboarding")).toBeNull();
		expect(counted.el.querySelector(".kh-gauge-box")).not.toBeNull();
	});

	it("writes the proposed rule only after the person confirms, then shows the new figures", async () => {
		let audit = emptyAudit;
		const { host, el, view } = await openDashboard({
			"GET /v1/trust/audit": () => json(200, audit),
			"GET /v1/trust/init": "init-report",
			"POST /v1/trust/init/write": () => {
				audit = auditAfter;
				return json(200, recorded("init-write"));
			},
		});
		const opened: InitPolicyModal[] = [];
		const original = view.openInitConfirmation.bind(view);
		view.openInitConfirmation = (r) => {
			const modal = original(r);
			opened.push(modal);
			return modal;
		};
		el.querySelector<HTMLButtonElement>(".kh-init-apply")!.click();
		expect(opened).toHaveLength(1);
		const modal = opened[0];
		expect(modal.contentEl.querySelector(".kh-init-toml")?.textContent).toBe(report.proposed_toml);
		expect(modal.contentEl.querySelector(".kh-init-force")).toBeNull(); // no policy yet: nothing to replace
		expect(host.transport.paths()).not.toContain("POST /v1/trust/init/write");

		modal.contentEl.querySelector<HTMLButtonElement>(".kh-init-write")!.click();
		await flush();
		const write = host.transport.requests.find((r) => r.url.endsWith("/v1/trust/init/write"))!;
		expect(JSON.parse(write.body ?? "{}")).toEqual({ proposed_toml: report.proposed_toml, force: false });
		expect(isOpen(modal)).toBe(false);
		expect(host.writes).toBe(1); // the shared audit follows
		expect(Notice.shown.at(-1)).toBe("Wrote .harness/policy.toml: the audit now counts 3 Keyword notes, 2 evidence-capable.");

		await view.refresh(false, true);
		expect(el.querySelector(".kh-onboarding")).toBeNull();
		expect(texts(el, ".kh-audit-figures td").slice(0, 2)).toEqual(["3", "2"]);
	});

	it("replaces an existing policy's [keywords] only when the person ticks the box", async () => {
		const host = new FakeHost(
			recordedTransport({
				"POST /v1/trust/init/write": (request) =>
					(JSON.parse(request.body ?? "{}") as { force?: boolean }).force === true ? json(200, recorded("init-write")) : json(refused.status, refused.body),
			}),
		);
		const modal = new InitPolicyModal(host.host, existing, () => undefined);
		modal.open();
		expect(modal.contentEl.textContent).toContain("already has a .harness/policy.toml");
		const write = modal.contentEl.querySelector<HTMLButtonElement>(".kh-init-write")!;
		expect(write.disabled).toBe(true);
		await modal.write(); // not ticked: nothing is sent
		expect(host.transport.requests).toHaveLength(0);

		modal.forceBox!.checked = true;
		modal.forceBox!.dispatchEvent(new Event("change"));
		expect(write.disabled).toBe(false);
		write.click();
		await flush();
		expect(JSON.parse(host.transport.requests[0].body ?? "{}")).toMatchObject({ force: true });
		expect(modal.result?.written).toBe(true);
	});

	it("asks for the box when a policy appeared meanwhile, and looks again when the proposal changed", async () => {
		const host = new FakeHost(recordedTransport({ "POST /v1/trust/init/write": () => json(refused.status, refused.body) }));
		const modal = new InitPolicyModal(host.host, report, () => undefined);
		modal.open();
		await modal.write();
		expect(refused.status).toBe(409);
		expect(isOpen(modal)).toBe(true);
		expect(modal.forceBox).not.toBeNull();
		expect(modal.messageEl?.textContent).toContain("Tick the box");
		expect(host.writes).toBe(0);

		let looked = 0;
		const stale = new FakeHost(recordedTransport({ "POST /v1/trust/init/write": () => json(changed.status, changed.body) }));
		const again = new InitPolicyModal(stale.host, report, () => (looked += 1));
		again.open();
		await again.write();
		expect(changed.status).toBe(412);
		expect(isOpen(again)).toBe(false);
		expect(looked).toBe(1);
		expect(stale.writes).toBe(0);
		expect(Notice.shown.at(-1)).toContain("The proposal changed");
	});

	it("speaks Japanese in a Japanese Obsidian", async () => {
		applyLanguage("ja");
		const { el } = await openDashboard({ "GET /v1/trust/audit": "init-audit", "GET /v1/trust/init": "init-report" });
		expect(el.querySelector(".kh-onboarding h4")?.textContent).toBe("この保管庫ではまだ何も数えられていません");
		expect(texts(el, ".kh-init-counts td")[1]).toBe("キーワードノート 3 · 根拠付与可能 2 · Fresh L2 0");
		expect(el.querySelector(".kh-init-examples")?.textContent).toContain("参考資料・出典の節の外");
		expect(el.querySelector(".kh-init-apply")?.textContent).toBe("このルールを適用…");
	});
});
