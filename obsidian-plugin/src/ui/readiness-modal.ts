import { type App, Modal } from "obsidian";
import { t } from "../i18n";
import { type Readiness, renderReadiness } from "../readiness";

/** The readiness panel in a window: opened from the notice that says `kh` is missing, too old or blocked. */
export class ReadinessModal extends Modal {
	constructor(
		app: App,
		private readonly read: () => Readiness,
		private readonly restart: () => void,
	) {
		super(app);
	}

	override onOpen(): void {
		this.setTitle(t("readiness.title"));
		this.render();
	}

	render(): void {
		const el = this.contentEl;
		el.empty();
		renderReadiness(el, this.read());
		const actions = el.createDiv({ cls: "kh-actions" });
		const refresh = actions.createEl("button", { text: t("common.refresh") });
		refresh.addEventListener("click", () => this.render());
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
