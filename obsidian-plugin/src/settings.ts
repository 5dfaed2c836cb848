/**
 * The plugin's settings, in two places:
 *
 * - data.json (synced with the vault): how the plugin behaves — port, auto start,
 *   explorer markers, badge scope, restart policy.
 * - this device's local storage (`app.saveLocalStorage`, never synced): what runs —
 *   the sidecar command, its extra arguments and PATH additions. A path from one
 *   machine would break on another, and whoever can write the synced file must
 *   not choose the program Obsidian starts on this one.
 *
 * The sidecar token is stored in neither.
 */
import type { MessageKey } from "./i18n";

/** Where badges appear: on every note, on notes where trust means something, or nowhere. */
export type BadgeScope = "all" | "relevant" | "none";
export const BADGE_SCOPES: readonly BadgeScope[] = ["relevant", "all", "none"];

/**
 * What happens when the sidecar stops on its own:
 * - limited: restart with a growing delay, give up after `MAX_RESTARTS` failures in a row;
 * - always: keep restarting (a notice still tells when it keeps failing);
 * - never: leave it stopped until started by hand.
 */
export type RestartPolicy = "limited" | "always" | "never";
export const RESTART_POLICIES: readonly RestartPolicy[] = ["limited", "always", "never"];
/**
 * How much the sidecar writes to its log (`kh serve --log-level`): uvicorn's lines and the
 * package's own (knowledge_harness.*). "warning" is the sidecar's default.
 */
export type SidecarLogLevel = "error" | "warning" | "info" | "debug";
export const SIDECAR_LOG_LEVELS: readonly SidecarLogLevel[] = ["error", "warning", "info", "debug"];
/** Failed restarts in a row before the crash-loop notice (and, for "limited", before giving up). */
export const MAX_RESTARTS = 5;

/** What the plugin stores in data.json. */
export interface SyncedSettings {
	/** Port on 127.0.0.1; 0 lets the sidecar pick a free one. */
	port: number;
	/** Start the sidecar when the workspace is ready. */
	autoStart: boolean;
	/** Mark disputed and stale notes in the file explorer (data attributes + static CSS; best effort). */
	explorerMarkers: boolean;
	badgeScope: BadgeScope;
	restartPolicy: RestartPolicy;
	sidecarLogLevel: SidecarLogLevel;
}

/** What the plugin stores in this device's local storage. */
export interface DeviceSettings {
	/** The sidecar executable, `kh` on the PATH by default. */
	sidecarCommand: string;
	/** Extra arguments placed before `serve` (e.g. `-m knowledge_harness` for a Python command). */
	sidecarArgs: string[];
	/** Folders put in front of PATH for the sidecar (one per line in the settings). */
	pathAdditions: string[];
}

export type KnowledgeHarnessSettings = SyncedSettings & DeviceSettings;

/**
 * The sidecar's port when none is set: fixed, so that an agent's MCP address
 * stays the same across launches (the same default as `kh serve`). 0 picks a
 * free port at each start instead.
 */
export const DEFAULT_PORT = 8765;

export const DEFAULT_SYNCED: Readonly<SyncedSettings> = Object.freeze({
	port: DEFAULT_PORT,
	autoStart: true,
	explorerMarkers: true,
	badgeScope: "relevant",
	restartPolicy: "limited",
	sidecarLogLevel: "warning",
});

export const DEFAULT_DEVICE: Readonly<DeviceSettings> = Object.freeze({
	sidecarCommand: "kh",
	sidecarArgs: Object.freeze([]) as unknown as string[],
	pathAdditions: Object.freeze([]) as unknown as string[],
});

export const DEFAULT_SETTINGS: Readonly<KnowledgeHarnessSettings> = Object.freeze({ ...DEFAULT_SYNCED, ...DEFAULT_DEVICE });

export const SYNCED_KEYS: readonly (keyof SyncedSettings)[] = [
	"port",
	"autoStart",
	"explorerMarkers",
	"badgeScope",
	"restartPolicy",
	"sidecarLogLevel",
];
export const DEVICE_KEYS: readonly (keyof DeviceSettings)[] = ["sidecarCommand", "sidecarArgs", "pathAdditions"];

