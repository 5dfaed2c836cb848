import { MarkdownView, Modal, Setting, type TextComponent } from "obsidian";
import type { BatchPlan, BatchRunRecord, RunFileRecord, TrustBlocks } from "../api/types";
import { t, localDateTime } from "../i18n";
import { blocksFromProperties } from "../trust/blocks";
import { challengeMatches, expectedChallenge } from "../trust/challenge";
import { renderBlocksDiff } from "./blocks-view";
import { codeLabel, describeFailure } from "./errors";
import type { HarnessHost } from "./host";
import { judgeLabel, renderProof, sourceUrls } from "./quotes";

/** The per-file results of a run record. */
export function runFiles(record: BatchRunRecord): RunFileRecord[] {
	return record.files;
}

/** Renders a run record: run status (process integrity) and result status side by side, then each file. */
export function renderRunRecord(parent: HTMLElement, record: BatchRunRecord): void {
	const box = parent.createDiv({ cls: "kh-run-record" });
	const grid = box.createDiv({ cls: "kh-run-status-grid" });
	const process = grid.createDiv({ cls: "kh-run-status" });
	process.createDiv({ cls: "kh-muted", text: t("batch.runStatus") });
	process.createDiv({
		cls: `kh-pill ${record.run_status === "SUCCEEDED" ? "kh-verdict-ok" : "kh-verdict-bad"}`,
		text: codeLabel(record.run_status),
	});
	process.createDiv({ cls: "kh-muted", text: codeLabel(record.consumption) });
	const result = grid.createDiv({ cls: "kh-run-status" });
	result.createDiv({ cls: "kh-muted", text: t("batch.resultStatus") });
	const files = runFiles(record);
	const resultStatus = record.result ?? summariseResults(files);
	result.createDiv({ cls: `kh-pill ${resultStatus === "APPLIED" ? "kh-verdict-ok" : "kh-verdict-warn"}`, text: resultStatus.split(" / ").map(codeLabel).join(" / ") });
	box.createDiv({ cls: "kh-muted", text: t("batch.runId", { id: record.run_id }) });
	if (record.scope) box.createDiv({ cls: record.scope.ok ? "kh-muted" : "kh-error", text: record.scope.message });
	if (record.failure) {
		box.createDiv({ cls: "kh-error", text: record.failure_reason ? `${codeLabel(record.failure_reason)}: ${record.failure}` : record.failure });
	}

	const table = box.createEl("table", { cls: "kh-run-files" });
	const head = table.createEl("tr");
	head.createEl("th", { text: t("batch.file") });
	head.createEl("th", { text: t("batch.result") });
	head.createEl("th", { text: t("batch.reasons") });
	for (const file of files) {
		const tr = table.createEl("tr", { cls: `kh-result-${file.result.toLowerCase()}` });
		tr.createEl("td", { text: file.path });
		tr.createEl("td", { text: codeLabel(file.result) });
		tr.createEl("td", { text: file.reason ?? "—" });
	}
}

function summariseResults(files: RunFileRecord[]): string {
	if (files.length === 0) return "—";
	const kinds = new Set(files.map((file) => file.result));
	return kinds.size === 1 ? files[0].result : Array.from(kinds).sort().join(" / ");
}

/**
 * The typed-digest approval: the plan's targets with before/after of their
 * two blocks and findings, the digest, and an input. Approve is enabled only
 * when the input is exactly `APPROVE_PRODUCTION <digest>`.
 */
export class BatchApprovalModal extends Modal {
	approveButton: HTMLButtonElement | null = null;
	input: TextComponent | null = null;
	record: BatchRunRecord | null = null;
	private busy = false;

	constructor(
		private readonly host: HarnessHost,
		readonly plan: BatchPlan,
	) {
		super(host.app);
	}

	override onOpen(): void {
		this.setTitle(t("batch.title"));
		this.modalEl.addClass("kh-modal-wide");
		void this.render();
	}

	/** Open notes among the targets (whose unsaved edits are saved before approving). */
	openTargets(): MarkdownView[] {
		const targets = new Set(this.plan.targets.map((target) => target.path));
		const views: MarkdownView[] = [];
		this.app.workspace.iterateAllLeaves((leaf) => {
			const view = leaf.view;
			if (view instanceof MarkdownView && view.file && targets.has(view.file.path)) views.push(view);
		});
		return views;
	}

	private async currentBlocks(path: string): Promise<TrustBlocks | null> {
		try {
			return blocksFromProperties((await this.host.client.getNote(path)).properties);
		} catch {
			return null;
		}
	}

