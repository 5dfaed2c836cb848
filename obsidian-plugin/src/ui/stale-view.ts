import { ItemView, type WorkspaceLeaf } from "obsidian";
import type { AuditReport, BatchStage, Rollout, StaleReport } from "../api/types";
import { TRIGGERS } from "../api/types";
import { type MessageKey, t } from "../i18n";
import { daysLabel, statusLabel, triggerLabel, windowLabel } from "../trust/badge";
import {
	batchNotes,
	facets,
	type Filter,
	type GroupKey,
	type ListItem,
	listItems,
	matches,
	type StaleRow,
	staleRows,
	visibleRange,
} from "../trust/stale-rows";
import { activateOnKeys } from "./badges";
import { isNotServed, showFailure } from "./errors";
import type { HarnessHost } from "./host";
import { ProofModal } from "./proof-modal";

export const STALE_VIEW_TYPE = "kh-stale-list";

/** Every item (a group's head or a note's row) is this tall (styles.css: .kh-vitem). */
export const ITEM_HEIGHT = 30;
/** The scroller's height when the layout has not measured it yet (a hidden sidebar, tests). */
const FALLBACK_VIEWPORT = 900;
const OVERSCAN = 12;

export interface StaleData {
	stale: StaleReport;
	audit: AuditReport;
}

const GROUP_KEYS: Record<GroupKey, MessageKey> = {
	stale: "stale.group.stale",
	provisional: "stale.group.provisional",
	unrecorded: "stale.group.unrecorded",
	next_batch: "trust.window.next_batch",
	prepare: "trust.window.prepare",
	watch: "trust.window.watch",
	never: "stale.neverValidated",
	disputed: "stale.disputed",
	errors: "stale.errors",
};

interface Shell {
	asOf: HTMLElement;
	plan: HTMLButtonElement;
	selection: HTMLElement;
	trigger: HTMLSelectElement;
	folder: HTMLSelectElement;
	scroller: HTMLElement;
	canvas: HTMLElement;
	empty: HTMLElement;
}

/**
 * The stale list (right sidebar): one row per note with its triggers as chips,
 * in groups (stale, the three windows, waiting for a first validation,
 * disputed, metadata errors) that collapse; filters by trigger and folder;
 * select all / none; the main button plans the batch that can run now (canary
 * first, then pilot, then progressive). Only the rows in sight are in the DOM
 * (virtual scrolling), and a new audit updates the rows in place.
 */
export class StaleListView extends ItemView {
	readonly selected = new Set<string>();
	data: StaleData | null = null;
	/** The rollout stage the main button plans (null: an older sidecar, or not known yet). */
	rollout: Rollout | null = null;
	readonly filter: Filter = { trigger: "", folder: "" };
	readonly collapsed = new Set<GroupKey>();
	rows: StaleRow[] = [];
	items: ListItem[] = [];
	private shell: Shell | null = null;
	/** Rendered items by key, reused while what they show is unchanged. */
	private readonly drawn = new Map<string, { el: HTMLElement; signature: string }>();

	constructor(
		leaf: WorkspaceLeaf,
		private readonly host: HarnessHost,
	) {
		super(leaf);
	}

	override getViewType(): string {
		return STALE_VIEW_TYPE;
	}

	override getDisplayText(): string {
		return t("stale.title");
	}

	override getIcon(): string {
		return "clock-alert";
	}

	override async onOpen(): Promise<void> {
		this.addAction("refresh-cw", t("common.refresh"), () => {
			// The person asked for the list: what it shows is seen.
			void this.refresh(true).then(() => this.host.candidates.markSeen());
		});
		// A new shared audit (after a write, an edit, a rename, the sidecar coming back) updates the list.
		this.register(this.host.audits.subscribe((audit) => void this.refreshWith(audit)));
		// New candidates (or the person having seen them) change the "new" marks and the first-validation list.
		this.register(
			this.host.candidates.subscribe(() => {
				if (this.data) this.show(this.data);
			}),
		);
		await this.refresh();
	}

