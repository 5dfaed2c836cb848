import { ItemView, Modal, Setting, type WorkspaceLeaf } from "obsidian";
import type {
	AuthorizationRequest,
	DecisionChoice,
	DecisionChoiceInfo,
	DecisionRequest,
	DecisionResponse,
	PipelineRunDetail,
	PipelineRunStatus,
	ReasonExplanation,
	ReviewResponse,
} from "../api/types";
import { DECISION_CHOICES } from "../api/types";
import { currentLocale, type MessageKey, t } from "../i18n";
import {
	agentRecords,
	DECISION_LABELS_JA,
	explainReasons,
	finalDecisionBudget,
	humanDecisionCount,
	parseBlocks,
	waitsForAgent,
	waitsForAuthorization,
	waitsForDecision,
} from "../pipeline/model";
import { codeLabel, describeFailure, showFailure } from "./errors";
import type { HarnessHost } from "./host";

export const PIPELINE_VIEW_TYPE = "kh-pipeline-run";

const CHOICE_LABELS: Record<DecisionChoice, MessageKey> = {
	approve: "review.choice.approve",
	revise: "review.choice.revise",
	reject: "review.choice.reject",
	policy: "review.choice.policy",
};

const CHOICE_EFFECTS: Record<DecisionChoice, MessageKey> = {
	approve: "review.effect.approve",
	revise: "review.effect.revise",
	reject: "review.effect.reject",
	policy: "review.effect.policy",
};

const CHOICE_MESSAGES: Record<DecisionChoice, MessageKey> = {
	approve: "review.message.approve",
	revise: "review.message.revise",
	reject: "review.message.reject",
	policy: "review.message.policy",
};

/** Reason codes with the sidecar's explanation in the interface's language (Japanese or English). */
function renderReasons(parent: HTMLElement, reasons: ReasonExplanation[], inline = false): void {
	const ja = currentLocale() === "ja";
	for (const reason of reasons) {
		const line = parent.createDiv({ cls: inline ? "kh-reason kh-reason-inline" : "kh-reason" });
		line.createEl("code", { text: reason.code });
		const text = ja ? reason.ja : reason.en;
		if (text) line.createDiv({ cls: ja ? "kh-reason-ja" : "kh-reason-en", text, attr: { lang: ja ? "ja" : "en" } });
	}
}

/** Renders a run: state, what it waits for, the human-decision count, and each operation's record. */
export function renderRun(parent: HTMLElement, status: PipelineRunStatus | PipelineRunDetail): void {
	const head = parent.createDiv({ cls: "kh-run-head" });
	head.createDiv({ cls: "kh-run-id", text: t("pipeline.run", { id: status.run_id }) });
	const facts = head.createDiv({ cls: "kh-run-facts" });
	facts.createSpan({ cls: "kh-pill", text: codeLabel(status.state) });
	if (status.waiting_for) {
		const agent = waitsForAgent(status);
		facts.createSpan({
			cls: `kh-pill ${agent ? "kh-waiting-agent" : "kh-waiting-human"}`,
			text: t(agent ? "pipeline.waitingAgent" : "pipeline.waiting", { what: status.waiting_for }),
		});
	}
	facts.createSpan({ cls: "kh-muted kh-human-count", text: t("pipeline.humanDecisions", { count: humanDecisionCount(status) }) });
	const final = finalDecisionBudget(status);
	if (final) {
		facts.createSpan({ cls: "kh-muted", text: t("pipeline.finalDecisions", { count: final.asked, budget: final.limit }) });
	}
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
		const tr = table.createEl("tr", { cls: `kh-record kh-producer-${record.producer}`, attr: { "data-operation": record.operation } });
		const op = tr.createEl("td");
		op.createDiv({ text: record.operation });
		op.createDiv({ cls: "kh-muted", text: codeLabel(record.producer) });
		tr.createEl("td", { cls: `kh-result kh-result-${record.result.toLowerCase()}`, text: codeLabel(record.result) });
		tr.createEl("td", { text: `${record.state_before ? codeLabel(record.state_before) : "—"} → ${codeLabel(record.state_after)}` });
		renderReasons(tr.createEl("td"), explainReasons(record));
		const summary = tr.createEl("td");
		// The recorded summary exists in Japanese only: labelled as such in an English interface.
		if (!ja) summary.createDiv({ cls: "kh-muted", text: t("pipeline.summaryJa") });
		summary.createDiv({ cls: "kh-summary", text: record.summary_ja, attr: { lang: "ja" } });
		for (const uncertainty of record.uncertainties) {
			summary.createDiv({ cls: "kh-muted", text: `${t("pipeline.uncertainty")}: ${uncertainty.item} — ${uncertainty.impact}` });
		}
	}
}

