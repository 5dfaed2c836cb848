import { ItemView, type WorkspaceLeaf } from "obsidian";
import type { AuditReport, AuditTrendPoint } from "../api/types";
import { t } from "../i18n";
import { describeFailure, isNotServed } from "./errors";
import { renderGauge, renderTrend } from "./gauge";
import type { HarnessHost } from "./host";

export const DASHBOARD_VIEW_TYPE = "kh-dashboard";

export interface DashboardData {
	audit: AuditReport;
	/** null: the sidecar keeps no audit history (or does not serve it). */
	trend: AuditTrendPoint[] | null;
}

/** The coverage dashboard: the audit's figures, a gauge against the threshold, and the trend when there is one. */
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
		this.addAction("refresh-cw", t("common.refresh"), () => void this.refresh());
		await this.refresh();
	}

	async refresh(record = false): Promise<void> {
		const el = this.contentEl;
		el.empty();
		el.createDiv({ cls: "kh-muted", text: t("common.loading") });
		try {
			const audit = await this.host.client.audit({ record });
			let trend: AuditTrendPoint[] | null = null;
			try {
				trend = (await this.host.client.auditTrend()).audits;
			} catch (error) {
				if (!isNotServed(error)) throw error;
			}
			this.show({ audit, trend });
		} catch (error) {
			el.empty();
			el.createDiv({ cls: "kh-error", text: describeFailure(error) });
		}
	}

	show(data: DashboardData): void {
		this.data = data;
		const { audit } = data;
		const el = this.contentEl;
		el.empty();
		el.addClass("kh-view");
		el.createDiv({ cls: "kh-muted", text: t("dashboard.asOf", { date: audit.today }) });
		const label = t("dashboard.gaugeLabel", {
			coverage: (audit.coverage * 100).toFixed(1),
			threshold: (audit.threshold * 100).toFixed(0),
		});
		renderGauge(el.createDiv({ cls: "kh-gauge-box" }), { coverage: audit.coverage, threshold: audit.threshold }, label);

		const table = el.createEl("table", { cls: "kh-facts kh-audit-figures" });
		const rows: [string, string][] = [
			[t("dashboard.raw"), String(audit.raw)],
			[t("dashboard.evidenceCapable"), String(audit.evidence_capable)],
			[t("dashboard.freshL2"), String(audit.fresh_l2)],
			[t("dashboard.coverage"), `${(audit.coverage * 100).toFixed(2)}%`],
			[t("dashboard.threshold", { percent: (audit.threshold * 100).toFixed(0) }), String(audit.threshold_count)],
			[t("dashboard.surplus"), String(audit.surplus)],
		];
		for (const [name, value] of rows) {
			const tr = table.createEl("tr");
			tr.createEl("th", { text: name });
			tr.createEl("td", { text: value, cls: name === t("dashboard.surplus") && audit.surplus < 0 ? "kh-negative" : "" });
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
	}
}
