import { type MessageKey, t } from "./i18n";
import { INSTALL_COMMANDS, INSTALL_URL, MIN_SIDECAR_API_LEVEL, PLUGIN_API_LEVEL, UPGRADE_COMMAND } from "./sidecar/compat";
import type { StateSnapshot } from "./sidecar/supervisor";
import { describeError, statusView } from "./status";

/** What the settings show about the sidecar: is `kh` there, which one, does it fit this plugin. */
export interface Readiness {
	/** The "Sidecar command" setting. */
	command: string;
	/** The file that command runs; null when none was found (on PATH and the PATH additions). */
	path: string | null;
	snapshot: StateSnapshot;
	pluginVersion: string;
}

export type Fit = "fits" | "sidecarTooOld" | "pluginTooOld" | "unknown";

/** Which side is too old, from the last handshake (or the failure it caused). */
export function fitOf(readiness: Readiness): Fit {
	const { snapshot } = readiness;
	if (snapshot.error?.kind === "sidecarTooOld") return "sidecarTooOld";
	if (snapshot.error?.kind === "pluginTooOld") return "pluginTooOld";
	const sidecar = snapshot.sidecar;
	if (!sidecar) return "unknown";
	if (sidecar.apiLevel < MIN_SIDECAR_API_LEVEL) return "sidecarTooOld";
	if (PLUGIN_API_LEVEL < sidecar.minPluginApiLevel) return "pluginTooOld";
	return "fits";
}

/** Whether the person has to install `kh` first (the install commands are shown then). */
export function needsInstall(readiness: Readiness): boolean {
	return readiness.path === null || readiness.snapshot.error?.kind === "commandNotFound";
}

const FIT_KEYS: Record<Fit, MessageKey> = {
	fits: "readiness.fits",
	sidecarTooOld: "readiness.sidecarTooOld",
	pluginTooOld: "readiness.pluginTooOld",
	unknown: "readiness.unknown",
};

function copyRow(parent: HTMLElement, command: string): void {
	const row = parent.createDiv({ cls: "kh-copy-row" });
	row.createEl("code", { cls: "kh-command", text: command });
	const button = row.createEl("button", { text: t("agent.copy"), attr: { "aria-label": t("readiness.copyLabel", { command }) } });
	button.addEventListener("click", () => {
		void navigator.clipboard?.writeText(command).then(() => button.setText(t("readiness.copied")));
	});
}

/** Draws the readiness panel (settings tab, and the "how to install" window of the not-found notice). */
export function renderReadiness(el: HTMLElement, readiness: Readiness): void {
	const panel = el.createDiv({ cls: "kh-readiness" });
	const fit = fitOf(readiness);
	const install = needsInstall(readiness);
	const tone = install || fit === "sidecarTooOld" || fit === "pluginTooOld" ? "bad" : fit === "fits" ? "good" : "unknown";
	panel.addClass(`kh-readiness-${tone}`);
	panel.createDiv({ cls: "kh-readiness-title", text: t("readiness.title") });
	const rows = panel.createEl("dl", { cls: "kh-readiness-rows" });
	const row = (label: string, value: string, cls = "") => {
		rows.createEl("dt", { text: label });
		rows.createEl("dd", { text: value, cls });
	};
	const status = statusView(readiness.snapshot);
	row(t("readiness.state"), readiness.snapshot.error ? `${status.text} — ${describeError(readiness.snapshot.error)}` : status.text, "kh-readiness-state");
	row(
		t("readiness.found"),
		readiness.path ? readiness.path : t("readiness.notFound", { command: readiness.command }),
		readiness.path ? "kh-readiness-path" : "kh-readiness-path kh-readiness-missing",
	);
	const sidecar = readiness.snapshot.sidecar;
	row(
		t("readiness.version"),
		sidecar
			? t("readiness.versionValue", { version: sidecar.version, level: sidecar.apiLevel, plugin: readiness.pluginVersion, pluginLevel: PLUGIN_API_LEVEL })
			: t("readiness.versionUnknown", { plugin: readiness.pluginVersion, pluginLevel: PLUGIN_API_LEVEL }),
		"kh-readiness-version",
	);
	row(t("readiness.fit"), t(FIT_KEYS[fit], { needed: MIN_SIDECAR_API_LEVEL }), `kh-readiness-fit kh-readiness-fit-${fit}`);

	if (install) {
		const box = panel.createDiv({ cls: "kh-readiness-install" });
		box.createDiv({ text: t("readiness.installIntro") });
		for (const command of INSTALL_COMMANDS) copyRow(box, command);
		box.createDiv({ cls: "kh-muted", text: t("readiness.installThen") });
		box.createEl("a", { text: t("readiness.installLink"), attr: { href: INSTALL_URL, target: "_blank", rel: "noopener" } });
	} else if (fit === "sidecarTooOld") {
		const box = panel.createDiv({ cls: "kh-readiness-install" });
		box.createDiv({ text: t("readiness.upgradeIntro") });
		copyRow(box, UPGRADE_COMMAND);
	} else if (fit === "pluginTooOld") {
		panel.createDiv({ cls: "kh-readiness-install", text: t("readiness.updatePlugin") });
	}
}