/** How often an open run view asks whether its run moved. */
export const RUN_POLL_MS = 5_000;

/** What changes when a run moves: its state, what it waits for, its records and answers. */
export function runSignature(status: PipelineRunStatus | PipelineRunDetail): string {
	const records = "records" in status ? status.records.length : -1;
	const answered = "questions" in status ? status.questions.filter((question) => question.answer !== null).length : -1;
	return JSON.stringify([status.state, status.waiting_for ?? null, records, answered]);
}

/** One harness run: records, reason codes with their Japanese explanations, and the actions it allows. */
export class PipelineRunView extends ItemView {
	runId: string | null = null;
	status: PipelineRunStatus | PipelineRunDetail | null = null;

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
		// The run moves on its own (agents submit, steps advance): the view follows it while open.
		this.registerInterval(window.setInterval(() => void this.poll(), RUN_POLL_MS));
		await this.refresh();
	}

	/** Asks for the run again and redraws only when it moved (an answer being typed is left alone otherwise). */
	async poll(): Promise<boolean> {
		if (!this.runId || !this.status) return false;
		try {
			const detail = await this.host.client.runDetail(this.runId);
			if (runSignature(detail) === runSignature(this.status)) return false;
			this.show(detail);
			return true;
		} catch {
			return false; // offline or slow: the status bar says so; the next poll tries again
		}
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
			showFailure(el, error);
		}
	}

	show(status: PipelineRunStatus | PipelineRunDetail): void {
		this.status = status;
		this.runId = status.run_id;
		const el = this.contentEl;
		el.empty();
		el.addClass("kh-view");
		renderRun(el, status);
		// A click disables the button while the request runs; then the run is read again, or the failure said.
		const act = (b: HTMLButtonElement, action: () => Promise<unknown>) => {
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
		};
		const questions = "questions" in status ? status.questions : [];
		const open = questions.filter((question) => question.answer === null && question.kind !== "publication_decision");
		for (const question of open) {
			const box = el.createDiv({ cls: "kh-question" });
			box.createDiv({ cls: "kh-question-text", text: currentLocale() === "ja" ? question.question_ja : question.question_en });
			const choices = box.createDiv({ cls: "kh-actions" });
			for (const choice of question.choices) {
				const b = choices.createEl("button", { text: choice, attr: { "data-answer": choice } });
				act(b, () => this.host.client.answer(status.run_id, question.question_id, choice));
			}
		}
		const actions = el.createDiv({ cls: "kh-actions" });
		if (waitsForAuthorization(status)) {
			const authorize = actions.createEl("button", { cls: "mod-cta", text: t("pipeline.authorize") });
			authorize.addEventListener("click", () => new AuthorizeModal(this.host, status.run_id, () => void this.refresh()).open());
		}
		act(actions.createEl("button", { text: t("pipeline.advance") }), () => this.host.client.advance(status.run_id));
		if (waitsForDecision(status)) {
			const review = actions.createEl("button", { cls: "mod-cta", text: t("pipeline.review") });
			review.addEventListener("click", () => new ReviewModal(this.host, status.run_id, () => void this.refresh()).open());
		}
	}
}

