import type { Extension } from "@codemirror/state";
import { type EditorView, type Panel, showPanel, type ViewUpdate } from "@codemirror/view";
import { editorInfoField, MarkdownRenderChild, type MarkdownPostProcessorContext } from "obsidian";
import { SidecarOfflineError, type SidecarClient } from "../api/client";
import type { Badge } from "../api/types";
import type { BadgeScope } from "../settings";
import { type BadgeModel, badgeModel, BADGE_TONES, offlineBadgeModel } from "../trust/badge";
import { isNotServed } from "./errors";

export type BadgeState =
	| { kind: "ready"; badge: Badge }
	| { kind: "offline"; last?: Badge }
	| { kind: "unavailable"; message: string };

/** The state of a note whose badge cannot be fetched: offline, remembering the last badge it had. */
export function offlineState(previous: BadgeState | undefined): BadgeState {
	const last = previous?.kind === "ready" ? previous.badge : previous?.kind === "offline" ? previous.last : undefined;
	return last ? { kind: "offline", last } : { kind: "offline" };
}

/** How many badges the store keeps; the least recently used beyond this are forgotten (shown ones never). */
export const STORE_LIMIT = 2_000;
/** Paths per POST /v1/trust/badges (the sidecar takes up to 500). */
export const BATCH_SIZE = 100;
/** Badge requests in flight at once. */
export const MAX_IN_FLIGHT = 2;

/**
 * The badges of recently seen notes, by vault path, bounded (LRU). Badges that
 * are on screen are "watched" and never evicted. Listeners hear about the paths
 * that changed, once per batch of answers.
 */
export class BadgeStore {
	private readonly states = new Map<string, BadgeState>();
	private readonly listeners = new Set<(changed: ReadonlySet<string>) => void>();
	private readonly watchers = new Map<string, number>();

	constructor(private readonly limit = STORE_LIMIT) {}

	/** The state of a note (and marks it recently used). */
	get(path: string | null | undefined): BadgeState | undefined {
		if (!path) return undefined;
		const state = this.states.get(path);
		if (state !== undefined) {
			this.states.delete(path);
			this.states.set(path, state);
		}
		return state;
	}

	has(path: string): boolean {
		return this.states.has(path);
	}

	get size(): number {
		return this.states.size;
	}

	set(path: string, state: BadgeState): void {
		this.setMany([[path, state]]);
	}

	setMany(entries: Iterable<[string, BadgeState]>): void {
		const changed = new Set<string>();
		for (const [path, state] of entries) {
			this.states.delete(path);
			this.states.set(path, state);
			changed.add(path);
		}
		this.evict();
		this.notify(changed);
	}

	delete(path: string): void {
		if (this.states.delete(path)) this.notify(new Set([path]));
	}

	/** A renamed note keeps its badge under the new path until the sidecar answers for it. */
	rename(oldPath: string, newPath: string): void {
		const state = this.states.get(oldPath);
		this.states.delete(oldPath);
		if (state !== undefined) this.states.set(newPath, state);
		this.notify(new Set([oldPath, newPath]));
	}

	/** Forgets every badge (e.g. when badges are switched off). */
	clear(): void {
		const changed = new Set(this.states.keys());
		this.states.clear();
		this.notify(changed);
	}

	paths(): string[] {
		return Array.from(this.states.keys());
	}

	/** Marks a path as shown on screen; returns the function that unmarks it. */
	watch(path: string): () => void {
		this.watchers.set(path, (this.watchers.get(path) ?? 0) + 1);
		let done = false;
		return () => {
			if (done) return;
			done = true;
			const count = (this.watchers.get(path) ?? 1) - 1;
			if (count <= 0) this.watchers.delete(path);
			else this.watchers.set(path, count);
		};
	}

	watchedPaths(): string[] {
		return Array.from(this.watchers.keys());
	}

	isWatched(path: string): boolean {
		return this.watchers.has(path);
	}

	/** Called with the set of paths whose state changed. */
	subscribe(listener: (changed: ReadonlySet<string>) => void): () => void {
		this.listeners.add(listener);
		return () => {
			this.listeners.delete(listener);
		};
	}

	private evict(): void {
		if (this.states.size <= this.limit) return;
		for (const path of Array.from(this.states.keys())) {
			if (this.states.size <= this.limit) break;
			if (!this.watchers.has(path)) this.states.delete(path);
		}
	}

