import type { NoteDetail } from "../api/client";
import type { Badge } from "../api/types";
import { t, localDateTime } from "../i18n";
import { badgeModel, daysLabel, statusLabel, triggerLabel, windowLabel } from "../trust/badge";
import { blocksFromProperties } from "../trust/blocks";
import { renderBadge } from "./badges";
import { codeLabel } from "./errors";
import type { HarnessHost } from "./host";
import { NoteLoadModal } from "./note-modal";
import { renderBadgeProof } from "./quotes";
import { quotesOf } from "../trust/proof";
import { ValidateModal } from "./validate-modal";

function row(table: HTMLElement, label: string, value: string): void {
	const tr = table.createEl("tr");
	tr.createEl("th", { text: label });
	tr.createEl("td", { text: value });
}

/** Renders a note's trust details: the badge's facts, metadata findings, evidence sources, validator, run id. */
export function renderDetails(parent: HTMLElement, badge: Badge, note: NoteDetail | null): void {
	renderBadge(parent.createDiv(), badgeModel(badge));
	const table = parent.createEl("table", { cls: "kh-facts" });
	row(table, t("details.level"), `L${badge.level} — ${badge.level_name}`);
	row(table, t("details.status"), statusLabel(badge.status));
	row(table, t("details.fresh"), badge.fresh ? t("details.yes") : t("details.no"));
	row(table, t("details.triggers"), badge.triggers.length ? badge.triggers.map(triggerLabel).join(", ") : "—");
	row(table, t("details.revalidateAfter"), badge.revalidate_after ?? "—");
	row(table, t("details.daysLeft"), badge.days_left === null ? "—" : daysLabel(badge.days_left));
	row(table, t("details.window"), windowLabel(badge.window) || "—");
	row(table, t("details.validator"), badge.validator ?? "—");
	row(table, t("details.lastValidated"), badge.last_validated ?? "—");
	row(table, t("details.evidenceStatus"), badge.evidence_status ?? "—");
	const blocks = blocksFromProperties(note?.properties);
	const runId = blocks.verification?.run_id;
	row(table, t("details.runId"), typeof runId === "string" ? runId : "—");

	const findings = badge.findings ?? [];
	if (findings.length > 0 || badge.error) {
		parent.createEl("h3", { text: t("details.metadataFindings") });
		const list = parent.createEl("ul", { cls: "kh-findings" });
		for (const finding of findings.length > 0 ? findings : badge.error ? [badge.error] : []) {
			list.createEl("li", { cls: "kh-error", text: t("details.findingLine", { line: finding.line ?? "?", message: finding.message }) });
		}
	}

	parent.createEl("h3", { text: t("proof.heading") });
	renderBadgeProof(parent, quotesOf(badge));

	parent.createEl("h3", { text: t("details.sources") });
	const sources = Array.isArray(blocks.evidence?.sources) ? (blocks.evidence.sources as Record<string, unknown>[]) : [];
	if (sources.length === 0) {
		parent.createEl("p", { cls: "kh-muted", text: t("details.noSources") });
	} else {
		const list = parent.createEl("ul", { cls: "kh-sources" });
		for (const source of sources) {
			const item = list.createEl("li");
			item.createSpan({ cls: "kh-source-url", text: typeof source.url === "string" ? source.url : "" });
			const parts = [
				typeof source.verdict === "string" ? codeLabel(source.verdict) : "",
				typeof source.fetched_at === "string" ? t("details.snapshotAt", { date: localDateTime(source.fetched_at) }) : "",
				typeof source.snapshot_sha256 === "string" ? source.snapshot_sha256.slice(0, 12) : "",
			].filter((part) => part.length > 0);
			item.createSpan({ cls: "kh-muted", text: ` — ${parts.join(" · ")}` });
		}
	}
}

/** A click on a badge: the details, and a button for the claims and findings of a dry run. */
export class BadgeDetailsModal extends NoteLoadModal {
	constructor(host: HarnessHost, path: string) {
		super(host, path, "details.title");
	}

	protected override async render(): Promise<void> {
		const [badge, note] = await Promise.all([
			this.host.client.badge(this.path),
			this.host.client.getNote(this.path).catch(() => null),
		]);
		this.contentEl.empty();
		renderDetails(this.contentEl, badge, note);
		const actions = this.contentEl.createDiv({ cls: "kh-actions" });
		const validate = actions.createEl("button", { text: t("details.validate") });
		validate.addEventListener("click", () => {
			this.close();
			new ValidateModal(this.host, this.path).open();
		});
	}
}