/**
 * The authorize prompt (O-02): before the run label is given, the person sees the request's title,
 * an excerpt of its (masked) question, the publishability answer and who gave it.
 */
export class AuthorizeModal extends Modal {
	request: AuthorizationRequest | null = null;
	confirmButton: HTMLButtonElement | null = null;

	constructor(
		private readonly host: HarnessHost,
		readonly runId: string,
		private readonly onDone: (status: PipelineRunStatus) => void,
	) {
		super(host.app);
	}

	override onOpen(): void {
		this.setTitle(t("authorize.title", { id: this.runId }));
		void this.load();
	}

	async load(): Promise<void> {
		const el = this.contentEl;
		el.empty();
		el.createDiv({ cls: "kh-muted", text: t("common.loading") });
		try {
			this.request = await this.host.client.authorization(this.runId);
			this.render();
		} catch (error) {
			showFailure(el, error);
		}
	}

	render(): void {
		const request = this.request;
		if (!request) return;
		const el = this.contentEl;
		el.empty();
		const facts = el.createDiv({ cls: "kh-review-facts" });
		const fact = (label: string, value: string, cls = "kh-authorize-fact") => {
			const row = facts.createDiv({ cls });
			row.createSpan({ cls: "kh-muted", text: `${label}: ` });
			row.createSpan({ text: value });
		};
		fact(t("authorize.request"), `${request.title} (${request.source})`);
		fact(t("authorize.excerpt"), request.excerpt);
		const ja = currentLocale() === "ja";
		fact(t("authorize.publishability"), ja ? request.publishability_ja : request.publishability_en, "kh-authorize-publishability");
		if (request.publishable !== true) el.createDiv({ cls: "kh-error", text: t("authorize.notPublishable") });
		new Setting(el)
			.addButton((button) => {
				this.confirmButton = button.buttonEl;
				button
					.setButtonText(t("pipeline.authorize"))
					.setCta()
					.onClick(() => void this.confirm());
			})
			.addButton((button) => button.setButtonText(t("authorize.cancel")).onClick(() => this.close()));
	}

	async confirm(): Promise<void> {
		if (this.confirmButton) this.confirmButton.disabled = true;
		try {
			const status = await this.host.client.authorize(this.runId);
			this.onDone(status);
			this.close();
		} catch (error) {
			if (this.confirmButton) this.confirmButton.disabled = false;
			this.contentEl.createDiv({ cls: "kh-error", text: describeFailure(error) });
		}
	}

	override onClose(): void {
		this.contentEl.empty();
	}
}

/** The choices as the sidecar words them; the design's labels when GET /v1/pipeline/decision-choices is not available. */
function fallbackChoices(review: ReviewResponse | null): DecisionChoiceInfo[] {
	const effects = new Map((review?.review_packet.choices ?? []).map((choice) => [choice.code, choice.effect_ja]));
	return DECISION_CHOICES.map((code) => ({ code, label_ja: DECISION_LABELS_JA[code], effect_ja: effects.get(code) ?? "", message_ja: "" }));
}

/** Only the choices this run's Review Packet still offers (「今回だけ修正を求める」 is gone after two AI revisions). */
export function offeredChoices(choices: DecisionChoiceInfo[], review: ReviewResponse | null): DecisionChoiceInfo[] {
	const offered = new Set((review?.review_packet.choices ?? []).map((choice) => choice.code));
	return offered.size === 0 ? choices : choices.filter((choice) => offered.has(choice.code));
}

/**
 * The review prompt (O-11): the Review Packet (公開候補の確認待ち) and the four
 * choices in the design's Japanese words. An approval sends the candidate commit
 * and the packet's SHA-256 taken from GET …/review (the sidecar refuses it with
 * 409 until the candidate is merged); a revision needs instructions and target
 * blocks; every decision names the packet it was made on.
 */
