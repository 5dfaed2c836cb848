import { Notice, Plugin, type WorkspaceLeaf } from "obsidian";
import { SidecarClient } from "./api/client";
import type { BatchPlan, BatchStage } from "./api/types";
import { requestUrlTransport } from "./api/obsidian-transport";
import { applyLanguage, currentLocale, t } from "./i18n";
import { detectAppLanguage } from "./i18n/detect";
import { approvePending, connectAgent, registerCommands } from "./plugin/commands";
import { registerVaultEvents, registerWorkspaceEvents } from "./plugin/events";
import { SidecarLifecycle } from "./plugin/lifecycle";
import { PluginViews } from "./plugin/views";
import type { Readiness } from "./readiness";
import {
	DEVICE_STORAGE_KEY,
	devicePart,
	isDeviceKey,
	type KnowledgeHarnessSettings,
	loadSettings,
	normalizeSettings,
	RESTART_KEYS,
	type SettingKey,
	syncedPart,
} from "./settings";
import { KnowledgeHarnessSettingTab, type SettingsHost } from "./settings-tab";
import { nodeSupervisorDeps } from "./sidecar/node-runtime";
import { SidecarSupervisor, type SupervisorConfig } from "./sidecar/supervisor";
import { AuditHub } from "./trust/audit-hub";
import { CandidateWatcher, SEEN_STORAGE_KEY } from "./trust/candidates";
import type { AgentConnectionModal } from "./ui/agent-modal";
import { BatchApprovalModal } from "./ui/batch-modal";
import { BadgeController, BadgeStore } from "./ui/badges";
import { describeFailure } from "./ui/errors";
import { ExplorerMarkers } from "./ui/explorer-markers";
import type { HarnessHost } from "./ui/host";
import { JobProgressNotice } from "./ui/job-progress";
import { SidecarLogModal } from "./ui/log-modal";
import { ReadinessModal } from "./ui/readiness-modal";

/**
 * The plugin: its state and the doors the views and settings use. Its parts
 * live in src/plugin/: the sidecar's lifecycle and status bar (lifecycle.ts),
 * the commands (commands.ts), what it draws (views.ts) and the workspace and
 * vault events it follows (events.ts).
 */
export default class KnowledgeHarnessPlugin extends Plugin implements SettingsHost, HarnessHost {
	override settings: KnowledgeHarnessSettings = normalizeSettings(undefined);
	/** The sidecar, its status bar and the notices about it. */
	readonly lifecycle: SidecarLifecycle = new SidecarLifecycle(this, (config) => this.createSupervisor(config));
	/** The sidecar's HTTP API (through requestUrl, with per-request timeouts); throws SidecarOfflineError while it is not running. */
	readonly client = new SidecarClient(requestUrlTransport, () => this.lifecycle.supervisor?.endpoint ?? null, {
		// A request that times out makes the supervisor check the sidecar's health at once.
		onTimeout: () => void this.lifecycle.supervisor?.checkNow(),
		// The sidecar writes its refusals for the person in the interface's language.
		language: () => currentLocale(),
	});
	readonly badges = new BadgeStore();
	readonly badgeController = new BadgeController(this.client, this.badges, { scope: () => this.settings.badgeScope });
	/** One audit shared by the dashboard, the stale list and the explorer markers. */
	readonly audits = new AuditHub(this.client);
	/** Disputed / stale markers in the file explorer (best effort; a setting switches them off). */
	readonly explorerMarkers: ExplorerMarkers = new ExplorerMarkers(this.app, this.audits, () => this.settings.explorerMarkers);
	/** Candidates of the next batch the person has not looked at: one throttled notice and a status-bar count. */
	readonly candidates = new CandidateWatcher(
		this.client,
		{
			load: (): unknown => this.app.loadLocalStorage(SEEN_STORAGE_KEY) as unknown,
			save: (keys) => this.app.saveLocalStorage(SEEN_STORAGE_KEY, keys),
		},
		(summary) => this.views.candidateNotice(summary),
	);
	/** The status-bar badge, the candidates' count and the plugin's views. */
	readonly views: PluginViews = new PluginViews(this);
	/** The last plan made in this session and not yet approved, for "Approve pending batch". */
	pendingPlan: BatchPlan | null = null;
	/** Notes added with "Add to plan", planned together by "Plan batch from added notes". */
	readonly planBasket = new Set<string>();
	/** The pipeline run shown or captured last. */
	currentRunId: string | null = null;

	override async onload(): Promise<void> {
		// No language setting: the plugin speaks Obsidian's language.
		applyLanguage(detectAppLanguage());
		await this.loadSettings();

		this.addSettingTab(new KnowledgeHarnessSettingTab(this.app, this));
		this.lifecycle.registerStatus();
		this.views.registerTrustUi();
		registerWorkspaceEvents(this);
		this.views.registerViews();
		registerCommands(this);
		this.register(this.audits.subscribe(() => this.explorerMarkers.apply()));
		this.views.registerCandidates();

		this.app.workspace.onLayoutReady(() => {
			// Vault events only after the layout is ready: at startup Obsidian reports every file as created.
			registerVaultEvents(this);
			if (this.settings.autoStart) void this.startSidecar();
		});
	}

