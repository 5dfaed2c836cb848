import { describe, expect, it } from "vitest";
import {
	backoffDelay,
	buildServeArgs,
	LineSplitter,
	parseListeningLine,
	buildEnv,
	SidecarSupervisor,
	type SidecarState,
	type SupervisorConfig,
	type SpawnOptions,
	type SupervisorTimings,
} from "../src/sidecar/supervisor";
import { randomToken } from "../src/sidecar/node-runtime";
import { FakeChild, FakeClock, FakeTransport, json } from "./helpers/fakes";
import type { HttpRequest } from "../src/api/transport";

const TIMINGS: SupervisorTimings = {
	listeningTimeoutMs: 5_000,
	healthTimeoutMs: 2_000,
	healthIntervalMs: 100,
	backoffInitialMs: 1_000,
	backoffMaxMs: 8_000,
	stableAfterMs: 30_000,
	shutdownGraceMs: 3_000,
	termGraceMs: 2_000,
	killGraceMs: 1_000,
	livenessIntervalMs: 15_000,
	livenessTimeoutMs: 5_000,
	hungAfterChecks: 3,
};

interface Harness {
	supervisor: SidecarSupervisor;
	clock: FakeClock;
	transport: FakeTransport;
	children: FakeChild[];
	states: SidecarState[];
	/** Whether GET /health answers 200 (else 503); POST /v1/shutdown is answered by `onShutdown`. */
	healthy: { value: boolean };
	/** GET /health never answers (a hung sidecar). */
	hung: { value: boolean };
	onShutdown: { value: (request: HttpRequest) => void };
	spawnError: { value: Error | null };
	/** The body GET /health answers with. */
	health: { value: Record<string, unknown> };
}

function setup(options: { args?: string[]; port?: number; pid?: number | undefined; config?: Partial<SupervisorConfig> } = {}): Harness {
	const clock = new FakeClock();
	const children: FakeChild[] = [];
	const healthy = { value: true };
	const hung = { value: false };
	const onShutdown = { value: (_request: HttpRequest) => undefined as void };
	const spawnError = { value: null as Error | null };
	const health = { value: { status: "ok", version: "test", api_level: 2, min_plugin_api_level: 1 } as Record<string, unknown> };
	const transport = new FakeTransport((request) => {
		const path = new URL(request.url).pathname;
		if (path === "/health" && hung.value) return new Promise<null>(() => undefined);
		if (path === "/health") return healthy.value ? json(200, health.value) : null;
		if (path === "/v1/shutdown") {
			onShutdown.value(request);
			return json(200, { status: "shutting_down" });
		}
		return json(404, { error: { code: "not_found", message: "Not found" } });
	});
	let tokens = 0;
	const supervisor = new SidecarSupervisor(
		{ command: "kh", args: options.args ?? [], vaultPath: "/vault", port: options.port ?? 0, ...options.config },
		{
			spawn: (command: string, args: string[], spawnOptions: SpawnOptions) => {
				const child = new FakeChild(command, args, spawnOptions, "pid" in options ? options.pid : 1000 + children.length);
				children.push(child);
				const error = spawnError.value;
				if (error) {
					queueMicrotask(() => child.emit("error", error));
				}
				return child;
			},
			transport,
			timers: clock,
			randomToken: () => `token-${++tokens}`,
			env: () => ({ PATH: "/usr/bin", HOME: "/home/me" }),
		},
		TIMINGS,
	);
	const states: SidecarState[] = [];
	supervisor.onStateChange((snapshot) => states.push(snapshot.state));
	return { supervisor, clock, transport, children, states, healthy, hung, onShutdown, spawnError, health };
}

/** Starts and brings the newest child to "ready" on `port`. */
async function startReady(h: Harness, port = 43210): Promise<FakeChild> {
	const started = h.supervisor.start();
	await h.clock.advance(0);
	const child = h.children[h.children.length - 1];
	child.listening(port);
	await h.clock.advance(0);
	await started;
	expect(h.supervisor.currentState).toBe("ready");
	return child;
}

