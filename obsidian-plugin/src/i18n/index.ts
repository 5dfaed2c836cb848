import { en, type MessageKey, type Messages } from "./en";
import { ja } from "./ja";

export type { MessageKey, Messages } from "./en";

/** Languages this plugin ships, one module per language. */
export const LOCALES = { en, ja } as const satisfies Record<string, Messages>;
export type Locale = keyof typeof LOCALES;

export const FALLBACK_LOCALE: Locale = "en";

let current: Locale = FALLBACK_LOCALE;

export function isLocale(value: unknown): value is Locale {
	return typeof value === "string" && Object.prototype.hasOwnProperty.call(LOCALES, value);
}

/**
 * Maps a language tag such as "ja", "ja-JP" or "en-GB" to a shipped locale,
 * or null when none fits.
 */
export function matchLocale(tag: string | null | undefined): Locale | null {
	if (!tag) return null;
	const base = tag.trim().toLowerCase().replace("_", "-").split("-")[0] ?? "";
	return isLocale(base) ? base : null;
}

/**
 * The locale for Obsidian's interface language. The plugin has no language
 * setting of its own: it speaks Obsidian's language (English when it ships none).
 */
export function resolveLocale(appLanguage: string | null | undefined): Locale {
	return matchLocale(appLanguage) ?? FALLBACK_LOCALE;
}

/** Selects the locale for all later `t()` calls (from Obsidian's language) and returns it. */
export function applyLanguage(appLanguage: string | null | undefined): Locale {
	current = resolveLocale(appLanguage);
	return current;
}

export function currentLocale(): Locale {
	return current;
}

/**
 * Translates a key, filling `{name}` placeholders from `vars`. `{name:one|other}` picks the
 * word form for the number in `vars[name]` by the locale's plural rules ("1 note", "2 notes").
 */
export function t(key: MessageKey, vars?: Record<string, string | number>): string {
	const template: string = LOCALES[current][key];
	if (!vars) return template;
	const has = (name: string) => Object.prototype.hasOwnProperty.call(vars, name);
	return template
		.replace(/\{(\w+):([^{}|]*)\|([^{}]*)\}/g, (whole: string, name: string, one: string, other: string) => {
			if (!has(name)) return whole;
			return new Intl.PluralRules(current).select(Number(vars[name])) === "one" ? one : other;
		})
		.replace(/\{(\w+)\}/g, (whole: string, name: string) => (has(name) ? String(vars[name]) : whole));
}

/** True when the catalogues have a message for `key` (e.g. a label for a code the sidecar sent). */
export function hasMessage(key: string): key is MessageKey {
	return Object.prototype.hasOwnProperty.call(LOCALES[current], key);
}

/**
 * A timestamp the sidecar sends in UTC ("2026-12-05T10:14:37Z"), in the person's
 * local time and language; anything that is not a timestamp comes back as it is.
 */
export function localDateTime(value: string, timeZone?: string): string {
	if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(value)) return value;
	const date = new Date(value);
	if (Number.isNaN(date.getTime())) return value;
	return new Intl.DateTimeFormat(current, { dateStyle: "medium", timeStyle: "short", timeZone }).format(date);
}
