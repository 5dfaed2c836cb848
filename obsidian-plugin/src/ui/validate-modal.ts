import { Modal } from "obsidian";
import type { DryRunValidation } from "../api/types";
import { t, localDateTime } from "../i18n";
import { renderBlocksDiff } from "./blocks-view";
import { newJobId } from "../api/client";
import { codeLabel, describeFailure } from "./errors";
import { watchJob } from "./job-progress";
import type { HarnessHost } from "./host";
import { renderProof, sourceUrls } from "./quotes";

const VERDICT_CLASSES: Record<string, string> = {
	supported: "kh-verdict-ok",
	unsupported: "kh-verdict-warn",
	contradicted: "kh-verdict-bad",
	no_evidence: "kh-verdict-none",
};

/** Renders a dry-run validation: the verdict, findings with quotes, sources, and the two blocks before/after. */
export function renderValidation(parent: HTMLElement, result: DryRunValidation, host?: HarnessHost): void {
	const summary = parent.createDiv({ cls: "kh-validation-summary" });
	summary.createSpan({ cls: `kh-pill kh-verdict-${result.result.verdict}`, text: codeLabel(result.result.verdict) });
	summary.createSpan({
		text: t("validate.summary", {
			score: result.result.score.toFixed(2),
			confidence: result.result.confidence.toFixed(2),
			validator: result.judge ?? `${result.result.validator.name}-${result.result.validator.version}`,
		}),
	});
	parent.createEl("p", { cls: "kh-muted", text: t("validate.dryRunNote") });

	parent.createEl("h3", { text: t("validate.findings", { count: result.findings.length }) });
	const claims = new Map(result.claims.map((claim) => [claim.id, claim]));
	const urls = sourceUrls(result.sources);
	const list = parent.createEl("ol", { cls: "kh-findings" });
	for (const finding of result.findings) {
		const claim = claims.get(finding.claim_id);
		const item = list.createEl("li", { cls: "kh-finding" });
		const head = item.createDiv({ cls: "kh-finding-head" });
		head.createSpan({ cls: `kh-pill ${VERDICT_CLASSES[finding.verdict] ?? ""}`, text: codeLabel(finding.verdict) });
		const line = finding.line ?? claim?.line;
		if (line) {
			const link = head.createEl("a", { cls: "kh-line-link", text: t("validate.line", { line }) });
			if (host) link.addEventListener("click", () => void host.openNote(result.path, line));
		}
		item.createDiv({ cls: "kh-claim", text: finding.text ?? claim?.text ?? finding.claim_id });
		renderProof(item, finding, urls);
		item.createDiv({ cls: "kh-muted", text: finding.reason });
	}

	parent.createEl("h3", { text: t("validate.sources", { count: result.sources.length }) });
	const sources = parent.createEl("ul", { cls: "kh-sources" });
	for (const source of result.sources) {
		const item = sources.createEl("li");
		item.createSpan({ cls: "kh-source-url", text: source.url });
		const facts = [
			source.verdict ? codeLabel(source.verdict) : "",
			source.fetched_at ? t("details.snapshotAt", { date: localDateTime(source.fetched_at) }) : "",
			source.snapshot_sha256 ? source.snapshot_sha256.slice(0, 12) : "",
			source.ok === false ? (source.message ?? source.error ?? t("validate.fetchFailed")) : "",
		].filter((part) => part.length > 0);
		item.createSpan({ cls: "kh-muted", text: ` — ${facts.join(" · ")}` });
	}

	parent.createEl("h3", { text: t("validate.blocks") });
	renderBlocksDiff(parent, result.current, result.proposed);
}

/** "Validate current note": the sidecar's dry run, shown read-only. */
export class ValidateModal extends Modal {
	constructor(
		private readonly host: HarnessHost,
		private readonly path: string,
		private readonly preloaded?: DryRunValidation,
	) {
		super(host.app);
	}

	override onOpen(): void {
		this.setTitle(t("validate.title", { path: this.path }));
		this.modalEl.addClass("kh-modal-wide");
		if (this.preloaded) {
			this.show(this.preloaded);
			return;
		}
		this.contentEl.createEl("p", { cls: "kh-muted", text: t("validate.running") });
		const job = (this.job = newJobId());
		const watch = (this.watch = watchJob(this.host.client, job, this.contentEl, () => this.close()));
		this.host.client.validateNote(this.path, job).then(
			(result) => {
				watch.stop();
				this.job = null;
				this.show(result);
			},
			(error: unknown) => {
				watch.stop();
				this.job = null;
				this.contentEl.empty();
				this.contentEl.createEl("p", { cls: "kh-error", text: describeFailure(error) });
			},
		);
	}

	/** The running validation's job: closing the window cancels it, so the sidecar does not judge on. */
	job: string | null = null;
	private watch: { stop: () => void } | null = null;

	private show(result: DryRunValidation): void {
		this.contentEl.empty();
		renderValidation(this.contentEl, result, this.host);
		const actions = this.contentEl.createDiv({ cls: "kh-actions" });
		const plan = actions.createEl("button", { cls: "mod-cta", text: t("validate.planCanary") });
		plan.addEventListener("click", () => {
			this.close();
			void this.host.planBatch("canary", [this.path]);
		});
	}

	override onClose(): void {
		this.watch?.stop(); // a closed window reads no more progress, even while the cancelled work winds down
		this.watch = null;
		if (this.job) void this.host.client.cancelJob(this.job).catch(() => undefined);
		this.job = null;
		this.contentEl.empty();
	}
}
