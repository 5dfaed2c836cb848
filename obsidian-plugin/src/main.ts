import { FileSystemAdapter, MarkdownView, Notice, Plugin, type TFile, type WorkspaceLeaf } from "obsidian";
import { SidecarClient } from "./api/client";
import type { BatchPlan, BatchStage } from "./api/types";
import { requestUrlTransport } from "./api/obsidian-transport";
import { applyLanguage, t } from "./i18n";
import { detectAppLanguage } from "./i18n/detect";
import {
	type KnowledgeHarnessSettings,
	normalizeSettings,
	RESTART_KEYS,
	type SettingKey,
} from "./settings";
import { KnowledgeHarnessSettingTab, type SettingsHost } from "./settings-tab";
import { nodeSupervisorDeps } from "./sidecar/node-runtime";
import { SidecarSupervisor, type StateSnapshot, type SupervisorConfig } from "./sidecar/supervisor";
import { OFFLINE, STATES, statusView } from "./status";
import { BatchApprovalModal } from "./ui/batch-modal";
import {
	BadgeController,
	BadgeStore,
	badgeEditorExtension,
	modelForState,
	readingBadgePostProcessor,
	renderBadge,
} from "./ui/badges";
import { DASHBOARD_VIEW_TYPE, DashboardView } from "./ui/dashboard-view";
import { ExplorerMarkers } from "./ui/explorer-markers";
import { BadgeDetailsModal } from "./ui/details-modal";
import { describeFailure } from "./ui/errors";
import type { HarnessHost } from "./ui/host";
import { IndexSearchModal } from "./ui/index-search";
import { PIPELINE_VIEW_TYPE, PipelineRunView, ReviewModal } from "./ui/pipeline-view";
import { ProgressNotice } from "./ui/progress";
import { STALE_VIEW_TYPE, StaleListView } from "./ui/stale-view";
import { ValidateModal } from "./ui/validate-modal";
import { waitsForDecision } from "./pipeline/model";

export default class KnowledgeHarnessPlugin extends Plugin implements SettingsHost, HarnessHost {
	override settings: KnowledgeHarnessSettings = normalizeSettings(undefined);
	/** The sidecar's HTTP API (through requestUrl); throws SidecarOfflineError while it is not ready. */
	readonly client = new SidecarClient(requestUrlTransport, () => this.supervisor?.endpoint ?? null);

	private supervisor: SidecarSupervisor | null = null;
	private statusEl: HTMLElement | null = null;
	private lastSnapshot: StateSnapshot = OFFLINE;
	readonly badges = new BadgeStore();
	readonly badgeController = new BadgeController(this.client, this.badges);
	/** Disputed / stale markers in the file explorer (best effort; a setting switches them off). */
	readonly explorerMarkers = new ExplorerMarkers(this.app, this.client, () => this.settings.explorerMarkers);
	private badgeEl: HTMLElement | null = null;
	/** The last plan made in this session, for "Approve pending batch". */
	pendingPlan: BatchPlan | null = null;
	/** The pipeline run shown or captured last. */
	currentRunId: string | null = null;

	override async onload(): Promise<void> {
		await this.loadSettings();
		applyLanguage(this.settings.language, detectAppLanguage());

		this.addSettingTab(new KnowledgeHarnessSettingTab(this.app, this));

		const statusEl = this.addStatusBarItem();
		statusEl.addClass("kh-status", "mod-clickable");
		this.statusEl = statusEl;
		this.registerDomEvent(statusEl, "click", () => {
			if (this.lastSnapshot.state === "offline") void this.startSidecar();
		});
		this.renderStatus(OFFLINE);

		this.addCommand({
			id: "restart-sidecar",
			name: t("command.restart"),
			callback: () => {
				void this.restartSidecar();
			},
		});

		this.registerTrustUi();
		this.registerCommands();

		this.app.workspace.onLayoutReady(() => {
			if (this.settings.autoStart) void this.startSidecar();
		});
	}

	override onunload(): void {
		this.badgeController.dispose();
		this.explorerMarkers.dispose();
		const supervisor = this.supervisor;
		this.supervisor = null;
		// Obsidian does not await onunload: the stop sequence finishes on its own,
		// and the sidecar also exits when its stdin closes.
		if (supervisor) void supervisor.stop();
	}

