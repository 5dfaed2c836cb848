import { FileSystemAdapter, MarkdownView, Notice } from "obsidian";
import { t } from "../i18n";
import { waitsForDecision } from "../pipeline/model";
import { AgentConnectionModal } from "../ui/agent-modal";
import { BatchApprovalModal } from "../ui/batch-modal";
import { DASHBOARD_VIEW_TYPE } from "../ui/dashboard-view";
import { rebuildIndex as rebuildIndexJob } from "../ui/index-build";
import { IndexSearchModal } from "../ui/index-search";
import { AuthorizeModal, ReviewModal } from "../ui/pipeline-view";
import { ProgressNotice } from "../ui/progress";
import { ValidateModal } from "../ui/validate-modal";
import type KnowledgeHarnessPlugin from "../main";

/** The command palette's commands, in the order Obsidian lists them. */
export function registerCommands(plugin: KnowledgeHarnessPlugin): void {
	const activeMarkdownPath = (): string | null => plugin.app.workspace.getActiveViewOfType(MarkdownView)?.file?.path ?? null;
	const withNote = (id: string, name: string, run: (path: string) => void) =>
		plugin.addCommand({
			id,
			name,
			checkCallback: (checking: boolean) => {
				const path = activeMarkdownPath();
				if (!path) return false;
				if (!checking) run(path);
				return true;
			},
		});
	const withRun = (id: string, name: string, run: (runId: string) => void) =>
		plugin.addCommand({
			id,
			name,
			checkCallback: (checking: boolean) => {
				if (!plugin.currentRunId) return false;
				if (!checking) run(plugin.currentRunId);
				return true;
			},
		});

	plugin.addCommand({
		id: "restart-sidecar",
		name: t("command.restart"),
		callback: () => {
			void plugin.restartSidecar();
		},
	});
	plugin.addCommand({ id: "show-sidecar-log", name: t("command.showLog"), callback: () => plugin.showSidecarLog() });
	plugin.addCommand({
		id: "audit-vault",
		name: t("command.audit"),
		callback: () => void auditVault(plugin),
	});
	withNote("validate-current-note", t("command.validate"), (path) => new ValidateModal(plugin, path).open());
	withNote("show-trust-details", t("command.details"), (path) => plugin.views.openDetails(path));
	for (const stage of ["canary", "pilot", "progressive"] as const) {
		plugin.addCommand({
			id: `plan-batch-${stage}`,
			name: t(`command.plan.${stage}`),
			callback: () => void plugin.planBatch(stage),
		});
	}
	plugin.addCommand({
		id: "plan-batch-added",
		name: t("command.planAdded"),
		checkCallback: (checking: boolean) => {
			if (plugin.planBasket.size === 0) return false;
			if (!checking) {
				const paths = Array.from(plugin.planBasket);
				plugin.planBasket.clear();
				void plugin.planBatch("progressive", paths);
			}
			return true;
		},
	});
	plugin.addCommand({
		id: "approve-pending-batch",
		name: t("command.approve"),
		callback: () => plugin.approvePending(),
	});
	plugin.addCommand({ id: "open-stale-list", name: t("command.openStale"), callback: () => void plugin.showCandidates() });
	plugin.addCommand({ id: "open-dashboard", name: t("command.openDashboard"), callback: () => void plugin.activateView(DASHBOARD_VIEW_TYPE) });
	plugin.addCommand({ id: "rebuild-index", name: t("command.rebuildIndex"), callback: () => void rebuildIndex(plugin) });
	plugin.addCommand({ id: "check-index", name: t("command.checkIndex"), callback: () => void checkIndex(plugin) });
	plugin.addCommand({ id: "search-index", name: t("command.searchIndex"), callback: () => new IndexSearchModal(plugin).open() });
	withNote("capture-current-note", t("command.capture"), (path) => void capture(plugin, path));
	withRun("authorize-run", t("command.authorize"), (runId) => authorizeRun(plugin, runId));
	withRun("advance-run", t("command.advance"), (runId) => void advanceRun(plugin, runId));
	withRun("review-run", t("command.review"), (runId) => void reviewRun(plugin, runId));
	withRun("open-run", t("command.openRun"), (runId) => void plugin.openPipelineRun(runId));
	plugin.addCommand({ id: "connect-agent", name: t("command.connectAgent"), callback: () => connectAgent(plugin) });
}