export class ReviewModal extends Modal {
	review: ReviewResponse | null = null;
	choices: DecisionChoiceInfo[] = [];
	choice: DecisionChoice | null = null;
	instructions = "";
	blocksText = "";
	answer: DecisionResponse | null = null;
	submitButton: HTMLButtonElement | null = null;
	readonly choiceButtons = new Map<DecisionChoice, HTMLButtonElement>();
	private resultEl: HTMLElement | null = null;
	private busy = false;

	constructor(
		private readonly host: HarnessHost,
		readonly runId: string,
		private readonly onDone: (status: PipelineRunStatus) => void,
	) {
		super(host.app);
	}

	override onOpen(): void {
		this.setTitle(t("review.title", { id: this.runId }));
		this.modalEl.addClass("kh-modal-wide");
		void this.load();
	}

	/** Reads the Review Packet and the choices, then renders. */
	async load(): Promise<void> {
		const el = this.contentEl;
		el.empty();
		el.createDiv({ cls: "kh-muted", text: t("common.loading") });
		try {
			const [review, choices] = await Promise.all([
				this.host.client.review(this.runId),
				this.host.client.decisionChoices().then(
					(answer) => answer.choices,
					() => null,
				),
			]);
			this.review = review;
			this.choices = offeredChoices(choices ?? fallbackChoices(review), review);
			this.render();
		} catch (error) {
			showFailure(el, error);
		}
	}

	render(): void {
		const review = this.review;
		if (!review) return;
		const packet = review.review_packet;
		const el = this.contentEl;
		el.empty();
		const facts = el.createDiv({ cls: "kh-review-facts" });
		const fact = (label: string, value: string) => {
			const row = facts.createDiv({ cls: "kh-review-fact" });
			row.createSpan({ cls: "kh-muted", text: `${label}: ` });
			row.createEl("code", { text: value });
		};
		fact(t("review.candidate"), packet.candidate_path);
		fact(t("review.branch"), `${packet.branch} → ${packet.base_branch}`);
		fact(t("review.commit"), packet.commit.slice(0, 12));
		fact(t("review.packetSha"), review.review_packet_sha256.slice(0, 12));
		if (packet.pr_url) fact(t("review.pr"), packet.pr_url);

		if (packet.article_html_file) {
			// the article as a reader sees it: the HTML file of the run folder, in a sandboxed frame (no scripts)
			const article = el.createEl("details", { cls: "kh-review-article" });
			article.createEl("summary", { text: t("review.article") });
			const path = `.harness/runs/pipeline/${this.runId}/${packet.article_html_file}`;
			const asText = () => article.createEl("pre", { cls: "kh-review-article-text", text: packet.article_text ?? "" });
			void readRecorded(this.host.app.vault.adapter, path, packet.article_html_sha256).then((html) => {
				if (html === null) {
					asText();
					return;
				}
				const frame = article.createEl("iframe", { cls: "kh-review-article-frame", attr: { sandbox: "" } });
				frame.srcdoc = html;
			}, asText);
		}
		const details = el.createEl("details", { cls: "kh-review-packet" });
		details.open = true;
		details.createEl("summary", { text: t("review.packet") });
		details.createEl("pre", { cls: "kh-review-markdown", text: packet.markdown });

		el.createEl("p", { text: t("review.prompt") });
		const choices = el.createDiv({ cls: "kh-choices" });
		// Japanese: the sidecar's own (the design's) words; English: the catalogue's.
		const ja = currentLocale() === "ja";
		for (const info of this.choices) {
			const button = choices.createEl("button", { cls: "kh-choice", attr: { "data-choice": info.code } });
			button.createDiv({ cls: "kh-choice-label", text: ja ? info.label_ja : t(CHOICE_LABELS[info.code]) });
			const effect = ja ? info.effect_ja : t(CHOICE_EFFECTS[info.code]);
			if (effect) button.createDiv({ cls: "kh-choice-effect", text: effect });
			button.addEventListener("click", () => this.select(info.code));
			this.choiceButtons.set(info.code, button);
		}
		new Setting(el)
			.setName(t("review.instructions"))
			.setDesc(t("review.instructionsDesc"))
			.addTextArea((area) => {
				area.setPlaceholder(t("review.instructionsPlaceholder"));
				area.inputEl.addClass("kh-review-instructions");
				area.onChange((value) => {
					this.instructions = value;
					this.sync();
				});
			});
		new Setting(el)
			.setName(t("review.blocks"))
			.setDesc(t("review.blocksDesc"))
			.addText((text) => {
				text.setPlaceholder(t("review.blocksPlaceholder"));
				text.inputEl.addClass("kh-review-blocks");
				text.onChange((value) => {
					this.blocksText = value;
					this.sync();
				});
			});
		new Setting(el).addButton((button) => {
			this.submitButton = button.buttonEl;
			button
				.setButtonText(t("review.submit"))
				.setCta()
				.setDisabled(true)
				.onClick(() => void this.submit());
		});
		this.resultEl = el.createDiv({ cls: "kh-review-result" });
	}

