import { Modal, Notice } from "obsidian";
import { SidecarError } from "../api/client";
import type { AuditReport, CountedFigures, InitApplied, InitReport } from "../api/types";
import { t } from "../i18n";
import { describeFailure } from "./errors";
import type { HarnessHost } from "./host";

/** The dashboard would show zeros: no Keyword note, or none that can be checked against evidence. */
export function needsOnboarding(audit: Pick<AuditReport, "raw" | "evidence_capable">): boolean {
	return audit.raw === 0 || audit.evidence_capable === 0;
}

/** True when writing the proposal would change which notes count. */
export function hasProposal(report: InitReport): boolean {
	return JSON.stringify(sortKeys(report.proposed_rule)) !== JSON.stringify(sortKeys(report.current_rule));
}

function sortKeys(value: Record<string, unknown>): [string, unknown][] {
	return Object.entries(value).sort(([a], [b]) => a.localeCompare(b));
}

function figures(counted: CountedFigures): string {
	return t("init.figures", { raw: counted.raw, capable: counted.evidence_capable, fresh: counted.fresh_l2 });
}

/**
 * The report `kh init VAULT` prints, in the interface's language (built from the
 * report's figures, not from the sidecar's English sentences), with a button that
 * opens the confirmation before anything is written.
 */
export function renderInitReport(parent: HTMLElement, report: InitReport, onApply: () => void): HTMLElement {
	const box = parent.createDiv({ cls: "kh-onboarding" });
	box.createEl("h4", { text: t("init.title") });
	box.createEl("p", { text: t("init.intro") });

	const table = box.createEl("table", { cls: "kh-facts kh-init-figures" });
	const row = (name: string, value: string) => {
		const tr = table.createEl("tr");
		tr.createEl("th", { text: name });
		tr.createEl("td", { text: value });
	};
	row(t("init.notes"), String(report.notes));
	row(
		t("init.byFolder"),
		Object.entries(report.by_folder)
			.map(([folder, count]) => `${folder} ${count}`)
			.join(", "),
	);
	const tags = Object.entries(report.by_tag);
	if (tags.length > 0) row(t("init.byTag"), tags.map(([tag, count]) => `#${tag} ${count}`).join(", "));
	row(t("init.withProvenance"), String(report.with_provenance));
	row(t("init.recognized"), String(report.with_recognized_sources));
	row(t("init.unrecognized"), String(report.with_unrecognized_urls));

	if (report.unrecognized_examples.length > 0) {
		const list = box.createEl("ul", { cls: "kh-init-examples" });
		for (const example of report.unrecognized_examples) {
			const li = list.createEl("li");
			li.createEl("code", { text: example.path });
			li.createSpan({ text: ` — ${t("init.unrecognizedReason")}: ` });
			li.createSpan({ cls: "kh-muted", text: example.example_url });
		}
		box.createEl("p", { cls: "kh-muted", text: t("init.unrecognizedHint") });
	}

	const counts = box.createEl("table", { cls: "kh-facts kh-init-counts" });
	for (const [name, counted] of [
		[t("init.countedNow"), report.counted_now],
		[t("init.countedWithRule"), report.counted_with_proposal],
	] as const) {
		const tr = counts.createEl("tr");
		tr.createEl("th", { text: name });
		tr.createEl("td", { text: figures(counted) });
	}

	if (hasProposal(report)) {
		box.createDiv({ cls: "kh-muted", text: t("init.proposed") });
		box.createEl("pre", { cls: "kh-init-toml", text: report.proposed_toml });
		const actions = box.createDiv({ cls: "kh-actions" });
		const apply = actions.createEl("button", { cls: "mod-cta kh-init-apply", text: t("init.apply") });
		apply.addEventListener("click", onApply);
	} else {
		box.createEl("p", { cls: "kh-muted kh-init-none", text: t("init.noProposal") });
	}
	return box;
}

/**
 * The confirmation before `.harness/policy.toml` is written: the rule, what
 * happens to an existing policy, and (for one) a box the person must tick.
 * Nothing is sent until the person presses the button.
 */
export class InitPolicyModal extends Modal {
	result: InitApplied | null = null;
	writeButton: HTMLButtonElement | null = null;
	forceBox: HTMLInputElement | null = null;
	messageEl: HTMLElement | null = null;
	private forceHolder: HTMLElement | null = null;

	constructor(
		private readonly host: HarnessHost,
		private readonly report: InitReport,
		/** Called when the proposal changed under the person: the report must be shown again. */
		private readonly onChanged: () => void,
	) {
		super(host.app);
	}

	override onOpen(): void {
		this.setTitle(t("init.confirm.title"));
		const el = this.contentEl;
		el.empty();
		const existing = this.report.policy_exists;
		el.createEl("p", { text: existing ? t("init.confirm.existing") : t("init.confirm.new") });
		el.createEl("pre", { cls: "kh-init-toml", text: this.report.proposed_toml });
		el.createEl("p", { cls: "kh-muted", text: `${t("init.countedWithRule")}: ${figures(this.report.counted_with_proposal)}` });
		this.forceHolder = el.createDiv();
		if (existing) this.addForceBox();
		this.messageEl = el.createDiv({ cls: "kh-error" });
		const actions = el.createDiv({ cls: "kh-actions" });
		actions.createEl("button", { text: t("init.confirm.cancel") }).addEventListener("click", () => this.close());
		const write = actions.createEl("button", { cls: "mod-cta kh-init-write", text: t("init.confirm.write") });
		write.disabled = existing;
		write.addEventListener("click", () => void this.write());
		this.writeButton = write;
	}

	private addForceBox(): void {
		if (this.forceBox || !this.forceHolder) return;
		const label = this.forceHolder.createEl("label", { cls: "kh-init-force" });
		const box = label.createEl("input", { attr: { type: "checkbox" } });
		label.createSpan({ text: ` ${t("init.confirm.force")}` });
		box.addEventListener("change", () => {
			if (this.writeButton) this.writeButton.disabled = !box.checked;
		});
		this.forceBox = box;
	}

	async write(): Promise<void> {
		const force = this.forceBox?.checked ?? false;
		if (this.forceBox && !force) return;
		if (this.writeButton) this.writeButton.disabled = true;
		try {
			const applied = await this.host.client.writeInitPolicy(this.report.proposed_toml, force);
			this.result = applied;
			const counted = applied.report.counted_with_proposal;
			new Notice(applied.written ? t("init.written", { raw: counted.raw, capable: counted.evidence_capable }) : t("init.unchanged"));
			this.close();
			// The shared audit follows the new policy: the dashboard shows the figures it now counts.
			this.host.afterWrite();
		} catch (error) {
			this.messageEl?.setText(this.refusal(error));
			if (error instanceof SidecarError && error.code === "precondition_failed") {
				// The confirmed rule is no longer the proposal: the person must look again.
				this.close();
				this.onChanged();
				new Notice(t("init.changed"));
				return;
			}
			if (error instanceof SidecarError && error.code === "refused") {
				// A policy appeared since the report: replacing its [keywords] table needs the box ticked.
				this.addForceBox();
				return;
			}
			if (this.writeButton) this.writeButton.disabled = false;
		}
	}

	private refusal(error: unknown): string {
		if (error instanceof SidecarError && error.code === "refused") return t("init.exists");
		return describeFailure(error);
	}
}
