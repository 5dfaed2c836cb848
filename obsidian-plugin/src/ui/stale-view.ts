import { ItemView, type WorkspaceLeaf } from "obsidian";
import type { AuditReport, StaleReport, Trigger } from "../api/types";
import { TRIGGERS, WINDOWS } from "../api/types";
import { t } from "../i18n";
import { daysLabel, statusLabel, triggerLabel, windowLabel } from "../trust/badge";
import { activateOnKeys } from "./badges";
import { describeFailure } from "./errors";
import type { HarnessHost } from "./host";

export const STALE_VIEW_TYPE = "kh-stale-list";

export interface StaleData {
	stale: StaleReport;
	audit: AuditReport;
}

/** Stale notes grouped by trigger (a note with two triggers is listed under both). */
export function groupByTrigger(report: StaleReport): Map<Trigger, StaleReport["stale"]> {
	const groups = new Map<Trigger, StaleReport["stale"]>();
	for (const trigger of TRIGGERS) groups.set(trigger, []);
	for (const item of report.stale) {
		for (const trigger of item.triggers) groups.get(trigger)?.push(item);
	}
	return groups;
}

/**
 * The stale list (right sidebar): the Stage F windows, stale notes by
 * trigger, disputed notes, metadata errors; click to open; tick notes and
 * plan a batch from them.
 */
export class StaleListView extends ItemView {
	readonly selected = new Set<string>();
	data: StaleData | null = null;

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
		// A new shared audit (after a write, a rename, the sidecar coming back) refreshes the list.
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
		const el = this.contentEl;
		el.empty();
		el.addClass("kh-view");
		el.createDiv({ cls: "kh-muted", text: t("common.loading") });
		try {
			const audits = this.host.audits;
			const [stale, audit] = await Promise.all([this.host.client.stale(), fresh ? audits.fetch() : audits.audit()]);
			this.show({ stale, audit });
		} catch (error) {
			el.empty();
			el.createDiv({ cls: "kh-error", text: describeFailure(error) });
		}
	}

	private async refreshWith(audit: AuditReport): Promise<void> {
		try {
			this.show({ stale: await this.host.client.stale(), audit });
		} catch (error) {
			const el = this.contentEl;
			el.empty();
			el.createDiv({ cls: "kh-error", text: describeFailure(error) });
		}
	}

	show(data: StaleData): void {
		this.data = data;
		const el = this.contentEl;
		el.empty();
		el.addClass("kh-view");
		el.createDiv({ cls: "kh-muted", text: t("stale.asOf", { date: data.stale.today }) });

		const toolbar = el.createDiv({ cls: "kh-toolbar" });
		const planButton = toolbar.createEl("button", { cls: "mod-cta", text: t("stale.plan", { count: 0 }) });
		planButton.disabled = true;
		const syncButton = () => {
			planButton.setText(t("stale.plan", { count: this.selected.size }));
			planButton.disabled = this.selected.size === 0;
		};
		planButton.addEventListener("click", () => void this.host.planBatch("progressive", Array.from(this.selected)));

		const candidates = this.host.candidates;
		const item = (list: HTMLElement, path: string, detail: string, selectable: boolean, reason?: string) => {
			const li = list.createEl("li", { cls: "kh-list-item" });
			const isNew = reason !== undefined && candidates.latest() !== null && candidates.isCandidate({ path, reason }) && candidates.isNew({ path, reason });
			if (selectable) {
				const box = li.createEl("input", { attr: { type: "checkbox", "aria-label": path } });
				box.checked = this.selected.has(path);
				box.addEventListener("change", () => {
					if (box.checked) this.selected.add(path);
					else this.selected.delete(path);
					syncButton();
				});
			}
			const link = li.createEl("a", { cls: "kh-note-link", text: path, attr: { role: "link", tabindex: "0" } });
			const open = () => void this.host.openNote(path);
			link.addEventListener("click", open);
			activateOnKeys(link, open);
			if (detail) li.createSpan({ cls: "kh-muted", text: ` ${detail}` });
			if (isNew) li.createSpan({ cls: "kh-new", text: t("candidates.new") });
		};
		const section = (title: string, count: number, cls: string): HTMLElement => {
			const box = el.createDiv({ cls: `kh-section ${cls}` });
			const head = box.createDiv({ cls: "kh-section-head" });
			head.createSpan({ text: title });
			head.createSpan({ cls: "kh-count", text: String(count) });
			return box.createEl("ul", { cls: "kh-list" });
		};

		for (const window of WINDOWS) {
			const rows = data.stale.windows[window] ?? [];
			const list = section(windowLabel(window), rows.length, `kh-window-${window}`);
			for (const row of rows) item(list, row.path, `${row.revalidate_after} · ${daysLabel(row.days_left)}`, true, window);
		}
		const never = (candidates.latest()?.candidates ?? []).filter((c) => c.reason === "never_validated");
		const neverList = section(t("stale.neverValidated"), never.length, "kh-never-validated");
		for (const row of never) item(neverList, row.path, "", true, row.reason);
		for (const [trigger, rows] of groupByTrigger(data.stale)) {
			const list = section(t("stale.byTrigger", { trigger: triggerLabel(trigger) }), rows.length, `kh-trigger-${trigger}`);
			for (const row of rows) item(list, row.path, `L${row.level} · ${statusLabel(row.status)}`, true, "stale");
		}
		const disputed = section(t("stale.disputed"), data.audit.disputed.length, "kh-disputed");
		for (const path of data.audit.disputed) item(disputed, path, "", false);
		const errors = section(t("stale.errors"), data.audit.errors.length, "kh-errors");
		for (const error of data.audit.errors) item(errors, error.path, t("details.findingLine", { line: error.line ?? "?", message: error.message }), false);
		syncButton();
	}
}
