import { type App, type Plugin, PluginSettingTab, Setting, type SettingDefinitionItem } from "obsidian";
import { type MessageKey, t } from "./i18n";
import { type Readiness, renderReadiness } from "./readiness";
import {
	applyControlValue,
	BADGE_SCOPES,
	controlValue,
	DEFAULT_SETTINGS,
	formatArgs,
	isValidPort,
	type KnowledgeHarnessSettings,
	MAX_RESTARTS,
	parsePort,
	RESTART_POLICIES,
	SETTING_NAMES,
	SIDECAR_LOG_LEVELS,
	type SettingKey,
} from "./settings";

/** What the settings tab needs from the plugin. */
export interface SettingsHost {
	settings: KnowledgeHarnessSettings;
	/** Persists the settings (data.json or this device's storage) and reacts to the change of `key`. */
	saveSettings(changed: SettingKey): Promise<void>;
	restartSidecar(): Promise<void>;
	/** Opens the last lines the sidecar wrote. */
	showSidecarLog(): void;
	/** Whether `kh` is found, which version, whether it fits (drawn first in the tab). */
	readiness(): Readiness;
}

function options<T extends string>(values: readonly T[], prefix: string): Record<string, string> {
	return Object.fromEntries(values.map((value) => [value, t(`${prefix}.${value}` as MessageKey)]));
}

const badgeScopeOptions = () => options(BADGE_SCOPES, "settings.badgeScope");
const restartPolicyOptions = () => options(RESTART_POLICIES, "settings.restartPolicy");
const logLevelOptions = () => options(SIDECAR_LOG_LEVELS, "settings.logLevel");

/**
 * Settings of the plugin. `display()` renders them on Obsidian before 1.13;
 * from 1.13 on, Obsidian renders `getSettingDefinitions()` (and makes the
 * settings searchable) through `getControlValue` / `setControlValue`.
 * The first three live on this device only (local storage, not data.json).
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
				name: t("readiness.title"),
				searchable: false,
				render: (setting) => {
					setting.settingEl.empty();
					renderReadiness(setting.settingEl, this.host.readiness());
				},
			},
			{
				name: t(SETTING_NAMES.sidecarCommand),
				desc: t("settings.command.desc"),
				control: { type: "text", key: "sidecarCommand", placeholder: DEFAULT_SETTINGS.sidecarCommand },
			},
			{
				name: t(SETTING_NAMES.sidecarArgs),
				desc: t("settings.args.desc"),
				control: { type: "textarea", key: "sidecarArgs" },
			},
			{
				name: t(SETTING_NAMES.pathAdditions),
				desc: t("settings.path.desc"),
				control: { type: "textarea", key: "pathAdditions" },
			},
			{
				name: t(SETTING_NAMES.port),
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
				name: t(SETTING_NAMES.autoStart),
				desc: t("settings.autoStart.desc"),
				control: { type: "toggle", key: "autoStart" },
			},
			{
				name: t(SETTING_NAMES.restartPolicy),
				desc: t("settings.restartPolicy.desc", { count: MAX_RESTARTS }),
				control: { type: "dropdown", key: "restartPolicy", options: restartPolicyOptions() },
			},
			{
				name: t(SETTING_NAMES.sidecarLogLevel),
				desc: t("settings.logLevel.desc"),
				control: { type: "dropdown", key: "sidecarLogLevel", options: logLevelOptions() },
			},
			{
				name: t(SETTING_NAMES.badgeScope),
				desc: t("settings.badgeScope.desc"),
				control: { type: "dropdown", key: "badgeScope", options: badgeScopeOptions() },
			},
			{
				name: t(SETTING_NAMES.explorerMarkers),
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
			{
				name: t("settings.log.name"),
				desc: t("settings.log.desc"),
				action: () => this.host.showSidecarLog(),
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
		renderReadiness(containerEl, this.host.readiness());

		new Setting(containerEl)
			.setName(t(SETTING_NAMES.sidecarCommand))
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
			.setName(t(SETTING_NAMES.sidecarArgs))
			.setDesc(t("settings.args.desc"))
			.addTextArea((text) =>
				text.setValue(formatArgs(settings.sidecarArgs)).onChange(async (value) => {
					await this.apply("sidecarArgs", value);
				}),
			);

		new Setting(containerEl)
			.setName(t(SETTING_NAMES.pathAdditions))
			.setDesc(t("settings.path.desc"))
			.addTextArea((text) =>
				text.setValue(formatArgs(settings.pathAdditions)).onChange(async (value) => {
					await this.apply("pathAdditions", value);
				}),
			);

		new Setting(containerEl)
			.setName(t(SETTING_NAMES.port))
			.setDesc(t("settings.port.desc"))
			.addText((text) => {
				text.inputEl.type = "number";
				text.inputEl.min = "0";
				text.inputEl.max = "65535";
				text.setPlaceholder(String(DEFAULT_SETTINGS.port))
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
			.setName(t(SETTING_NAMES.autoStart))
			.setDesc(t("settings.autoStart.desc"))
			.addToggle((toggle) =>
				toggle.setValue(settings.autoStart).onChange(async (value) => {
					await this.apply("autoStart", value);
				}),
			);

		new Setting(containerEl)
			.setName(t(SETTING_NAMES.restartPolicy))
			.setDesc(t("settings.restartPolicy.desc", { count: MAX_RESTARTS }))
			.addDropdown((dropdown) =>
				dropdown
					.addOptions(restartPolicyOptions())
					.setValue(settings.restartPolicy)
					.onChange(async (value) => {
						await this.apply("restartPolicy", value);
					}),
			);

		new Setting(containerEl)
			.setName(t(SETTING_NAMES.sidecarLogLevel))
			.setDesc(t("settings.logLevel.desc"))
			.addDropdown((dropdown) =>
				dropdown
					.addOptions(logLevelOptions())
					.setValue(settings.sidecarLogLevel)
					.onChange(async (value) => {
						await this.apply("sidecarLogLevel", value);
					}),
			);

		new Setting(containerEl)
			.setName(t(SETTING_NAMES.badgeScope))
			.setDesc(t("settings.badgeScope.desc"))
			.addDropdown((dropdown) =>
				dropdown
					.addOptions(badgeScopeOptions())
					.setValue(settings.badgeScope)
					.onChange(async (value) => {
						await this.apply("badgeScope", value);
					}),
			);

		new Setting(containerEl)
			.setName(t(SETTING_NAMES.explorerMarkers))
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

		new Setting(containerEl)
			.setName(t("settings.log.name"))
			.setDesc(t("settings.log.desc"))
			.addButton((button) => button.setButtonText(t("settings.log.button")).onClick(() => this.host.showSidecarLog()));
	}

	private async apply(key: string, value: unknown): Promise<void> {
		if (!applyControlValue(this.host.settings, key, value)) return;
		await this.host.saveSettings(key as SettingKey);
	}
}