	private notify(changed: ReadonlySet<string>): void {
		if (changed.size === 0) return;
		for (const listener of Array.from(this.listeners)) listener(changed);
	}
}

/** True when a badge means something for the note: it counts in the audit or carries trust metadata. */
export function isTrustRelevant(badge: Badge): boolean {
	return (
		badge.keyword ||
		badge.evidence_capable ||
		badge.level > 0 ||
		badge.status !== "unverified" ||
		badge.validator !== null ||
		badge.last_validated !== null ||
		badge.revalidate_after !== null ||
		badge.evidence_status !== null ||
		badge.error !== null ||
		(badge.findings ?? []).length > 0
	);
}

/**
 * The model to draw for a state; null draws nothing: no answer yet, not a note
 * the sidecar knows, or outside the badge scope. A badge that cannot be fetched
 * (the sidecar stopped, hung or too slow) is the hollow dot, on the notes that
 * had a badge in scope: what was shown does not silently vanish.
 */
export function modelForState(state: BadgeState | undefined, scope: BadgeScope = "all"): BadgeModel | null {
	if (!state || scope === "none") return null;
	if (state.kind === "offline") {
		if (scope === "relevant" && !(state.last && isTrustRelevant(state.last))) return null;
		return offlineBadgeModel();
	}
	if (state.kind !== "ready") return null;
	if (scope === "relevant" && !isTrustRelevant(state.badge)) return null;
	return badgeModel(state.badge);
}

/** Fills `el` with a badge (or hides it). The same markup in the status bar, the editor and reading view. */
export function renderBadge(el: HTMLElement, model: BadgeModel | null): void {
	el.empty();
	for (const tone of BADGE_TONES) el.removeClass(`kh-badge-${tone}`);
	el.addClass("kh-badge");
	el.toggleClass("kh-hidden", model === null);
	if (!model) {
		el.removeAttribute("aria-label");
		el.removeAttribute("tabindex");
		el.removeAttribute("role");
		return;
	}
	el.addClass(model.cls);
	el.createSpan({ cls: "kh-badge-dot" });
	el.createSpan({ cls: "kh-badge-text", text: model.text });
	el.setAttr("aria-label", model.tooltip);
	el.setAttr("data-tooltip-position", "top");
	// Reachable and usable from the keyboard like a button.
	el.setAttr("role", "button");
	el.setAttr("tabindex", "0");
}

/** Makes Enter and Space activate a clickable element (badges, list links). */
export function activateOnKeys(el: HTMLElement, action: () => void): () => void {
	const onKey = (event: KeyboardEvent) => {
		if (event.key === "Enter" || event.key === " ") {
			event.preventDefault();
			action();
		}
	};
	el.addEventListener("keydown", onKey);
	return () => el.removeEventListener("keydown", onKey);
}

/** A key for "would this draw the same thing": redraw only when it changes. */
function modelKey(model: BadgeModel | null): string {
	return model ? `${model.cls}\u0000${model.text}\u0000${model.tooltip}` : "";
}

/** Redraws `el` only when the model differs from what it shows. */
export function drawIfChanged(el: HTMLElement, model: BadgeModel | null): boolean {
	const key = modelKey(model);
	if (el.getAttribute("data-kh-drawn") === key && el.hasAttribute("data-kh-drawn")) return false;
	renderBadge(el, model);
	el.setAttr("data-kh-drawn", key);
	return true;
}

const MARKDOWN = /\.md$/i;

export interface BadgeTimers {
	setTimeout(callback: () => void, ms: number): unknown;
	clearTimeout(handle: unknown): void;
}

const windowTimers: BadgeTimers = {
	setTimeout: (callback, ms) => window.setTimeout(callback, ms),
	clearTimeout: (handle) => window.clearTimeout(handle as number),
};

export interface BadgeControllerOptions {
	/** Where badges appear; "none" sends no request at all. */
	scope?: () => BadgeScope;
	debounceMs?: number;
	batchSize?: number;
	maxInFlight?: number;
	timers?: BadgeTimers;
}

/**
 * Asks the sidecar for badges through one queue: paths wait (debounced) and
 * go out in batches of `batchSize` (POST /v1/trust/badges), at most
 * `maxInFlight` requests at a time — 10,000 changed notes are 100 requests,
 * two at a time, not 10,000 at once. A sidecar without the batch route is
 * asked one path per request, under the same cap. An offline sidecar drops
 * the queue (the visible badges are asked again when it is back) and never
 * shows a notice.
 */
