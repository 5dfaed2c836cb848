import { FileSystemAdapter, Notice, Plugin } from "obsidian";
import { SidecarClient } from "./api/client";
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

export default class KnowledgeHarnessPlugin extends Plugin implements SettingsHost {
	override settings: KnowledgeHarnessSettings = normalizeSettings(undefined);
	/** The sidecar's HTTP API (through requestUrl); throws SidecarOfflineError while it is not ready. */
	readonly client = new SidecarClient(requestUrlTransport, () => this.supervisor?.endpoint ?? null);

	private supervisor: SidecarSupervisor | null = null;
	private statusEl: HTMLElement | null = null;
	private lastSnapshot: StateSnapshot = OFFLINE;

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

		this.app.workspace.onLayoutReady(() => {
			if (this.settings.autoStart) void this.startSidecar();
		});
	}

	override onunload(): void {
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
}
