import { afterEach, describe, expect, it } from "vitest";
import { en } from "../src/i18n/en";
import { ja } from "../src/i18n/ja";
import { applyLanguage, localDateTime, matchLocale, resolveLocale, t } from "../src/i18n";
import { detectAppLanguage } from "../src/i18n/detect";
import { mockState } from "./mocks/obsidian";

describe("i18n", () => {
	afterEach(() => {
		applyLanguage("en");
		mockState.apiVersion = "1.13.1";
		mockState.language = "en";
		mockState.momentLocale = "en";
	});

	it("defines every key in every language, with the same placeholders", () => {
		expect(Object.keys(ja).sort()).toEqual(Object.keys(en).sort());
		const placeholders = (text: string) => (text.match(/\{\w+\}/g) ?? []).sort();
		for (const key of Object.keys(en) as (keyof typeof en)[]) {
			expect(placeholders(ja[key]), key).toEqual(placeholders(en[key]));
			expect(ja[key].length, key).toBeGreaterThan(0);
		}
	});

	it("follows Obsidian's language and falls back to English", () => {
		expect(resolveLocale("ja")).toBe("ja");
		expect(resolveLocale("ja-JP")).toBe("ja");
		expect(resolveLocale("de")).toBe("en");
		expect(resolveLocale(null)).toBe("en");
		expect(matchLocale("zh_TW")).toBeNull();
	});

	it("reads the app language with getLanguage, or moment on old versions", () => {
		mockState.language = "ja";
		mockState.momentLocale = "de";
		expect(detectAppLanguage()).toBe("ja");
		mockState.apiVersion = "1.5.0";
		expect(detectAppLanguage()).toBe("de");
	});

	it("translates and fills placeholders", () => {
		applyLanguage("en");
		expect(t("status.ready")).toBe("Knowledge Harness: ready");
		expect(t("status.tooltip.ready", { port: 4321 })).toContain("4321");
		applyLanguage("ja");
		expect(t("status.ready")).toBe(ja["status.ready"]);
		expect(t("status.tooltip.ready", { port: 4321 })).toContain("4321");
	});

	it("chooses singular or plural word forms by the count", () => {
		applyLanguage("en");
		expect(t("progress.planDone", { count: 1 })).toBe("Plan ready: 1 note.");
		expect(t("progress.planDone", { count: 0 })).toBe("Plan ready: 0 notes.");
		expect(t("progress.planDone", { count: 12 })).toBe("Plan ready: 12 notes.");
		expect(t("batch.openTargets", { count: 1, paths: "a.md" })).toMatch(/^1 of these notes is open \(a\.md\)/);
		expect(t("notice.indexStale", { status: "stale", count: 2 })).toContain("2 notes differ");
		applyLanguage("ja");
		expect(t("progress.planDone", { count: 1 })).toBe(ja["progress.planDone"].replace("{count}", "1"));
	});

	it("never shows a plural template unfilled or with its braces", () => {
		for (const locale of ["en", "ja"] as const) {
			applyLanguage(locale);
			for (const key of Object.keys(en) as (keyof typeof en)[]) {
				const names = [...(en[key] + ja[key]).matchAll(/\{(\w+)/g)].map((m) => m[1] ?? "");
				const vars = Object.fromEntries(names.map((n) => [n, 2]));
				expect(t(key, vars), key).not.toMatch(/[{}|]/);
			}
		}
	});

	it("writes the sidecar's UTC timestamps as local dates in the interface's language", () => {
		applyLanguage("en");
		expect(localDateTime("2026-12-05T10:14:37Z", "UTC")).toBe("Dec 5, 2026, 10:14 AM");
		expect(localDateTime("2026-12-05T10:14:37Z", "Asia/Tokyo")).toBe("Dec 5, 2026, 7:14 PM");
		applyLanguage("ja");
		expect(localDateTime("2026-12-05T10:14:37Z", "Asia/Tokyo")).toBe("2026/12/05 19:14");
		expect(localDateTime("2026-12-05")).toBe("2026-12-05"); // a date alone stays as the sidecar wrote it
		expect(localDateTime("soon")).toBe("soon");
		applyLanguage("en");
	});
});
