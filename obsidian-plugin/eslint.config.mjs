// @ts-check
import { defineConfig, globalIgnores } from "eslint/config";
import obsidianmd from "eslint-plugin-obsidianmd";
import tseslint from "typescript-eslint";

export default defineConfig([
	globalIgnores(["main.js", "node_modules/", "coverage/"]),
	// Obsidian's review rules, with eslint's and typescript-eslint's
	// recommended (type-checked) rules included.
	...obsidianmd.configs.recommended,
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