	/** Reads the stale list and the shared audit (`fresh`: ask for a new audit rather than the last one). */
	async refresh(fresh = false): Promise<void> {
		if (!this.shell) {
			const el = this.contentEl;
			el.empty();
			el.addClass("kh-view");
			el.createDiv({ cls: "kh-muted", text: t("common.loading") });
		}
		try {
			const audits = this.host.audits;
			const [stale, audit] = await Promise.all([this.host.client.stale(), fresh ? audits.fetch() : audits.audit()]);
			await this.readRollout();
			this.show({ stale, audit });
		} catch (error) {
			this.fail(error);
		}
	}

	private async refreshWith(audit: AuditReport): Promise<void> {
		try {
			const stale = await this.host.client.stale();
			await this.readRollout();
			this.show({ stale, audit });
		} catch (error) {
			this.fail(error);
		}
	}

	private async readRollout(): Promise<void> {
		try {
			this.rollout = await this.host.client.nextStage();
		} catch (error) {
			// An older sidecar does not say; the button then plans as before.
			if (!isNotServed(error)) throw error;
			this.rollout = null;
		}
	}

	private fail(error: unknown): void {
		this.shell = null;
		this.drawn.clear();
		showFailure(this.contentEl, error);
	}

	/** Shows `data`: builds the view once, then only the rows and counts change. */
	show(data: StaleData): void {
		this.data = data;
		const candidates = this.host.candidates.latest();
		const never = (candidates?.candidates ?? []).filter((c) => c.reason === "never_validated").map((c) => c.path);
		this.rows = staleRows(data.stale, data.audit, never);
		const present = new Set(this.rows.filter((row) => row.selectable).map((row) => row.path));
		for (const path of [...this.selected]) if (!present.has(path)) this.selected.delete(path);
		const shell = this.shell ?? this.build();
		shell.asOf.setText(t("stale.asOf", { date: data.stale.today }));
		this.fillFilters(shell);
		this.layout();
	}

	private build(): Shell {
		const el = this.contentEl;
		el.empty();
		el.addClass("kh-view", "kh-stale-view");
		const asOf = el.createDiv({ cls: "kh-muted" });
		const toolbar = el.createDiv({ cls: "kh-toolbar" });
		const plan = toolbar.createEl("button", { cls: "mod-cta kh-plan" });
		plan.addEventListener("click", () => this.plan());
		const all = toolbar.createEl("button", { cls: "kh-select-all", text: t("stale.selectAll") });
		all.addEventListener("click", () => this.selectShown(true));
		const none = toolbar.createEl("button", { cls: "kh-select-none", text: t("stale.selectNone") });
		none.addEventListener("click", () => this.selectShown(false));
		const selection = toolbar.createSpan({ cls: "kh-muted kh-selection" });

		const filters = el.createDiv({ cls: "kh-stale-filters" });
		const trigger = filters.createEl("select", { cls: "dropdown kh-filter-trigger", attr: { "aria-label": t("stale.filterTrigger") } });
		trigger.addEventListener("change", () => {
			this.filter.trigger = trigger.value;
			this.layout();
		});
		const folder = filters.createEl("select", { cls: "dropdown kh-filter-folder", attr: { "aria-label": t("stale.filterFolder") } });
		folder.addEventListener("change", () => {
			this.filter.folder = folder.value;
			this.layout();
		});

		const scroller = el.createDiv({ cls: "kh-stale-scroller", attr: { role: "list" } });
		const canvas = scroller.createDiv({ cls: "kh-stale-canvas" });
		const empty = el.createDiv({ cls: "kh-muted kh-stale-empty", text: t("stale.empty") });
		this.registerDomEvent(scroller, "scroll", () => this.drawWindow());
		this.shell = { asOf, plan, selection, trigger, folder, scroller, canvas, empty };
		return this.shell;
	}

	private fillFilters(shell: Shell): void {
		const { triggers, folders } = facets(this.rows);
		const fill = (select: HTMLSelectElement, allLabel: string, options: [string, string][], current: string) => {
			select.empty();
			select.createEl("option", { text: allLabel, attr: { value: "" } });
			for (const [value, label] of options) select.createEl("option", { text: label, attr: { value } });
			const still = current === "" || options.some(([value]) => value === current);
			select.value = still ? current : "";
			return select.value;
		};
		this.filter.trigger = fill(
			shell.trigger,
			t("stale.allTriggers"),
			TRIGGERS.filter((trigger) => triggers.has(trigger)).map((trigger) => [trigger, `${triggerLabel(trigger)} (${String(triggers.get(trigger))})`]),
			this.filter.trigger,
		);
		this.filter.folder = fill(
			shell.folder,
			t("stale.allFolders"),
			[...folders].map(([folder, count]) => [folder, `${folder === "" ? t("stale.rootFolder") : folder} (${String(count)})`]),
			this.filter.folder,
		);
	}

