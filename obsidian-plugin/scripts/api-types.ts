/**
 * `make api-types`: starts the real sidecar (`kh serve`) on a temporary copy of
 * examples/vault, fetches GET /openapi.json with the launch token, saves it as
 * src/api/openapi.json and generates src/api/schema.d.ts from it.
 *
 * The binary is $KH_BIN or <repo>/.venv/bin/kh. Run with `npx jiti scripts/api-types.ts`.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import process from "node:process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { formatDocument, generateSchema } from "./schema-gen";

const here = path.dirname(fileURLToPath(import.meta.url));
const pluginRoot = path.resolve(here, "..");
const repoRoot = path.resolve(pluginRoot, "..");
const khBin = process.env.KH_BIN || path.join(repoRoot, ".venv", "bin", "kh");

function getJson(url: string, token: string): Promise<unknown> {
	return new Promise((resolve, reject) => {
		const request = http.get(url, { headers: { Authorization: `Bearer ${token}` } }, (response) => {
			const chunks: Buffer[] = [];
			response.on("data", (chunk: Buffer) => chunks.push(chunk));
			response.on("end", () => {
				const text = Buffer.concat(chunks).toString("utf8");
				if (response.statusCode !== 200) {
					reject(new Error(`GET ${url} answered ${String(response.statusCode)}: ${text.slice(0, 200)}`));
					return;
				}
				try {
					resolve(JSON.parse(text));
				} catch (error) {
					reject(error instanceof Error ? error : new Error(String(error)));
				}
			});
		});
		request.on("error", reject);
	});
}

async function main(): Promise<void> {
	const vault = mkdtempSync(path.join(tmpdir(), "kh-api-types-"));
	cpSync(path.join(repoRoot, "examples", "vault"), vault, { recursive: true });
	const token = randomBytes(32).toString("hex");
	const child = spawn(khBin, ["serve", "--vault", vault, "--port", "0", "--exit-on-stdin-close"], {
		env: { ...process.env, KH_TOKEN: token },
		stdio: ["pipe", "pipe", "inherit"],
	});
	try {
		const port = await new Promise<number>((resolve, reject) => {
			const timer = setTimeout(() => reject(new Error("kh serve did not print its listening line in 30 s")), 30_000);
			child.on("error", reject);
			child.on("exit", (code) => reject(new Error(`kh serve exited (${String(code)})`)));
			createInterface({ input: child.stdout }).on("line", (line) => {
				try {
					const event = JSON.parse(line) as { event?: string; port?: number };
					if (event.event === "listening" && typeof event.port === "number") {
						clearTimeout(timer);
						resolve(event.port);
					}
				} catch {
					// not the listening line
				}
			});
		});
		const document = (await getJson(`http://127.0.0.1:${port}/openapi.json`, token)) as Record<string, unknown>;
		const apiDir = path.join(pluginRoot, "src", "api");
		writeFileSync(path.join(apiDir, "openapi.json"), formatDocument(document));
		writeFileSync(path.join(apiDir, "schema.d.ts"), await generateSchema(document));
		const paths = Object.keys((document.paths as Record<string, unknown> | undefined) ?? {});
		process.stdout.write(`api-types: ${paths.length} paths → src/api/openapi.json, src/api/schema.d.ts\n`);
	} finally {
		child.stdin?.end();
		child.kill("SIGTERM");
		rmSync(vault, { recursive: true, force: true });
	}
}

main().catch((error: unknown) => {
	process.stderr.write(`api-types: ${error instanceof Error ? error.message : String(error)}\n`);
	process.exit(1);
});
