import {
	FileSystemAdapter,
	MarkdownView,
	type Menu,
	Notice,
	Plugin,
	type TAbstractFile,
	TFile,
	type WorkspaceLeaf,
} from "obsidian";
import { SidecarClient } from "./api/client";
import type { BatchPlan, BatchStage } from "./api/types";
import { requestUrlTransport } from "./api/obsidian-transport";
import { applyLanguage, currentLocale, t } from "./i18n";
import { detectAppLanguage } from "./i18n/detect";
import {
	DEVICE_STORAGE_KEY,
	devicePart,
	isDeviceKey,
	type KnowledgeHarnessSettings,
	loadSettings,
	MAX_RESTARTS,
	normalizeSettings,
	RESTART_KEYS,
	type SettingKey,
	syncedPart,
} from "./settings";
import { KnowledgeHarnessSettingTab, type SettingsHost } from "./settings-tab";
import { nodeSupervisorDeps } from "./sidecar/node-runtime";
import { NEEDS_THE_PERSON, SidecarSupervisor, type StateSnapshot, type SupervisorConfig } from "./sidecar/supervisor";
import { OFFLINE, STATES, statusView } from "./status";
import type { Readiness } from "./readiness";
import { MIN_SIDECAR_API_LEVEL, PLUGIN_API_LEVEL } from "./sidecar/compat";
import { ReadinessModal } from "./ui/readiness-modal";
import { needsPersonText } from "./ui/person-notices";
import { AuditHub } from "./trust/audit-hub";
import { CandidateWatcher, SEEN_STORAGE_KEY, type UnseenSummary } from "./trust/candidates";
import { AgentConnectionModal } from "./ui/agent-modal";
import { BatchApprovalModal } from "./ui/batch-modal";
import { renderCandidateNotice, renderCandidateStatus } from "./ui/candidates-status";
import {
	activateOnKeys,
	BadgeController,
	type BadgeState,
	BadgeStore,
	badgeEditorExtension,
	drawIfChanged,
	modelForState,
	offlineState,
	readingBadgePostProcessor,
} from "./ui/badges";
import { DASHBOARD_VIEW_TYPE, DashboardView } from "./ui/dashboard-view";
import { ExplorerMarkers } from "./ui/explorer-markers";
import { BadgeDetailsModal } from "./ui/details-modal";
import { describeFailure } from "./ui/errors";
import type { HarnessHost } from "./ui/host";
import { IndexSearchModal } from "./ui/index-search";
import { SidecarLogModal } from "./ui/log-modal";
import { AuthorizeModal, PIPELINE_VIEW_TYPE, PipelineRunView, ReviewModal } from "./ui/pipeline-view";
import { ProgressNotice } from "./ui/progress";
import { rebuildIndex as rebuildIndexJob } from "./ui/index-build";
import { JobProgressNotice } from "./ui/job-progress";
import { STALE_VIEW_TYPE, StaleListView } from "./ui/stale-view";
import { ValidateModal } from "./ui/validate-modal";
import { waitsForDecision } from "./pipeline/model";

const MARKDOWN = /\.md$/i;
/** Candidates also change as days pass (windows open, notes age out): look again this often. */
const CANDIDATE_CHECK_MS = 60 * 60 * 1000;

export default class KnowledgeHarnessPlugin extends Plugin implements SettingsHost, HarnessHost {
	override settings: KnowledgeHarnessSettings = normalizeSettings(undefined);
	/** The sidecar's HTTP API (through requestUrl, with per-request timeouts); throws SidecarOfflineError while it is not running. */
	readonly client = new SidecarClient(requestUrlTransport, () => this.supervisor?.endpoint ?? null, {
		// A request that times out makes the supervisor check the sidecar's health at once.
		onTimeout: () => void this.supervisor?.checkNow(),
		// The sidecar writes its refusals for the person in the interface's language.
		language: () => currentLocale(),
	});