/** The local-storage key of this device's settings (Obsidian scopes it to the vault). */
export const DEVICE_STORAGE_KEY = "knowledge-harness-device";

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

/** Extra arguments and PATH additions are edited one per line; blank lines are dropped. */
export function parseArgs(text: string): string[] {
	return text
		.split(/\r?\n/)
		.map((line) => line.trim())
		.filter((line) => line.length > 0);
}

export function formatArgs(args: readonly string[]): string {
	return args.join("\n");
}

function stringList(value: unknown): string[] | null {
	if (!Array.isArray(value)) return null;
	return value.filter((item): item is string => typeof item === "string").map((item) => item.trim()).filter((item) => item.length > 0);
}

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Synced settings from whatever `loadData()` returned: unknown keys dropped, bad values defaulted. */
export function normalizeSynced(raw: unknown): SyncedSettings {
	const data: Record<string, unknown> = isRecord(raw) ? raw : {};
	return {
		port: isValidPort(data.port) ? data.port : DEFAULT_SYNCED.port,
		autoStart: typeof data.autoStart === "boolean" ? data.autoStart : DEFAULT_SYNCED.autoStart,
		explorerMarkers: typeof data.explorerMarkers === "boolean" ? data.explorerMarkers : DEFAULT_SYNCED.explorerMarkers,
		badgeScope: BADGE_SCOPES.includes(data.badgeScope as BadgeScope) ? (data.badgeScope as BadgeScope) : DEFAULT_SYNCED.badgeScope,
		restartPolicy: RESTART_POLICIES.includes(data.restartPolicy as RestartPolicy)
			? (data.restartPolicy as RestartPolicy)
			: DEFAULT_SYNCED.restartPolicy,
		sidecarLogLevel: SIDECAR_LOG_LEVELS.includes(data.sidecarLogLevel as SidecarLogLevel)
			? (data.sidecarLogLevel as SidecarLogLevel)
			: DEFAULT_SYNCED.sidecarLogLevel,
	};
}

/** Device settings from local storage (or from an old data.json being migrated). */
export function normalizeDevice(raw: unknown): DeviceSettings {
	const data: Record<string, unknown> = isRecord(raw) ? raw : {};
	const command = typeof data.sidecarCommand === "string" ? data.sidecarCommand.trim() : "";
	return {
		sidecarCommand: command || DEFAULT_DEVICE.sidecarCommand,
		sidecarArgs: stringList(data.sidecarArgs) ?? [],
		pathAdditions: stringList(data.pathAdditions) ?? [],
	};
}

/** Both halves as one object, the shape the plugin works with. */
export function normalizeSettings(synced: unknown, device?: unknown): KnowledgeHarnessSettings {
	return { ...normalizeSynced(synced), ...normalizeDevice(device) };
}

export function syncedPart(settings: KnowledgeHarnessSettings): SyncedSettings {
	return normalizeSynced(settings);
}

export function devicePart(settings: KnowledgeHarnessSettings): DeviceSettings {
	return { sidecarCommand: settings.sidecarCommand, sidecarArgs: [...settings.sidecarArgs], pathAdditions: [...settings.pathAdditions] };
}

/** The keys older versions kept in data.json and that now live on the device. */
const LEGACY_DEVICE_KEYS = ["sidecarCommand", "sidecarArgs", "pathAdditions"] as const;

export interface LoadedSettings {
	settings: KnowledgeHarnessSettings;
	/** What local storage must hold now (the migrated values), or null when it is already right. */
	deviceToStore: DeviceSettings | null;
	/** True when data.json still holds device keys and must be rewritten without them. */
	rewriteData: boolean;
	/** The device values taken over from data.json this time (null when nothing was migrated). */
	migrated: DeviceSettings | null;
}

/**
 * Reads both stores. Device values come from local storage only; the first time
 * this device has none, values an older version left in data.json are taken over
 * once (and recorded in local storage, so later edits of the synced file are
 * ignored here). data.json is then rewritten without them.
 */
