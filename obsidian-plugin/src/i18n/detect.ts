import { getLanguage, moment, requireApiVersion } from "obsidian";

/**
 * Obsidian's interface language as an ISO code ("en" when unknown).
 * `getLanguage()` exists from Obsidian 1.8.7; older versions set moment's
 * locale to the interface language, so that is the fallback.
 */
export function detectAppLanguage(): string {
	try {
		const tag = requireApiVersion("1.8.7") ? getLanguage() : moment.locale();
		return tag || "en";
	} catch {
		return "en";
	}
}
