/**
 * Drives the plugin's client layer against the REAL sidecar on a copy of
 * examples/vault: audit → badge → plan → approve, and capture → authorize → status of a pipeline run. Fails,
 * never skips, when the sidecar binary is missing.
 */
import { cpSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SidecarClient } from "../../src/api/client";
import { createNodeHttpTransport, nodeSupervisorDeps } from "../../src/sidecar/node-runtime";
import { SidecarSupervisor } from "../../src/sidecar/supervisor";
import { challengeMatches, expectedChallenge } from "../../src/trust/challenge";
import { badgeModel } from "../../src/trust/badge";

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, "..", "..", "..");
const khBin = process.env.KH_BIN || path.join(repoRoot, ".venv", "bin", "kh");
const REQUEST_NOTE = "Requests/メタデータ限定更新の記事.md";

describe("real sidecar on examples/vault: the plugin's flows", () => {
	let vault = "";
	let supervisor: SidecarSupervisor | null = null;
	let client: SidecarClient;
	let served = new Set<string>();

	beforeAll(async () => {
		expect(existsSync(khBin), `sidecar binary not found at ${khBin} (run make setup, or set KH_BIN)`).toBe(true);
		vault = mkdtempSync(path.join(tmpdir(), "kh-plugin-flows-"));
		cpSync(path.join(repoRoot, "examples", "vault"), vault, { recursive: true });
		supervisor = new SidecarSupervisor({ command: khBin, args: [], vaultPath: vault, port: 0 }, nodeSupervisorDeps(), {
			listeningTimeoutMs: 20_000,
			healthTimeoutMs: 10_000,
			healthIntervalMs: 100,
		});
		await supervisor.start();
		expect(supervisor.snapshot().state, supervisor.recentOutput().join("\n")).toBe("ready");
		client = new SidecarClient(createNodeHttpTransport(), supervisor.endpoint!);
		const openapi = await client.request<{ paths: Record<string, unknown> }>("GET", "/openapi.json");
		served = new Set(Object.keys(openapi.paths));
	}, 40_000);

	afterAll(async () => {
		await supervisor?.stop();
		if (vault) rmSync(vault, { recursive: true, force: true });
	});

	it("audits the vault and reads badges the plugin can draw", async () => {
		const audit = await client.audit();
		expect(audit.evidence_capable).toBeGreaterThan(0);
		expect(audit.coverage).toBeGreaterThanOrEqual(0);
		const stale = await client.stale();
		expect(stale.stale.map((s) => s.path).sort()).toEqual(audit.stale.map((s) => s.path).sort());
		for (const path of [...audit.disputed, ...audit.stale.map((s) => s.path)]) {
			const model = badgeModel(await client.badge(path));
			expect(model.text).toMatch(/^L[0-3] · /);
		}
	});

	it("plans a canary batch and approves it with the typed digest", async () => {
		expect(served.has("/v1/batches")).toBe(true);
		const plan = await client.planBatch({ stage: "canary" });
		expect(plan.targets.length).toBeLessThanOrEqual(1);
		expect(challengeMatches(` ${expectedChallenge(plan.digest)}`, plan.digest)).toBe(false);
		const refused = await client.approveBatch(plan.plan_id, `approve_production ${plan.digest}`).catch((e: unknown) => e);
		expect(refused).toBeInstanceOf(Error);
		const record = await client.approveBatch(plan.plan_id, expectedChallenge(plan.digest));
		expect(["SUCCEEDED", "FAILED"]).toContain(record.run_status);
	}, 60_000);

	it("captures a request note, authorizes the run and reads its status", async () => {
		const captured = await client.capture(REQUEST_NOTE);
		expect(captured.state).toBe("CAPTURED");
		expect(captured.records[0]?.operation).toBe("O-01");
		const authorized = await client.authorize(captured.run_id);
		expect(authorized.state).toBe("AUTHORIZED");
		const status = await client.runStatus(captured.run_id);
		expect(status.records.map((r) => r.operation)).toEqual(["O-01", "O-02"]);
		expect(status.records[1].reason_codes).toContain("RUN_LABEL_PRESENT");
		const detail = await client.runDetail(captured.run_id);
		expect(detail.run_id).toBe(captured.run_id);
		const runs = await client.listRuns();
		expect(runs.runs.map((r) => r.run_id)).toContain(captured.run_id);
	});

	it("builds, checks and searches the reasoning index", async () => {
		const build = await client.buildIndex();
		expect(build.notes).toBeGreaterThan(0);
		expect((await client.checkIndex()).fresh).toBe(true);
		const result = await client.searchIndex("鮮度");
		expect(result.hits.length).toBeGreaterThan(0);
	});
});
