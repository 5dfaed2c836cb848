import { type Health, type PluginIdentity, SidecarClient, type SidecarEndpoint, type Transport } from "../api/client";

/**
 * Supervises the sidecar process: launch with a fresh token, wait for its
 * "listening" line and its health check, restart with capped exponential
 * backoff when it dies, and stop it politely (shutdown request, SIGTERM,
 * SIGKILL). Everything that touches the outside world is injected, so the
 * state machine runs in unit tests with fakes; `node-runtime.ts` holds the
 * production implementations.
 */

/**
 * - starting: launched, waiting for its listening line and health check;
 * - ready: answers;
 * - slow: was ready, but its last liveness check did not answer in time;
 * - restarting: not running, a restart is scheduled;
 * - stopped: not running, and nothing will start it but the person.
 */
export type SidecarState = "starting" | "ready" | "slow" | "restarting" | "stopped";

/** What happens after the sidecar stops on its own (see settings.ts). */
export type RestartPolicy = "limited" | "always" | "never";

export type SupervisorErrorKind =
	| "commandNotFound"
	| "portInUse"
	| "sidecarTooOld"
	| "pluginTooOld"
	| "spawnFailed"
	| "exited"
	| "listeningTimeout"
	| "healthTimeout"
	| "unresponsive";

export interface SupervisorError {
	kind: SupervisorErrorKind;
	message: string;
	/** Exit code when kind is "exited". */
	exitCode?: number | null;
	/** Signal name when the process was killed by one. */
	signal?: string | null;
	/** The port, when kind is "portInUse". */
	port?: number;
}

/** Failures a restart cannot mend: the person has to act (install, update, choose a port). */
export const NEEDS_THE_PERSON: ReadonlySet<SupervisorErrorKind> = new Set(["commandNotFound", "portInUse", "sidecarTooOld", "pluginTooOld"]);

/** The sidecar's side of the version handshake, as its GET /health answered at the last start. */
export interface SidecarIdentity {
	version: string;
	/** 1 for a sidecar older than the handshake (its /health names no level). */
	apiLevel: number;
	minPluginApiLevel: number;
}

export interface StateSnapshot {
	state: SidecarState;
	/** Port the sidecar listens on (known once it printed its listening line). */
	port: number | null;
	/** Process id of the child (known once spawned). */
	pid: number | null;
	/** Why the sidecar is offline, when it did not stop on request. */
	error: SupervisorError | null;
	/** Delay before the next automatic restart, when one is scheduled. */
	restartInMs: number | null;
	/** Failed launches or crashes in a row (0 after a stable run). */
	failures: number;
	/** True when the restart policy gave up (stopped after failures, not on request). */
	gaveUp: boolean;
	/** The version and API levels the sidecar answered at its last start (kept after it stops). */
	sidecar?: SidecarIdentity | null;
}

export type StateListener = (snapshot: StateSnapshot) => void;

// ---- injected dependencies ----

export interface ReadableLike {
	on(event: "data", listener: (chunk: string | Uint8Array) => void): unknown;
}

export interface WritableLike {
	end(): unknown;
}

export type KillSignal = "SIGTERM" | "SIGKILL";

/** The part of node's ChildProcess the supervisor uses. */
export interface ChildLike {
	readonly pid?: number;
	readonly stdin: WritableLike | null;
	readonly stdout: ReadableLike | null;
	readonly stderr: ReadableLike | null;
	kill(signal?: KillSignal): boolean;
	on(event: "exit", listener: (code: number | null, signal: string | null) => void): unknown;
	on(event: "error", listener: (error: Error & { code?: string }) => void): unknown;
}

export interface SpawnOptions {
	env: Record<string, string | undefined>;
	stdio: ["pipe", "pipe", "pipe"];
}

export type SpawnFn = (command: string, args: string[], options: SpawnOptions) => ChildLike;

export interface Timers {
	setTimeout(callback: () => void, ms: number): unknown;
	clearTimeout(handle: unknown): void;
}

