import { type MessageKey, t } from "./i18n";
import type { SidecarState, StateSnapshot, SupervisorError } from "./sidecar/supervisor";

const STATUS_TEXT: Record<SidecarState, MessageKey> = {
	starting: "status.starting",
	ready: "status.ready",
	offline: "status.offline",
};

export const STATES: readonly SidecarState[] = ["starting", "ready", "offline"];

export const OFFLINE: Readonly<StateSnapshot> = Object.freeze({
	state: "offline",
	port: null,
	pid: null,
	error: null,
	restartInMs: null,
});

/** A short, translated reason for a supervisor error. */
export function describeError(error: SupervisorError): string {
	switch (error.kind) {
		case "commandNotFound":
			return t("error.commandNotFound");
		case "exited":
			return t("error.exited", { code: String(error.exitCode ?? error.signal ?? "?") });
		case "listeningTimeout":
			return t("error.listeningTimeout");
		case "healthTimeout":
			return t("error.healthTimeout");
		case "spawnFailed":
			return t("error.spawnFailed", { message: error.message });
	}
}

export interface StatusView {
	text: string;
	tooltip: string;
	/** CSS class for the state: kh-status-starting / -ready / -offline. */
	cls: string;
}

/** What the status-bar item shows for a supervisor state. */
export function statusView(snapshot: StateSnapshot): StatusView {
	let tooltip: string;
	if (snapshot.state === "ready") {
		tooltip = t("status.tooltip.ready", { port: String(snapshot.port ?? "?") });
	} else if (snapshot.state === "starting") {
		tooltip = t("status.tooltip.starting");
	} else if (snapshot.error) {
		tooltip = t("status.tooltip.offlineError", { error: describeError(snapshot.error) });
	} else {
		tooltip = t("status.tooltip.offline");
	}
	return { text: t(STATUS_TEXT[snapshot.state]), tooltip, cls: `kh-status-${snapshot.state}` };
}
