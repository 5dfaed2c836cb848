import { Notice, type WorkspaceLeaf } from "obsidian";
import type { UnseenSummary } from "../trust/candidates";
import { renderCandidateNotice, renderCandidateStatus } from "../ui/candidates-status";
import { activateOnKeys, badgeEditorExtension, drawIfChanged, modelForState, readingBadgePostProcessor } from "../ui/badges";
import { DASHBOARD_VIEW_TYPE, DashboardView } from "../ui/dashboard-view";
import { BadgeDetailsModal } from "../ui/details-modal";
import { PIPELINE_VIEW_TYPE, PipelineRunView } from "../ui/pipeline-view";
import { STALE_VIEW_TYPE, StaleListView } from "../ui/stale-view";
import type KnowledgeHarnessPlugin from "../main";

/** Candidates also change as days pass (windows open, notes age out): look again this often. */
const CANDIDATE_CHECK_MS = 60 * 60 * 1000;

/**
 * What the plugin draws: the active note's badge in the status bar (and in
 * the editor and reading view), the count of unseen candidates, the stale
 * list, dashboard and run views, and the badge's details.
 */
export class PluginViews {
	private badgeEl: HTMLElement | null = null;
	private candidatesEl: HTMLElement | null = null;
	private unwatchActive: (() => void) | null = null;

	constructor(private readonly plugin: KnowledgeHarnessPlugin) {}

	/** The status-bar badge, the badges in notes, and the plugin's views. */
	registerTrustUi(): void {
		const plugin = this.plugin;
		const badgeEl = plugin.addStatusBarItem();
		badgeEl.addClass("kh-status-badge", "mod-clickable");
		this.badgeEl = badgeEl;
		const openActive = () => {
			const path = this.activePath();
			if (path) this.openDetails(path);
		};
		plugin.registerDomEvent(badgeEl, "click", openActive);
		plugin.register(activateOnKeys(badgeEl, openActive));
		plugin.register(
			plugin.badges.subscribe((changed) => {
				const path = this.activePath();
				if (path && changed.has(path)) this.renderStatusBadge();
			}),
		);
		this.followActive();

		const onClick = (path: string) => this.openDetails(path);
		const scope = () => plugin.settings.badgeScope;
		plugin.registerEditorExtension(badgeEditorExtension(plugin.badges, onClick, scope));
		plugin.registerMarkdownPostProcessor(readingBadgePostProcessor(plugin.badges, onClick, scope));
	}

	registerViews(): void {
		const plugin = this.plugin;
		plugin.registerView(STALE_VIEW_TYPE, (leaf) => new StaleListView(leaf, plugin));
		plugin.registerView(DASHBOARD_VIEW_TYPE, (leaf) => new DashboardView(leaf, plugin));
		plugin.registerView(PIPELINE_VIEW_TYPE, (leaf) => new PipelineRunView(leaf, plugin));
	}

	/** The count of candidates the person has not looked at, in the status bar, looked for again after every audit and hourly. */
	registerCandidates(): void {
		const plugin = this.plugin;
		const el = plugin.addStatusBarItem();
		el.addClass("kh-status-candidates", "mod-clickable", "kh-hidden");
		this.candidatesEl = el;
		const open = () => void this.showCandidates();
		plugin.registerDomEvent(el, "click", open);
		plugin.register(activateOnKeys(el, open));
		plugin.register(plugin.candidates.subscribe((summary) => this.renderCandidates(summary)));
		// Every shared audit (a write, renames, the sidecar coming back) is a moment to look for new candidates.
		plugin.register(plugin.audits.subscribe(() => void plugin.checkCandidates()));
		plugin.registerInterval(
			window.setInterval(() => {
				if (plugin.lifecycle.lastSnapshot.state === "ready") void plugin.checkCandidates();
			}, CANDIDATE_CHECK_MS),
		);
	}

	dispose(): void {
		this.unwatchActive?.();
	}

	private renderCandidates(summary: UnseenSummary): void {
		if (this.candidatesEl) renderCandidateStatus(this.candidatesEl, summary);
	}

	/** One notice for the candidates the person has not seen, with a button to the list. */
	candidateNotice(summary: UnseenSummary): void {
		const fragment = createFragment();
		renderCandidateNotice(fragment, summary, () => void this.showCandidates());
		new Notice(fragment, 15_000);
	}

	/** Opens the stale list; the person has now seen the candidates it shows. */
	async showCandidates(): Promise<void> {
		await this.activateView(STALE_VIEW_TYPE);
		this.plugin.candidates.markSeen();
	}

	activePath(): string | null {
		return this.plugin.app.workspace.getActiveFile()?.path ?? null;
	}

	/** The status-bar badge shows (and watches) the active note. */
	followActive(): void {
		this.unwatchActive?.();
		const path = this.activePath();
		this.unwatchActive = path ? this.plugin.badges.watch(path) : null;
		this.renderStatusBadge();
	}

	renderStatusBadge(): void {
		if (this.badgeEl) drawIfChanged(this.badgeEl, modelForState(this.plugin.badges.get(this.activePath()), this.plugin.settings.badgeScope));
	}

	openDetails(path: string): void {
		new BadgeDetailsModal(this.plugin, path).open();
	}

	async openPipelineRun(runId: string): Promise<void> {
		this.plugin.currentRunId = runId;
		const leaf = await this.activateView(PIPELINE_VIEW_TYPE, "tab");
		const view = leaf?.view;
		if (view instanceof PipelineRunView) await view.setRun(runId);
	}

	async activateView(type: string, where: "right" | "tab" = "right"): Promise<WorkspaceLeaf | null> {
		const { workspace } = this.plugin.app;
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
}
