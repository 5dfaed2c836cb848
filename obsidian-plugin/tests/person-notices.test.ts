import { afterEach, describe, expect, it } from "vitest";
import { applyLanguage, LOCALES } from "../src/i18n";
import { INSTALL_COMMANDS, UPGRADE_COMMAND } from "../src/sidecar/compat";
import { needsPersonText } from "../src/ui/person-notices";

afterEach(() => applyLanguage("en"));

const values = { command: "kh", port: "8765", version: "0.0.9" };

describe("notices that only the person can act on", () => {
	it("name the install and update commands the readiness panel shows, and the plugin's own button and setting", () => {
		for (const locale of ["en", "ja"] as const) {
			applyLanguage(locale);
			const missing = needsPersonText("commandNotFound", values);
			expect(missing).toContain(INSTALL_COMMANDS[0]);
			expect(missing).toContain(LOCALES[locale]["notice.howToInstall"]);
			expect(missing).toContain(LOCALES[locale]["settings.command.name"]);
			const old = needsPersonText("sidecarTooOld", values);
			expect(old).toContain(UPGRADE_COMMAND);
			expect(old).toContain("0.0.9");
			expect(needsPersonText("portInUse", values)).toContain("8765");
			for (const text of [missing, old]) expect(text).not.toMatch(/[{}]/);
		}
	});

	it("keep no install command of their own in either language (one place: sidecar/compat.ts)", () => {
		for (const messages of Object.values(LOCALES)) {
			for (const [key, text] of Object.entries(messages)) expect(text, key).not.toMatch(/\b(pipx|uv tool|pip) (install|upgrade)\b/);
		}
	});
});
