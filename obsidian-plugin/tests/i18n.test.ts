import { afterEach, describe, expect, it } from "vitest";
import { en } from "../src/i18n/en";
import { ja } from "../src/i18n/ja";
import { applyLanguage, matchLocale, resolveLocale, t } from "../src/i18n";
import { detectAppLanguage } from "../src/i18n/detect";
import { mockState } from "./mocks/obsidian";

describe("i18n", () => {
	afterEach(() => {
		applyLanguage("en", "en");
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
		expect(resolveLocale("auto", "ja")).toBe("ja");
		expect(resolveLocale("auto", "ja-JP")).toBe("ja");
		expect(resolveLocale("auto", "de")).toBe("en");
		expect(resolveLocale("auto", null)).toBe("en");
		expect(resolveLocale("en", "ja")).toBe("en");
		expect(resolveLocale("ja", "en")).toBe("ja");
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
		applyLanguage("auto", "en");
		expect(t("status.ready")).toBe("Sidecar ready");
		expect(t("status.tooltip.ready", { port: 4321 })).toContain("4321");
		applyLanguage("auto", "ja");
		expect(t("status.ready")).toBe(ja["status.ready"]);
		expect(t("status.tooltip.ready", { port: 4321 })).toContain("4321");
	});
});
