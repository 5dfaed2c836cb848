/**
 * Screenshots for docs/user-guide.md (a documentation step, never part of `make test`):
 * bundles scripts/screenshots/harness.ts with esbuild against the obsidian mock, loads it with
 * styles.css and a few Obsidian CSS variables in Debian's Chromium through playwright-core, and
 * writes one PNG per <section> into docs/img/.
 *
 *   apt-get install -y chromium fonts-ipafont-gothic   # once (npm never downloads a browser)
 *   npm run screenshots                                # CHROMIUM=/usr/bin/chromium by default
 *
 * docs/user-guide.md ("The pictures") says how to re-record the answers first.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import esbuild from "esbuild";
import { chromium } from "playwright-core";

const here = path.dirname(fileURLToPath(import.meta.url));
const pluginRoot = path.resolve(here, "..", "..");
const outDir = path.resolve(pluginRoot, "..", "docs", "img");

async function main(): Promise<void> {
	const work = mkdtempSync(path.join(tmpdir(), "kh-shots-"));
	try {
		await esbuild.build({
			absWorkingDir: pluginRoot,
			entryPoints: [path.join(here, "harness.ts")],
			bundle: true,
			format: "iife",
			platform: "browser",
			target: "es2020",
			alias: { obsidian: path.join(pluginRoot, "tests", "mocks", "obsidian.ts") },
			outfile: path.join(work, "harness.js"),
			logLevel: "warning",
		});
		const css = readFileSync(path.join(pluginRoot, "styles.css"), "utf8") + readFileSync(path.join(here, "page.css"), "utf8");
		writeFileSync(path.join(work, "page.css"), css);
		writeFileSync(
			path.join(work, "index.html"),
			'<!doctype html><html><head><meta charset="utf-8"><link rel="stylesheet" href="page.css"></head><body><script src="harness.js"></script></body></html>',
		);
		const browser = await chromium.launch({
			executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
			args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
		});
		try {
			const page = await browser.newPage({ viewport: { width: 1000, height: 800 }, deviceScaleFactor: 1 });
			const errors: string[] = [];
			page.on("pageerror", (error) => errors.push(error.message));
			await page.goto(`file://${path.join(work, "index.html")}`);
			await page.waitForSelector("body[data-ready=yes]", { timeout: 15_000 }).catch(() => {
				throw new Error(`the harness did not finish: ${errors.join("; ")}`);
			});
			mkdirSync(outDir, { recursive: true });
			for (const shot of await page.$$("section, .kh-shot")) {
				const id = await shot.getAttribute("id");
				const width = Number((await shot.getAttribute("data-width")) ?? "800");
				if (!id) continue;
				await shot.evaluate((el, w) => {
					(el as HTMLElement).style.width = `${String(w)}px`;
				}, width);
				await shot.screenshot({ path: path.join(outDir, `${id}.png`) });
				process.stdout.write(`docs/img/${id}.png\n`);
			}
			if (errors.length > 0) throw new Error(errors.join("; "));
		} finally {
			await browser.close();
		}
	} finally {
		rmSync(work, { recursive: true, force: true });
	}
}

main().catch((error: unknown) => {
	process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
	process.exit(1);
});