export interface SupervisorDeps {
	spawn: SpawnFn;
	/** Used for GET /health and POST /v1/shutdown (plain HTTP, not requestUrl). */
	transport: Transport;
	timers: Timers;
	/** A fresh secret per launch (32 random bytes as hex in production). */
	randomToken: () => string;
	/** Environment the child inherits (KH_TOKEN is added on top). */
	env: () => Record<string, string | undefined>;
	/** Separator of PATH entries (":" by default, ";" on Windows). */
	pathDelimiter?: string;
	/** The file a command name runs, looked up in the environment's PATH; null when there is none. */
	locate?: (command: string, env: Record<string, string | undefined>) => string | null;
}

export interface SupervisorConfig {
	command: string;
	/** Extra arguments placed before "serve". */
	args: readonly string[];
	vaultPath: string;
	/** 0 lets the sidecar pick a free port. */
	port: number;
	/** Folders put in front of the inherited PATH. */
	pathAdditions?: readonly string[];
	/** Default "always" (restart with backoff forever). */
	restartPolicy?: RestartPolicy;
	/** Failures in a row after which "limited" gives up. Default 5. */
	maxRestarts?: number;
	/** `kh serve --log-level`: uvicorn's and the package's loggers; omitted, the sidecar's default. */
	logLevel?: string;
	/** Sent to GET /health at start; the sidecar answers whether it still serves this plugin. */
	plugin?: PluginIdentity;
	/** The lowest sidecar API level this plugin works with (an older sidecar is stopped, and the person told). */
	minSidecarApiLevel?: number;
}

export interface SupervisorTimings {
	/** How long to wait for the listening line after spawning. */
	listeningTimeoutMs: number;
	/** How long to poll GET /health after the listening line. */
	healthTimeoutMs: number;
	healthIntervalMs: number;
	/** First restart delay; doubles per failed attempt up to backoffMaxMs. */
	backoffInitialMs: number;
	backoffMaxMs: number;
	/** After this long in "ready", the backoff starts again from the first delay. */
	stableAfterMs: number;
	/** Wait for the process to exit after POST /v1/shutdown. */
	shutdownGraceMs: number;
	/** Wait after SIGTERM before SIGKILL. */
	termGraceMs: number;
	/** Wait after SIGKILL before giving up on the exit event. */
	killGraceMs: number;
	/** While ready, GET /health this often... */
	livenessIntervalMs: number;
	/** ...and call the sidecar slow when it takes longer than this. */
	livenessTimeoutMs: number;
	/** Failed liveness checks in a row after which the sidecar is restarted as hung. */
	hungAfterChecks: number;
}

export const DEFAULT_TIMINGS: Readonly<SupervisorTimings> = Object.freeze({
	listeningTimeoutMs: 30_000,
	healthTimeoutMs: 10_000,
	healthIntervalMs: 200,
	backoffInitialMs: 1_000,
	backoffMaxMs: 60_000,
	stableAfterMs: 60_000,
	shutdownGraceMs: 3_000,
	termGraceMs: 3_000,
	killGraceMs: 2_000,
	livenessIntervalMs: 15_000,
	livenessTimeoutMs: 5_000,
	hungAfterChecks: 4,
});

// ---- pure helpers (exported for tests) ----

export interface ListeningInfo {
	host: string;
	port: number;
	pid: number | null;
}

/** The fields of a sidecar's `{"event": "<name>", ...}` line; null for any other line. */
function eventLine(line: string, name: string): Record<string, unknown> | null {
	const trimmed = line.trim();
	if (!trimmed.startsWith("{")) return null;
	let value: unknown;
	try {
		value = JSON.parse(trimmed);
	} catch {
		return null;
	}
	if (typeof value !== "object" || value === null) return null;
	const record = value as Record<string, unknown>;
	return record.event === name ? record : null;
}

/** Parses the sidecar's `{"event": "listening", ...}` line; null for any other line. */
export function parseListeningLine(line: string): ListeningInfo | null {
	const record = eventLine(line, "listening");
	if (!record) return null;
	const port = record.port;
	if (typeof port !== "number" || !Number.isInteger(port) || port < 1 || port > 65535) return null;
	const host = typeof record.host === "string" ? record.host : "127.0.0.1";
	const pid = typeof record.pid === "number" && Number.isInteger(record.pid) ? record.pid : null;
	return { host, port, pid };
}

/** The port of the sidecar's `{"event": "port_in_use", ...}` line; null for any other line. */
export function parsePortInUseLine(line: string): number | null {
	const record = eventLine(line, "port_in_use");
	return record && typeof record.port === "number" ? record.port : null;
}