describe("pure helpers", () => {
	it("parses only the listening line", () => {
		expect(parseListeningLine('{"event": "listening", "host": "127.0.0.1", "port": 5050, "pid": 77}')).toEqual({
			host: "127.0.0.1",
			port: 5050,
			pid: 77,
		});
		expect(parseListeningLine("INFO:     Started server process [77]")).toBeNull();
		expect(parseListeningLine("{not json")).toBeNull();
		expect(parseListeningLine('{"event": "starting"}')).toBeNull();
		expect(parseListeningLine('{"event": "listening", "port": 0}')).toBeNull();
		expect(parseListeningLine('{"event": "listening", "port": "5050"}')).toBeNull();
		expect(parseListeningLine("[1, 2]")).toBeNull();
	});

	it("grows the backoff exponentially up to the cap", () => {
		expect([0, 1, 2, 3, 4, 5].map((n) => backoffDelay(n, 1000, 8000))).toEqual([
			1000, 2000, 4000, 8000, 8000, 8000,
		]);
		expect(backoffDelay(500, 1000, 60_000)).toBe(60_000);
	});

	it("builds the serve command line, extra args first", () => {
		expect(buildServeArgs({ command: "python", args: ["-m", "knowledge_harness"], vaultPath: "/v w", port: 0 })).toEqual([
			"-m",
			"knowledge_harness",
			"serve",
			"--vault",
			"/v w",
			"--port",
			"0",
			"--exit-on-stdin-close",
		]);
	});

	it("passes the sidecar log level as kh serve --log-level", () => {
		const args = buildServeArgs({ command: "kh", args: [], vaultPath: "/v", port: 8765, logLevel: "debug" });
		expect(args.slice(args.indexOf("--log-level"))).toEqual(["--log-level", "debug"]);
		expect(args.indexOf("serve")).toBeLessThan(args.indexOf("--log-level"));
		expect(buildServeArgs({ command: "kh", args: [], vaultPath: "/v", port: 8765 })).not.toContain("--log-level");
	});

	it("splits lines across chunks, bytes included", () => {
		const lines: string[] = [];
		const splitter = new LineSplitter((line) => lines.push(line));
		const bytes = new TextEncoder().encode("日本\r\nx");
		splitter.push("a");
		splitter.push("b\nc");
		splitter.push(bytes.slice(0, 4));
		splitter.push(bytes.slice(4));
		splitter.push("\n");
		expect(lines).toEqual(["ab", "c日本", "x"]);
	});

	it("makes 64-hex-character tokens, different each time", () => {
		const a = randomToken();
		expect(a).toMatch(/^[0-9a-f]{64}$/);
		expect(randomToken()).not.toBe(a);
	});
});

