/**
 * Browser entry of the screenshot harness (scripts/screenshots/capture.ts bundles it with
 * esbuild, aliasing `obsidian` to the test mock): renders the plugin's own views from the
 * recorded sidecar answers (tests/fixtures/recorded/) into one page, one <section> per picture.
 */
import { App, WorkspaceLeaf } from "../../tests/mocks/obsidian";
import { SidecarClient } from "../../src/api/client";
import type { HttpRequest, HttpResponse, Transport } from "../../src/api/transport";
import type { Badge, BatchPlan, BatchRunRecord, PipelineRunDetail } from "../../src/api/types";
import { applyLanguage, t } from "../../src/i18n";
import { AuditHub } from "../../src/trust/audit-hub";
import { CandidateWatcher } from "../../src/trust/candidates";
import { renderCandidateNotice, renderCandidateStatus } from "../../src/ui/candidates-status";
import { InitPolicyModal } from "../../src/ui/onboarding";
import { OFFLINE, statusView } from "../../src/status";
import { badgeModel } from "../../src/trust/badge";
import { renderBadge } from "../../src/ui/badges";
import { BatchApprovalModal, renderRunRecord } from "../../src/ui/batch-modal";
import { DashboardView } from "../../src/ui/dashboard-view";
import type { HarnessHost } from "../../src/ui/host";
import { renderRun } from "../../src/ui/pipeline-view";
import { StaleListView } from "../../src/ui/stale-view";
import { renderReadiness } from "../../src/readiness";
import audit from "../../tests/fixtures/recorded/audit.json";
import badges from "../../tests/fixtures/recorded/badges.json";
import plan from "../../tests/fixtures/recorded/batch-plan.json";
import approved from "../../tests/fixtures/recorded/batch-approve.json";
import stale from "../../tests/fixtures/recorded/stale.json";
import detail from "../../tests/fixtures/recorded/pipeline-detail-review.json";
import candidates from "../../tests/fixtures/recorded/candidates.json";
import initAudit from "../../tests/fixtures/recorded/init-audit.json";
import initReport from "../../tests/fixtures/recorded/init-report.json";
import initExisting from "../../tests/fixtures/recorded/init-report-existing.json";

// No audit history was recorded: the dashboard shows its empty trend.
const exampleRoutes: Record<string, unknown> = {
	"GET /v1/trust/audit": audit,
	"GET /v1/trust/stale": stale,
	"GET /v1/trust/audits": { audits: [], skipped_lines: 0 },
	"GET /v1/trust/candidates": candidates,
	"GET /v1/batches/next": { next_stage: "canary", succeeded: [], limits: { canary: 5, pilot: 25, progressive: 100 } },
};
// A vault of plain notes nobody prepared: the audit counts nothing, the dashboard shows the kh init report.
const plainRoutes: Record<string, unknown> = {
	"GET /v1/trust/audit": initAudit,
	"GET /v1/trust/audits": { audits: [], skipped_lines: 0 },
	"GET /v1/trust/init": initReport,
};
const app = new App();

function makeHost(routes: Record<string, unknown>): HarnessHost {
	const transport: Transport = {
		request(request: HttpRequest): Promise<HttpResponse> {
			const url = new URL(request.url);
			const body = routes[`${request.method} ${url.pathname}`];
			if (body === undefined) return Promise.resolve({ status: 404, text: JSON.stringify({ error: { code: "not_found", message: "not recorded", detail: null } }) });
			return Promise.resolve({ status: 200, text: JSON.stringify(body) });
		},
	};
	const client = new SidecarClient(transport, { baseUrl: "http://127.0.0.1:9", token: "t" });
	return {
		app,
		client,
		audits: new AuditHub(client),
		candidates: new CandidateWatcher(client, { load: () => undefined, save: () => undefined }, () => undefined),
		openNote: () => Promise.resolve(),
		afterWrite: () => undefined,
		reportError: () => undefined,
		openBatchApproval: () => undefined,
		planBatch: () => Promise.resolve(),
		openPipelineRun: () => Promise.resolve(),
	} as unknown as HarnessHost;
}
const host = makeHost(exampleRoutes);

function section(id: string, width: number): HTMLElement {
	const el = document.body.createDiv({ cls: "shot", attr: { id } });
	el.setAttr("data-width", String(width));
	el.addClass("kh-shot");
	return el;
}