/** The failure of a sidecar that could not listen on `port` (another program has it). */
function portTaken(port: number): SupervisorError {
	return { kind: "portInUse", message: `Port ${String(port)} is taken.`, port };
}

/** The handshake's verdict: which side is too old, or null when they fit. */
export function compatibility(health: Health, plugin: PluginIdentity | undefined, minSidecarApiLevel: number): SupervisorError | null {
	const apiLevel = health.api_level ?? 1;
	if (apiLevel < minSidecarApiLevel) {
		return {
			kind: "sidecarTooOld",
			message: `kh ${health.version} (API level ${String(apiLevel)}) is older than this plugin needs (API level ${String(minSidecarApiLevel)}).`,
		};
	}
	if (health.plugin_compatible === false || (plugin && health.min_plugin_api_level !== undefined && plugin.apiLevel < health.min_plugin_api_level)) {
		return {
			kind: "pluginTooOld",
			message: `This plugin (API level ${String(plugin?.apiLevel ?? "?")}) is older than kh ${health.version} serves (API level ${String(health.min_plugin_api_level ?? "?")}).`,
		};
	}
	return null;
}

/** Restart delay before attempt number `attempt` (0-based): initial × 2^attempt, capped. */
export function backoffDelay(attempt: number, initialMs: number, maxMs: number): number {
	const exponent = Math.min(Math.max(attempt, 0), 30);
	return Math.min(maxMs, initialMs * 2 ** exponent);
}

/** The argument list of a launch. */
export function buildServeArgs(config: SupervisorConfig): string[] {
	return [
		...config.args,
		"serve",
		"--vault",
		config.vaultPath,
		"--port",
		String(config.port),
		"--exit-on-stdin-close",
		...(config.logLevel ? ["--log-level", config.logLevel] : []),
	];
}

/** The child's environment: the inherited one, PATH additions in front, the launch token. */
export function buildEnv(
	inherited: Record<string, string | undefined>,
	additions: readonly string[],
	token: string,
	delimiter = ":",
): Record<string, string | undefined> {
	const env: Record<string, string | undefined> = { ...inherited, KH_TOKEN: token };
	if (additions.length > 0) {
		// Windows spells it "Path"; keep whichever key is there.
		const key = Object.keys(env).find((name) => name.toUpperCase() === "PATH") ?? "PATH";
		const current = env[key];
		env[key] = [...additions, ...(current ? [current] : [])].join(delimiter);
	}
	return env;
}

/** Splits a byte/text stream into lines. */
export class LineSplitter {
	private buffer = "";
	private readonly decoder = new TextDecoder();

	constructor(private readonly onLine: (line: string) => void) {}

	push(chunk: string | Uint8Array): void {
		this.buffer += typeof chunk === "string" ? chunk : this.decoder.decode(chunk, { stream: true });
		let index = this.buffer.indexOf("\n");
		while (index >= 0) {
			const line = this.buffer.slice(0, index).replace(/\r$/, "");
			this.buffer = this.buffer.slice(index + 1);
			this.onLine(line);
			index = this.buffer.indexOf("\n");
		}
	}
}

// ---- the supervisor ----

class StartupFailure extends Error {
	constructor(readonly failure: SupervisorError) {
		super(failure.message);
	}
}

interface Deferred<T> {
	promise: Promise<T>;
	resolve(value: T): void;
	reject(reason: unknown): void;
}

function deferred<T>(): Deferred<T> {
	let resolve!: (value: T) => void;
	let reject!: (reason: unknown) => void;
	const promise = new Promise<T>((res, rej) => {
		resolve = res;
		reject = rej;
	});
	return { promise, resolve, reject };
}

/** One launched child process and what is known about it. */
interface Run {
	child: ChildLike;
	token: string;
	pid: number | null;
	port: number | null;
	exited: boolean;
	exit: Deferred<SupervisorError>;
	listening: Deferred<ListeningInfo>;
	ready: boolean;
	/** The port the sidecar said was taken, before it exited. */
	portInUse: number | null;
}

const MAX_OUTPUT_LINES = 200;

export class SidecarSupervisor {
	private readonly deps: SupervisorDeps;
	private readonly timings: SupervisorTimings;
	private config: SupervisorConfig;

