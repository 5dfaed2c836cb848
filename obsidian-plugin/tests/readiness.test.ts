/**
 * The readiness panel (settings and the "how to install" window): is `kh`
 * there, where, which version, does it fit; the install commands to copy when
 * it is missing. And the lookup that says where `kh` is, on a real folder.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import { applyLanguage } from "../src/i18n";
import { fitOf, type Readiness, renderReadiness } from "../src/readiness";
import { INSTALL_URL } from "../src/sidecar/compat";
import { locateCommand } from "../src/sidecar/node-runtime";
import { OFFLINE } from "../src/status";
import { Notice } from "./mocks/obsidian";
import { makePlugin } from "./helpers/plugin";
import { ReadinessModal } from "../src/ui/readiness-modal";

function readiness(over: Partial<Readiness> = {}): Readiness {
	return { command: "kh", path: "/home/me/.local/bin/kh", snapshot: OFFLINE, pluginVersion: "0.1.0", ...over };
}

function panel(r: Readiness): HTMLElement {
	const el = createDiv();
	renderReadiness(el, r);
	return el;
}

function rows(el: HTMLElement): Record<string, string> {
	const dts = Array.from(el.querySelectorAll("dt")).map((d) => d.textContent ?? "");
	const dds = Array.from(el.querySelectorAll("dd")).map((d) => d.textContent ?? "");
	return Object.fromEntries(dts.map((label, i) => [label, dds[i] ?? ""]));
}

afterEach(() => {
	applyLanguage("en");
	vi.unstubAllGlobals();
});

describe("the readiness panel", () => {
	it("without kh: says where pipx and uv put it and how to find its full path, as the install guide does", () => {
		const guide = readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "docs", "install.md"), "utf8");
		for (const language of ["en", "ja"]) {
			applyLanguage(language);
			const el = panel(readiness({ path: null, snapshot: { ...OFFLINE, error: { kind: "commandNotFound", message: "Command not found: kh" } } }));
			const help = el.querySelector(".kh-readiness-install .kh-muted")!.textContent;
			for (const words of ["command -v kh", "where kh", "~/.local/bin", "PIPX_BIN_DIR", "UV_TOOL_BIN_DIR", "%USERPROFILE%\\.local\\bin\\kh.exe"]) {
				expect(help, language).toContain(words);
				expect(guide).toContain(words);
			}
		}
	});

	it("without kh: says it was not found and offers the install commands to copy, with a link", async () => {
		const written: string[] = [];
		vi.stubGlobal("navigator", { clipboard: { writeText: (text: string) => (written.push(text), Promise.resolve()) } });
		const el = panel(readiness({ path: null, snapshot: { ...OFFLINE, error: { kind: "commandNotFound", message: "Command not found: kh" } } }));
		expect(rows(el)).toMatchObject({
			Command: "“kh” was not found on the PATH Obsidian sees",
			"Fits this plugin": "Not known until the sidecar starts",
		});
		expect(rows(el).State).toContain("Command not found");
		const commands = Array.from(el.querySelectorAll(".kh-readiness-install code")).map((c) => c.textContent);
		expect(commands).toEqual(["pipx install knowledge-harness", "uv tool install knowledge-harness"]);
		const copy = el.querySelector<HTMLButtonElement>(".kh-copy-row button");
		copy?.click();
		await Promise.resolve();
		expect(written).toEqual(["pipx install knowledge-harness"]);
		expect(copy?.textContent).toBe("Copied");
		expect(el.querySelector("a")?.getAttribute("href")).toBe(INSTALL_URL);
		expect(el.querySelector(".kh-readiness")?.classList.contains("kh-readiness-bad")).toBe(true);
	});

	it("with a fitting kh: the path, both versions and API levels, and yes", () => {
		const r = readiness({ snapshot: { ...OFFLINE, state: "ready", port: 8765, sidecar: { version: "0.1.0", apiLevel: 2, minPluginApiLevel: 1 } } });
		expect(fitOf(r)).toBe("fits");
		const el = panel(r);
		expect(rows(el)).toEqual({
			State: "Knowledge Harness: ready",
			Command: "/home/me/.local/bin/kh",
			Version: "kh 0.1.0 (API level 2) · plugin 0.1.0 (API level 2)",
			"Fits this plugin": "Yes",
		});
		expect(el.querySelector(".kh-readiness-install")).toBeNull();
	});

	it("with a kh too old: says which side and offers the upgrade command, in Japanese too", () => {
		const r = readiness({
			snapshot: { ...OFFLINE, error: { kind: "sidecarTooOld", message: "old" }, sidecar: { version: "0.0.9", apiLevel: 1, minPluginApiLevel: 0 } },
		});
		expect(fitOf(r)).toBe("sidecarTooOld");
		expect(rows(panel(r))["Fits this plugin"]).toBe("No: kh is too old (this plugin needs API level 2)");
		expect(panel(r).querySelector(".kh-readiness-install code")?.textContent).toBe("pipx upgrade knowledge-harness");
		applyLanguage("ja");
		const ja = rows(panel(r));
		expect(ja["このプラグインとの適合"]).toBe("適合しません: kh が古すぎます（このプラグインには API レベル 2 が必要です）");
		expect(ja["バージョン"]).toBe("kh 0.0.9（API レベル 1）· プラグイン 0.1.0（API レベル 2）");
	});

	it("a plugin too old for the sidecar asks for a plugin update", () => {
		const r = readiness({ snapshot: { ...OFFLINE, sidecar: { version: "9.0.0", apiLevel: 9, minPluginApiLevel: 5 } } });
		expect(fitOf(r)).toBe("pluginTooOld");
		expect(panel(r).querySelector(".kh-readiness-install")?.textContent).toContain("community plugins");
	});
});

describe("where kh is", () => {
	it("finds an executable in PATH as spawn would, skipping files that cannot run", () => {
		const root = mkdtempSync(path.join(tmpdir(), "kh-locate-"));
		try {
			const first = path.join(root, "a");
			const second = path.join(root, "b");
			for (const dir of [first, second]) mkdirSync(dir);
			writeFileSync(path.join(first, "kh"), "not executable");
			chmodSync(path.join(first, "kh"), 0o644);
			writeFileSync(path.join(second, "kh"), "#!/bin/sh\n");
			chmodSync(path.join(second, "kh"), 0o755);
			const env = { PATH: [path.join(root, "missing"), first, second].join(":") };
			expect(locateCommand("kh", env, "linux", ":")).toBe(path.join(second, "kh"));
			expect(locateCommand("nope", env, "linux", ":")).toBeNull();
			expect(locateCommand(path.join(second, "kh"), {}, "linux", ":")).toBe(path.join(second, "kh"));
			expect(locateCommand(path.join(first, "kh"), {}, "linux", ":")).toBeNull();
			expect(locateCommand("kh", {}, "linux", ":")).toBeNull();
		} finally {
			rmSync(root, { force: true, recursive: true });
		}
	});
});

describe("the plugin when only the person can mend it", () => {
	it("a taken port: one notice that says so, whose button opens the readiness window", async () => {
		Notice.instances.length = 0;
		const { plugin, app } = makePlugin({});
		plugin.onSpawn = (child) => {
			child.println(JSON.stringify({ event: "port_in_use", host: "127.0.0.1", port: 8765 }));
			child.exit(1);
		};
		await plugin.onload();
		app.workspace.triggerLayoutReady();
		await plugin.clock.advance(0);
		const notice = Notice.instances.find((n) => n.message.includes("port 8765 is taken"));
		expect(notice?.message).toContain("Choose another port in the plugin settings");
		const shown = vi.spyOn(ReadinessModal.prototype, "open");
		notice?.noticeEl.querySelector("button")?.click();
		expect(shown).toHaveBeenCalledTimes(1);
		const modal = shown.mock.contexts[0] as ReadinessModal;
		expect(modal.contentEl.textContent).toContain("port 8765 is taken");
		await plugin.clock.advance(120_000);
		expect(plugin.children).toHaveLength(1); // no restart loop on a taken port
		plugin.onunload();
	});
});
