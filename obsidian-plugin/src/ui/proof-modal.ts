import { Modal } from "obsidian";
import { t } from "../i18n";
import { quotesOf } from "../trust/proof";
import { describeFailure } from "./errors";
import type { HarnessHost } from "./host";
import { renderBadgeProof } from "./quotes";

/**
 * A stale list row's proof: the note's claims with their quotes and source
 * links, read when the person asks (one badge request), so that a list of
 * 10,000 notes never carries them all.
 */
export class ProofModal extends Modal {
	constructor(
		private readonly host: HarnessHost,
		private readonly path: string,
	) {
		super(host.app);
	}

	override onOpen(): void {
		this.setTitle(t("proof.title", { path: this.path }));
		this.contentEl.createEl("p", { cls: "kh-muted", text: t("common.loading") });
		void this.load();
	}

	async load(): Promise<void> {
		try {
			const badge = await this.host.client.badge(this.path);
			this.contentEl.empty();
			renderBadgeProof(this.contentEl, quotesOf(badge));
		} catch (error) {
			this.contentEl.empty();
			this.contentEl.createEl("p", { cls: "kh-error", text: describeFailure(error) });
		}
	}

	override onClose(): void {
		this.contentEl.empty();
	}
}