	async render(): Promise<void> {
		const el = this.contentEl;
		el.empty();
		const plan = this.plan;
		const head = el.createDiv({ cls: "kh-plan-head" });
		head.createDiv({ text: t("batch.summary", { count: plan.targets.length, stage: t(`stage.${plan.stage}`), expires: localDateTime(plan.expires_at) }) });
		head.createDiv({ cls: "kh-muted", text: t("batch.planId", { id: plan.plan_id }) });
		const digest = head.createDiv({ cls: "kh-digest" });
		digest.createSpan({ text: t("batch.digest") });
		digest.createEl("code", { text: plan.digest });

		const open = this.openTargets();
		if (open.length > 0) {
			el.createDiv({
				cls: "kh-callout kh-callout-warning",
				text: t("batch.openTargets", { count: open.length, paths: open.map((view) => view.file?.path ?? "").join(", ") }),
			});
		}

		// Every target at once: the blocks a plan does not carry are fetched in parallel and
		// filled in as they arrive, so the approval box below is there from the start.
		const fills: Promise<void>[] = [];
		for (const target of plan.targets) {
			const section = el.createEl("details", { cls: "kh-target" });
			section.open = plan.targets.length <= 3;
			section.createEl("summary", { text: target.path });
			section.createDiv({ cls: "kh-muted", text: t("batch.shaBefore", { sha: target.sha256_before.slice(0, 12) }) });
			const blocks = section.createDiv({ cls: "kh-target-blocks" });
			if (target.current.verification || target.current.evidence) {
				renderBlocksDiff(blocks, target.current, target.proposed);
			} else {
				blocks.createDiv({ cls: "kh-muted", text: t("common.loading") });
				fills.push(
					this.currentBlocks(target.path).then((before) => {
						blocks.empty();
						renderBlocksDiff(blocks, before, target.proposed);
					}),
				);
			}
			const findings = target.findings;
			if (findings.length > 0) {
				section.createDiv({ cls: "kh-muted kh-judged-by", text: t("proof.judgedBy", { judge: judgeLabel(target.validator) }) });
				const urls = sourceUrls(target.sources);
				const list = section.createEl("ul", { cls: "kh-findings" });
				for (const finding of findings) {
					const item = list.createEl("li", { cls: "kh-finding" });
					item.createSpan({ cls: "kh-pill", text: codeLabel(finding.verdict) });
					item.createSpan({ text: ` ${finding.text || finding.claim_id}` });
					renderProof(item, finding, urls);
				}
			}
		}

		el.createEl("p", { text: t("batch.typeToApprove", { challenge: expectedChallenge(plan.digest) }) });
		new Setting(el).setName(t("batch.challenge")).addText((text) => {
			this.input = text;
			text.setPlaceholder(expectedChallenge(plan.digest));
			text.inputEl.addClass("kh-challenge-input");
			text.inputEl.setAttr("spellcheck", "false");
			text.inputEl.setAttr("autocomplete", "off");
			text.onChange((value) => this.sync(value));
		});
		new Setting(el)
			.addButton((button) => {
				button.setButtonText(t("batch.cancel")).onClick(() => this.close());
			})
			.addButton((button) => {
				this.approveButton = button.buttonEl;
				button
					.setButtonText(t("batch.approve"))
					.setCta()
					.setDisabled(true)
					.onClick(() => this.approve());
			});
		this.resultEl = el.createDiv({ cls: "kh-run-result" });
		await Promise.all(fills);
	}

	private resultEl: HTMLElement | null = null;

	/** Enables Approve only for the exact challenge. */
	sync(value: string): void {
		const ok = challengeMatches(value, this.plan.digest);
		if (this.approveButton) this.approveButton.disabled = !ok || this.busy || this.record !== null;
		this.input?.inputEl.toggleClass("kh-input-valid", ok);
	}

	async approve(): Promise<void> {
		const value = this.input?.getValue() ?? "";
		if (!challengeMatches(value, this.plan.digest) || this.busy) return;
		this.busy = true;
		this.sync(value);
		const out = this.resultEl ?? this.contentEl;
		out.empty();
		try {
			const open = this.openTargets();
			for (const view of open) await view.save();
			if (open.length > 0) out.createDiv({ cls: "kh-muted", text: t("batch.saved", { count: open.length }) });
			out.createDiv({ cls: "kh-muted", text: t("batch.applying") });
			const record = await this.host.client.approveBatch(this.plan.plan_id, value);
			this.record = record;
			out.empty();
			renderRunRecord(out, record);
			if (record.consumption === "CONSUMED") this.host.planConsumed(this.plan.plan_id);
			this.host.afterWrite();
		} catch (error) {
			out.createDiv({ cls: "kh-error", text: describeFailure(error) });
		} finally {
			this.busy = false;
			this.sync(value);
		}
	}

	override onClose(): void {
		this.contentEl.empty();
	}
}
