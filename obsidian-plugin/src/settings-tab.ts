import { type App, type Plugin, PluginSettingTab, Setting, type SettingDefinitionItem } from "obsidian";
import { t } from "./i18n";
import {
	applyControlValue,
	controlValue,
	DEFAULT_SETTINGS,
	formatArgs,
	isValidPort,
	type KnowledgeHarnessSettings,
	parsePort,
	type SettingKey,
} from "./settings";

/** What the settings tab needs from the plugin. */
export interface SettingsHost {
	settings: KnowledgeHarnessSettings;
	/** Persists the settings and reacts to the change of `key`. */
	saveSettings(changed: SettingKey): Promise<void>;
	restartSidecar(): Promise<void>;
}

function languageOptions(): Record<string, string> {
	return { auto: t("settings.language.auto"), en: "English", ja: "日本語" };
}

/**
 * Settings of the plugin. `display()` renders them on Obsidian before 1.13;
 * from 1.13 on, Obsidian renders `getSettingDefinitions()` (and makes the
 * settings searchable) through `getControlValue` / `setControlValue`.
 */
export class KnowledgeHarnessSettingTab extends PluginSettingTab {
	private readonly host: SettingsHost;

	constructor(app: App, plugin: Plugin & SettingsHost) {
		super(app, plugin);
		this.host = plugin;
	}

	override getSettingDefinitions(): SettingDefinitionItem[] {
		return [
			{
				name: t("settings.command.name"),
				desc: t("settings.command.desc"),
				control: { type: "text", key: "sidecarCommand", placeholder: DEFAULT_SETTINGS.sidecarCommand },
			},
			{
				name: t("settings.args.name"),
				desc: t("settings.args.desc"),
				control: { type: "textarea", key: "sidecarArgs" },
			},
			{
				name: t("settings.port.name"),
				desc: t("settings.port.desc"),
				control: {
					type: "number",
					key: "port",
					min: 0,
					max: 65535,
					step: 1,
					validate: (value: number) => (isValidPort(value) ? undefined : t("settings.port.invalid")),
				},
			},
			{
				name: t("settings.autoStart.name"),
				desc: t("settings.autoStart.desc"),
				control: { type: "toggle", key: "autoStart" },
			},
			{
				name: t("settings.language.name"),
				desc: t("settings.language.desc"),
				control: { type: "dropdown", key: "language", options: languageOptions() },
			},
			{
				name: t("settings.explorerMarkers.name"),
				desc: t("settings.explorerMarkers.desc"),
				control: { type: "toggle", key: "explorerMarkers" },
			},
			{
				name: t("settings.restart.name"),
				desc: t("settings.restart.desc"),
				action: () => {
					void this.host.restartSidecar();
				},
			},
		];
	}

	override getControlValue(key: string): unknown {
		return controlValue(this.host.settings, key);
	}

	override async setControlValue(key: string, value: unknown): Promise<void> {
		await this.apply(key, value);
	}

	override display(): void {
		this.renderSettings();
	}

	/** Builds the tab with the Setting API: what display() shows on Obsidian before 1.13. */
	renderSettings(): void {
		const { containerEl } = this;
		const settings = this.host.settings;
		containerEl.empty();

		new Setting(containerEl)
			.setName(t("settings.command.name"))
			.setDesc(t("settings.command.desc"))
			.addText((text) =>
				text
					.setPlaceholder(DEFAULT_SETTINGS.sidecarCommand)
					.setValue(settings.sidecarCommand)
					.onChange(async (value) => {
						await this.apply("sidecarCommand", value);
					}),
			);

		new Setting(containerEl)
			.setName(t("settings.args.name"))
			.setDesc(t("settings.args.desc"))
			.addTextArea((text) =>
				text.setValue(formatArgs(settings.sidecarArgs)).onChange(async (value) => {
					await this.apply("sidecarArgs", value);
				}),
			);

		new Setting(containerEl)
			.setName(t("settings.port.name"))
			.setDesc(t("settings.port.desc"))
			.addText((text) => {
				text.inputEl.type = "number";
				text.inputEl.min = "0";
				text.inputEl.max = "65535";
				text.setPlaceholder("0")
					.setValue(String(settings.port))
					.onChange(async (value) => {
						const valid = parsePort(value) !== null;
						text.inputEl.toggleClass("kh-input-invalid", !valid);
						text.inputEl.setAttr("aria-invalid", valid ? "false" : "true");
						text.inputEl.setAttr("title", valid ? "" : t("settings.port.invalid"));
						if (valid) await this.apply("port", value);
					});
			});

		new Setting(containerEl)
			.setName(t("settings.autoStart.name"))
			.setDesc(t("settings.autoStart.desc"))
			.addToggle((toggle) =>
				toggle.setValue(settings.autoStart).onChange(async (value) => {
					await this.apply("autoStart", value);
				}),
			);

		new Setting(containerEl)
			.setName(t("settings.language.name"))
			.setDesc(t("settings.language.desc"))
			.addDropdown((dropdown) =>
				dropdown
					.addOptions(languageOptions())
					.setValue(settings.language)
					.onChange(async (value) => {
						await this.apply("language", value);
						this.renderSettings();
					}),
			);

		new Setting(containerEl)
			.setName(t("settings.explorerMarkers.name"))
			.setDesc(t("settings.explorerMarkers.desc"))
			.addToggle((toggle) =>
				toggle.setValue(settings.explorerMarkers).onChange(async (value) => {
					await this.apply("explorerMarkers", value);
				}),
			);

		new Setting(containerEl)
			.setName(t("settings.restart.name"))
			.setDesc(t("settings.restart.desc"))
			.addButton((button) =>
				button.setButtonText(t("settings.restart.button")).onClick(() => {
					void this.host.restartSidecar();
				}),
			);
	}

	private async apply(key: string, value: unknown): Promise<void> {
		if (!applyControlValue(this.host.settings, key, value)) return;
		await this.host.saveSettings(key as SettingKey);
	}
}