	private state: SidecarState = "stopped";
	private run: Run | null = null;
	private lastError: SupervisorError | null = null;
	private listeners = new Set<StateListener>();
	/** Incremented by every launch and stop; an older async step that sees a newer value gives up. */
	private generation = 0;
	/** Whether the user wants the sidecar running (start called, stop not called since). */
	private wanted = false;
	private attempt = 0;
	private restartTimer: unknown = null;
	private restartInMs: number | null = null;
	private stableTimer: unknown = null;
	private stopping: Promise<void> | null = null;
	private launching: Promise<void> | null = null;
	private readonly output: string[] = [];
	private gaveUp = false;
	private livenessTimer: unknown = null;
	private livenessFailures = 0;
	private checking: Promise<void> | null = null;
	private identity: SidecarIdentity | null = null;

	constructor(config: SupervisorConfig, deps: SupervisorDeps, timings: Partial<SupervisorTimings> = {}) {
		this.config = { ...config, args: [...config.args] };
		this.deps = deps;
		this.timings = { ...DEFAULT_TIMINGS, ...timings };
	}

	// ---- public surface ----

	get currentState(): SidecarState {
		return this.state;
	}

	snapshot(): StateSnapshot {
		return {
			state: this.state,
			port: this.run?.port ?? null,
			pid: this.run?.pid ?? null,
			error: this.lastError,
			restartInMs: this.restartInMs,
			failures: this.attempt,
			gaveUp: this.gaveUp,
			sidecar: this.identity,
		};
	}

	/** The file the configured command runs (PATH additions included); null when none is found. */
	locateCommand(): string | null {
		const env = buildEnv(this.deps.env(), this.config.pathAdditions ?? [], "", this.deps.pathDelimiter);
		return this.deps.locate ? this.deps.locate(this.config.command, env) : null;
	}

	/** Base URL and token while the sidecar is ready; null otherwise. */
	get endpoint(): SidecarEndpoint | null {
		const run = this.run;
		if ((this.state !== "ready" && this.state !== "slow") || !run || run.port === null) return null;
		return endpointOf(run);
	}

	/** The last lines the sidecar wrote (stdout and stderr), oldest first. */
	recentOutput(): string[] {
		return [...this.output];
	}

	/** Listens to state changes; returns the function that removes the listener. */
	onStateChange(listener: StateListener): () => void {
		this.listeners.add(listener);
		return () => {
			this.listeners.delete(listener);
		};
	}

	/** Settings to use from the next launch on. */
	updateConfig(config: SupervisorConfig): void {
		this.config = { ...config, args: [...config.args] };
	}

	/**
	 * Starts the sidecar unless it is already running or starting. Resolves when
	 * this first attempt is ready or has failed (a failure schedules a restart).
	 */
	async start(): Promise<void> {
		this.wanted = true;
		if (this.gaveUp) this.attempt = 0;
		this.gaveUp = false;
		if (this.stopping) await this.stopping;
		if (!this.wanted) return;
		if (this.launching) return this.launching;
		if (this.run && !this.run.exited) return;
		if (this.restartTimer !== null) this.clearRestartTimer();
		return this.launch();
	}

	/** Stops the sidecar: POST /v1/shutdown, wait, SIGTERM, wait, SIGKILL. */
	async stop(): Promise<void> {
		this.wanted = false;
		this.generation++;
		// An in-flight launch sees the new generation and gives up on its own.
		this.launching = null;
		this.lastError = null;
		this.gaveUp = false;
		this.clearRestartTimer();
		this.clearStableTimer();
		this.clearLiveness();
		if (this.stopping) return this.stopping;
		const run = this.run;
		if (!run || run.exited) {
			this.run = null;
			this.setState("stopped");
			return;
		}
		this.stopping = this.terminate(run, true).finally(() => {
			this.stopping = null;
			if (this.run === run) this.run = null;
			this.setState("stopped");
		});
		return this.stopping;
	}

	/** Stops, forgets past failures, and starts again. */
	async restart(): Promise<void> {
		await this.stop();
		this.attempt = 0;
		this.lastError = null;
		return this.start();
	}

	// ---- launch and startup ----

	private launch(): Promise<void> {
		const promise = this.launchOnce().finally(() => {
			if (this.launching === promise) this.launching = null;
		});
		this.launching = promise;
		return promise;
	}