/** Reopens the pending plan unless it was used or has expired. */
export function approvePending(plugin: KnowledgeHarnessPlugin): void {
	const plan = plugin.pendingPlan;
	if (!plan) {
		new Notice(t("notice.noPendingPlan"));
		return;
	}
	const expires = Date.parse(plan.expires_at);
	if (Number.isFinite(expires) && expires <= Date.now()) {
		plugin.pendingPlan = null;
		new Notice(t("notice.planExpired"));
		return;
	}
	new BatchApprovalModal(plugin, plan).open();
}

export function connectAgent(plugin: KnowledgeHarnessPlugin): AgentConnectionModal {
	const adapter = plugin.app.vault.adapter;
	const target =
		adapter instanceof FileSystemAdapter
			? { vaultPath: adapter.getBasePath(), command: plugin.settings.sidecarCommand, fixedPort: plugin.settings.port !== 0 }
			: null;
	const modal = new AgentConnectionModal(plugin, target);
	modal.open();
	return modal;
}

async function auditVault(plugin: KnowledgeHarnessPlugin): Promise<void> {
	try {
		await ProgressNotice.run(
			t("progress.audit"),
			() => plugin.audits.fetch({ record: true }),
			(report) => t("progress.auditDone", { coverage: (report.coverage * 100).toFixed(1), fresh: report.fresh_l2, capable: report.evidence_capable }),
		);
		await plugin.activateView(DASHBOARD_VIEW_TYPE);
	} catch (error) {
		plugin.reportError(error);
	}
}

async function rebuildIndex(plugin: KnowledgeHarnessPlugin): Promise<void> {
	try {
		await rebuildIndexJob(plugin.client);
	} catch (error) {
		plugin.reportError(error);
	}
}

async function checkIndex(plugin: KnowledgeHarnessPlugin): Promise<void> {
	try {
		const report = await plugin.client.checkIndex();
		const changed = report.changed.length + report.added.length + report.removed.length;
		new Notice(report.fresh ? t("notice.indexFresh") : t("notice.indexStale", { count: changed }));
	} catch (error) {
		plugin.reportError(error);
	}
}

async function capture(plugin: KnowledgeHarnessPlugin, path: string): Promise<void> {
	try {
		const run = await ProgressNotice.run(
			t("progress.capture", { path }),
			() => plugin.client.capture(path),
			(result) => t("progress.captureDone", { id: result.run_id, state: result.state }),
		);
		await plugin.openPipelineRun(run.run_id);
	} catch (error) {
		plugin.reportError(error);
	}
}

/** Shows the request, its excerpt and who answered publishability; the person confirms there. */
function authorizeRun(plugin: KnowledgeHarnessPlugin, runId: string): void {
	new AuthorizeModal(plugin, runId, () => void plugin.openPipelineRun(runId)).open();
}

async function advanceRun(plugin: KnowledgeHarnessPlugin, runId: string): Promise<void> {
	try {
		await ProgressNotice.run(
			t("progress.advance", { id: runId }),
			() => plugin.client.advance(runId),
			(status) => t("progress.advanceDone", { state: status.state, waiting: status.waiting_for ?? "—" }),
		);
		await plugin.openPipelineRun(runId);
	} catch (error) {
		plugin.reportError(error);
	}
}

async function reviewRun(plugin: KnowledgeHarnessPlugin, runId: string): Promise<void> {
	try {
		const status = await plugin.client.runStatus(runId);
		if (!waitsForDecision(status)) {
			new Notice(t("notice.notWaitingForDecision", { state: status.state }));
			return;
		}
		new ReviewModal(plugin, runId, () => void plugin.openPipelineRun(runId)).open();
	} catch (error) {
		plugin.reportError(error);
	}
}