export class BadgeController {
	private readonly pending = new Set<string>();
	private timer: unknown = null;
	private inFlight = 0;
	private batchRoute = true;
	private idleWaiters: (() => void)[] = [];
	private readonly scope: () => BadgeScope;
	private readonly debounceMs: number;
	private readonly batchSize: number;
	private readonly maxInFlight: number;
	private readonly timers: BadgeTimers;
	/** The most requests that were in flight at once (for tests and diagnostics). */
	peakInFlight = 0;

	constructor(
		private readonly client: Pick<SidecarClient, "badge" | "badges">,
		readonly store: BadgeStore,
		options: BadgeControllerOptions = {},
	) {
		this.scope = options.scope ?? (() => "all");
		this.debounceMs = options.debounceMs ?? 300;
		this.batchSize = options.batchSize ?? BATCH_SIZE;
		this.maxInFlight = options.maxInFlight ?? MAX_IN_FLIGHT;
		this.timers = options.timers ?? windowTimers;
	}

	/** Asks for these notes' badges now (file open); resolves when the queue is empty. */
	refresh(path: string | null | undefined): Promise<void> {
		if (!this.enqueue(path)) return this.idle();
		this.flushNow();
		return this.idle();
	}

	/** Asks for a note's badge after the burst settles (metadata changes, creations). */
	refreshSoon(path: string | null | undefined): void {
		if (!this.enqueue(path)) return;
		if (this.timer !== null) this.timers.clearTimeout(this.timer);
		this.timer = this.timers.setTimeout(() => {
			this.timer = null;
			this.pump();
		}, this.debounceMs);
	}

	/** Asks again for the badges on screen (after the sidecar came back or wrote notes). */
	refreshVisible(extra: (string | null | undefined)[] = []): Promise<void> {
		let any = false;
		for (const path of [...this.store.watchedPaths(), ...extra]) any = this.enqueue(path) || any;
		if (any) this.flushNow();
		return this.idle();
	}

	/** Resolves when nothing is queued or in flight. */
	idle(): Promise<void> {
		if (this.pending.size === 0 && this.inFlight === 0 && this.timer === null) return Promise.resolve();
		return new Promise((resolve) => this.idleWaiters.push(resolve));
	}

	get queued(): number {
		return this.pending.size;
	}

	dispose(): void {
		if (this.timer !== null) this.timers.clearTimeout(this.timer);
		this.timer = null;
		this.pending.clear();
		this.settleIdle();
	}

	private enqueue(path: string | null | undefined): boolean {
		if (!path || !MARKDOWN.test(path) || this.scope() === "none") return false;
		this.pending.add(path);
		return true;
	}

	private flushNow(): void {
		if (this.timer !== null) this.timers.clearTimeout(this.timer);
		this.timer = null;
		this.pump();
	}

	private pump(): void {
		while (this.pending.size > 0 && this.inFlight < this.maxInFlight) {
			const size = this.batchRoute ? this.batchSize : 1;
			const paths: string[] = [];
			for (const path of this.pending) {
				paths.push(path);
				if (paths.length >= size) break;
			}
			for (const path of paths) this.pending.delete(path);
			this.inFlight++;
			this.peakInFlight = Math.max(this.peakInFlight, this.inFlight);
			void this.send(paths).finally(() => {
				this.inFlight--;
				this.pump();
				this.settleIdle();
			});
		}
		this.settleIdle();
	}

	private async send(paths: string[]): Promise<void> {
		try {
			if (this.batchRoute) {
				try {
					const answer = await this.client.badges(paths);
					const entries: [string, BadgeState][] = [];
					for (const [path, badge] of Object.entries(answer.badges)) entries.push([path, { kind: "ready", badge }]);
					for (const [path, error] of Object.entries(answer.errors)) entries.push([path, { kind: "unavailable", message: error.message }]);
					this.store.setMany(entries);
					return;
				} catch (error) {
					if (!isNotServed(error)) throw error;
					// An older sidecar: one path per request from now on.
					this.batchRoute = false;
					for (const path of paths) this.pending.add(path);
					return;
				}
			}
			const [path] = paths;
			try {
				this.store.set(path, { kind: "ready", badge: await this.client.badge(path) });
			} catch (error) {
				if (error instanceof SidecarOfflineError) throw error;
				this.store.set(path, { kind: "unavailable", message: error instanceof Error ? error.message : String(error) });
			}
		} catch (error) {
			if (error instanceof SidecarOfflineError) {
				// Offline or too slow: forget the queue; what is on screen is asked again when the sidecar is back.
				this.pending.clear();
				this.store.setMany(paths.map((path): [string, BadgeState] => [path, offlineState(this.store.get(path))]));
				return;
			}
			this.store.setMany(
				paths.map((path): [string, BadgeState] => [path, { kind: "unavailable", message: error instanceof Error ? error.message : String(error) }]),
			);
		}
	}