	/** Recomputes the items after a change of data, filter or collapsed groups, then draws what is in sight. */
	private layout(): void {
		const shell = this.shell;
		if (!shell) return;
		this.items = listItems(this.rows, this.filter, this.collapsed);
		shell.canvas.setCssProps({ height: `${String(this.items.length * ITEM_HEIGHT)}px` });
		shell.empty.toggleClass("kh-hidden", this.items.length > 0);
		this.drawWindow();
		this.syncToolbar();
	}

	/** Puts the items in sight (and a few around) into the DOM, reusing the ones already drawn. */
	drawWindow(): void {
		const shell = this.shell;
		if (!shell) return;
		const viewport = shell.scroller.clientHeight > 0 ? shell.scroller.clientHeight : FALLBACK_VIEWPORT;
		const [start, end] = visibleRange(shell.scroller.scrollTop, viewport, ITEM_HEIGHT, this.items.length, OVERSCAN);
		const keep = new Set<string>();
		for (let index = start; index < end; index++) {
			const item = this.items[index];
			if (!item) continue;
			const key = item.kind === "head" ? `head:${item.group}` : `row:${item.row.group}:${item.row.path}`;
			const signature = this.signature(item);
			let drawn = this.drawn.get(key);
			if (!drawn || drawn.signature !== signature) {
				drawn?.el.remove();
				const el = item.kind === "head" ? this.drawHead(item) : this.drawRow(item.row);
				drawn = { el, signature };
				this.drawn.set(key, drawn);
			}
			if (drawn.el.parentElement !== shell.canvas) shell.canvas.appendChild(drawn.el);
			drawn.el.setCssProps({ top: `${String(index * ITEM_HEIGHT)}px` });
			keep.add(key);
		}
		for (const [key, drawn] of this.drawn) {
			if (!keep.has(key)) {
				drawn.el.remove();
				this.drawn.delete(key);
			}
		}
	}

	private signature(item: ListItem): string {
		if (item.kind === "head") return `${String(item.count)}|${String(item.collapsed)}`;
		const row = item.row;
		const isNew = this.isNew(row);
		return JSON.stringify([row.triggers, row.window, row.detail, this.selected.has(row.path), isNew]);
	}

	private isNew(row: StaleRow): boolean {
		const candidates = this.host.candidates;
		if (row.reason === null || candidates.latest() === null) return false;
		const candidate = { path: row.path, reason: row.reason };
		return candidates.isCandidate(candidate) && candidates.isNew(candidate);
	}

	private drawHead(item: Extract<ListItem, { kind: "head" }>): HTMLElement {
		const head = createDiv({
			cls: `kh-vitem kh-group-head kh-group-${item.group}`,
			attr: { role: "button", tabindex: "0", "aria-expanded": item.collapsed ? "false" : "true" },
		});
		head.createSpan({ cls: "kh-chevron", text: item.collapsed ? "▸" : "▾" });
		head.createSpan({ cls: "kh-group-title", text: t(GROUP_KEYS[item.group]) });
		head.createSpan({ cls: "kh-count", text: String(item.count) });
		const toggle = () => {
			if (this.collapsed.has(item.group)) this.collapsed.delete(item.group);
			else this.collapsed.add(item.group);
			this.layout();
		};
		head.addEventListener("click", toggle);
		activateOnKeys(head, toggle);
		return head;
	}

