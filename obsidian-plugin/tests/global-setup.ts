/**
 * Every `kh` the tests start (and the tests themselves) see a throwaway config
 * home: the agent tokens `kh serve` keeps per vault, the machine configuration
 * and the search cache never land in the user's own config or cache folders.
 * The folder is removed when the run ends.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

export default function setup(): () => void {
	const home = mkdtempSync(path.join(tmpdir(), "kh-vitest-config-"));
	process.env.XDG_CONFIG_HOME = home;
	process.env.KH_SEARCH_CACHE = path.join(home, "search-cache");
	process.env.KH_TEST_CONFIG_HOME = home;
	return () => rmSync(home, { recursive: true, force: true });
}