	private supervisor: SidecarSupervisor | null = null;
	private statusEl: HTMLElement | null = null;
	private lastSnapshot: StateSnapshot = OFFLINE;
	/** The crash-loop notice shown in this loop, if any (reset when the sidecar is ready again). */
	private crashNoticeShown: false | "looping" | "stopped" = false;
	readonly badges = new BadgeStore();
	readonly badgeController = new BadgeController(this.client, this.badges, { scope: () => this.settings.badgeScope });
	/** One audit shared by the dashboard, the stale list and the explorer markers. */
	readonly audits = new AuditHub(this.client);
	/** Disputed / stale markers in the file explorer (best effort; a setting switches them off). */
	readonly explorerMarkers = new ExplorerMarkers(this.app, this.audits, () => this.settings.explorerMarkers);
	/** Candidates of the next batch the person has not looked at: one throttled notice and a status-bar count. */
	readonly candidates = new CandidateWatcher(
		this.client,
		{
			load: (): unknown => this.app.loadLocalStorage(SEEN_STORAGE_KEY) as unknown,
			save: (keys) => this.app.saveLocalStorage(SEEN_STORAGE_KEY, keys),
		},
		(summary) => this.candidateNotice(summary),
	);
	private candidatesEl: HTMLElement | null = null;
	private badgeEl: HTMLElement | null = null;
	private unwatchActive: (() => void) | null = null;
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

		const statusEl = this.addStatusBarItem();
		statusEl.addClass("kh-status", "mod-clickable");
		this.statusEl = statusEl;
		this.registerDomEvent(statusEl, "click", () => this.onStatusClick());
		this.renderStatus(OFFLINE);

		this.addCommand({
			id: "restart-sidecar",
			name: t("command.restart"),
			callback: () => {
				void this.restartSidecar();
			},
		});
		this.addCommand({ id: "show-sidecar-log", name: t("command.showLog"), callback: () => this.showSidecarLog() });

		this.registerTrustUi();
		this.registerCommands();
		this.register(this.audits.subscribe(() => this.explorerMarkers.apply()));
		this.registerCandidates();

