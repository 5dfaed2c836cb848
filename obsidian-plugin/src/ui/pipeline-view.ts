import { ItemView, Modal, Setting, type WorkspaceLeaf } from "obsidian";
import type { DecisionChoice, PipelineRunDetail, PipelineRunStatus } from "../api/types";
import { DECISION_CHOICES } from "../api/types";
import { currentLocale, type MessageKey, t } from "../i18n";
import {
	agentRecords,
	DECISION_LABELS_JA,
	explainReasons,
	humanDecisionCount,
	waitsForAgent,
	waitsForAuthorization,
	waitsForDecision,
} from "../pipeline/model";
import { describeFailure } from "./errors";
import type { HarnessHost } from "./host";

export const PIPELINE_VIEW_TYPE = "kh-pipeline-run";

const CHOICE_HINTS: Record<DecisionChoice, MessageKey> = {
	approve: "review.hint.approve",
	revise: "review.hint.revise",
	reject: "review.hint.reject",
	policy: "review.hint.policy",
};

/** Renders a run: state, what it waits for, the human-decision count, and each operation's record. */
export function renderRun(parent: HTMLElement, status: PipelineRunDetail): void {
	const head = parent.createDiv({ cls: "kh-run-head" });
	head.createDiv({ cls: "kh-run-id", text: t("pipeline.run", { id: status.run_id }) });
	const facts = head.createDiv({ cls: "kh-run-facts" });
	facts.createSpan({ cls: "kh-pill", text: status.state });
	if (status.waiting_for) {
		const agent = waitsForAgent(status);
		facts.createSpan({
			cls: `kh-pill ${agent ? "kh-waiting-agent" : "kh-waiting-human"}`,
			text: t(agent ? "pipeline.waitingAgent" : "pipeline.waiting", { what: status.waiting_for }),
		});
	}
	const budget = status.human_decision_budget;
	facts.createSpan({
		cls: "kh-muted",
		text: budget
			? t("pipeline.humanDecisionsOf", { count: humanDecisionCount(status), budget })
			: t("pipeline.humanDecisions", { count: humanDecisionCount(status) }),
	});
	const agentSteps = agentRecords(status).length;
	if (agentSteps > 0 || waitsForAgent(status)) {
		parent.createDiv({ cls: "kh-muted", text: t("pipeline.agentSteps", { count: agentSteps }) });
	}

	const table = parent.createEl("table", { cls: "kh-records" });
	const header = table.createEl("tr");
	for (const key of ["pipeline.col.operation", "pipeline.col.result", "pipeline.col.state", "pipeline.col.reasons", "pipeline.col.summary"] as const) {
		header.createEl("th", { text: t(key) });
	}
	const ja = currentLocale() === "ja";
	for (const record of status.records) {
		const tr = table.createEl("tr", { cls: `kh-record kh-producer-${record.producer}` });
		const op = tr.createEl("td");
		op.createDiv({ text: record.operation });
		op.createDiv({ cls: "kh-muted", text: record.producer });
		tr.createEl("td", { cls: `kh-result kh-result-${record.result.toLowerCase()}`, text: record.result });
		tr.createEl("td", { text: `${record.state_before ?? "—"} → ${record.state_after}` });
		const reasons = tr.createEl("td");
		for (const reason of explainReasons(record)) {
			const line = reasons.createDiv({ cls: "kh-reason" });
			line.createEl("code", { text: reason.code });
			if (reason.ja) line.createDiv({ cls: "kh-reason-ja", text: reason.ja });
			if (!ja && reason.en) line.createDiv({ cls: "kh-muted", text: reason.en });
		}
		const summary = tr.createEl("td");
		summary.createDiv({ text: record.summary_ja });
		for (const uncertainty of record.uncertainties) {
			summary.createDiv({ cls: "kh-muted", text: `${t("pipeline.uncertainty")}: ${uncertainty.item} — ${uncertainty.impact}` });
		}
	}
}

/** One harness run: records, reason codes with their Japanese explanations, and the actions it allows. */
export class PipelineRunView extends ItemView {
	runId: string | null = null;
	status: PipelineRunDetail | null = null;

	constructor(
		leaf: WorkspaceLeaf,
		private readonly host: HarnessHost,
	) {
		super(leaf);
	}

	override getViewType(): string {
		return PIPELINE_VIEW_TYPE;
	}

	override getDisplayText(): string {
		return this.runId ? t("pipeline.titleRun", { id: this.runId }) : t("pipeline.title");
	}

	override getIcon(): string {
		return "workflow";
	}

	override async onOpen(): Promise<void> {
		this.addAction("refresh-cw", t("common.refresh"), () => void this.refresh());
		await this.refresh();
	}

	async setRun(runId: string): Promise<void> {
		this.runId = runId;
		await this.refresh();
	}