	async loadSettings(): Promise<void> {
		this.settings = normalizeSettings(await this.loadData());
	}

	async saveSettings(changed?: SettingKey): Promise<void> {
		await this.saveData(this.settings);
		if (changed === "explorerMarkers") void this.explorerMarkers.refresh();
		if (changed === "language") {
			applyLanguage(this.settings.language, detectAppLanguage());
			this.renderStatus(this.lastSnapshot);
		}
		if (changed && RESTART_KEYS.includes(changed) && this.supervisor) {
			const config = this.supervisorConfig();
			if (config) this.supervisor.updateConfig(config);
		}
	}

	async startSidecar(): Promise<void> {
		const supervisor = this.ensureSupervisor();
		if (supervisor) await supervisor.start();
	}

	async restartSidecar(): Promise<void> {
		const supervisor = this.ensureSupervisor();
		if (!supervisor) return;
		new Notice(t("notice.restarting"));
		await supervisor.restart();
	}

	private supervisorConfig(): SupervisorConfig | null {
		const adapter = this.app.vault.adapter;
		if (!(adapter instanceof FileSystemAdapter)) return null;
		return {
			command: this.settings.sidecarCommand,
			args: this.settings.sidecarArgs,
			vaultPath: adapter.getBasePath(),
			port: this.settings.port,
		};
	}

	private ensureSupervisor(): SidecarSupervisor | null {
		const config = this.supervisorConfig();
		if (!config) {
			new Notice(t("notice.noFileSystem"));
			return null;
		}
		if (this.supervisor) {
			this.supervisor.updateConfig(config);
			return this.supervisor;
		}
		const supervisor = this.createSupervisor(config);
		this.register(supervisor.onStateChange((snapshot) => this.onStateChange(snapshot)));
		this.supervisor = supervisor;
		return supervisor;
	}

	/** Builds the supervisor with the production (node) dependencies. */
	protected createSupervisor(config: SupervisorConfig): SidecarSupervisor {
		return new SidecarSupervisor(config, nodeSupervisorDeps());
	}

	private onStateChange(snapshot: StateSnapshot): void {
		const previous = this.lastSnapshot;
		this.renderStatus(snapshot);
		if (snapshot.state !== previous.state && snapshot.state !== "starting") {
			// Ready: ask for fresh badges. Offline: the requests fail quietly into the offline badge.
			void this.badgeController.refreshAll().then(() => this.badgeController.refresh(this.activePath()));
			if (snapshot.state === "ready") void this.explorerMarkers.refresh();
		}
		if (snapshot.error?.kind === "commandNotFound" && previous.error?.kind !== "commandNotFound") {
			new Notice(t("notice.commandNotFound", { command: this.settings.sidecarCommand }));
		}
	}

	private renderStatus(snapshot: StateSnapshot): void {
		this.lastSnapshot = snapshot;
		const el = this.statusEl;
		if (!el) return;
		const view = statusView(snapshot);
		el.setText(view.text);
		for (const state of STATES) {
			el.toggleClass(`kh-status-${state}`, state === snapshot.state);
		}
		el.setAttr("aria-label", view.tooltip);
		el.setAttr("data-tooltip-position", "top");
	}

	// ---- trust badges ----

	private registerTrustUi(): void {
		const badgeEl = this.addStatusBarItem();
		badgeEl.addClass("kh-status-badge", "mod-clickable");
		this.badgeEl = badgeEl;
		this.registerDomEvent(badgeEl, "click", () => {
			const path = this.activePath();
			if (path) this.openDetails(path);
		});
		this.register(this.badges.subscribe(() => this.renderStatusBadge()));
		this.renderStatusBadge();

		const onClick = (path: string) => this.openDetails(path);
		this.registerEditorExtension(badgeEditorExtension(this.badges, onClick));
		this.registerMarkdownPostProcessor(readingBadgePostProcessor(this.badges, onClick));

		this.registerEvent(
			this.app.workspace.on("file-open", (file: TFile | null) => {
				this.renderStatusBadge();
				void this.badgeController.refresh(file?.path);
			}),
		);
		this.registerEvent(this.app.workspace.on("active-leaf-change", () => this.renderStatusBadge()));
		this.registerEvent(this.app.workspace.on("layout-change", () => this.explorerMarkers.applySoon()));
		this.registerEvent(this.app.metadataCache.on("changed", (file: TFile) => this.badgeController.refreshSoon(file.path)));

		this.registerView(STALE_VIEW_TYPE, (leaf) => new StaleListView(leaf, this));
		this.registerView(DASHBOARD_VIEW_TYPE, (leaf) => new DashboardView(leaf, this));
		this.registerView(PIPELINE_VIEW_TYPE, (leaf) => new PipelineRunView(leaf, this));
	}

