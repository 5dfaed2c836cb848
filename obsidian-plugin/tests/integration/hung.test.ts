/**
 * A hung sidecar, for real: the real `kh serve` is stopped with SIGSTOP while
 * the plugin's badges ask it. The timeline the person sees: the badge request
 * times out and the badge turns into the hollow dot (not a vanished badge);
 * the status goes to slow; after the missed checks the supervisor ends the
 * hung process and starts a new one, and the badge comes back.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { SidecarClient } from "../../src/api/client";
import { createNodeHttpTransport, nodeSupervisorDeps } from "../../src/sidecar/node-runtime";
import { type SidecarState, SidecarSupervisor } from "../../src/sidecar/supervisor";
import { BadgeController, BadgeStore, modelForState } from "../../src/ui/badges";

const here = path.dirname(fileURLToPath(import.meta.url));
const khBin = process.env.KH_BIN || path.join(here, "..", "..", "..", ".venv", "bin", "kh");

describe("a hung sidecar", () => {
	const vault = mkdtempSync(path.join(tmpdir(), "kh-plugin-hung-"));
	let supervisor: SidecarSupervisor | null = null;
	let stoppedPid: number | null = null;

	afterAll(async () => {
		if (stoppedPid !== null) {
			try {
				process.kill(stoppedPid, "SIGKILL");
			} catch {
				// already gone
			}
		}
		await supervisor?.stop();
		rmSync(vault, { recursive: true, force: true });
	});

	it("shows slow, draws hollow dots while it cannot answer, restarts it, and the badge comes back", async () => {
		expect(existsSync(khBin), `sidecar binary not found at ${khBin}`).toBe(true);
		writeFileSync(path.join(vault, "note.md"), "---\ntitle: Note\n---\n# Note\n");
		supervisor = new SidecarSupervisor({ command: khBin, args: [], vaultPath: vault, port: 0 }, nodeSupervisorDeps(), {
			listeningTimeoutMs: 20_000,
			healthTimeoutMs: 10_000,
			healthIntervalMs: 100,
			livenessIntervalMs: 250,
			livenessTimeoutMs: 250,
			hungAfterChecks: 3,
			backoffInitialMs: 100,
			// a stopped process ignores SIGTERM until it is continued: SIGKILL comes soon
			shutdownGraceMs: 200,
			termGraceMs: 200,
			killGraceMs: 1_000,
		});
		const states: SidecarState[] = [];
		supervisor.onStateChange((snapshot) => states.push(snapshot.state));
		await supervisor.start();
		expect(supervisor.snapshot().state, supervisor.recentOutput().join("\n")).toBe("ready");
		const sup = supervisor;
		const client = new SidecarClient(createNodeHttpTransport(), () => sup.endpoint, {
			timeouts: { quick: 500 },
			onTimeout: () => void sup.checkNow(),
		});
		const store = new BadgeStore();
		const badges = new BadgeController(client, store);
		await badges.refresh("note.md");
		expect(store.get("note.md")?.kind).toBe("ready");

		const pid = supervisor.snapshot().pid!;
		stoppedPid = pid;
		process.kill(pid, "SIGSTOP");
		await badges.refresh("note.md");
		// the request timed out: the badge is the hollow dot, not gone
		expect(store.get("note.md")?.kind).toBe("offline");
		expect(modelForState(store.get("note.md"))?.cls).toBe("kh-badge-offline");

		const until = async (what: string, ok: () => boolean) => {
			const deadline = Date.now() + 20_000;
			while (!ok()) {
				if (Date.now() > deadline) throw new Error(`${what} did not happen; states: ${states.join(" → ")}`);
				await new Promise((resolve) => window.setTimeout(resolve, 50));
			}
		};
		await until("slow", () => states.includes("slow"));
		await until("a new sidecar ready", () => sup.currentState === "ready" && sup.snapshot().pid !== pid);
		const afterSlow = states.slice(states.indexOf("slow"));
		expect(afterSlow).toContain("restarting");
		expect(afterSlow[afterSlow.length - 1]).toBe("ready");
		await badges.refresh("note.md");
		expect(store.get("note.md")?.kind).toBe("ready");
	}, 60_000);
});