	private settleIdle(): void {
		if (this.pending.size > 0 || this.inFlight > 0 || this.timer !== null) return;
		const waiters = this.idleWaiters.splice(0);
		for (const resolve of waiters) resolve();
	}
}

/**
 * The CodeMirror 6 extension (live preview and source mode): a panel above
 * the note with its badge. It redraws only when its note's badge changes,
 * not on every editor update, and watches the note it shows.
 */
export function badgeEditorExtension(
	store: BadgeStore,
	onClick: (path: string) => void,
	scope: () => BadgeScope = () => "all",
): Extension {
	return showPanel.of((view: EditorView): Panel => {
		const dom = createDiv({ cls: "kh-editor-badge" });
		const badgeEl = dom.createDiv({ cls: "kh-badge mod-clickable" });
		let current: string | undefined;
		let unwatch: (() => void) | null = null;
		const pathOf = (): string | undefined => view.state.field(editorInfoField, false)?.file?.path;
		const follow = () => {
			const path = pathOf();
			if (path === current) return;
			unwatch?.();
			current = path;
			unwatch = path ? store.watch(path) : null;
		};
		const draw = () => {
			drawIfChanged(badgeEl, modelForState(store.get(current), scope()));
		};
		const activate = () => {
			if (current) onClick(current);
		};
		badgeEl.addEventListener("click", activate);
		const offKeys = activateOnKeys(badgeEl, activate);
		const unsubscribe = store.subscribe((changed) => {
			if (current && changed.has(current)) draw();
		});
		follow();
		draw();
		return {
			dom,
			top: true,
			update: (_update: ViewUpdate) => {
				const before = current;
				follow();
				if (current !== before) draw();
			},
			destroy: () => {
				unsubscribe();
				unwatch?.();
				offKeys();
				badgeEl.removeEventListener("click", activate);
			},
		};
	});
}

/** Reading view: a badge above the first section of the note, kept up to date while it is shown. */
export class ReadingBadge extends MarkdownRenderChild {
	private unsubscribe: (() => void) | null = null;
	private unwatch: (() => void) | null = null;
	private readonly badgeEl: HTMLElement;

	constructor(
		containerEl: HTMLElement,
		private readonly store: BadgeStore,
		private readonly path: string,
		onClick: (path: string) => void,
		private readonly scope: () => BadgeScope = () => "all",
	) {
		super(containerEl);
		this.badgeEl = containerEl.createDiv({ cls: "kh-badge kh-reading-badge mod-clickable" });
		containerEl.prepend(this.badgeEl);
		this.registerDomEvent(this.badgeEl, "click", () => onClick(this.path));
		this.register(activateOnKeys(this.badgeEl, () => onClick(this.path)));
	}

	override onload(): void {
		this.unwatch = this.store.watch(this.path);
		this.unsubscribe = this.store.subscribe((changed) => {
			if (changed.has(this.path)) this.draw();
		});
		this.draw();
	}

	override onunload(): void {
		this.unsubscribe?.();
		this.unwatch?.();
		this.badgeEl.remove();
	}

	private draw(): void {
		drawIfChanged(this.badgeEl, modelForState(this.store.get(this.path), this.scope()));
	}
}

export function readingBadgePostProcessor(store: BadgeStore, onClick: (path: string) => void, scope: () => BadgeScope = () => "all") {
	return (el: HTMLElement, ctx: MarkdownPostProcessorContext): void => {
		const info = ctx.getSectionInfo(el);
		if (!info || info.lineStart !== 0 || !ctx.sourcePath) return;
		ctx.addChild(new ReadingBadge(el, store, ctx.sourcePath, onClick, scope));
	};
}
