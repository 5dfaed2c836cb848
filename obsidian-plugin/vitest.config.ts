import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
	resolve: {
		alias: {
			// The obsidian package ships types only; tests run against a small mock.
			obsidian: fileURLToPath(new URL("./tests/mocks/obsidian.ts", import.meta.url)),
		},
	},
	test: {
		environment: "happy-dom",
		include: ["tests/**/*.test.ts"],
		// a throwaway config home for every kh the tests start (tests/global-setup.ts)
		globalSetup: ["tests/global-setup.ts"],
		testTimeout: 10_000,
		hookTimeout: 30_000,
	},
});
