import { type MessageKey, t } from "./i18n";
import type { SidecarState, StateSnapshot, SupervisorError } from "./sidecar/supervisor";

const STATUS_TEXT: Record<SidecarState, MessageKey> = {
	starting: "status.starting",
	ready: "status.ready",
	slow: "status.slow",
	restarting: "status.restarting",
	stopped: "status.stopped",
};

export const STATES: readonly SidecarState[] = ["starting", "ready", "slow", "restarting", "stopped"];

export const OFFLINE: Readonly<StateSnapshot> = Object.freeze({
	state: "stopped",
	port: null,
	pid: null,
	error: null,
	restartInMs: null,
	failures: 0,
	gaveUp: false,
});

/** A short, translated reason for a supervisor error. */
export function describeError(error: SupervisorError): string {
	switch (error.kind) {
		case "commandNotFound":
			return t("error.commandNotFound");
		case "portInUse":
			return t("error.portInUse", { port: String(error.port ?? "?") });
		case "sidecarTooOld":
			return t("error.sidecarTooOld");
		case "pluginTooOld":
			return t("error.pluginTooOld");
		case "exited":
			return t("error.exited", { code: String(error.exitCode ?? error.signal ?? "?") });
		case "listeningTimeout":
			return t("error.listeningTimeout");
		case "healthTimeout":
			return t("error.healthTimeout");
		case "unresponsive":
			return t("error.unresponsive");
		case "spawnFailed":
			return t("error.spawnFailed", { message: error.message });
	}
}

export interface StatusView {
	text: string;
	tooltip: string;
	/** CSS class for the state: kh-status-starting / -ready / -slow / -restarting / -stopped. */
	cls: string;
}

/** What the status-bar item shows for a supervisor state: the truth, in one or two words. */
export function statusView(snapshot: StateSnapshot): StatusView {
	let tooltip: string;
	switch (snapshot.state) {
		case "ready":
			tooltip = t("status.tooltip.ready", { port: String(snapshot.port ?? "?") });
			break;
		case "starting":
			tooltip = t("status.tooltip.starting");
			break;
		case "slow":
			tooltip = t("status.tooltip.slow");
			break;
		case "restarting":
			tooltip = t("status.tooltip.restarting", {
				error: snapshot.error ? describeError(snapshot.error) : "?",
				seconds: Math.ceil((snapshot.restartInMs ?? 0) / 1000),
			});
			break;
		case "stopped":
			tooltip = snapshot.error
				? t("status.tooltip.stoppedError", { error: describeError(snapshot.error) })
				: t("status.tooltip.stopped");
			break;
	}
	return { text: t(STATUS_TEXT[snapshot.state]), tooltip, cls: `kh-status-${snapshot.state}` };
}