	private async launchOnce(): Promise<void> {
		const generation = ++this.generation;
		this.clearRestartTimer();
		this.clearStableTimer();
		this.clearLiveness();
		this.livenessFailures = 0;
		const token = this.deps.randomToken();
		const env = buildEnv(this.deps.env(), this.config.pathAdditions ?? [], token, this.deps.pathDelimiter);
		this.setState("starting");

		let child: ChildLike;
		try {
			child = this.deps.spawn(this.config.command, buildServeArgs(this.config), {
				env,
				stdio: ["pipe", "pipe", "pipe"],
			});
		} catch (error) {
			this.fail(spawnError(error, this.config.command));
			return;
		}

		const run: Run = {
			child,
			token,
			pid: typeof child.pid === "number" ? child.pid : null,
			port: null,
			exited: false,
			exit: deferred<SupervisorError>(),
			listening: deferred<ListeningInfo>(),
			ready: false,
			portInUse: null,
		};
		// Rejections are handled where awaited; avoid unhandled-rejection noise.
		run.listening.promise.catch(() => undefined);
		this.run = run;
		this.wire(run);

		try {
			const info = await this.within(
				Promise.race([run.listening.promise, run.exit.promise.then((e) => Promise.reject(new StartupFailure(e)))]),
				this.timings.listeningTimeoutMs,
				{ kind: "listeningTimeout", message: "The sidecar did not print its listening line in time." },
			);
			if (generation !== this.generation) return;
			run.port = info.port;
			if (info.pid !== null && run.pid === null) run.pid = info.pid;
			await this.waitForHealth(run, generation);
			if (generation !== this.generation) return;
			run.ready = true;
			this.lastError = null;
			this.restartInMs = null;
			this.setState("ready");
			this.stableTimer = this.deps.timers.setTimeout(() => {
				this.stableTimer = null;
				this.attempt = 0;
			}, this.timings.stableAfterMs);
			this.scheduleLiveness(run, generation);
		} catch (error) {
			if (generation !== this.generation) return;
			const failure = error instanceof StartupFailure ? error.failure : spawnError(error, this.config.command);
			if (!run.exited) {
				await this.terminate(run, false);
			}
			if (generation !== this.generation) return;
			this.fail(failure);
		}
	}

	private wire(run: Run): void {
		const { child } = run;
		const stdout = new LineSplitter((line) => {
			this.remember(line);
			if (run.port === null) {
				const info = parseListeningLine(line);
				if (info) run.listening.resolve(info);
				const taken = parsePortInUseLine(line);
				if (taken !== null) {
					run.portInUse = taken;
					run.listening.reject(new StartupFailure(portTaken(taken)));
				}
			}
		});
		const stderr = new LineSplitter((line) => this.remember(line));
		child.stdout?.on("data", (chunk) => stdout.push(chunk));
		child.stderr?.on("data", (chunk) => stderr.push(chunk));
		child.on("exit", (code, signal) => {
			if (run.portInUse !== null) {
				this.onExit(run, { ...portTaken(run.portInUse), exitCode: code });
				return;
			}
			this.onExit(run, {
				kind: "exited",
				message: `The sidecar exited (code ${String(code)}${signal ? `, signal ${signal}` : ""}).`,
				exitCode: code,
				signal,
			});
		});
		child.on("error", (error) => {
			// An "error" before a pid means the process never started (e.g. ENOENT).
			// Other errors (a failed kill) leave a live process: its "exit" still comes.
			if (run.pid === null) {
				this.onExit(run, spawnError(error, this.config.command));
			}
		});
	}

	private onExit(run: Run, failure: SupervisorError): void {
		if (run.exited) return;
		run.exited = true;
		run.exit.resolve(failure);
		run.listening.reject(new StartupFailure(failure));
		if (run !== this.run) return;
		if (run.ready && this.wanted && !this.stopping) {
			// Died while ready: not asked to stop, so restart it.
			this.clearStableTimer();
			this.clearLiveness();
			this.run = null;
			this.fail(failure);
		}
	}