describe("SidecarSupervisor", () => {
	it("spawns without a shell, with a fresh token in the environment", async () => {
		const h = setup({ args: ["--debug"], port: 8123 });
		await startReady(h);
		const child = h.children[0];
		expect(child.command).toBe("kh");
		expect(child.args).toEqual([
			"--debug",
			"serve",
			"--vault",
			"/vault",
			"--port",
			"8123",
			"--exit-on-stdin-close",
		]);
		expect(child.options.stdio).toEqual(["pipe", "pipe", "pipe"]);
		expect(child.options.env).toEqual({ PATH: "/usr/bin", HOME: "/home/me", KH_TOKEN: "token-1" });
		expect(h.supervisor.endpoint).toEqual({ baseUrl: "http://127.0.0.1:43210", token: "token-1" });
	});

	it("ignores junk lines before the listening line, then polls /health until it answers", async () => {
		const h = setup();
		h.healthy.value = false;
		const started = h.supervisor.start();
		await h.clock.advance(0);
		const child = h.children[0];
		expect(h.supervisor.currentState).toBe("starting");

		child.println("INFO: loading settings");
		child.print("{ not json }\n[1,2]\n");
		child.stderr.emit("data", "WARNING: something on stderr\n");
		child.print('{"event": "listen');
		await h.clock.advance(50);
		expect(h.transport.requests).toHaveLength(0);
		child.print('ing", "host": "127.0.0.1", "port": 50505, "pid": 1000}\n');
		await h.clock.advance(0);
		expect(h.transport.paths()).toEqual(["GET /health"]);
		expect(h.supervisor.currentState).toBe("starting");

		await h.clock.advance(250);
		h.healthy.value = true;
		await h.clock.advance(100);
		await started;

		expect(h.supervisor.currentState).toBe("ready");
		expect(h.states).toEqual(["starting", "ready"]);
		const health = h.transport.requests.filter((r) => r.url.endsWith("/health"));
		expect(health.length).toBeGreaterThanOrEqual(4);
		expect(health.every((r) => r.url === "http://127.0.0.1:50505/health")).toBe(true);
		expect(health.every((r) => r.headers.Authorization === undefined)).toBe(true);
		expect(h.supervisor.snapshot()).toMatchObject({ port: 50505, pid: 1000 });
		expect(h.supervisor.recentOutput()).toContain("WARNING: something on stderr");
	});

	it("restarts with exponential backoff, capped, when the sidecar keeps dying", async () => {
		const h = setup();
		const first = await startReady(h);
		first.exit(1);
		await h.clock.advance(0);
		expect(h.supervisor.currentState).toBe("restarting");
		expect(h.supervisor.snapshot()).toMatchObject({ error: { kind: "exited", exitCode: 1 }, restartInMs: 1000 });
		expect(h.supervisor.endpoint).toBeNull();

		// Every relaunch dies before it is ready: delays 1 s, 2 s, 4 s, 8 s, 8 s.
		const observed: number[] = [];
		let spawned = h.children.length;
		for (let i = 0; i < 5; i++) {
			const delay = h.supervisor.snapshot().restartInMs;
			expect(delay).not.toBeNull();
			observed.push(delay!);
			await h.clock.advance(delay! - 1);
			expect(h.children.length).toBe(spawned);
			await h.clock.advance(1);
			expect(h.children.length).toBe(spawned + 1);
			spawned++;
			h.children[h.children.length - 1].exit(3);
			await h.clock.advance(0);
			expect(h.supervisor.currentState).toBe("restarting");
		}
		expect(observed).toEqual([1000, 2000, 4000, 8000, 8000]);

		// Each launch had its own token.
		const tokens = h.children.map((child) => child.options.env.KH_TOKEN);
		expect(new Set(tokens).size).toBe(tokens.length);
	});

	it("starts the backoff over after a stable run", async () => {
		const h = setup();
		const first = await startReady(h);
		first.exit(1);
		await h.clock.advance(1000);
		const second = h.children[1];
		second.listening(43211);
		await h.clock.advance(0);
		expect(h.supervisor.currentState).toBe("ready");
		await h.clock.advance(TIMINGS.stableAfterMs);
		second.exit(1);
		await h.clock.advance(0);
		expect(h.supervisor.snapshot().restartInMs).toBe(1000);
	});

	it("stops with shutdown, then SIGTERM, then SIGKILL after the grace periods", async () => {
		const h = setup();
		const child = await startReady(h, 40404);
		child.onKill = (signal, c) => {
			if (signal === "SIGKILL") c.exit(null, "SIGKILL");
		};

		const stopped = h.supervisor.stop();
		await h.clock.advance(0);
		expect(h.transport.paths()).toContain("POST /v1/shutdown");
		const shutdown = h.transport.requests.find((r) => r.url.endsWith("/v1/shutdown"));
		expect(shutdown?.url).toBe("http://127.0.0.1:40404/v1/shutdown");
		expect(shutdown?.headers.Authorization).toBe("Bearer token-1");
		expect(child.signals).toEqual([]);

		await h.clock.advance(TIMINGS.shutdownGraceMs - 1);
		expect(child.signals).toEqual([]);
		await h.clock.advance(1);
		expect(child.signals).toEqual(["SIGTERM"]);

		await h.clock.advance(TIMINGS.termGraceMs - 1);
		expect(child.signals).toEqual(["SIGTERM"]);
		await h.clock.advance(1);
		expect(child.signals).toEqual(["SIGTERM", "SIGKILL"]);

		await stopped;
		expect(h.supervisor.currentState).toBe("stopped");
		expect(h.supervisor.snapshot().error).toBeNull();
		// No restart after a requested stop.
		await h.clock.advance(60_000);
		expect(h.children).toHaveLength(1);
		expect(h.clock.pendingDelays()).toEqual([]);
	});

	it("sends no signal when the sidecar exits after the shutdown request", async () => {
		const h = setup();
		const child = await startReady(h);
		h.onShutdown.value = () => {
			queueMicrotask(() => child.exit(0));
		};
		const stopped = h.supervisor.stop();
		await h.clock.advance(0);
		await stopped;
		expect(child.signals).toEqual([]);
		expect(h.supervisor.currentState).toBe("stopped");
		expect(h.children).toHaveLength(1);
	});

	it("goes to SIGTERM at once when the shutdown request fails", async () => {
		const h = setup();
		const child = await startReady(h);
		h.healthy.value = false;
		h.transport.handler = () => null; // connection refused
		child.onKill = (signal, c) => {
			if (signal === "SIGTERM") c.exit(null, "SIGTERM");
		};
		const stopped = h.supervisor.stop();
		await h.clock.advance(0);
		await stopped;
		expect(child.signals).toEqual(["SIGTERM"]);
	});

	it("kills a sidecar that never prints its listening line, then retries", async () => {
		const h = setup();
		const started = h.supervisor.start();
		await h.clock.advance(0);
		const child = h.children[0];
		child.onKill = (_signal, c) => c.exit(null, "SIGTERM");
		await h.clock.advance(TIMINGS.listeningTimeoutMs);
		await started;
		expect(child.signals).toEqual(["SIGTERM"]);
		expect(h.supervisor.snapshot()).toMatchObject({
			state: "restarting",
			error: { kind: "listeningTimeout" },
			restartInMs: 1000,
		});
		await h.clock.advance(1000);
		expect(h.children).toHaveLength(2);
	});

	it("gives up on health checks after the timeout", async () => {
		const h = setup();
		h.healthy.value = false;
		const started = h.supervisor.start();
		await h.clock.advance(0);
		const child = h.children[0];
		child.onKill = (_signal, c) => c.exit(null, "SIGTERM");
		child.listening(41000);
		await h.clock.advance(TIMINGS.healthTimeoutMs + TIMINGS.healthIntervalMs);
		await started;
		expect(h.supervisor.snapshot().error?.kind).toBe("healthTimeout");
		expect(child.signals).toEqual(["SIGTERM"]);
	});

	it("does not retry when the command does not exist", async () => {
		const h = setup({ pid: undefined });
		h.spawnError.value = Object.assign(new Error("spawn kh ENOENT"), { code: "ENOENT" });
		await h.supervisor.start();
		expect(h.supervisor.snapshot()).toMatchObject({
			state: "stopped",
			error: { kind: "commandNotFound" },
			restartInMs: null,
		});
		await h.clock.advance(120_000);
		expect(h.children).toHaveLength(1);
	});

	it("stopping while starting skips the shutdown request and terminates the child", async () => {
		const h = setup();
		const started = h.supervisor.start();
		await h.clock.advance(0);
		const child = h.children[0];
		child.onKill = (_signal, c) => c.exit(null, "SIGTERM");
		const stopped = h.supervisor.stop();
		await h.clock.advance(0);
		await Promise.all([started, stopped]);
		expect(h.transport.paths()).not.toContain("POST /v1/shutdown");
		expect(child.signals).toEqual(["SIGTERM"]);
		expect(h.supervisor.currentState).toBe("stopped");
		await h.clock.advance(60_000);
		expect(h.children).toHaveLength(1);
	});

	it("restart() stops the running sidecar and launches a new one with a new token", async () => {
		const h = setup();
		const first = await startReady(h);
		h.onShutdown.value = () => queueMicrotask(() => first.exit(0));
		const restarted = h.supervisor.restart();
		await h.clock.advance(0);
		const second = h.children[1];
		expect(second).toBeDefined();
		second.listening(43999);
		await h.clock.advance(0);
		await restarted;
		expect(h.supervisor.currentState).toBe("ready");
		expect(h.supervisor.endpoint).toEqual({ baseUrl: "http://127.0.0.1:43999", token: "token-2" });
		expect(h.states).toEqual(["starting", "ready", "stopped", "starting", "ready"]);
	});

	it("start() is idempotent while running", async () => {
		const h = setup();
		await startReady(h);
		await h.supervisor.start();
		await h.supervisor.start();
		expect(h.children).toHaveLength(1);
	});

	it("calls a hung sidecar slow, ready again when it answers, and restarts it after repeated silent checks", async () => {
		const h = setup({ config: { restartPolicy: "limited", maxRestarts: 5 } });
		const child = await startReady(h, 41111);
		child.onKill = (_signal, c) => c.exit(null, "SIGTERM");
		expect(h.supervisor.endpoint).not.toBeNull();

		// The next liveness check gets no answer within its timeout: slow, still reachable.
		h.hung.value = true;
		await h.clock.advance(TIMINGS.livenessIntervalMs + TIMINGS.livenessTimeoutMs);
		expect(h.supervisor.currentState).toBe("slow");
		expect(h.supervisor.endpoint).not.toBeNull();

		// It answers again: ready.
		h.hung.value = false;
		await h.clock.advance(TIMINGS.livenessIntervalMs);
		expect(h.supervisor.currentState).toBe("ready");

		// Silent for hungAfterChecks checks in a row: ended and restarted per the policy.
		h.hung.value = true;
		for (let i = 0; i < TIMINGS.hungAfterChecks; i++) await h.clock.advance(TIMINGS.livenessIntervalMs + TIMINGS.livenessTimeoutMs);
		expect(child.signals).toContain("SIGTERM");
		expect(h.supervisor.snapshot()).toMatchObject({ state: "restarting", error: { kind: "unresponsive" }, restartInMs: 1000 });
		expect(h.states).toEqual(["starting", "ready", "slow", "ready", "slow", "restarting"]);
		h.hung.value = false;
		await h.clock.advance(1000);
		expect(h.children).toHaveLength(2);
	});

	it("checks liveness at once when asked (after a request timed out)", async () => {
		const h = setup();
		await startReady(h);
		h.hung.value = true;
		const check = h.supervisor.checkNow();
		await h.clock.advance(TIMINGS.livenessTimeoutMs);
		await check;
		expect(h.supervisor.currentState).toBe("slow");
	});

	it("gives up after the configured failures in a row with the limited policy", async () => {
		const h = setup({ config: { restartPolicy: "limited", maxRestarts: 3 } });
		const first = await startReady(h);
		first.exit(1);
		await h.clock.advance(0);
		for (let i = 0; i < 3; i++) {
			expect(h.supervisor.currentState).toBe("restarting");
			await h.clock.advance(h.supervisor.snapshot().restartInMs ?? 0);
			h.children[h.children.length - 1].exit(1);
			await h.clock.advance(0);
		}
		expect(h.supervisor.snapshot()).toMatchObject({ state: "stopped", gaveUp: true, failures: 4, restartInMs: null });
		await h.clock.advance(600_000);
		expect(h.children).toHaveLength(4);

		// Started by hand: counting starts over.
		const again = h.supervisor.start();
		await h.clock.advance(0);
		h.children[h.children.length - 1].listening(40000);
		await h.clock.advance(0);
		await again;
		expect(h.supervisor.snapshot()).toMatchObject({ state: "ready", gaveUp: false, failures: 0 });
	});

	it("leaves a crashed sidecar stopped with the never policy", async () => {
		const h = setup({ config: { restartPolicy: "never" } });
		const first = await startReady(h);
		first.exit(1);
		await h.clock.advance(60_000);
		expect(h.supervisor.snapshot()).toMatchObject({ state: "stopped", gaveUp: true, failures: 1, error: { kind: "exited" } });
		expect(h.children).toHaveLength(1);
	});

	it("puts PATH additions in front of the inherited PATH", async () => {
		const h = setup({ config: { pathAdditions: ["/opt/uv/bin", "/home/me/.local/bin"] } });
		await startReady(h);
		expect(h.children[0].options.env.PATH).toBe("/opt/uv/bin:/home/me/.local/bin:/usr/bin");
		expect(buildEnv({ Path: "C:\\bin" }, ["D:\\kh"], "tok", ";")).toEqual({ Path: "D:\\kh;C:\\bin", KH_TOKEN: "tok" });
		expect(buildEnv({ PATH: "/usr/bin" }, [], "tok")).toEqual({ PATH: "/usr/bin", KH_TOKEN: "tok" });
	});
});


