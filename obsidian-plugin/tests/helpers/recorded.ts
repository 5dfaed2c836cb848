/**
 * Recorded sidecar responses (tests/fixtures/recorded/*.json), written by
 * scripts/capture-fixtures.py from the real sidecar on a copy of
 * examples/vault. Tests render from these files only; nothing here is
 * written by hand.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "recorded");

export function hasRecorded(name: string): boolean {
	return existsSync(path.join(dir, `${name}.json`));
}

export function recorded<T>(name: string): T {
	const file = path.join(dir, `${name}.json`);
	if (!existsSync(file)) throw new Error(`No recorded response ${name}.json: run scripts/capture-fixtures.py`);
	return JSON.parse(readFileSync(file, "utf8")) as T;
}