	private async waitForHealth(run: Run, generation: number): Promise<void> {
		const client = new SidecarClient(this.deps.transport, endpointOf(run));
		let timedOut = false;
		const timer = this.deps.timers.setTimeout(() => {
			timedOut = true;
		}, this.timings.healthTimeoutMs);
		try {
			for (;;) {
				if (generation !== this.generation) return;
				if (run.exited) throw new StartupFailure(await run.exit.promise);
				let health: Health | null = null;
				try {
					health = await client.health(this.config.plugin);
				} catch {
					// not up yet
				}
				if (health) {
					this.identity = {
						version: health.version,
						apiLevel: health.api_level ?? 1,
						minPluginApiLevel: health.min_plugin_api_level ?? 0,
					};
					const misfit = compatibility(health, this.config.plugin, this.config.minSidecarApiLevel ?? 0);
					if (misfit) throw new StartupFailure(misfit);
					return;
				}
				if (timedOut) {
					throw new StartupFailure({
						kind: "healthTimeout",
						message: "The sidecar did not answer GET /health in time.",
					});
				}
				await this.sleep(this.timings.healthIntervalMs);
			}
		} finally {
			this.deps.timers.clearTimeout(timer);
		}
	}

	/** Goes offline with an error and schedules a restart when one can help and the policy allows it. */
	private fail(failure: SupervisorError): void {
		this.lastError = failure;
		const policy = this.config.restartPolicy ?? "always";
		const limit = this.config.maxRestarts ?? 5;
		const allowed = policy === "always" || (policy === "limited" && this.attempt < limit);
		const mendable = !NEEDS_THE_PERSON.has(failure.kind);
		if (this.wanted && mendable && !allowed) {
			// The policy gives up: count this failure, stop until started by hand.
			this.attempt++;
			this.gaveUp = true;
			this.restartInMs = null;
			this.setState("stopped");
			return;
		}
		if (this.wanted && mendable) {
			const delay = backoffDelay(this.attempt, this.timings.backoffInitialMs, this.timings.backoffMaxMs);
			this.attempt++;
			this.restartInMs = delay;
			this.restartTimer = this.deps.timers.setTimeout(() => {
				this.restartTimer = null;
				this.restartInMs = null;
				if (this.wanted) void this.launch();
			}, delay);
			this.setState("restarting");
			return;
		}
		this.restartInMs = null;
		this.setState("stopped");
	}

	// ---- liveness ----

	/**
	 * Checks GET /health now (e.g. after a request timed out). No answer within
	 * the liveness timeout makes the state "slow"; an answer makes it "ready" again;
	 * `hungAfterChecks` failures in a row restart the sidecar as hung.
	 */
	checkNow(): Promise<void> {
		const run = this.run;
		if (!run || !run.ready || run.exited || (this.state !== "ready" && this.state !== "slow")) return Promise.resolve();
		if (this.checking) return this.checking;
		const generation = this.generation;
		this.clearLiveness();
		const check = this.checkLiveness(run, generation).finally(() => {
			this.checking = null;
			if (generation === this.generation && this.run === run && !run.exited) this.scheduleLiveness(run, generation);
		});
		this.checking = check;
		return check;
	}

	private scheduleLiveness(run: Run, generation: number): void {
		this.clearLiveness();
		this.livenessTimer = this.deps.timers.setTimeout(() => {
			this.livenessTimer = null;
			if (generation === this.generation && this.run === run) void this.checkNow();
		}, this.timings.livenessIntervalMs);
	}

	private async checkLiveness(run: Run, generation: number): Promise<void> {
		const client = new SidecarClient(this.deps.transport, endpointOf(run));
		let ok = false;
		try {
			await this.within(client.health(), this.timings.livenessTimeoutMs, {
				kind: "unresponsive",
				message: "The sidecar did not answer GET /health in time.",
			});
			ok = true;
		} catch {
			ok = false;
		}
		if (generation !== this.generation || this.run !== run || run.exited) return;
		if (ok) {
			this.livenessFailures = 0;
			if (this.state !== "ready") this.setState("ready");
			return;
		}
		this.livenessFailures++;
		if (this.livenessFailures < this.timings.hungAfterChecks) {
			if (this.state !== "slow") this.setState("slow");
			return;
		}
		// Hung: end it and let the restart policy decide.
		this.livenessFailures = 0;
		this.generation++;
		this.clearStableTimer();
		// Forgotten first, so that its exit is not taken for a crash as well.
		this.run = null;
		await this.terminate(run, false);
		if (!this.wanted || this.run !== null) return;
		this.fail({ kind: "unresponsive", message: "The sidecar stopped answering; it was ended." });
	}

