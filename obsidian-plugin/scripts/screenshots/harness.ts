/**
 * Browser entry of the screenshot harness (scripts/screenshots/capture.ts bundles it with
 * esbuild, aliasing `obsidian` to the test mock): renders the plugin's own views from the
 * recorded sidecar answers (tests/fixtures/recorded/) into one page, one <section> per picture.
 */
import { App, WorkspaceLeaf } from "../../tests/mocks/obsidian";
import { SidecarClient } from "../../src/api/client";
import type { HttpRequest, HttpResponse, Transport } from "../../src/api/transport";
import type { Badge, BatchPlan, BatchRunRecord, PipelineRunDetail } from "../../src/api/types";
import { applyLanguage } from "../../src/i18n";
import { badgeModel } from "../../src/trust/badge";
import { renderBadge } from "../../src/ui/badges";
import { BatchApprovalModal, renderRunRecord } from "../../src/ui/batch-modal";
import { DashboardView } from "../../src/ui/dashboard-view";
import type { HarnessHost } from "../../src/ui/host";
import { renderRun } from "../../src/ui/pipeline-view";
import { StaleListView } from "../../src/ui/stale-view";
import audit from "../../tests/fixtures/recorded/audit.json";
import badges from "../../tests/fixtures/recorded/badges.json";
import plan from "../../tests/fixtures/recorded/batch-plan.json";
import approved from "../../tests/fixtures/recorded/batch-approve.json";
import stale from "../../tests/fixtures/recorded/stale.json";
import detail from "../../tests/fixtures/recorded/pipeline-detail-review.json";

// No audit history was recorded: the dashboard shows its empty trend.
const routes: Record<string, unknown> = {
	"GET /v1/trust/audit": audit,
	"GET /v1/trust/stale": stale,
	"GET /v1/trust/audits": { audits: [], skipped_lines: 0 },
};
const transport: Transport = {
	request(request: HttpRequest): Promise<HttpResponse> {
		const url = new URL(request.url);
		const body = routes[`${request.method} ${url.pathname}`];
		if (body === undefined) return Promise.resolve({ status: 404, text: JSON.stringify({ error: { code: "not_found", message: "not recorded", detail: null } }) });
		return Promise.resolve({ status: 200, text: JSON.stringify(body) });
	},
};
const app = new App();
const host = {
	app,
	client: new SidecarClient(transport, { baseUrl: "http://127.0.0.1:9", token: "t" }),
	openNote: () => Promise.resolve(),
	afterWrite: () => undefined,
	reportError: () => undefined,
	openBatchApproval: () => undefined,
	planBatch: () => Promise.resolve(),
	openPipelineRun: () => Promise.resolve(),
} as unknown as HarnessHost;

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

	const staleShot = section("stale-list", 420);
	const staleView = new StaleListView(new WorkspaceLeaf(app) as never, host);
	staleShot.appendChild(staleView.containerEl);
	await staleView.onOpen();

	const dashShot = section("dashboard", 460);
	const dash = new DashboardView(new WorkspaceLeaf(app) as never, host);
	dashShot.appendChild(dash.containerEl);
	await dash.onOpen();

	const approvalShot = section("approval", 760);
	const modal = new BatchApprovalModal(host, plan as unknown as BatchPlan);
	approvalShot.addClass("modal");
	approvalShot.appendChild(modal.contentEl);
	modal.open();
	await new Promise((resolve) => window.setTimeout(resolve, 50));
	modal.input?.setValue(`APPROVE_PRODUCTION ${(plan as unknown as BatchPlan).digest}`);
	modal.sync(modal.input?.getValue() ?? "");
	const resultShot = section("run-record", 760);
	renderRunRecord(resultShot, approved as unknown as BatchRunRecord);

	const runShot = section("pipeline-run", 980);
	applyLanguage("ja");
	renderRun(runShot, detail as unknown as PipelineRunDetail);
	document.body.setAttr("data-ready", "yes");
}

void main();
