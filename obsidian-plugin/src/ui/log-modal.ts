import { type App, Modal, Notice } from "obsidian";
import { t } from "../i18n";

/** The last lines the sidecar wrote (stderr and stdout), to see why it fails; copy and restart from here. */
export class SidecarLogModal extends Modal {
	lines: string[] = [];

	constructor(
		app: App,
		private readonly read: () => string[],
		private readonly restart: () => void,
	) {
		super(app);
	}

	override onOpen(): void {
		this.setTitle(t("log.title"));
		this.modalEl.addClass("kh-modal-wide");
		this.render();
	}

	render(): void {
		const el = this.contentEl;
		el.empty();
		this.lines = this.read();
		el.createEl("p", { cls: "kh-muted", text: t("log.desc", { count: this.lines.length }) });
		if (this.lines.length === 0) {
			el.createEl("p", { cls: "kh-muted", text: t("log.empty") });
		} else {
			el.createEl("pre", { cls: "kh-log", text: this.lines.join("\n") });
		}
		const actions = el.createDiv({ cls: "kh-actions" });
		const refresh = actions.createEl("button", { text: t("common.refresh") });
		refresh.addEventListener("click", () => this.render());
		const copy = actions.createEl("button", { text: t("log.copy") });
		copy.addEventListener("click", () => {
			void navigator.clipboard.writeText(this.lines.join("\n")).then(
				() => new Notice(t("common.copied")),
				() => undefined,
			);
		});
		const restart = actions.createEl("button", { cls: "mod-cta", text: t("settings.restart.button") });
		restart.addEventListener("click", () => {
			this.close();
			this.restart();
		});
	}

	override onClose(): void {
		this.contentEl.empty();
	}
}