	private clearLiveness(): void {
		if (this.livenessTimer !== null) {
			this.deps.timers.clearTimeout(this.livenessTimer);
			this.livenessTimer = null;
		}
	}

	// ---- stopping ----

	/** Ends a run: (shutdown request and wait, when `polite`) → SIGTERM → SIGKILL. */
	private async terminate(run: Run, polite: boolean): Promise<void> {
		if (run.exited) return;
		if (polite && run.port !== null) {
			const client = new SidecarClient(this.deps.transport, endpointOf(run));
			// Resolves only if the request fails, to cut the wait short.
			const failed = client.shutdown().then(
				() => new Promise<void>(() => undefined),
				() => undefined,
			);
			if (await this.waitForExit(run, this.timings.shutdownGraceMs, failed)) return;
		}
		if (run.exited) return;
		safeKill(run.child, "SIGTERM");
		if (await this.waitForExit(run, this.timings.termGraceMs)) return;
		safeKill(run.child, "SIGKILL");
		await this.waitForExit(run, this.timings.killGraceMs);
		try {
			run.child.stdin?.end();
		} catch {
			// already closed
		}
	}

	/** True when the run exited within `ms`; false on timeout or when `abort` settles first. */
	private waitForExit(run: Run, ms: number, abort?: Promise<void>): Promise<boolean> {
		if (run.exited) return Promise.resolve(true);
		return new Promise<boolean>((resolve) => {
			let done = false;
			const finish = (value: boolean) => {
				if (done) return;
				done = true;
				this.deps.timers.clearTimeout(timer);
				resolve(value);
			};
			const timer = this.deps.timers.setTimeout(() => finish(false), ms);
			void run.exit.promise.then(() => finish(true));
			void abort?.then(() => finish(run.exited));
		});
	}

	// ---- small utilities ----

	private within<T>(promise: Promise<T>, ms: number, onTimeout: SupervisorError): Promise<T> {
		return new Promise<T>((resolve, reject) => {
			const timer = this.deps.timers.setTimeout(() => reject(new StartupFailure(onTimeout)), ms);
			promise.then(
				(value) => {
					this.deps.timers.clearTimeout(timer);
					resolve(value);
				},
				(error: unknown) => {
					this.deps.timers.clearTimeout(timer);
					reject(error instanceof Error ? error : new Error(String(error)));
				},
			);
		});
	}

	private sleep(ms: number): Promise<void> {
		return new Promise((resolve) => {
			this.deps.timers.setTimeout(resolve, ms);
		});
	}

	private clearRestartTimer(): void {
		if (this.restartTimer !== null) {
			this.deps.timers.clearTimeout(this.restartTimer);
			this.restartTimer = null;
		}
		this.restartInMs = null;
	}

	private clearStableTimer(): void {
		if (this.stableTimer !== null) {
			this.deps.timers.clearTimeout(this.stableTimer);
			this.stableTimer = null;
		}
	}

	private remember(line: string): void {
		if (line.length === 0) return;
		this.output.push(line);
		if (this.output.length > MAX_OUTPUT_LINES) this.output.splice(0, this.output.length - MAX_OUTPUT_LINES);
	}

	private setState(state: SidecarState): void {
		this.state = state;
		const snapshot = this.snapshot();
		for (const listener of [...this.listeners]) {
			try {
				listener(snapshot);
			} catch (error) {
				console.error("Knowledge Harness: state listener failed", error);
			}
		}
	}
}

function endpointOf(run: Run): SidecarEndpoint {
	return { baseUrl: `http://127.0.0.1:${String(run.port)}`, token: run.token };
}

function safeKill(child: ChildLike, signal: KillSignal): void {
	try {
		child.kill(signal);
	} catch {
		// the process is already gone
	}
}

function spawnError(error: unknown, command: string): SupervisorError {
	const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
	const message = error instanceof Error ? error.message : String(error);
	if (code === "ENOENT") {
		return { kind: "commandNotFound", message: `Command not found: ${command}` };
	}
	return { kind: "spawnFailed", message };
}
