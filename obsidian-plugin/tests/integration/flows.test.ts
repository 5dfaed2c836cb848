/**
 * Drives the plugin's client layer against the REAL sidecar on a copy of
 * examples/vault: audit → badge → plan → approve, a failed run's provisional badge; capture → authorize → status of a pipeline run, then the
 * run brought to its review by agent submissions and the approval refused (409) because nothing was merged.
 * Fails, never skips, when the sidecar binary is missing.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SidecarClient, SidecarError } from "../../src/api/client";
import { applyLanguage } from "../../src/i18n";
import { createNodeHttpTransport, nodeSupervisorDeps } from "../../src/sidecar/node-runtime";
import { SidecarSupervisor } from "../../src/sidecar/supervisor";
import { challengeMatches, expectedChallenge } from "../../src/trust/challenge";
import { badgeModel } from "../../src/trust/badge";
import { waitsForDecision } from "../../src/pipeline/model";
import { type AgentTask, agentOutput, makeBlog } from "./agent-outputs";

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, "..", "..", "..");
const khBin = process.env.KH_BIN || path.join(repoRoot, ".venv", "bin", "kh");
const REQUEST_NOTE = "Requests/メタデータ限定更新の記事.md";

async function until(predicate: () => boolean, timeoutMs: number): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (Date.now() < deadline) {
		try {
			if (predicate()) return;
		} catch {
			// the record is being replaced: read it again
		}
		await new Promise((resolve) => window.setTimeout(resolve, 50));
	}
	throw new Error("timed out");
}

describe("real sidecar on examples/vault: the plugin's flows", () => {
	let vault = "";
	let supervisor: SidecarSupervisor | null = null;
	let client: SidecarClient;
	let served = new Set<string>();

	beforeAll(async () => {
		expect(existsSync(khBin), `sidecar binary not found at ${khBin} (run make setup, or set KH_BIN)`).toBe(true);
		const root = mkdtempSync(path.join(tmpdir(), "kh-plugin-flows-"));
		vault = path.join(root, "vault");
		cpSync(path.join(repoRoot, "examples", "vault"), vault, { recursive: true });
		const blog = makeBlog(root);
		// The blog repository is a machine setting: registered in the tests' throwaway config home
		// (tests/global-setup.ts), named by the vault.
		const machine = path.join(root, "machine.toml");
		writeFileSync(machine, `[blogs.flows]\nrepo = "${blog.split(path.sep).join("/")}"\n`);
		process.env.KH_CONFIG = machine;
		writeFileSync(path.join(vault, ".harness", "pipeline.toml"), `[blog]\nname = "flows"\n`);
		process.env.KH_TEST_PAUSE_AFTER_WRITE = "1";
		try {
			supervisor = new SidecarSupervisor({ command: khBin, args: [], vaultPath: vault, port: 0 }, nodeSupervisorDeps(), {
				listeningTimeoutMs: 20_000,
				healthTimeoutMs: 10_000,
				healthIntervalMs: 100,
			});
			await supervisor.start();
		} finally {
			delete process.env.KH_TEST_PAUSE_AFTER_WRITE;
		}
		expect(supervisor.snapshot().state, supervisor.recentOutput().join("\n")).toBe("ready");
		client = new SidecarClient(createNodeHttpTransport(), supervisor.endpoint!);
		const openapi = await client.request<{ paths: Record<string, unknown> }>("GET", "/openapi.json");
		served = new Set(Object.keys(openapi.paths));
	}, 40_000);

	afterAll(async () => {
		applyLanguage("en");
		await supervisor?.stop();
		if (vault) rmSync(path.dirname(vault), { recursive: true, force: true });
	});

	it("audits the vault and reads badges the plugin can draw", async () => {
		const audit = await client.audit();
		expect(audit.evidence_capable).toBeGreaterThan(0);
		expect(audit.coverage).toBeGreaterThanOrEqual(0);
		const stale = await client.stale();
		expect(stale.stale.map((s) => s.path).sort()).toEqual(audit.stale.map((s) => s.path).sort());
		const paths = [...audit.disputed, ...audit.stale.map((s) => s.path)];
		const batch = await client.badges([...paths, "no/such note.md"]);
		expect(batch.errors["no/such note.md"]?.code).toBe("not_found");
		for (const path of paths) {
			const single = await client.badge(path);
			// The batch route answers each path exactly as the single route does.
			expect(batch.badges[path]).toEqual(single);
			expect(badgeModel(single).text).toMatch(/^L[0-3] · /);
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

	// A FAILED run: its scope check finds a file that appeared while it ran (during the pause after
	// its write: KH_TEST_PAUSE_AFTER_WRITE, a test-only setting of trust/batch.py).
	it("a failed run's note: the sidecar answers provisional with fresh false, and the plugin draws the provisional badge in en and ja", async () => {
				const plan = await client.planBatch({ stage: "canary" });
		expect(plan.targets.length).toBe(1);
		const note = plan.targets[0].path;
		const recordFile = path.join(vault, ".harness", "runs", `${plan.run_id}.json`);
		const approval = client.approveBatch(plan.plan_id, expectedChallenge(plan.digest));
		await until(() => (JSON.parse(readFileSync(recordFile, "utf-8")) as { files: { result: string }[] }).files[0]?.result === "APPLIED", 20_000);
		writeFileSync(path.join(vault, "Notes", "during the run.md"), "# Written while the run ran\n");
		const record = await approval;
		expect([record.run_status, record.result, record.failure_reason]).toEqual(["FAILED", "PROVISIONAL_RETAIN", "scope_verification_failed"]);

		const badge = await client.badge(note);
		expect(badge.level).toBeGreaterThan(0); // the failed run wrote its level into the frontmatter
		expect([badge.record, badge.fresh, badge.fresh_l2, badge.counted_level, badge.provisional_run_id]).toEqual([
			"provisional",
			false,
			false,
			0,
			plan.run_id,
		]);
		expect(badge.record_reason).toContain(plan.run_id);

		applyLanguage("en");
		const model = badgeModel(badge);
		expect(model.tone).toBe("provisional");
		expect(model.cls).toBe("kh-badge-provisional");
		expect(model.text).toContain("Provisional");
		expect(model.text).not.toContain("Fresh");
		expect(model.tooltip).toContain(badge.record_reason!);
		applyLanguage("ja");
		expect(badgeModel(badge).text).toContain("暫定");

		const stale = await client.stale();
		expect(stale.provisional?.map((p) => p.path)).toEqual([note]);
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
		expect(status.records[1].reasons).toEqual([{ code: "RUN_LABEL_PRESENT", ja: "人間が実行ラベルを付けた", en: "The person set the run label." }]);
		const detail = await client.runDetail(captured.run_id);
		expect(detail.run_id).toBe(captured.run_id);
		const runs = await client.listRuns();
		expect(runs.runs.map((r) => r.run_id)).toContain(captured.run_id);
	});

	it("brings the run to its review; an approval before the merge is refused with 409 and nothing moves", async () => {
		const runId = (await client.listRuns()).runs.find((r) => r.path === REQUEST_NOTE)?.run_id;
		expect(runId).toBeDefined();
		await client.advance(runId!);
		for (let i = 0; i < 12; i += 1) {
			const { task } = await client.request<{ task: AgentTask | null }>("GET", "/v1/pipeline/tasks/next");
			if (!task) break;
			await client.request("POST", `/v1/pipeline/tasks/${task.task_id}/submit`, { body: { output: agentOutput(task) } });
		}
		const detail = await client.runDetail(runId!);
		expect(detail.state).toBe("REVIEW_READY");
		expect(waitsForDecision(detail)).toBe(true);
		expect(detail.human_budget.final_decision.asked).toBe(1);
		const review = await client.review(runId!);
		expect(review.review_packet.markdown).toContain("公開候補の確認待ち");
		const choices = await client.decisionChoices();
		expect(choices.choices.map((c) => c.label_ja)).toEqual(["公開を承認する", "今回だけ修正を求める", "公開しない", "今後の方針として検討する"]);

		const refused = await client
			.decide(runId!, { choice: "approve", commit: review.review_packet.commit, review_packet_sha256: review.review_packet_sha256 })
			.catch((error: unknown) => error);
		expect(refused).toBeInstanceOf(SidecarError);
		expect((refused as SidecarError).status).toBe(409);
		expect((refused as SidecarError).detail).toMatchObject({ reason: "MERGE_NOT_FOUND", commit: review.review_packet.commit });
		const after = await client.runStatus(runId!);
		expect(after.state).toBe("REVIEW_READY");
		expect(after.records).toHaveLength(detail.records.length);
	}, 60_000);

	it("builds, checks and searches the reasoning index", async () => {
		const build = await client.buildIndex();
		expect(build.notes).toBeGreaterThan(0);
		expect((await client.checkIndex()).fresh).toBe(true);
		const result = await client.searchIndex("鮮度");
		expect(result.hits.length).toBeGreaterThan(0);
	});
});
