/**
 * What the community directory reads lives at the repository root: LICENSE,
 * manifest.json and versions.json. The plugin is built from obsidian-plugin/,
 * so the root copies must stay identical to the plugin's own.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const pluginRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const repoRoot = path.resolve(pluginRoot, "..");
const read = (...parts: string[]) => readFileSync(path.join(...parts), "utf8");

interface Manifest {
	id: string;
	name: string;
	version: string;
	minAppVersion: string;
	description: string;
	author: string;
	isDesktopOnly: boolean;
}

const SEMVER = /^\d+\.\d+\.\d+$/;

describe("release files at the repository root", () => {
	it("has an MIT LICENSE, as package.json and pyproject.toml declare", () => {
		expect(existsSync(path.join(repoRoot, "LICENSE"))).toBe(true);
		expect(read(repoRoot, "LICENSE")).toMatch(/^MIT License/);
		expect((JSON.parse(read(pluginRoot, "package.json")) as { license: string }).license).toBe("MIT");
		expect(read(repoRoot, "pyproject.toml")).toMatch(/license = \{ text = "MIT" \}/);
	});

	it("keeps manifest.json and versions.json identical to the plugin's", () => {
		expect(read(repoRoot, "manifest.json")).toBe(read(pluginRoot, "manifest.json"));
		expect(read(repoRoot, "versions.json")).toBe(read(pluginRoot, "versions.json"));
	});

	it("has a manifest the community directory accepts", () => {
		const manifest = JSON.parse(read(repoRoot, "manifest.json")) as Manifest;
		expect(manifest.id).toMatch(/^[a-z0-9-]+$/);
		expect(manifest.id).not.toContain("obsidian");
		expect(manifest.name).not.toMatch(/obsidian/i);
		expect(manifest.version).toMatch(SEMVER);
		expect(manifest.minAppVersion).toMatch(SEMVER);
		expect(manifest.author.length).toBeGreaterThan(0);
		expect(manifest.description.length).toBeGreaterThan(0);
		expect(manifest.description.length).toBeLessThanOrEqual(250);
		expect(manifest.description).not.toMatch(/^this plugin/i);
		expect(manifest.description).not.toMatch(/obsidian/i);
		expect(manifest.description).toMatch(/\.$/);
		// It starts a local process through node's child_process.
		expect(manifest.isDesktopOnly).toBe(true);
	});

	it("states the manifest's minAppVersion wherever a README or the install guide names one", () => {
		const manifest = JSON.parse(read(repoRoot, "manifest.json")) as Manifest;
		const stated = [
			...read(pluginRoot, "README.md").matchAll(/Minimum app version: (\d+\.\d+\.\d+)/g),
			...read(repoRoot, "docs", "install.md").matchAll(/needs\s+Obsidian (\d+\.\d+\.\d+) or later/g),
		].map((m) => m[1]);
		expect(stated.length).toBeGreaterThanOrEqual(2);
		expect(new Set(stated)).toEqual(new Set([manifest.minAppVersion]));
	});

	it("discloses in the README every place outside the vault that kh or the plugin writes", () => {
		const readme = read(repoRoot, "README.md");
		const section = readme.slice(readme.indexOf("## Files written outside the vault"), readme.indexOf("## Network use"));
		for (const place of ["agent-tokens", "config.toml", "KH_SEARCH_CACHE", "[blogs.NAME]", "--token-file", "local storage"]) {
			expect(section).toContain(place);
		}
	});

	it("lists the manifest's version in versions.json and in package.json", () => {
		const manifest = JSON.parse(read(repoRoot, "manifest.json")) as Manifest;
		const versions = JSON.parse(read(repoRoot, "versions.json")) as Record<string, string>;
		expect(versions[manifest.version]).toBe(manifest.minAppVersion);
		for (const [version, app] of Object.entries(versions)) {
			expect(version).toMatch(SEMVER);
			expect(app).toMatch(SEMVER);
		}
		expect((JSON.parse(read(pluginRoot, "package.json")) as { version: string }).version).toBe(manifest.version);
	});

	it("has a release workflow that uploads main.js, manifest.json and styles.css for a tag", () => {
		const workflow = read(repoRoot, ".github", "workflows", "release.yml");
		expect(workflow).toMatch(/tags:/);
		for (const asset of ["main.js", "manifest.json", "styles.css"]) expect(workflow).toContain(`obsidian-plugin/${asset}`);
	});

	it("discloses network use and the external program in the README", () => {
		const readme = read(repoRoot, "README.md");
		expect(readme).toMatch(/^## Network use$/m);
		expect(readme).toMatch(/^## External program$/m);
	});
});
