import { isLocale, type LanguageSetting } from "./i18n";

/** What the plugin stores in data.json. The sidecar token is never stored. */
export interface KnowledgeHarnessSettings {
	/** The sidecar executable, `kh` on the PATH by default. */
	sidecarCommand: string;
	/** Extra arguments placed before `serve` (e.g. `-m knowledge_harness` for a Python command). */
	sidecarArgs: string[];
	/** Port on 127.0.0.1; 0 lets the sidecar pick a free one. */
	port: number;
	/** Start the sidecar when the workspace is ready. */
	autoStart: boolean;
	/** Interface language; "auto" follows Obsidian. */
	language: LanguageSetting;
	/** Mark disputed and stale notes in the file explorer (data attributes + static CSS; best effort). */
	explorerMarkers: boolean;
}

export const DEFAULT_SETTINGS: Readonly<KnowledgeHarnessSettings> = Object.freeze({
	sidecarCommand: "kh",
	sidecarArgs: [],
	port: 0,
	autoStart: true,
	language: "auto",
	explorerMarkers: true,
});

export const MAX_PORT = 65535;

export function isValidPort(value: unknown): value is number {
	return typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= MAX_PORT;
}

/** Parses the port field; null when it is not a whole number in 0..65535. */
export function parsePort(text: string): number | null {
	const trimmed = text.trim();
	if (!/^\d{1,5}$/.test(trimmed)) return null;
	const value = Number(trimmed);
	return isValidPort(value) ? value : null;
}

/** Extra arguments are edited one per line; blank lines are dropped. */
export function parseArgs(text: string): string[] {
	return text
		.split(/\r?\n/)
		.map((line) => line.trim())
		.filter((line) => line.length > 0);
}

export function formatArgs(args: readonly string[]): string {
	return args.join("\n");
}

/**
 * Builds complete settings from whatever `loadData()` returned: unknown keys
 * are dropped, missing or ill-typed ones take their default.
 */
export function normalizeSettings(raw: unknown): KnowledgeHarnessSettings {
	const data: Record<string, unknown> = isRecord(raw) ? raw : {};
	const command = typeof data.sidecarCommand === "string" ? data.sidecarCommand.trim() : "";
	const args = Array.isArray(data.sidecarArgs)
		? data.sidecarArgs.filter((arg): arg is string => typeof arg === "string")
		: [...DEFAULT_SETTINGS.sidecarArgs];
	return {
		sidecarCommand: command || DEFAULT_SETTINGS.sidecarCommand,
		sidecarArgs: args,
		port: isValidPort(data.port) ? data.port : DEFAULT_SETTINGS.port,
		autoStart: typeof data.autoStart === "boolean" ? data.autoStart : DEFAULT_SETTINGS.autoStart,
		language: data.language === "auto" || isLocale(data.language) ? data.language : DEFAULT_SETTINGS.language,
		explorerMarkers: typeof data.explorerMarkers === "boolean" ? data.explorerMarkers : DEFAULT_SETTINGS.explorerMarkers,
	};
}

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

export type SettingKey = keyof KnowledgeHarnessSettings;

/** Keys whose change only takes effect when the sidecar is (re)started. */
export const RESTART_KEYS: readonly SettingKey[] = ["sidecarCommand", "sidecarArgs", "port"];

/** The value a settings control shows for a key (extra arguments as one per line). */
export function controlValue(settings: KnowledgeHarnessSettings, key: string): unknown {
	switch (key) {
		case "sidecarArgs":
			return formatArgs(settings.sidecarArgs);
		case "sidecarCommand":
		case "port":
		case "autoStart":
		case "language":
		case "explorerMarkers":
			return settings[key];
		default:
			return undefined;
	}
}

/**
 * Applies a value coming from a settings control. Returns false (and changes
 * nothing) when the key is unknown or the value is not acceptable.
 */
export function applyControlValue(settings: KnowledgeHarnessSettings, key: string, value: unknown): boolean {
	switch (key) {
		case "sidecarCommand": {
			if (typeof value !== "string") return false;
			settings.sidecarCommand = value.trim() || DEFAULT_SETTINGS.sidecarCommand;
			return true;
		}
		case "sidecarArgs": {
			if (typeof value === "string") {
				settings.sidecarArgs = parseArgs(value);
				return true;
			}
			if (Array.isArray(value) && value.every((arg) => typeof arg === "string")) {
				settings.sidecarArgs = value.map((arg: string) => arg.trim()).filter((arg) => arg.length > 0);
				return true;
			}
			return false;
		}
		case "port": {
			const port = typeof value === "string" ? parsePort(value) : value;
			if (!isValidPort(port)) return false;
			settings.port = port;
			return true;
		}
		case "autoStart": {
			if (typeof value !== "boolean") return false;
			settings.autoStart = value;
			return true;
		}
		case "explorerMarkers": {
			if (typeof value !== "boolean") return false;
			settings.explorerMarkers = value;
			return true;
		}
		case "language": {
			if (value !== "auto" && !isLocale(value)) return false;
			settings.language = value;
			return true;
		}
		default:
			return false;
	}
}