	private activePath(): string | null {
		return this.app.workspace.getActiveFile()?.path ?? null;
	}

	private renderStatusBadge(): void {
		if (this.badgeEl) renderBadge(this.badgeEl, modelForState(this.badges.get(this.activePath())));
	}

	private openDetails(path: string): void {
		new BadgeDetailsModal(this, path).open();
	}

	// ---- HarnessHost ----

	async openNote(path: string, line?: number): Promise<void> {
		await this.app.workspace.openLinkText(path, "", false, line ? { eState: { line: line - 1 } } : undefined);
	}

	afterWrite(): void {
		void this.badgeController.refreshAll();
		void this.explorerMarkers.refresh();
		for (const type of [STALE_VIEW_TYPE, DASHBOARD_VIEW_TYPE]) {
			for (const leaf of this.app.workspace.getLeavesOfType(type)) {
				const view = leaf.view;
				if (view instanceof StaleListView || view instanceof DashboardView) void view.refresh();
			}
		}
	}

	reportError(error: unknown): void {
		new Notice(describeFailure(error));
	}

	openBatchApproval(plan: BatchPlan): void {
		this.pendingPlan = plan;
		new BatchApprovalModal(this, plan).open();
	}

	async planBatch(stage: BatchStage, paths?: string[]): Promise<void> {
		try {
			const plan = await ProgressNotice.run(
				t("progress.plan", { stage }),
				() => this.client.planBatch({ stage, notes: paths }),
				(result) => t("progress.planDone", { count: result.targets.length }),
			);
			if (plan.targets.length === 0) return;
			this.openBatchApproval(plan);
		} catch (error) {
			this.reportError(error);
		}
	}

	async openPipelineRun(runId: string): Promise<void> {
		this.currentRunId = runId;
		const leaf = await this.activateView(PIPELINE_VIEW_TYPE, "tab");
		const view = leaf?.view;
		if (view instanceof PipelineRunView) await view.setRun(runId);
	}

	async activateView(type: string, where: "right" | "tab" = "right"): Promise<WorkspaceLeaf | null> {
		const { workspace } = this.app;
		let leaf: WorkspaceLeaf | null = workspace.getLeavesOfType(type)[0] ?? null;
		if (!leaf) {
			leaf = where === "right" ? workspace.getRightLeaf(false) : workspace.getLeaf("tab");
			if (!leaf) return null;
			await leaf.setViewState({ type, active: true });
		}
		workspace.setActiveLeaf(leaf, { focus: true });
		return leaf;
	}

	// ---- commands ----

	private activeMarkdownPath(): string | null {
		const view = this.app.workspace.getActiveViewOfType(MarkdownView);
		return view?.file?.path ?? null;
	}