	override onunload(): void {
		this.badgeController.dispose();
		this.explorerMarkers.dispose();
		this.audits.dispose();
		this.candidates.dispose();
		this.views.dispose();
		this.lifecycle.stop();
	}

	/**
	 * data.json holds the synced settings; this device's local storage holds
	 * what runs (command, arguments, PATH additions). Values an older version
	 * kept in data.json are moved to this device once and removed from data.json.
	 */
	async loadSettings(): Promise<void> {
		const loaded = loadSettings(await this.loadData(), this.app.loadLocalStorage(DEVICE_STORAGE_KEY));
		this.settings = loaded.settings;
		if (loaded.deviceToStore) this.app.saveLocalStorage(DEVICE_STORAGE_KEY, loaded.deviceToStore);
		if (loaded.rewriteData) await this.saveData(syncedPart(this.settings));
		if (loaded.migrated && loaded.migrated.sidecarCommand !== "kh") {
			new Notice(t("notice.settingsMigrated", { command: loaded.migrated.sidecarCommand }));
		}
	}

	async saveSettings(changed?: SettingKey): Promise<void> {
		if (changed && isDeviceKey(changed)) {
			this.app.saveLocalStorage(DEVICE_STORAGE_KEY, devicePart(this.settings));
		} else {
			await this.saveData(syncedPart(this.settings));
		}
		if (changed === "explorerMarkers") void this.explorerMarkers.refresh();
		if (changed === "badgeScope") {
			this.badges.clear();
			void this.badgeController.refreshVisible([this.views.activePath()]);
			this.views.renderStatusBadge();
		}
		if (changed && RESTART_KEYS.includes(changed)) this.lifecycle.configChanged();
	}

	// ---- the sidecar ----

	startSidecar(): Promise<void> {
		return this.lifecycle.start();
	}

	restartSidecar(): Promise<void> {
		return this.lifecycle.restart();
	}

	/** The last lines the sidecar wrote (stdout and stderr), in a window. */
	showSidecarLog(): SidecarLogModal {
		const modal = new SidecarLogModal(this.app, () => this.lifecycle.recentOutput(), () => void this.restartSidecar());
		modal.open();
		return modal;
	}

	/** Whether `kh` is there, which one, and whether it fits this plugin (the settings' readiness panel). */
	readiness(): Readiness {
		return this.lifecycle.readiness();
	}

	/** The readiness panel in a window (from the notices that say kh is missing or does not fit). */
	showReadiness(): ReadinessModal {
		const modal = new ReadinessModal(this.app, () => this.readiness(), () => void this.restartSidecar());
		modal.open();
		return modal;
	}

	/** Builds the supervisor with the production (node) dependencies. */
	protected createSupervisor(config: SupervisorConfig): SidecarSupervisor {
		return new SidecarSupervisor(config, nodeSupervisorDeps());
	}

	// ---- candidates of the next batch ----

	/** Asks the sidecar for the candidates; a failure waits for the next audit (the status bar says why already). */
	async checkCandidates(): Promise<void> {
		try {
			await this.candidates.check();
		} catch {
			// Offline, an older sidecar without the route, or a vault it cannot read: nothing to announce.
		}
	}

	/** Opens the stale list; the person has now seen the candidates it shows. */
	showCandidates(): Promise<void> {
		return this.views.showCandidates();
	}

	addToPlan(path: string): void {
		this.planBasket.add(path);
		new Notice(t("notice.addedToPlan", { count: this.planBasket.size }));
	}

	/** Reopens the pending plan unless it was used or has expired. */
	approvePending(): void {
		approvePending(this);
	}

	connectAgent(): AgentConnectionModal {
		return connectAgent(this);
	}

	// ---- HarnessHost ----

	async openNote(path: string, line?: number): Promise<void> {
		await this.app.workspace.openLinkText(path, "", false, line ? { eState: { line: line - 1 } } : undefined);
	}

	afterWrite(): void {
		void this.badgeController.refreshVisible([this.views.activePath()]);
		// One audit for the dashboard, the stale list and the explorer markers.
		this.audits.invalidate();
	}

	reportError(error: unknown): void {
		new Notice(describeFailure(error));
	}

	openBatchApproval(plan: BatchPlan): void {
		this.pendingPlan = plan;
		new BatchApprovalModal(this, plan).open();
	}

	planConsumed(planId: string): void {
		if (this.pendingPlan?.plan_id === planId) this.pendingPlan = null;
	}

	async planBatch(stage: BatchStage, paths?: string[]): Promise<void> {
		try {
			const plan = await JobProgressNotice.run(
				this.client,
				t("progress.plan", { stage: t(`stage.${stage}`) }),
				(job) => this.client.planBatch({ stage, notes: paths }, job),
				(result) => t("progress.planDone", { count: result.targets.length }),
			);
			if (plan === null || plan.targets.length === 0) return;
			this.openBatchApproval(plan);
		} catch (error) {
			this.reportError(error);
		}
	}

	openPipelineRun(runId: string): Promise<void> {
		return this.views.openPipelineRun(runId);
	}

	activateView(type: string, where: "right" | "tab" = "right"): Promise<WorkspaceLeaf | null> {
		return this.views.activateView(type, where);
	}
}
