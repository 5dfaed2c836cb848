// @ts-check
import { defineConfig, globalIgnores } from "eslint/config";
import obsidianmd from "eslint-plugin-obsidianmd";
import regexpPlugin from "eslint-plugin-regexp";
import { DEFAULT_ACRONYMS } from "eslint-plugin-obsidianmd/dist/lib/rules/ui/acronyms.js";
import { DEFAULT_BRANDS } from "eslint-plugin-obsidianmd/dist/lib/rules/ui/brands.js";
import tseslint from "typescript-eslint";

export default defineConfig([
	globalIgnores(["main.js", "node_modules/", "coverage/"]),
	// Obsidian's review rules with the stricter checks of English locale modules
	// (sentence case in src/i18n/en.ts), eslint's and typescript-eslint's
	// recommended (type-checked) rules included.
	...obsidianmd.configs.recommendedWithLocalesEn,
	// Every regular expression checked for mistakes and super-linear backtracking
	// (the sidecar's patterns get the same check from tests/architecture/redos.py).
	{
		...regexpPlugin.configs["flat/recommended"],
		files: ["**/*.ts", "**/*.mjs"],
	},
	{
		files: ["**/*.ts", "**/*.mjs"],
		rules: {
			"regexp/no-super-linear-backtracking": "error",
			"regexp/no-super-linear-move": "error",
		},
	},
	{
		files: ["**/*.ts"],
		languageOptions: {
			parser: tseslint.parser,
			parserOptions: {
				projectService: {
					allowDefaultProject: ["eslint.config.mjs", "esbuild.config.mjs"],
				},
				tsconfigRootDir: import.meta.dirname,
			},
		},
	},
	{
		// Sentence case in the English catalogue, knowing this plugin's names and terms.
		files: ["src/i18n/en.ts"],
		rules: {
			"obsidianmd/ui/sentence-case-locale-module": [
				"error",
				{
					brands: [...DEFAULT_BRANDS, "Knowledge Harness", "Claude Code", "Codex", "Japanese", "English"],
					acronyms: [...DEFAULT_ACRONYMS, "MCP", "L0", "L1", "L2", "L3", "B1", "B2"],
					// "Fresh L2" is the name of a figure.
					ignoreWords: ["Fresh"],
					// The environment variable PATH and Codex's config file keep their spelling.
					ignoreRegex: ["\\bPATH\\b", "~/\\.codex/"],
				},
			],
		},
	},
	{
		// Build scripts run in Node (make api-types), not in Obsidian's windows.
		files: ["scripts/**/*.ts"],
		rules: {
			"obsidianmd/prefer-window-timers": "off",
			"obsidianmd/no-global-this": "off",
		},
	},
	{
		// The mock *implements* Obsidian's createEl/createDiv helpers for the
		// tests, so it has to create elements with the DOM's own API.
		files: ["tests/mocks/**/*.ts"],
		rules: {
			"obsidianmd/prefer-create-el": "off",
		},
	},
]);