export function loadSettings(data: unknown, stored: unknown): LoadedSettings {
	const record: Record<string, unknown> = isRecord(data) ? data : {};
	const legacy = LEGACY_DEVICE_KEYS.some((key) => key in record);
	const synced = normalizeSynced(record);
	if (isRecord(stored)) {
		return { settings: { ...synced, ...normalizeDevice(stored) }, deviceToStore: null, rewriteData: legacy, migrated: null };
	}
	const device = normalizeDevice(legacy ? record : {});
	return {
		settings: { ...synced, ...device },
		deviceToStore: device,
		rewriteData: legacy,
		migrated: legacy ? device : null,
	};
}

export type SettingKey = keyof KnowledgeHarnessSettings;

/**
 * The catalogue key of each setting's name as the settings tab shows it. A
 * Record over every key, so a new setting does not compile without a name; the
 * docs drift test (tests/docs/test_reference_drift.py) reads this table and
 * en.ts and fails when a name is missing from docs/install.md or the user guide.
 */
export const SETTING_NAMES: Readonly<Record<SettingKey, MessageKey>> = Object.freeze({
	sidecarCommand: "settings.command.name",
	sidecarArgs: "settings.args.name",
	pathAdditions: "settings.path.name",
	port: "settings.port.name",
	autoStart: "settings.autoStart.name",
	restartPolicy: "settings.restartPolicy.name",
	badgeScope: "settings.badgeScope.name",
	explorerMarkers: "settings.explorerMarkers.name",
	sidecarLogLevel: "settings.logLevel.name",
});

export function isDeviceKey(key: string): key is keyof DeviceSettings {
	return (DEVICE_KEYS as readonly string[]).includes(key);
}

/** Keys whose change only takes effect when the sidecar is (re)started. */
export const RESTART_KEYS: readonly SettingKey[] = ["sidecarCommand", "sidecarArgs", "pathAdditions", "port", "restartPolicy", "sidecarLogLevel"];

/** The value a settings control shows for a key (lists as one item per line). */
export function controlValue(settings: KnowledgeHarnessSettings, key: string): unknown {
	switch (key) {
		case "sidecarArgs":
		case "pathAdditions":
			return formatArgs(settings[key]);
		case "sidecarCommand":
		case "port":
		case "autoStart":
		case "explorerMarkers":
		case "badgeScope":
		case "restartPolicy":
		case "sidecarLogLevel":
			return settings[key];
		default:
			return undefined;
	}
}

function applyList(value: unknown): string[] | null {
	if (typeof value === "string") return parseArgs(value);
	if (Array.isArray(value) && value.every((arg) => typeof arg === "string")) {
		return value.map((arg: string) => arg.trim()).filter((arg) => arg.length > 0);
	}
	return null;
}

/**
 * Applies a value coming from a settings control. Returns false (and changes
 * nothing) when the key is unknown or the value is not acceptable.
 */
export function applyControlValue(settings: KnowledgeHarnessSettings, key: string, value: unknown): boolean {
	switch (key) {
		case "sidecarCommand": {
			if (typeof value !== "string") return false;
			settings.sidecarCommand = value.trim() || DEFAULT_DEVICE.sidecarCommand;
			return true;
		}
		case "sidecarArgs":
		case "pathAdditions": {
			const list = applyList(value);
			if (!list) return false;
			settings[key] = list;
			return true;
		}
		case "port": {
			const port = typeof value === "string" ? parsePort(value) : value;
			if (!isValidPort(port)) return false;
			settings.port = port;
			return true;
		}
		case "autoStart":
		case "explorerMarkers": {
			if (typeof value !== "boolean") return false;
			settings[key] = value;
			return true;
		}
		case "badgeScope": {
			if (!BADGE_SCOPES.includes(value as BadgeScope)) return false;
			settings.badgeScope = value as BadgeScope;
			return true;
		}
		case "restartPolicy": {
			if (!RESTART_POLICIES.includes(value as RestartPolicy)) return false;
			settings.restartPolicy = value as RestartPolicy;
			return true;
		}
		case "sidecarLogLevel": {
			if (!SIDECAR_LOG_LEVELS.includes(value as SidecarLogLevel)) return false;
			settings.sidecarLogLevel = value as SidecarLogLevel;
			return true;
		}
		default:
			return false;
	}
}