async function main(): Promise<void> {
	applyLanguage("en");
	// badges: one of each tone the sample vault has
	const badgeShot = section("badges", 520);
	const all = badges as unknown as Record<string, Badge>;
	const seen = new Set<string>();
	for (const [path, badge] of Object.entries(all)) {
		const model = badgeModel(badge);
		if (seen.has(model.tone)) continue;
		seen.add(model.tone);
		const row = badgeShot.createDiv({ cls: "shot-row" });
		row.createDiv({ cls: "shot-path", text: path });
		renderBadge(row.createDiv(), model);
	}
	// the two badges that count as L0 whatever the frontmatter says (docs/audit.md, "Records"): the
	// recorded verified L2 badge as the sidecar answers it for a failed run's note and for a hand-written block
	const green = Object.entries(all).find(([, badge]) => badgeModel(badge).tone === "ok");
	if (green) {
		const [path, badge] = green;
		const failed = { ...badge, fresh: false, fresh_l2: false, counted_level: 0, record: "provisional" as const, provisional_run_id: "run-20261205T101500Z-4f2a9c1e" };
		const hand = { ...badge, fresh: false, fresh_l2: false, counted_level: 0, record: "unrecorded" as const, record_reason: "The verification block names no run: no record says who wrote it (hand-written)." };
		for (const shown of [failed, hand]) {
			const row = badgeShot.createDiv({ cls: "shot-row" });
			row.createDiv({ cls: "shot-path", text: path });
			renderBadge(row.createDiv(), badgeModel(shown));
		}
	}

	await host.candidates.check();
	const staleShot = section("stale-list", 420);
	const staleView = new StaleListView(new WorkspaceLeaf(app) as never, host);
	staleShot.appendChild(staleView.containerEl);
	await staleView.onOpen();

	// the stale list of a real-sized vault: 10,000 stale notes in 40 folders, only the rows in sight drawn
	const template = stale.stale[0];
	const triggerSets = [["age_expired"], ["content_changed"], ["content_changed", "references_changed"], ["evidence_unreachable"], ["no_baseline"]];
	const many = Array.from({ length: 10_000 }, (_, i) => ({
		...template,
		path: `${["Keywords", "Research", "日記", "Projects"][i % 4]}/${String(i % 10)}/note ${String(i).padStart(5, "0")}.md`,
		triggers: triggerSets[i % triggerSets.length],
	}));
	const bigHost = makeHost({ ...exampleRoutes, "GET /v1/trust/stale": { ...stale, stale: many } });
	const bigShot = section("stale-list-10000", 460);
	const bigView = new StaleListView(new WorkspaceLeaf(app) as never, bigHost);
	bigShot.appendChild(bigView.containerEl);
	await bigView.onOpen();
	for (const box of Array.from(bigView.contentEl.querySelectorAll<HTMLInputElement>(".kh-row-stale input")).slice(0, 3)) {
		box.checked = true;
		box.dispatchEvent(new Event("change"));
	}
	bigShot.createDiv({ cls: "shot-caption", text: `rows in the DOM: ${String(bigView.contentEl.querySelectorAll(".kh-row").length)} of ${String(bigView.items.length)} items` });

	// the readiness panel: kh not found (with the install commands), and a fitting kh
	const readyMissing = section("readiness", 620);
	renderReadiness(readyMissing, {
		command: "kh",
		path: null,
		snapshot: { ...OFFLINE, error: { kind: "commandNotFound", message: "Command not found: kh" } },
		pluginVersion: "0.1.0",
	});
	const readyOk = section("readiness-ready", 620);
	renderReadiness(readyOk, {
		command: "kh",
		path: "/home/me/.local/bin/kh",
		snapshot: { ...OFFLINE, state: "ready", port: 8765, sidecar: { version: "0.1.0", apiLevel: 2, minPluginApiLevel: 1 } },
		pluginVersion: "0.1.0",
	});

	const dashShot = section("dashboard", 460);
	const dash = new DashboardView(new WorkspaceLeaf(app) as never, host);
	dashShot.appendChild(dash.containerEl);
	await dash.onOpen();

	const approvalShot = section("approval", 760);
	const modal = new BatchApprovalModal(host, plan as unknown as BatchPlan);
	approvalShot.addClass("modal");
	approvalShot.createDiv({ cls: "shot-title", text: t("batch.title") });
	approvalShot.appendChild(modal.contentEl);
	modal.open();
	await new Promise((resolve) => window.setTimeout(resolve, 50));
	modal.input?.setValue(`APPROVE_PRODUCTION ${(plan as unknown as BatchPlan).digest}`);
	modal.sync(modal.input?.getValue() ?? "");
	const resultShot = section("run-record", 760);
	renderRunRecord(resultShot, approved as unknown as BatchRunRecord);

	for (const language of ["en", "ja"] as const) {
		applyLanguage(language);
		const suffix = language === "en" ? "" : "-ja";
		// The dashboard on a vault where nothing counts yet: the kh init report and its button.
		const plain = makeHost(plainRoutes);
		const firstShot = section(`first-look${suffix}`, 560);
		const firstLook = new DashboardView(new WorkspaceLeaf(app) as never, plain);
		firstShot.appendChild(firstLook.containerEl);
		await firstLook.onOpen();

		// The confirmation before .harness/policy.toml is written, for a vault that already has a policy.
		const confirmShot = section(`first-look-confirm${suffix}`, 560);
		confirmShot.addClass("modal");
		const confirm = new InitPolicyModal(plain, initExisting, () => undefined);
		confirmShot.createDiv({ cls: "shot-title", text: t("init.confirm.title") });
		confirmShot.appendChild(confirm.contentEl);
		confirm.open();

		// New candidates: the notice (one, whatever their number) and the status-bar count.
		const candidatesShot = section(`candidates${suffix}`, 560);
		const summary = host.candidates.summary();
		const notice = candidatesShot.createDiv({ cls: "shot-notice" });
		renderCandidateNotice(notice, summary, () => undefined);
		const bar = candidatesShot.createDiv({ cls: "shot-statusbar" });
		const state = statusView({ ...OFFLINE, state: "ready", port: 48123 });
		bar.createDiv({ cls: `kh-status ${state.cls}`, text: state.text });
		renderCandidateStatus(bar.createDiv({ cls: "kh-status-candidates" }), summary);
	}

	const runShot = section("pipeline-run", 980);
	applyLanguage("ja");
	renderRun(runShot, detail as unknown as PipelineRunDetail);
	document.body.setAttr("data-ready", "yes");
}

void main();