	private drawRow(row: StaleRow): HTMLElement {
		const el = createDiv({ cls: `kh-vitem kh-row kh-row-${row.group}`, attr: { role: "listitem" } });
		if (row.selectable) {
			const box = el.createEl("input", { attr: { type: "checkbox", "aria-label": row.path } });
			box.checked = this.selected.has(row.path);
			box.addEventListener("change", () => {
				if (box.checked) this.selected.add(row.path);
				else this.selected.delete(row.path);
				this.drawWindow();
				this.syncToolbar();
			});
		}
		const link = el.createEl("a", { cls: "kh-note-link", text: row.path, attr: { role: "link", tabindex: "0", title: row.path } });
		const open = () => void this.host.openNote(row.path, row.detail.line ?? undefined);
		link.addEventListener("click", open);
		activateOnKeys(link, open);
		for (const trigger of row.triggers) el.createSpan({ cls: `kh-chip kh-chip-${trigger}`, text: triggerLabel(trigger) });
		if (row.window) el.createSpan({ cls: `kh-chip kh-chip-window`, text: windowLabel(row.window) });
		const detail = this.detailText(row);
		if (detail) el.createSpan({ cls: "kh-muted kh-row-detail", text: detail });
		if (this.isNew(row)) el.createSpan({ cls: "kh-new", text: t("candidates.new") });
		// a note validated once has claims to show; one never validated or unreadable has none
		if (row.group !== "errors" && row.group !== "never") this.proofButton(el, row.path);
		return el;
	}

	/** Opens the note's claims with their quotes and source links (read on demand, one request). */
	private proofButton(el: HTMLElement, path: string): void {
		const button = el.createEl("a", { cls: "kh-proof-open", text: "❝", attr: { role: "button", tabindex: "0", "aria-label": t("proof.open"), title: t("proof.open") } });
		const open = () => new ProofModal(this.host, path).open();
		button.addEventListener("click", open);
		activateOnKeys(button, open);
	}

	private detailText(row: StaleRow): string {
		const d = row.detail;
		const claims = d.claims ? ` · ${d.claims}` : "";
		if (row.group === "stale") return `L${String(d.level ?? "?")} · ${statusLabel(d.status ?? "")}${claims}`;
		if (row.group === "provisional") return d.message ?? "";
		if (row.group === "unrecorded") return `L${String(d.level ?? "?")} → L0 · ${d.message ?? ""}`;
		if (row.group === "errors") return t("details.findingLine", { line: d.line ?? "?", message: d.message ?? "" });
		if (d.revalidateAfter) return `${d.revalidateAfter} · ${daysLabel(d.daysLeft)}${claims}`;
		return "";
	}

	/** Select all / none among the notes the filters let through (collapsed groups included). */
	private selectShown(on: boolean): void {
		for (const row of this.rows) {
			if (!row.selectable || !matches(row, this.filter)) continue;
			if (on) this.selected.add(row.path);
			else this.selected.delete(row.path);
		}
		this.drawWindow();
		this.syncToolbar();
	}

	/** The selection in the list's order (what the batch takes first). */
	selection(): string[] {
		return this.rows.filter((row) => row.selectable && this.selected.has(row.path)).map((row) => row.path);
	}

	/** The stage the main button plans, and the notes it takes. */
	nextPlan(): { stage: BatchStage; notes: string[]; left: number } {
		const selection = this.selection();
		const rollout = this.rollout;
		if (!rollout) return { stage: "progressive", notes: selection, left: 0 };
		const stage = rollout.next_stage;
		return { stage, ...batchNotes(selection, rollout.limits[stage]) };
	}

	private syncToolbar(): void {
		const shell = this.shell;
		if (!shell) return;
		const next = this.nextPlan();
		const stage = t(`stage.${next.stage}`);
		const count = this.selected.size;
		shell.plan.setText(
			count === 0
				? t("stale.planStage", { stage })
				: next.left > 0
					? t("stale.planSome", { stage, count: next.notes.length, total: count })
					: t("stale.planSelected", { stage, count }),
		);
		shell.plan.setAttr("title", t(`stale.stageHint.${next.stage}`));
		// With nothing selected the sidecar chooses the stage's notes; a progressive batch without a rollout answer needs a selection.
		shell.plan.disabled = count === 0 && this.rollout === null;
		shell.selection.setText(t("stale.selected", { count }));
	}

	private plan(): void {
		const next = this.nextPlan();
		void this.host.planBatch(next.stage, next.notes.length > 0 ? next.notes : undefined);
	}
}
