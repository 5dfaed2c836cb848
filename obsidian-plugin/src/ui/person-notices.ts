import { t } from "../i18n";
import { INSTALL_COMMANDS, UPGRADE_COMMAND } from "../sidecar/compat";

/**
 * What a notice tells the person when only they can mend the sidecar: in the
 * plugin's own terms (its button, its setting), with the install and update
 * commands taken from the one place the readiness panel shows them from.
 */
export function needsPersonText(kind: string, values: { command: string; port: string; version: string }): string {
	const terms = { button: t("notice.howToInstall"), setting: t("settings.command.name") };
	switch (kind) {
		case "commandNotFound":
			return t("notice.commandNotFound", { command: values.command, install: INSTALL_COMMANDS[0] ?? "", ...terms });
		case "portInUse":
			return t("notice.portInUse", { port: values.port });
		case "sidecarTooOld":
			return t("notice.sidecarTooOld", { version: values.version, upgrade: UPGRADE_COMMAND, ...terms });
		default:
			return t("notice.pluginTooOld", { version: values.version });
	}
}
