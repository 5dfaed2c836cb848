/**
 * The one end-to-end test: spawns the REAL sidecar (`kh serve`) through the
 * production supervisor dependencies (node child_process, node http) and talks
 * to it with the API client. The binary is $KH_BIN or <repo>/.venv/bin/kh; a
 * missing binary FAILS this test on purpose (`make setup` creates the venv).
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SidecarClient, SidecarError } from "../../src/api/client";
import { createNodeHttpTransport, nodeSpawn, nodeSupervisorDeps } from "../../src/sidecar/node-runtime";
import { type KillSignal, SidecarSupervisor } from "../../src/sidecar/supervisor";
import { MIN_SIDECAR_API_LEVEL, PLUGIN_API_LEVEL } from "../../src/sidecar/compat";

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, "..", "..", "..");
const khBin = process.env.KH_BIN || path.join(repoRoot, ".venv", "bin", "kh");

function isAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}

describe("real sidecar", () => {
	let vault = "";
	let supervisor: SidecarSupervisor | null = null;
	const signals: KillSignal[] = [];

	beforeAll(() => {
		vault = mkdtempSync(path.join(tmpdir(), "kh-plugin-it-"));
		writeFileSync(path.join(vault, "alpha.md"), "---\ntitle: Alpha\ntags: [test]\n---\n# Alpha\n\nFirst note.\n");
		mkdirSync(path.join(vault, "日本語"));
		writeFileSync(path.join(vault, "日本語", "ベータ.md"), "# ベータ\n\n二つ目のノート。\n");
	});

	afterAll(async () => {
		await supervisor?.stop();
		if (vault) rmSync(vault, { recursive: true, force: true });
	});

	it("starts, answers health and notes with the token, refuses without it, and stops", async () => {
		expect(existsSync(khBin), `sidecar binary not found at ${khBin} (run make setup, or set KH_BIN)`).toBe(true);

		supervisor = new SidecarSupervisor(
			{ command: khBin, args: [], vaultPath: vault, port: 0, plugin: { version: "0.1.0", apiLevel: PLUGIN_API_LEVEL }, minSidecarApiLevel: MIN_SIDECAR_API_LEVEL },
			nodeSupervisorDeps({
				spawn: (command, args, options) => {
					const child = nodeSpawn(command, args, options);
					const kill = child.kill.bind(child);
					child.kill = (signal) => {
						signals.push(signal ?? "SIGTERM");
						return kill(signal);
					};
					return child;
				},
			}),
			{ listeningTimeoutMs: 20_000, healthTimeoutMs: 10_000, healthIntervalMs: 100 },
		);
		await supervisor.start();
		const snapshot = supervisor.snapshot();
		expect(snapshot.state, `sidecar did not become ready:\n${supervisor.recentOutput().join("\n")}`).toBe("ready");
		// the handshake with the real kh: its version and level, and that it serves this plugin
		expect(snapshot.sidecar?.apiLevel).toBeGreaterThanOrEqual(MIN_SIDECAR_API_LEVEL);
		expect(snapshot.sidecar?.version).toMatch(/^\d+\.\d+\.\d+/);
		expect(supervisor.locateCommand()).toBe(khBin);
		// the vault's agent token went to the tests' throwaway config home, not the user's
		const home = process.env.KH_TEST_CONFIG_HOME ?? "";
		expect(home.startsWith(tmpdir())).toBe(true);
		expect(process.env.XDG_CONFIG_HOME).toBe(home);
		expect(readdirSync(path.join(home, "knowledge-harness", "agent-tokens")).length).toBeGreaterThan(0);
		const endpoint = supervisor.endpoint;
		expect(endpoint).not.toBeNull();
		expect(endpoint!.token).toMatch(/^[0-9a-f]{64}$/);
		const pid = snapshot.pid!;
		expect(isAlive(pid)).toBe(true);

		const transport = createNodeHttpTransport();
		const client = new SidecarClient(transport, endpoint!);

		const health = await client.health();
		expect(health.status).toBe("ok");
		expect(typeof health.version).toBe("string");

		const list = await client.listNotes();
		expect(list.total).toBe(2);
		expect(list.notes.map((n) => n.path).sort()).toEqual(["alpha.md", "日本語/ベータ.md"]);
		expect(list.notes.find((n) => n.path === "alpha.md")).toMatchObject({ has_frontmatter: true, error: null });

		const raw = await transport.request({ method: "GET", url: `${endpoint!.baseUrl}/v1/notes`, headers: {} });
		expect(raw.status).toBe(401);
		const anonymous = new SidecarClient(transport, { baseUrl: endpoint!.baseUrl, token: "wrong" });
		const error = await anonymous.listNotes().catch((e: unknown) => e);
		expect(error).toBeInstanceOf(SidecarError);
		expect((error as SidecarError).status).toBe(401);

		await supervisor.stop();
		expect(supervisor.currentState).toBe("stopped");
		expect(isAlive(pid)).toBe(false);
		expect(signals, "the sidecar needed SIGKILL to stop").not.toContain("SIGKILL");
	}, 45_000);

	it("gives the plugin the first look at a plain vault, writes the confirmed rule, then lists the candidate", async () => {
		const plain = mkdtempSync(path.join(tmpdir(), "kh-plugin-first-look-"));
		mkdirSync(path.join(plain, "調査"));
		writeFileSync(path.join(plain, "調査", "鮮度.md"), "# 鮮度\n\n90 日で見直す。\n\n## 参考資料\n\n- https://www.rfc-editor.org/rfc/rfc9111\n");
		writeFileSync(path.join(plain, "日記.md"), "# 日記\n\n散歩した。\n");
		const real = new SidecarSupervisor(
			{ command: khBin, args: [], vaultPath: plain, port: 0 },
			nodeSupervisorDeps(),
			{ listeningTimeoutMs: 20_000, healthTimeoutMs: 10_000, healthIntervalMs: 100 },
		);
		try {
			await real.start();
			expect(real.snapshot().state, real.recentOutput().join("\n")).toBe("ready");
			const client = new SidecarClient(createNodeHttpTransport(), real.endpoint!);
			const report = await client.initReport();
			expect(report.counted_now).toMatchObject({ raw: 0, evidence_capable: 0 });
			expect(report.proposed_rule.folders).toEqual(["調査"]);
			expect((await client.candidates()).candidates).toEqual([]);

			const applied = await client.writeInitPolicy(report.proposed_toml);
			expect(applied.written).toBe(true);
			const again = await client.writeInitPolicy(report.proposed_toml).catch((e: unknown) => e);
			expect((again as SidecarError).code).toBe("refused"); // a policy exists now: only with force
			const audit = await client.audit();
			expect([audit.raw, audit.evidence_capable]).toEqual([1, 1]);
			const candidates = await client.candidates();
			expect(candidates.candidates.map((c) => [c.path, c.reason])).toEqual([["調査/鮮度.md", "never_validated"]]);
		} finally {
			await real.stop();
			rmSync(plain, { recursive: true, force: true });
		}
	}, 45_000);
});
