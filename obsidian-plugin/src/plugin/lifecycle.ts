import { FileSystemAdapter, Notice } from "obsidian";
import { t } from "../i18n";
import type { Readiness } from "../readiness";
import { MAX_RESTARTS } from "../settings";
import { MIN_SIDECAR_API_LEVEL, PLUGIN_API_LEVEL } from "../sidecar/compat";
import { NEEDS_THE_PERSON, type SidecarSupervisor, type StateSnapshot, type SupervisorConfig } from "../sidecar/supervisor";
import { OFFLINE, STATES, statusView } from "../status";
import { type BadgeState, offlineState } from "../ui/badges";
import { needsPersonText } from "../ui/person-notices";
import type KnowledgeHarnessPlugin from "../main";

/**
 * The sidecar's life as the plugin sees it: the supervisor (made on first
 * start, with the settings' command and port), the status bar that says its
 * state, what happens when it comes back or goes (badges, the shared audit),
 * and the notices for what only the person can mend or for a crash loop.
 */
export class SidecarLifecycle {
	supervisor: SidecarSupervisor | null = null;
	lastSnapshot: StateSnapshot = OFFLINE;
	private statusEl: HTMLElement | null = null;
	/** The crash-loop notice shown in this loop, if any (reset when the sidecar is ready again). */
	private crashNoticeShown: false | "looping" | "stopped" = false;

	constructor(
		private readonly plugin: KnowledgeHarnessPlugin,
		/** The plugin's createSupervisor (tests give it fakes). */
		private readonly create: (config: SupervisorConfig) => SidecarSupervisor,
	) {}

	/** The status bar item: the sidecar's state; a click starts it or shows its log. */
	registerStatus(): void {
		const statusEl = this.plugin.addStatusBarItem();
		statusEl.addClass("kh-status", "mod-clickable");
		this.statusEl = statusEl;
		this.plugin.registerDomEvent(statusEl, "click", () => this.onStatusClick());
		this.renderStatus(OFFLINE);
	}

	async start(): Promise<void> {
		const supervisor = this.ensureSupervisor();
		if (supervisor) await supervisor.start();
	}

	async restart(): Promise<void> {
		const supervisor = this.ensureSupervisor();
		if (!supervisor) return;
		new Notice(t("notice.restarting"));
		await supervisor.restart();
	}

	/** Obsidian does not await onunload: the stop sequence finishes on its own, and the sidecar also exits when its stdin closes. */
	stop(): void {
		const supervisor = this.supervisor;
		this.supervisor = null;
		if (supervisor) void supervisor.stop();
	}

	/** A setting that changes how the sidecar runs applies at its next start. */
	configChanged(): void {
		if (!this.supervisor) return;
		const config = this.config();
		if (config) this.supervisor.updateConfig(config);
	}

	recentOutput(): string[] {
		return this.supervisor?.recentOutput() ?? [];
	}

	private onStatusClick(): void {
		const state = this.lastSnapshot.state;
		if (state === "stopped") void this.start();
		else if (state === "restarting" || state === "slow") this.plugin.showSidecarLog();
	}

	config(): SupervisorConfig | null {
		const adapter = this.plugin.app.vault.adapter;
		if (!(adapter instanceof FileSystemAdapter)) return null;
		const settings = this.plugin.settings;
		return {
			command: settings.sidecarCommand,
			args: settings.sidecarArgs,
			pathAdditions: settings.pathAdditions,
			vaultPath: adapter.getBasePath(),
			port: settings.port,
			restartPolicy: settings.restartPolicy,
			maxRestarts: MAX_RESTARTS,
			logLevel: settings.sidecarLogLevel,
			plugin: { version: this.plugin.manifest.version, apiLevel: PLUGIN_API_LEVEL },
			minSidecarApiLevel: MIN_SIDECAR_API_LEVEL,
		};
	}

	/** Whether `kh` is there, which one, and whether it fits this plugin (the settings' readiness panel). */
	readiness(): Readiness {
		let path: string | null = null;
		try {
			const config = this.config();
			path = config ? (this.supervisor ?? this.create(config)).locateCommand() : null;
		} catch {
			path = null;
		}
		return { command: this.plugin.settings.sidecarCommand, path, snapshot: this.lastSnapshot, pluginVersion: this.plugin.manifest.version };
	}

	private ensureSupervisor(): SidecarSupervisor | null {
		const config = this.config();
		if (!config) {
			new Notice(t("notice.noFileSystem"));
			return null;
		}
		if (this.supervisor) {
			this.supervisor.updateConfig(config);
			return this.supervisor;
		}
		const supervisor = this.create(config);
		this.plugin.register(supervisor.onStateChange((snapshot) => this.onStateChange(snapshot)));
		this.supervisor = supervisor;
		return supervisor;
	}

	private onStateChange(snapshot: StateSnapshot): void {
		const plugin = this.plugin;
		const previous = this.lastSnapshot;
		this.renderStatus(snapshot);
		const up = (state: string) => state === "ready" || state === "slow";
		if (snapshot.state === "ready" && !up(previous.state)) {
			// Back (or first) ready: the badges on screen and the shared audit, once.
			this.crashNoticeShown = false;
			void plugin.badgeController.refreshVisible([plugin.views.activePath()]);
			plugin.audits.invalidate();
		}
		if (up(previous.state) && (snapshot.state === "restarting" || snapshot.state === "stopped")) {
			// Gone: the badges on screen hide (the status bar says why, once) until it is back.
			plugin.badges.setMany(plugin.badges.watchedPaths().map((path): [string, BadgeState] => [path, offlineState(plugin.badges.get(path))]));
		}
		const kind = snapshot.error?.kind;
		if (kind && kind !== previous.error?.kind && NEEDS_THE_PERSON.has(kind)) {
			// What only the person can mend: one notice that says what to do, with the readiness panel a click away.
			const version = snapshot.sidecar?.version ?? "?";
			const text = needsPersonText(kind, { command: plugin.settings.sidecarCommand, port: String(snapshot.error?.port ?? plugin.settings.port), version });
			const fragment = createFragment();
			fragment.createDiv({ text });
			const button = fragment.createEl("button", { cls: "kh-notice-button", text: t("notice.howToInstall") });
			button.addEventListener("click", () => plugin.showReadiness());
			new Notice(fragment, 0);
			return;
		}
		// One notice when the policy gives up, or (restarting forever) when it has failed MAX_RESTARTS times in a row.
		if (snapshot.gaveUp && snapshot.failures > 0 && this.crashNoticeShown !== "stopped") {
			this.crashNoticeShown = "stopped";
			this.crashNotice(snapshot);
		} else if (
			plugin.settings.restartPolicy === "always" &&
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
		button.addEventListener("click", () => this.plugin.showSidecarLog());
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
}