	private registerCommands(): void {
		const withNote = (id: string, name: string, run: (path: string) => void) =>
			this.addCommand({
				id,
				name,
				checkCallback: (checking: boolean) => {
					const path = this.activeMarkdownPath();
					if (!path) return false;
					if (!checking) run(path);
					return true;
				},
			});

		this.addCommand({
			id: "audit-vault",
			name: t("command.audit"),
			callback: () => void this.auditVault(),
		});
		withNote("validate-current-note", t("command.validate"), (path) => new ValidateModal(this, path).open());
		withNote("show-trust-details", t("command.details"), (path) => this.openDetails(path));
		for (const stage of ["canary", "pilot", "progressive"] as const) {
			this.addCommand({
				id: `plan-batch-${stage}`,
				name: t(`command.plan.${stage}`),
				callback: () => void this.planBatch(stage),
			});
		}
		this.addCommand({
			id: "approve-pending-batch",
			name: t("command.approve"),
			callback: () => {
				if (this.pendingPlan) new BatchApprovalModal(this, this.pendingPlan).open();
				else new Notice(t("notice.noPendingPlan"));
			},
		});
		this.addCommand({ id: "open-stale-list", name: t("command.openStale"), callback: () => void this.activateView(STALE_VIEW_TYPE) });
		this.addCommand({ id: "open-dashboard", name: t("command.openDashboard"), callback: () => void this.activateView(DASHBOARD_VIEW_TYPE) });
		this.addCommand({ id: "rebuild-index", name: t("command.rebuildIndex"), callback: () => void this.rebuildIndex() });
		this.addCommand({ id: "check-index", name: t("command.checkIndex"), callback: () => void this.checkIndex() });
		this.addCommand({ id: "search-index", name: t("command.searchIndex"), callback: () => new IndexSearchModal(this).open() });
		withNote("capture-current-note", t("command.capture"), (path) => void this.capture(path));
		this.addCommand({
			id: "authorize-run",
			name: t("command.authorize"),
			checkCallback: (checking: boolean) => {
				if (!this.currentRunId) return false;
				if (!checking) void this.authorizeRun(this.currentRunId);
				return true;
			},
		});
		this.addCommand({
			id: "advance-run",
			name: t("command.advance"),
			checkCallback: (checking: boolean) => {
				if (!this.currentRunId) return false;
				if (!checking) void this.advanceRun(this.currentRunId);
				return true;
			},
		});
		this.addCommand({
			id: "review-run",
			name: t("command.review"),
			checkCallback: (checking: boolean) => {
				if (!this.currentRunId) return false;
				if (!checking) void this.reviewRun(this.currentRunId);
				return true;
			},
		});
		this.addCommand({
			id: "open-run",
			name: t("command.openRun"),
			checkCallback: (checking: boolean) => {
				if (!this.currentRunId) return false;
				if (!checking) void this.openPipelineRun(this.currentRunId);
				return true;
			},
		});
	}

	async auditVault(): Promise<void> {
		try {
			await ProgressNotice.run(
				t("progress.audit"),
				() => this.client.audit({ record: true }),
				(report) => t("progress.auditDone", { coverage: (report.coverage * 100).toFixed(1), fresh: report.fresh_l2, capable: report.evidence_capable }),
			);
			const leaf = await this.activateView(DASHBOARD_VIEW_TYPE);
			if (leaf?.view instanceof DashboardView) await leaf.view.refresh();
		} catch (error) {
			this.reportError(error);
		}
	}

	async rebuildIndex(): Promise<void> {
		try {
			await ProgressNotice.run(
				t("progress.index"),
				() => this.client.buildIndex(),
				(report) => t("progress.indexDone", { notes: report.notes, headings: report.headings, seconds: report.seconds.toFixed(1) }),
			);
		} catch (error) {
			this.reportError(error);
		}
	}

	async checkIndex(): Promise<void> {
		try {
			const report = await this.client.checkIndex();
			const changed = report.changed.length + report.added.length + report.removed.length;
			new Notice(report.fresh ? t("notice.indexFresh") : t("notice.indexStale", { status: report.status, count: changed }));
		} catch (error) {
			this.reportError(error);
		}
	}

	async capture(path: string): Promise<void> {
		try {
			const run = await ProgressNotice.run(
				t("progress.capture", { path }),
				() => this.client.capture(path),
				(result) => t("progress.captureDone", { id: result.run_id, state: result.state }),
			);
			await this.openPipelineRun(run.run_id);
		} catch (error) {
			this.reportError(error);
		}
	}

	async authorizeRun(runId: string): Promise<void> {
		try {
			await this.client.authorize(runId);
			await this.openPipelineRun(runId);
		} catch (error) {
			this.reportError(error);
		}
	}

	async advanceRun(runId: string): Promise<void> {
		try {
			await ProgressNotice.run(
				t("progress.advance", { id: runId }),
				() => this.client.advance(runId),
				(status) => t("progress.advanceDone", { state: status.state, waiting: status.waiting_for ?? "—" }),
			);
			await this.openPipelineRun(runId);
		} catch (error) {
			this.reportError(error);
		}
	}

	async reviewRun(runId: string): Promise<void> {
		try {
			const status = await this.client.runStatus(runId);
			if (!waitsForDecision(status)) {
				new Notice(t("notice.notWaitingForDecision", { state: status.state }));
				return;
			}
			new ReviewModal(this, runId, () => void this.openPipelineRun(runId)).open();
		} catch (error) {
			this.reportError(error);
		}
	}
}
