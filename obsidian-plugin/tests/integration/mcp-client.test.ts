// @vitest-environment node
/**
 * Knowledge Harness as an MCP client built on the official TypeScript SDK sees it (Claude Desktop,
 * Claude Code and most agents use this SDK): over stdio (`kh mcp VAULT`, launched by the client,
 * no sidecar running) and over streamable HTTP (`kh serve`'s /mcp with the agent token). The
 * binary is $KH_BIN or <repo>/.venv/bin/kh; a missing binary FAILS this test (`make setup`).
 */
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, "..", "..", "..");
const khBin = process.env.KH_BIN || path.join(repoRoot, ".venv", "bin", "kh");
const AGENT_TOKEN = "agent-token-for-the-ts-sdk-test-0123456789";
const PERSON_TOKEN = "person-token-for-the-ts-sdk-test-0123456789";

interface ToolText {
	isError?: boolean;
	content: Array<{ type: string; text?: string }>;
	structuredContent?: Record<string, unknown>;
}

function errorCode(result: ToolText): string {
	expect(result.isError).toBe(true);
	const body = JSON.parse(result.content[0]?.text ?? "{}") as { error: { code: string; message: string } };
	expect(body.error.message.length).toBeGreaterThan(0);
	return body.error.code;
}

describe("the official TypeScript MCP client", () => {
	let root = "";
	let vault = "";
	let env: Record<string, string> = {};
	let serve: ChildProcessWithoutNullStreams | null = null;
	let port = 0;

	beforeAll(async () => {
		expect(existsSync(khBin), `kh not found at ${khBin} (run make setup, or set KH_BIN)`).toBe(true);
		root = mkdtempSync(path.join(tmpdir(), "kh-mcp-ts-"));
		vault = path.join(root, "vault");
		mkdirSync(path.join(vault, "日本語"), { recursive: true });
		writeFileSync(path.join(vault, "alpha.md"), "# Alpha\n\n## See also\n\nRead [[ベータ]] next.\n");
		writeFileSync(path.join(vault, "日本語", "ベータ.md"), "# ベータ\n\n二つ目のノート。\n");
		const config = path.join(root, "config");
		mkdirSync(config);
		writeFileSync(path.join(config, "machine.toml"), "");
		env = {
			...(process.env as Record<string, string>),
			XDG_CONFIG_HOME: config,
			KH_CONFIG: path.join(config, "machine.toml"),
		};
		delete env.KH_TOKEN;
		delete env.KH_AGENT_TOKEN;
		const built = spawnSync(khBin, ["index", "build", vault], { env, encoding: "utf-8" });
		expect(built.status, built.stderr).toBe(0);

		serve = spawn(khBin, ["serve", "--vault", vault, "--port", "0", "--exit-on-stdin-close"], {
			env: { ...env, KH_TOKEN: PERSON_TOKEN, KH_AGENT_TOKEN: AGENT_TOKEN },
		});
		port = await new Promise<number>((resolve, reject) => {
			let out = "";
			serve!.stdout.on("data", (chunk: Buffer) => {
				out += chunk.toString("utf-8");
				const line = out.split("\n")[0];
				if (out.includes("\n") && line) resolve((JSON.parse(line) as { port: number }).port);
			});
			serve!.on("exit", (code) => reject(new Error(`kh serve exited with ${code}`)));
		});
	});

	afterAll(() => {
		serve?.stdin.end();
		serve?.kill();
		if (root) rmSync(root, { recursive: true, force: true });
	});

	const transports: Array<[string, () => Transport]> = [
		["stdio (kh mcp)", () => new StdioClientTransport({ command: khBin, args: ["mcp", vault], env, stderr: "pipe" })],
		[
			"streamable HTTP (kh serve /mcp)",
			() =>
				new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
					requestInit: { headers: { Authorization: `Bearer ${AGENT_TOKEN}` } },
				}),
		],
	];

	for (const [name, makeTransport] of transports) {
		it(`lists annotated tools, reads, reads a note resource and sees refusals with codes over ${name}`, async () => {
			const client = new Client({ name: "kh-ts-sdk-test", version: "0.0.0" });
			await client.connect(makeTransport());
			try {
				expect(client.getServerVersion()?.name).toBe("knowledge-harness");

				const { tools } = await client.listTools();
				const byName = new Map(tools.map((t) => [t.name, t]));
				expect(tools.length).toBeGreaterThanOrEqual(19);
				for (const tool of tools) {
					expect(tool.annotations?.title, tool.name).toBeTruthy();
					expect(typeof tool.annotations?.readOnlyHint, tool.name).toBe("boolean");
					expect(typeof tool.annotations?.destructiveHint, tool.name).toBe("boolean");
				}
				expect(byName.get("index_links")?.annotations?.readOnlyHint).toBe(true);
				expect(byName.get("harness_advance_run")?.annotations?.readOnlyHint).toBe(false);
				expect(byName.get("validate_note_dry_run")?.annotations?.openWorldHint).toBe(true);

				const search = (await client.callTool({ name: "index_search", arguments: { query: "Alpha" } })) as ToolText;
				expect(search.isError ?? false).toBe(false);
				const hits = (search.structuredContent as { hits: Array<{ path: string }> }).hits;
				expect(hits[0]?.path).toBe("alpha.md");

				const links = (await client.callTool({
					name: "index_links",
					arguments: { path: "日本語/ベータ.md" },
				})) as ToolText;
				const incoming = (links.structuredContent as { incoming: Array<{ note: string; section: string }> })
					.incoming;
				expect(incoming.map((l) => [l.note, l.section])).toEqual([["alpha.md", "See also"]]);

				const { resourceTemplates } = await client.listResourceTemplates();
				expect(resourceTemplates.map((t) => t.uriTemplate)).toContain("harness://note/{+path}");
				const note = await client.readResource({ uri: "harness://note/日本語/ベータ.md" });
				const content = note.contents[0];
				expect(content?.mimeType).toBe("text/markdown");
				expect(content && "text" in content ? content.text : null).toBe(
					readFileSync(path.join(vault, "日本語", "ベータ.md"), "utf-8"),
				);

				const refused = (await client.callTool({
					name: "harness_submit_result",
					arguments: { task_id: "T-nope", output: {} },
				})) as ToolText;
				expect(errorCode(refused)).toBe("not_found");
				const rejected = (await client.callTool({ name: "trust_badge", arguments: { path: "../x.md" } })) as ToolText;
				expect(errorCode(rejected)).toBe("path_rejected");
				await expect(client.readResource({ uri: "harness://note/../outside.md" })).rejects.toMatchObject({
					data: { code: "path_rejected" },
				});
			} finally {
				await client.close();
			}
		}, 20_000);
	}
});