		this.app.workspace.onLayoutReady(() => {
			// Vault events only after the layout is ready: at startup Obsidian reports every file as created.
			this.registerVaultEvents();
			if (this.settings.autoStart) void this.startSidecar();
		});
	}

	override onunload(): void {
		this.badgeController.dispose();
		this.explorerMarkers.dispose();
		this.audits.dispose();
		this.candidates.dispose();
		this.unwatchActive?.();
		const supervisor = this.supervisor;
		this.supervisor = null;
		// Obsidian does not await onunload: the stop sequence finishes on its own,
		// and the sidecar also exits when its stdin closes.
		if (supervisor) void supervisor.stop();
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
			void this.badgeController.refreshVisible([this.activePath()]);
			this.renderStatusBadge();
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

	/** The last lines the sidecar wrote (stdout and stderr), in a window. */
	showSidecarLog(): SidecarLogModal {
		const modal = new SidecarLogModal(this.app, () => this.supervisor?.recentOutput() ?? [], () => void this.restartSidecar());
		modal.open();
		return modal;
	}

	private onStatusClick(): void {
		const state = this.lastSnapshot.state;
		if (state === "stopped") void this.startSidecar();
		else if (state === "restarting" || state === "slow") this.showSidecarLog();
	}

	private supervisorConfig(): SupervisorConfig | null {
		const adapter = this.app.vault.adapter;
		if (!(adapter instanceof FileSystemAdapter)) return null;
		return {
			command: this.settings.sidecarCommand,
			args: this.settings.sidecarArgs,
			pathAdditions: this.settings.pathAdditions,
			vaultPath: adapter.getBasePath(),
			port: this.settings.port,
			restartPolicy: this.settings.restartPolicy,
			maxRestarts: MAX_RESTARTS,
			logLevel: this.settings.sidecarLogLevel,
			plugin: { version: this.manifest.version, apiLevel: PLUGIN_API_LEVEL },
			minSidecarApiLevel: MIN_SIDECAR_API_LEVEL,
		};
	}

	/** Whether `kh` is there, which one, and whether it fits this plugin (the settings' readiness panel). */
	readiness(): Readiness {
		let path: string | null = null;
		try {
			const config = this.supervisorConfig();
			path = config ? (this.supervisor ?? this.createSupervisor(config)).locateCommand() : null;
		} catch {
			path = null;
		}
		return { command: this.settings.sidecarCommand, path, snapshot: this.lastSnapshot, pluginVersion: this.manifest.version };
	}

	/** The readiness panel in a window (from the notices that say kh is missing or does not fit). */
	showReadiness(): ReadinessModal {
		const modal = new ReadinessModal(this.app, () => this.readiness(), () => void this.restartSidecar());
		modal.open();
		return modal;
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
		const up = (state: string) => state === "ready" || state === "slow";
		if (snapshot.state === "ready" && !up(previous.state)) {
			// Back (or first) ready: the badges on screen and the shared audit, once.
			this.crashNoticeShown = false;
			void this.badgeController.refreshVisible([this.activePath()]);
			this.audits.invalidate();
		}
		if (up(previous.state) && (snapshot.state === "restarting" || snapshot.state === "stopped")) {
			// Gone: the badges on screen hide (the status bar says why, once) until it is back.
			this.badges.setMany(this.badges.watchedPaths().map((path): [string, BadgeState] => [path, offlineState(this.badges.get(path))]));
		}
		const kind = snapshot.error?.kind;
		if (kind && kind !== previous.error?.kind && NEEDS_THE_PERSON.has(kind)) {
			// What only the person can mend: one notice that says what to do, with the readiness panel a click away.
			const version = snapshot.sidecar?.version ?? "?";
			const text = needsPersonText(kind, { command: this.settings.sidecarCommand, port: String(snapshot.error?.port ?? this.settings.port), version });
			const fragment = createFragment();
			fragment.createDiv({ text });
			const button = fragment.createEl("button", { cls: "kh-notice-button", text: t("notice.howToInstall") });
			button.addEventListener("click", () => this.showReadiness());
			new Notice(fragment, 0);
			return;
		}
		// One notice when the policy gives up, or (restarting forever) when it has failed MAX_RESTARTS times in a row.
		if (snapshot.gaveUp && snapshot.failures > 0 && this.crashNoticeShown !== "stopped") {
			this.crashNoticeShown = "stopped";
			this.crashNotice(snapshot);
		} else if (
			this.settings.restartPolicy === "always" &&
			snapshot.state === "restarting" &&
			snapshot.failures >= MAX_RESTARTS &&
			this.crashNoticeShown === false
		) {
			this.crashNoticeShown = "looping";
			this.crashNotice(snapshot);
		}
	}

	/** One notice for a sidecar that keeps failing, with a button for its log. */
	private crashNotice(snapshot: StateSnapshot): void {
		const fragment = createFragment();
		fragment.createDiv({
			text: snapshot.gaveUp
				? t("notice.crashLoopStopped", { count: snapshot.failures })
				: t("notice.crashLoop", { count: snapshot.failures }),
		});
		const button = fragment.createEl("button", { cls: "kh-notice-button", text: t("notice.showLog") });
		button.addEventListener("click", () => this.showSidecarLog());
		new Notice(fragment, 0);
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

	// ---- candidates of the next batch ----

	private registerCandidates(): void {
		const el = this.addStatusBarItem();
		el.addClass("kh-status-candidates", "mod-clickable", "kh-hidden");
		this.candidatesEl = el;
		const open = () => void this.showCandidates();
		this.registerDomEvent(el, "click", open);
		this.register(activateOnKeys(el, open));
		this.register(this.candidates.subscribe((summary) => this.renderCandidates(summary)));
		// Every shared audit (a write, renames, the sidecar coming back) is a moment to look for new candidates.
		this.register(this.audits.subscribe(() => void this.checkCandidates()));
		this.registerInterval(
			window.setInterval(() => {
				if (this.lastSnapshot.state === "ready") void this.checkCandidates();
			}, CANDIDATE_CHECK_MS),
		);
	}

	/** Asks the sidecar for the candidates; a failure waits for the next audit (the status bar says why already). */
	async checkCandidates(): Promise<void> {
		try {
			await this.candidates.check();
		} catch {
			// Offline, an older sidecar without the route, or a vault it cannot read: nothing to announce.
		}
	}

	private renderCandidates(summary: UnseenSummary): void {
		if (this.candidatesEl) renderCandidateStatus(this.candidatesEl, summary);
	}

	/** One notice for the candidates the person has not seen, with a button to the list. */
	private candidateNotice(summary: UnseenSummary): void {
		const fragment = createFragment();
		renderCandidateNotice(fragment, summary, () => void this.showCandidates());
		new Notice(fragment, 15_000);
	}

	/** Opens the stale list; the person has now seen the candidates it shows. */
	async showCandidates(): Promise<void> {
		await this.activateView(STALE_VIEW_TYPE);
		this.candidates.markSeen();
	}

	// ---- trust badges ----

	private registerTrustUi(): void {
		const badgeEl = this.addStatusBarItem();
		badgeEl.addClass("kh-status-badge", "mod-clickable");
		this.badgeEl = badgeEl;
		const openActive = () => {
			const path = this.activePath();
			if (path) this.openDetails(path);
		};
		this.registerDomEvent(badgeEl, "click", openActive);
		this.register(activateOnKeys(badgeEl, openActive));
		this.register(
			this.badges.subscribe((changed) => {
				const path = this.activePath();
				if (path && changed.has(path)) this.renderStatusBadge();
			}),
		);
		this.followActive();

		const onClick = (path: string) => this.openDetails(path);
		const scope = () => this.settings.badgeScope;
		this.registerEditorExtension(badgeEditorExtension(this.badges, onClick, scope));
		this.registerMarkdownPostProcessor(readingBadgePostProcessor(this.badges, onClick, scope));

		this.registerEvent(
			this.app.workspace.on("file-open", (file: TFile | null) => {
				this.followActive();
				void this.badgeController.refresh(file?.path);
			}),
		);
		this.registerEvent(this.app.workspace.on("active-leaf-change", () => this.followActive()));
		this.registerEvent(this.app.workspace.on("layout-change", () => this.explorerMarkers.applySoon()));
		this.registerEvent(
			this.app.metadataCache.on("changed", (file: TFile) => {
				// Only notes whose badge is known or on screen: nobody looks at the others.
				if (this.badges.has(file.path) || this.badges.isWatched(file.path)) this.badgeController.refreshSoon(file.path);
				// The views that show the whole vault follow the edit once typing pauses (one audit).
				if (MARKDOWN.test(file.path)) this.audits.edited();
			}),
		);
		this.registerEvent(
			this.app.workspace.on("file-menu", (menu: Menu, file: TAbstractFile) => this.fileMenu(menu, file)),
		);

		this.registerView(STALE_VIEW_TYPE, (leaf) => new StaleListView(leaf, this));
		this.registerView(DASHBOARD_VIEW_TYPE, (leaf) => new DashboardView(leaf, this));
		this.registerView(PIPELINE_VIEW_TYPE, (leaf) => new PipelineRunView(leaf, this));
	}

	/** Renames, deletions and new notes: badges move or go, and the shared audit follows once per burst. */
	private registerVaultEvents(): void {
		this.registerEvent(
			this.app.vault.on("rename", (file: TAbstractFile, oldPath: string) => {
				this.badges.rename(oldPath, file.path);
				if (this.planBasket.delete(oldPath)) this.planBasket.add(file.path);
				if (file instanceof TFile && MARKDOWN.test(file.path)) this.badgeController.refreshSoon(file.path);
				this.audits.invalidate();
				this.followActive();
			}),
		);
		this.registerEvent(
			this.app.vault.on("delete", (file: TAbstractFile) => {
				this.badges.delete(file.path);
				this.planBasket.delete(file.path);
				this.audits.invalidate();
			}),
		);
		this.registerEvent(
			this.app.vault.on("create", (file: TAbstractFile) => {
				if (!(file instanceof TFile) || !MARKDOWN.test(file.path)) return;
				if (this.badges.isWatched(file.path)) this.badgeController.refreshSoon(file.path);
				this.audits.invalidate();
			}),
		);
	}

	private fileMenu(menu: Menu, file: TAbstractFile): void {
		if (!(file instanceof TFile) || !MARKDOWN.test(file.path)) return;
		const path = file.path;
		menu.addItem((item) =>
			item
				.setTitle(t("menu.validate"))
				.setIcon("shield-check")
				.onClick(() => new ValidateModal(this, path).open()),
		);
		menu.addItem((item) =>
			item
				.setTitle(t("menu.details"))
				.setIcon("info")
				.onClick(() => this.openDetails(path)),
		);
		menu.addItem((item) =>
			item
				.setTitle(t("menu.addToPlan"))
				.setIcon("list-plus")
				.onClick(() => this.addToPlan(path)),
		);
	}

	addToPlan(path: string): void {
		this.planBasket.add(path);
		new Notice(t("notice.addedToPlan", { count: this.planBasket.size }));
	}

	private activePath(): string | null {
		return this.app.workspace.getActiveFile()?.path ?? null;
	}

	/** The status-bar badge shows (and watches) the active note. */
	private followActive(): void {
		this.unwatchActive?.();
		const path = this.activePath();
		this.unwatchActive = path ? this.badges.watch(path) : null;
		this.renderStatusBadge();
	}

	private renderStatusBadge(): void {
		if (this.badgeEl) drawIfChanged(this.badgeEl, modelForState(this.badges.get(this.activePath()), this.settings.badgeScope));
	}

	private openDetails(path: string): void {
		new BadgeDetailsModal(this, path).open();
	}

	// ---- HarnessHost ----

	async openNote(path: string, line?: number): Promise<void> {
		await this.app.workspace.openLinkText(path, "", false, line ? { eState: { line: line - 1 } } : undefined);
	}

	afterWrite(): void {
		void this.badgeController.refreshVisible([this.activePath()]);
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
		// revealLeaf also expands a collapsed sidebar (setActiveLeaf would open the view hidden).
		await workspace.revealLeaf(leaf);
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
		const withRun = (id: string, name: string, run: (runId: string) => void) =>
			this.addCommand({
				id,
				name,
				checkCallback: (checking: boolean) => {
					if (!this.currentRunId) return false;
					if (!checking) run(this.currentRunId);
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
			id: "plan-batch-added",
			name: t("command.planAdded"),
			checkCallback: (checking: boolean) => {
				if (this.planBasket.size === 0) return false;
				if (!checking) {
					const paths = Array.from(this.planBasket);
					this.planBasket.clear();
					void this.planBatch("progressive", paths);
				}
				return true;
			},
		});
		this.addCommand({
			id: "approve-pending-batch",
			name: t("command.approve"),
			callback: () => this.approvePending(),
		});
		this.addCommand({ id: "open-stale-list", name: t("command.openStale"), callback: () => void this.showCandidates() });
		this.addCommand({ id: "open-dashboard", name: t("command.openDashboard"), callback: () => void this.activateView(DASHBOARD_VIEW_TYPE) });
		this.addCommand({ id: "rebuild-index", name: t("command.rebuildIndex"), callback: () => void this.rebuildIndex() });
		this.addCommand({ id: "check-index", name: t("command.checkIndex"), callback: () => void this.checkIndex() });
		this.addCommand({ id: "search-index", name: t("command.searchIndex"), callback: () => new IndexSearchModal(this).open() });
		withNote("capture-current-note", t("command.capture"), (path) => void this.capture(path));
		withRun("authorize-run", t("command.authorize"), (runId) => void this.authorizeRun(runId));
		withRun("advance-run", t("command.advance"), (runId) => void this.advanceRun(runId));
		withRun("review-run", t("command.review"), (runId) => void this.reviewRun(runId));
		withRun("open-run", t("command.openRun"), (runId) => void this.openPipelineRun(runId));
		this.addCommand({ id: "connect-agent", name: t("command.connectAgent"), callback: () => this.connectAgent() });
	}

	/** Reopens the pending plan unless it was used or has expired. */
	approvePending(): void {
		const plan = this.pendingPlan;
		if (!plan) {
			new Notice(t("notice.noPendingPlan"));
			return;
		}
		const expires = Date.parse(plan.expires_at);
		if (Number.isFinite(expires) && expires <= Date.now()) {
			this.pendingPlan = null;
			new Notice(t("notice.planExpired"));
			return;
		}
		new BatchApprovalModal(this, plan).open();
	}

	connectAgent(): AgentConnectionModal {
		const adapter = this.app.vault.adapter;
		const target =
			adapter instanceof FileSystemAdapter
				? { vaultPath: adapter.getBasePath(), command: this.settings.sidecarCommand, fixedPort: this.settings.port !== 0 }
				: null;
		const modal = new AgentConnectionModal(this, target);
		modal.open();
		return modal;
	}

	async auditVault(): Promise<void> {
		try {
			await ProgressNotice.run(
				t("progress.audit"),
				() => this.audits.fetch({ record: true }),
				(report) => t("progress.auditDone", { coverage: (report.coverage * 100).toFixed(1), fresh: report.fresh_l2, capable: report.evidence_capable }),
			);
			await this.activateView(DASHBOARD_VIEW_TYPE);
		} catch (error) {
			this.reportError(error);
		}
	}

	async rebuildIndex(): Promise<void> {
		try {
			await rebuildIndexJob(this.client);
		} catch (error) {
			this.reportError(error);
		}
	}

	async checkIndex(): Promise<void> {
		try {
			const report = await this.client.checkIndex();
			const changed = report.changed.length + report.added.length + report.removed.length;
			new Notice(report.fresh ? t("notice.indexFresh") : t("notice.indexStale", { count: changed }));
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

	/** Shows the request, its excerpt and who answered publishability; the person confirms there. */
	async authorizeRun(runId: string): Promise<void> {
		new AuthorizeModal(this, runId, () => void this.openPipelineRun(runId)).open();
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
