import { ItemView, type WorkspaceLeaf } from "obsidian";
import type { AuditReport, AuditTrendPoint, InitReport } from "../api/types";
import { type MessageKey, t } from "../i18n";
import { describeFailure, isNotServed } from "./errors";
import { renderGauge, renderTrend } from "./gauge";
import type { HarnessHost } from "./host";
import { InitPolicyModal, needsOnboarding, renderInitReport } from "./onboarding";

export const DASHBOARD_VIEW_TYPE = "kh-dashboard";

export interface DashboardData {
	audit: AuditReport;
	/** null: the sidecar keeps no audit history (or does not serve it). */
	trend: AuditTrendPoint[] | null;
	/** The `kh init` report, asked for only when the audit counts nothing (null otherwise, or when it failed). */
	init?: InitReport | null;
}

/** Every term the dashboard uses, with its explanation (shown as a tooltip and in the legend). */
export const DASHBOARD_TERMS: readonly [MessageKey, MessageKey][] = [
	["dashboard.raw", "dashboard.raw.desc"],
	["dashboard.evidenceCapable", "dashboard.evidenceCapable.desc"],
	["dashboard.freshL2", "dashboard.freshL2.desc"],
	["dashboard.coverage", "dashboard.coverage.desc"],
	["dashboard.surplus", "dashboard.surplus.desc"],
];
export const LEVEL_TERMS: readonly MessageKey[] = ["level.L0", "level.L1", "level.L2", "level.L3"];

/** The coverage dashboard: the audit's figures, a gauge against the threshold, the trend, and a legend of its terms. */
export class DashboardView extends ItemView {
	data: DashboardData | null = null;

	constructor(
		leaf: WorkspaceLeaf,
		private readonly host: HarnessHost,
	) {
		super(leaf);
	}

	override getViewType(): string {
		return DASHBOARD_VIEW_TYPE;
	}

	override getDisplayText(): string {
		return t("dashboard.title");
	}

	override getIcon(): string {
		return "gauge";
	}

	override async onOpen(): Promise<void> {
		this.addAction("refresh-cw", t("common.refresh"), () => void this.refresh(false, true));
		// The shared audit: whoever asked for it (a write, the audit command, the sidecar coming back), this view shows it.
		this.register(this.host.audits.subscribe((audit) => void this.showAudit(audit)));
		await this.refresh();
	}

	/** Shows the shared audit (`record`: record a new one; `fresh`: ask for a new one). */
	async refresh(record = false, fresh = false): Promise<void> {
		const el = this.contentEl;
		el.empty();
		el.createDiv({ cls: "kh-muted", text: t("common.loading") });
		try {
			const audits = this.host.audits;
			const audit = record || fresh ? await audits.fetch({ record }) : await audits.audit();
			await this.showAudit(audit);
		} catch (error) {
			el.empty();
			el.createDiv({ cls: "kh-error", text: describeFailure(error) });
		}
	}

	private async showAudit(audit: AuditReport): Promise<void> {
		let trend: AuditTrendPoint[] | null = null;
		try {
			trend = (await this.host.client.auditTrend()).audits;
		} catch (error) {
			if (!isNotServed(error)) trend = this.data?.trend ?? null;
		}
		let init: InitReport | null = null;
		if (needsOnboarding(audit)) {
			try {
				init = await this.host.client.initReport();
			} catch {
				// An older sidecar (or a failure): the figures alone, as before.
				init = null;
			}
		}
		this.show({ audit, trend, init });
	}

	/** The confirmation before the proposed rule is written; afterwards the shared audit refreshes this view. */
	openInitConfirmation(report: InitReport): InitPolicyModal {
		const modal = new InitPolicyModal(this.host, report, () => void this.refresh(false, true));
		modal.open();
		return modal;
	}

	show(data: DashboardData): void {
		this.data = data;
		const { audit } = data;
		const el = this.contentEl;
		el.empty();
		el.addClass("kh-view");
		el.createDiv({ cls: "kh-muted", text: t("dashboard.asOf", { date: audit.today }) });
		const init = data.init;
		if (init && needsOnboarding(audit)) {
			// Zeros explain nothing: show why nothing counts and what would (as `kh init` does).
			renderInitReport(el, init, () => this.openInitConfirmation(init));
			renderLegend(el);
			return;
		}
		const label = t("dashboard.gaugeLabel", {
			coverage: (audit.coverage * 100).toFixed(1),
			threshold: (audit.threshold * 100).toFixed(0),
		});
		renderGauge(el.createDiv({ cls: "kh-gauge-box" }), { coverage: audit.coverage, threshold: audit.threshold }, label);

		const table = el.createEl("table", { cls: "kh-facts kh-audit-figures" });
		const rows: [string, MessageKey, string, boolean][] = [
			[t("dashboard.raw"), "dashboard.raw.desc", String(audit.raw), false],
			[t("dashboard.evidenceCapable"), "dashboard.evidenceCapable.desc", String(audit.evidence_capable), false],
			[t("dashboard.freshL2"), "dashboard.freshL2.desc", String(audit.fresh_l2), false],
			...notCountedRow(audit),
			[t("dashboard.coverage"), "dashboard.coverage.desc", `${(audit.coverage * 100).toFixed(2)}%`, false],
			[t("dashboard.threshold", { percent: (audit.threshold * 100).toFixed(0) }), "dashboard.threshold.desc", String(audit.threshold_count), false],
			[t("dashboard.surplus"), "dashboard.surplus.desc", String(audit.surplus), audit.surplus < 0],
		];
		for (const [name, desc, value, negative] of rows) {
			const tr = table.createEl("tr");
			tr.createEl("th", { text: name, attr: { "aria-label": t(desc), "data-tooltip-position": "top", tabindex: "0" } });
			tr.createEl("td", { text: value, cls: negative ? "kh-negative" : "" });
		}

		el.createEl("h4", { text: t("dashboard.trend") });
		if (data.trend === null) {
			el.createDiv({ cls: "kh-muted", text: t("dashboard.noTrend") });
		} else if (data.trend.length === 0) {
			el.createDiv({ cls: "kh-muted", text: t("dashboard.emptyTrend") });
		} else {
			renderTrend(el.createDiv(), data.trend, audit.threshold, t("dashboard.trend"));
		}

		const actions = el.createDiv({ cls: "kh-actions" });
		const recordButton = actions.createEl("button", { text: t("dashboard.record") });
		recordButton.addEventListener("click", () => void this.refresh(true));

		renderLegend(el);
	}
}

/** The legend: what each figure means and what the trust levels are. */
export function renderLegend(parent: HTMLElement): HTMLElement {
	const legend = parent.createEl("details", { cls: "kh-legend" });
	legend.createEl("summary", { text: t("dashboard.legend") });
	const terms = legend.createEl("dl");
	for (const [term, desc] of DASHBOARD_TERMS) {
		terms.createEl("dt", { text: t(term) });
		terms.createEl("dd", { text: t(desc) });
	}
	const levels = legend.createEl("ul", { cls: "kh-levels" });
	for (const level of LEVEL_TERMS) levels.createEl("li", { text: t(level) });
	return legend;
}

/** The dashboard's row of notes whose written level counts as L0 (shown only when there are some). */
function notCountedRow(audit: AuditReport): [string, MessageKey, string, boolean][] {
	const count = (audit.provisional ?? []).length + (audit.unrecorded ?? []).length;
	return count > 0 ? [[t("dashboard.notCounted"), "dashboard.notCounted.desc", String(count), true]] : [];
}
