import { Modal } from "obsidian";
import { type MessageKey, t } from "../i18n";
import { describeFailure } from "./errors";
import type { HarnessHost } from "./host";

/**
 * A window about one note whose content is read from the sidecar when it
 * opens: the title, "Loading…", then what `render` draws — or the failure in
 * the person's words. The badge's details and the stale list's proof use it.
 */
export abstract class NoteLoadModal extends Modal {
	constructor(
		protected readonly host: HarnessHost,
		protected readonly path: string,
		private readonly titleKey: MessageKey,
	) {
		super(host.app);
	}

	/** Reads what the window shows and draws it into `contentEl` (emptied once the answers are in). */
	protected abstract render(): Promise<void>;

	override onOpen(): void {
		this.setTitle(t(this.titleKey, { path: this.path }));
		this.contentEl.createEl("p", { cls: "kh-muted", text: t("common.loading") });
		void this.load();
	}

	async load(): Promise<void> {
		try {
			await this.render();
		} catch (error) {
			this.contentEl.empty();
			this.contentEl.createEl("p", { cls: "kh-error", text: describeFailure(error) });
		}
	}

	override onClose(): void {
		this.contentEl.empty();
	}
}
