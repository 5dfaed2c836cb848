/**
 * Every `kh` the tests start (and the tests themselves) see a throwaway config
 * home: the agent tokens `kh serve` keeps per vault, the machine configuration
 * and the search cache never land in the user's own config or cache folders.
 * XDG_CONFIG_HOME holds the config folder on every system (the sidecar honours
 * it on macOS and Windows too); KH_CONFIG names an empty machine configuration
 * there, so the user's own (endpoints, private hosts, blogs) is never read.
 * tests/integration/config-home.test.ts checks that nothing lands elsewhere.
 * The folder is removed when the run ends.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

export default function setup(): () => void {
	const home = mkdtempSync(path.join(tmpdir(), "kh-vitest-config-"));
	const machine = path.join(home, "machine.toml");
	writeFileSync(machine, "# the tests' machine configuration: empty\n");
	process.env.XDG_CONFIG_HOME = home;
	process.env.KH_CONFIG = machine;
	process.env.KH_SEARCH_CACHE = path.join(home, "search-cache");
	process.env.KH_TEST_CONFIG_HOME = home;
	return () => rmSync(home, { recursive: true, force: true });
}
