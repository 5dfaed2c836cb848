import type { Extension } from "@codemirror/state";
import { type EditorView, type Panel, showPanel } from "@codemirror/view";
import { editorInfoField, MarkdownRenderChild, type MarkdownPostProcessorContext } from "obsidian";
import { SidecarOfflineError, type SidecarClient } from "../api/client";
import type { Badge } from "../api/types";
import { type BadgeModel, badgeModel, BADGE_TONES, offlineBadgeModel } from "../trust/badge";

export type BadgeState =
	| { kind: "ready"; badge: Badge }
	| { kind: "offline" }
	| { kind: "unavailable"; message: string };

/** The badges of the notes seen so far, by vault path; views subscribe to changes. */
export class BadgeStore {
	private readonly states = new Map<string, BadgeState>();
	private readonly listeners = new Set<() => void>();

	get(path: string | null | undefined): BadgeState | undefined {
		return path ? this.states.get(path) : undefined;
	}

	set(path: string, state: BadgeState): void {
		this.states.set(path, state);
		for (const listener of Array.from(this.listeners)) listener();
	}

	paths(): string[] {
		return Array.from(this.states.keys());
	}

	subscribe(listener: () => void): () => void {
		this.listeners.add(listener);
		return () => {
			this.listeners.delete(listener);
		};
	}
}

/** The model to draw for a state; null draws nothing (no answer yet, or not a note the sidecar knows). */
export function modelForState(state: BadgeState | undefined): BadgeModel | null {
	if (!state) return null;
	if (state.kind === "offline") return offlineBadgeModel();
	if (state.kind === "unavailable") return null;
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
		return;
	}
	el.addClass(model.cls);
	el.createSpan({ cls: "kh-badge-dot" });
	el.createSpan({ cls: "kh-badge-text", text: model.text });
	el.setAttr("aria-label", model.tooltip);
	el.setAttr("data-tooltip-position", "top");
}

const MARKDOWN = /\.md$/i;

/**
 * Asks the sidecar for badges: at once on file-open, debounced on metadata
 * changes, and for every known note after runs. An offline sidecar gives the
 * neutral offline badge and never a notice.
 */
export class BadgeController {
	private readonly timers = new Map<string, number>();

	constructor(
		private readonly client: SidecarClient,
		readonly store: BadgeStore,
		private readonly debounceMs = 800,
	) {}

	async refresh(path: string | null | undefined): Promise<void> {
		if (!path || !MARKDOWN.test(path)) return;
		try {
			const badge = await this.client.badge(path);
			this.store.set(path, { kind: "ready", badge });
		} catch (error) {
			if (error instanceof SidecarOfflineError) this.store.set(path, { kind: "offline" });
			else this.store.set(path, { kind: "unavailable", message: error instanceof Error ? error.message : String(error) });
		}
	}

	refreshSoon(path: string | null | undefined): void {
		if (!path || !MARKDOWN.test(path)) return;
		const pending = this.timers.get(path);
		if (pending !== undefined) window.clearTimeout(pending);
		this.timers.set(
			path,
			window.setTimeout(() => {
				this.timers.delete(path);
				void this.refresh(path);
			}, this.debounceMs),
		);
	}

	async refreshAll(): Promise<void> {
		await Promise.all(this.store.paths().map((path) => this.refresh(path)));
	}

	dispose(): void {
		for (const timer of this.timers.values()) window.clearTimeout(timer);
		this.timers.clear();
	}
}

/**
 * The CodeMirror 6 extension (live preview and source mode): a panel above
 * the note with its badge, redrawn whenever the store changes.
 */
export function badgeEditorExtension(store: BadgeStore, onClick: (path: string) => void): Extension {
	return showPanel.of((view: EditorView): Panel => {
		const dom = createDiv({ cls: "kh-editor-badge" });
		const badgeEl = dom.createDiv({ cls: "kh-badge mod-clickable" });
		const path = (): string | undefined => view.state.field(editorInfoField, false)?.file?.path;
		const draw = () => renderBadge(badgeEl, modelForState(store.get(path())));
		const onClickEl = () => {
			const current = path();
			if (current) onClick(current);
		};
		badgeEl.addEventListener("click", onClickEl);
		const unsubscribe = store.subscribe(draw);
		draw();
		return {
			dom,
			top: true,
			update: draw,
			destroy: () => {
				unsubscribe();
				badgeEl.removeEventListener("click", onClickEl);
			},
		};
	});
}

/** Reading view: a badge above the first section of the note, kept up to date while it is shown. */
export class ReadingBadge extends MarkdownRenderChild {
	private unsubscribe: (() => void) | null = null;
	private readonly badgeEl: HTMLElement;

	constructor(
		containerEl: HTMLElement,
		private readonly store: BadgeStore,
		private readonly path: string,
		onClick: (path: string) => void,
	) {
		super(containerEl);
		this.badgeEl = containerEl.createDiv({ cls: "kh-badge kh-reading-badge mod-clickable" });
		containerEl.prepend(this.badgeEl);
		this.registerDomEvent(this.badgeEl, "click", () => onClick(this.path));
	}

	override onload(): void {
		this.unsubscribe = this.store.subscribe(() => this.draw());
		this.draw();
	}

	override onunload(): void {
		this.unsubscribe?.();
		this.badgeEl.remove();
	}

	private draw(): void {
		renderBadge(this.badgeEl, modelForState(this.store.get(this.path)));
	}
}

export function readingBadgePostProcessor(store: BadgeStore, onClick: (path: string) => void) {
	return (el: HTMLElement, ctx: MarkdownPostProcessorContext): void => {
		const info = ctx.getSectionInfo(el);
		if (!info || info.lineStart !== 0 || !ctx.sourcePath) return;
		ctx.addChild(new ReadingBadge(el, store, ctx.sourcePath, onClick));
	};
}
