import type { App } from "obsidian";
import type { SidecarClient } from "../api/client";
import type { AuditReport } from "../api/types";

/**
 * File explorer markers for disputed and stale notes — best effort: Obsidian
 * has no public API for file explorer decorations. The plugin only sets a data
 * attribute on the explorer's file items (`.nav-file-title[data-path]`);
 * styles.css draws the marker with static rules. Nothing else in the explorer
 * is touched, no style element is created, and a setting switches it off
 * (which removes every attribute set here).
 */
export type ExplorerMarker = "disputed" | "stale";

export const MARKER_ATTR = "data-kh-trust";
export const FILE_EXPLORER_VIEW = "file-explorer";
const ITEM_SELECTOR = ".nav-file-title[data-path]";

/** Which notes get a marker: disputed wins over stale. */
export function markersFromAudit(audit: Pick<AuditReport, "stale" | "disputed">): Map<string, ExplorerMarker> {
	const markers = new Map<string, ExplorerMarker>();
	for (const item of audit.stale) markers.set(item.path, "stale");
	for (const path of audit.disputed) markers.set(path, "disputed");
	return markers;
}

/** Sets or removes the attribute on every file item under `root`; returns how many items are marked. */
export function applyMarkers(root: ParentNode, markers: ReadonlyMap<string, ExplorerMarker>): number {
	let marked = 0;
	for (const item of Array.from(root.querySelectorAll<HTMLElement>(ITEM_SELECTOR))) {
		const marker = markers.get(item.getAttribute("data-path") ?? "");
		if (marker) {
			if (item.getAttribute(MARKER_ATTR) !== marker) item.setAttribute(MARKER_ATTR, marker);
			marked += 1;
		} else if (item.hasAttribute(MARKER_ATTR)) {
			item.removeAttribute(MARKER_ATTR);
		}
	}
	return marked;
}

/** Removes every marker under `root`. */
export function clearMarkers(root: ParentNode): void {
	for (const item of Array.from(root.querySelectorAll<HTMLElement>(`[${MARKER_ATTR}]`))) item.removeAttribute(MARKER_ATTR);
}

/** Keeps the file explorer's markers in step with the sidecar's audit. */
export class ExplorerMarkers {
	markers = new Map<string, ExplorerMarker>();
	private timer: number | null = null;
	private readonly observers = new Map<HTMLElement, MutationObserver>();

	constructor(
		private readonly app: App,
		private readonly client: Pick<SidecarClient, "audit">,
		private readonly enabled: () => boolean,
	) {}

	/** The file explorers' root elements (empty when the explorer is closed or its view is not loaded). */
	explorerRoots(): HTMLElement[] {
		const roots: HTMLElement[] = [];
		for (const leaf of this.app.workspace.getLeavesOfType(FILE_EXPLORER_VIEW)) {
			const el = (leaf.view as { containerEl?: unknown } | null)?.containerEl;
			if (el instanceof HTMLElement) roots.push(el);
		}
		return roots;
	}

	/** Asks the sidecar for the audit and marks the explorer; offline or failing → markers stay as they were. */
	async refresh(): Promise<void> {
		if (!this.enabled()) {
			this.clear();
			return;
		}
		try {
			this.markers = markersFromAudit(await this.client.audit());
		} catch {
			return;
		}
		this.apply();
	}

	/** Marks the explorer with the markers known now (after the explorer re-rendered its items). */
	apply(): void {
		if (!this.enabled()) {
			this.clear();
			return;
		}
		for (const root of this.explorerRoots()) {
			applyMarkers(root, this.markers);
			this.observe(root);
		}
	}

	/** apply() once the explorer has settled (debounced). */
	applySoon(delayMs = 100): void {
		if (this.timer !== null) window.clearTimeout(this.timer);
		this.timer = window.setTimeout(() => {
			this.timer = null;
			this.apply();
		}, delayMs);
	}

	/** Removes every marker this plugin set and stops watching the explorer. */
	clear(): void {
		for (const root of this.explorerRoots()) clearMarkers(root);
		this.disconnect();
	}

	dispose(): void {
		if (this.timer !== null) window.clearTimeout(this.timer);
		this.timer = null;
		this.clear();
	}

	/** Newly rendered items (scrolling, expanding a folder, a rename) are marked too. */
	private observe(root: HTMLElement): void {
		if (this.observers.has(root) || typeof MutationObserver === "undefined") return;
		const observer = new MutationObserver(() => this.applySoon());
		observer.observe(root, { childList: true, subtree: true });
		this.observers.set(root, observer);
	}

	private disconnect(): void {
		for (const observer of this.observers.values()) observer.disconnect();
		this.observers.clear();
	}
}