	select(choice: DecisionChoice): void {
		this.choice = choice;
		for (const [key, button] of this.choiceButtons) button.toggleClass("is-selected", key === choice);
		this.sync();
	}

	/** A revision needs instructions and at least one target block; an approval takes neither. */
	canSubmit(): boolean {
		if (!this.choice || !this.review || this.busy || this.answer) return false;
		if (this.choice === "revise") return this.instructions.trim().length > 0 && parseBlocks(this.blocksText).length > 0;
		if (this.choice === "approve") return this.instructions.trim().length === 0 && parseBlocks(this.blocksText).length === 0;
		return true;
	}

	private sync(): void {
		if (this.submitButton) this.submitButton.disabled = !this.canSubmit();
	}

	/** The request body for the chosen decision. */
	decision(): DecisionRequest | null {
		if (!this.choice || !this.review) return null;
		const instructions = this.instructions.trim();
		const body: DecisionRequest = {
			choice: this.choice,
			review_packet_sha256: this.review.review_packet_sha256,
			via: "plugin",
		};
		if (this.choice === "approve") body.commit = this.review.review_packet.commit;
		if (instructions.length > 0) body.instructions = instructions;
		if (this.choice === "revise") body.blocks = parseBlocks(this.blocksText);
		return body;
	}

	async submit(): Promise<void> {
		const body = this.decision();
		if (!this.canSubmit() || !body) return;
		this.busy = true;
		this.sync();
		const out = this.resultEl ?? this.contentEl;
		out.empty();
		try {
			const answer = await this.host.client.decide(this.runId, body);
			this.answer = answer;
			const ja = currentLocale() === "ja";
			out.createDiv({ cls: "kh-review-message", text: ja ? answer.message_ja : t(CHOICE_MESSAGES[body.choice as DecisionChoice]) });
			out.createDiv({ cls: "kh-muted", text: t("review.nowState", { state: codeLabel(answer.status.state) }) });
			renderReasons(out, explainReasons(answer.record), true);
			this.onDone(answer.status);
		} catch (error) {
			out.createDiv({ cls: "kh-error", text: describeFailure(error) });
		} finally {
			this.busy = false;
			this.sync();
		}
	}

	override onClose(): void {
		this.contentEl.empty();
	}
}

/** A run folder's file as text, only when its bytes have the SHA-256 the Review Packet recorded (null
 * otherwise): a file changed after the packet was made is not shown as the article under review. */
export async function readRecorded(
	adapter: { readBinary(path: string): Promise<ArrayBuffer> },
	path: string,
	sha256: string | null | undefined,
): Promise<string | null> {
	if (!sha256) return null;
	const data = await adapter.readBinary(path);
	const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", data));
	const hex = Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
	return hex === sha256 ? new TextDecoder().decode(data) : null;
}