	async refresh(): Promise<void> {
		const el = this.contentEl;
		if (!this.runId) {
			el.empty();
			el.createDiv({ cls: "kh-muted", text: t("pipeline.noRun") });
			return;
		}
		try {
			this.show(await this.host.client.runDetail(this.runId));
		} catch (error) {
			el.empty();
			el.createDiv({ cls: "kh-error", text: describeFailure(error) });
		}
	}

	show(status: PipelineRunDetail): void {
		this.status = status;
		this.runId = status.run_id;
		const el = this.contentEl;
		el.empty();
		el.addClass("kh-view");
		renderRun(el, status);
		const open = (status.questions ?? []).filter((question) => question.answer === null);
		for (const question of open) {
			const box = el.createDiv({ cls: "kh-question" });
			box.createDiv({ cls: "kh-question-text", text: currentLocale() === "ja" ? question.question_ja : `${question.question_ja} — ${question.question_en}` });
			const choices = box.createDiv({ cls: "kh-actions" });
			for (const choice of question.choices) {
				const b = choices.createEl("button", { text: choice, attr: { "data-answer": choice } });
				b.addEventListener("click", () => {
					b.disabled = true;
					this.host.client.answer(status.run_id, question.question_id, choice).then(
						() => void this.refresh(),
						(error: unknown) => {
							b.disabled = false;
							this.host.reportError(error);
						},
					);
				});
			}
		}
		const actions = el.createDiv({ cls: "kh-actions" });
		const button = (key: MessageKey, action: () => Promise<PipelineRunStatus>, cta = false) => {
			const b = actions.createEl("button", { text: t(key), cls: cta ? "mod-cta" : "" });
			b.addEventListener("click", () => {
				b.disabled = true;
				action().then(
					() => void this.refresh(),
					(error: unknown) => {
						b.disabled = false;
						this.host.reportError(error);
					},
				);
			});
			return b;
		};
		if (waitsForAuthorization(status)) button("pipeline.authorize", () => this.host.client.authorize(status.run_id), true);
		button("pipeline.advance", () => this.host.client.advance(status.run_id));
		if (waitsForDecision(status)) {
			const review = actions.createEl("button", { cls: "mod-cta", text: t("pipeline.review") });
			review.addEventListener("click", () => new ReviewModal(this.host, status, () => void this.refresh()).open());
		}
	}
}

/** The review prompt: the four choices in Japanese, with revision instructions. */
export class ReviewModal extends Modal {
	choice: DecisionChoice | null = null;
	instructions = "";
	submitButton: HTMLButtonElement | null = null;
	readonly choiceButtons = new Map<DecisionChoice, HTMLButtonElement>();

	constructor(
		private readonly host: HarnessHost,
		private readonly status: PipelineRunStatus,
		private readonly onDone: (status: PipelineRunStatus) => void,
	) {
		super(host.app);
	}

	override onOpen(): void {
		this.setTitle(t("review.title", { id: this.status.run_id }));
		const el = this.contentEl;
		el.createEl("p", { text: t("review.prompt") });
		const choices = el.createDiv({ cls: "kh-choices" });
		for (const choice of DECISION_CHOICES) {
			const button = choices.createEl("button", { cls: "kh-choice", attr: { "data-choice": choice } });
			button.createDiv({ cls: "kh-choice-ja", text: DECISION_LABELS_JA[choice] });
			if (currentLocale() !== "ja") button.createDiv({ cls: "kh-muted", text: t(CHOICE_HINTS[choice]) });
			button.addEventListener("click", () => this.select(choice));
			this.choiceButtons.set(choice, button);
		}
		new Setting(el)
			.setName(t("review.instructions"))
			.setDesc(t("review.instructionsDesc"))
			.addTextArea((area) => {
				area.setPlaceholder(t("review.instructionsPlaceholder"));
				area.onChange((value) => {
					this.instructions = value;
					this.sync();
				});
			});
		new Setting(el).addButton((button) => {
			this.submitButton = button.buttonEl;
			button
				.setButtonText(t("review.submit"))
				.setCta()
				.setDisabled(true)
				.onClick(() => this.submit());
		});
	}

	select(choice: DecisionChoice): void {
		this.choice = choice;
		for (const [key, button] of this.choiceButtons) button.toggleClass("is-selected", key === choice);
		this.sync();
	}

	/** A revision needs instructions; the other choices do not. */
	canSubmit(): boolean {
		if (!this.choice) return false;
		return this.choice !== "revise" || this.instructions.trim().length > 0;
	}

	private sync(): void {
		if (this.submitButton) this.submitButton.disabled = !this.canSubmit();
	}

	async submit(): Promise<void> {
		if (!this.canSubmit() || !this.choice) return;
		try {
			const instructions = this.instructions.trim();
			const next = await this.host.client.decide(this.status.run_id, {
				choice: this.choice,
				instructions: instructions.length > 0 ? instructions : undefined,
			});
			this.close();
			this.onDone(next);
		} catch (error) {
			this.contentEl.createDiv({ cls: "kh-error", text: describeFailure(error) });
		}
	}

	override onClose(): void {
		this.contentEl.empty();
	}
}