describe("the version handshake and a taken port", () => {
	const plugin = { version: "0.1.0", apiLevel: 2 };

	it("sends its version and API level to /health and keeps the sidecar's for the settings", async () => {
		const h = setup({ config: { plugin, minSidecarApiLevel: 2 } });
		h.health.value = { status: "ok", version: "0.3.0", api_level: 3, min_plugin_api_level: 1, plugin_compatible: true };
		await startReady(h);
		const sent = new URL(h.transport.requests.find((r) => r.url.includes("/health"))?.url ?? "");
		expect(Object.fromEntries(sent.searchParams)).toEqual({ plugin_api: "2", plugin_version: "0.1.0" });
		expect(h.supervisor.snapshot().sidecar).toEqual({ version: "0.3.0", apiLevel: 3, minPluginApiLevel: 1 });
	});

	it("stops a sidecar older than the plugin needs, says so, and does not restart it", async () => {
		const h = setup({ config: { plugin, minSidecarApiLevel: 2 } });
		h.health.value = { status: "ok", version: "0.0.9" }; // a sidecar from before the handshake: API level 1
		const started = h.supervisor.start();
		await h.clock.advance(0);
		h.children[0].listening(40001);
		await h.clock.advance(10_000);
		await started;
		const snapshot = h.supervisor.snapshot();
		expect(snapshot.state).toBe("stopped");
		expect(snapshot.error).toMatchObject({ kind: "sidecarTooOld" });
		expect(snapshot.error?.message).toContain("kh 0.0.9 (API level 1)");
		expect(snapshot.sidecar).toEqual({ version: "0.0.9", apiLevel: 1, minPluginApiLevel: 0 });
		expect(h.children[0].signals).toContain("SIGTERM"); // the misfit is ended, not left serving
		await h.clock.advance(120_000);
		expect(h.children).toHaveLength(1); // nothing a restart could mend
	});

	it("stops when the sidecar no longer serves this plugin", async () => {
		const h = setup({ config: { plugin, minSidecarApiLevel: 2 } });
		h.health.value = { status: "ok", version: "9.0.0", api_level: 9, min_plugin_api_level: 5, plugin_compatible: false };
		const started = h.supervisor.start();
		await h.clock.advance(0);
		h.children[0].listening(40002);
		await h.clock.advance(10_000);
		await started;
		expect(h.supervisor.snapshot()).toMatchObject({ state: "stopped", error: { kind: "pluginTooOld" } });
	});

	it("names a taken port from the sidecar's port_in_use line and waits for the person", async () => {
		const h = setup({ port: 8765 });
		const started = h.supervisor.start();
		await h.clock.advance(0);
		h.children[0].println(JSON.stringify({ event: "port_in_use", host: "127.0.0.1", port: 8765 }));
		h.children[0].exit(1, null);
		await h.clock.advance(0);
		await started;
		expect(h.supervisor.snapshot()).toMatchObject({ state: "stopped", error: { kind: "portInUse", port: 8765 } });
		await h.clock.advance(120_000);
		expect(h.children).toHaveLength(1);
	});
});
