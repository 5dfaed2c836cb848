import { EventEmitter } from "node:events";
import type { HttpRequest, HttpResponse, Transport } from "../../src/api/transport";
import type { ChildLike, KillSignal, SpawnOptions, Timers } from "../../src/sidecar/supervisor";

/** Lets every pending promise callback run. */
export function flush(): Promise<void> {
	return new Promise((resolve) => {
		setImmediate(resolve);
	});
}

/** Manual clock: timers fire only when the test advances time. */
export class FakeClock implements Timers {
	now = 0;
	private seq = 0;
	private readonly tasks = new Map<number, { at: number; callback: () => void }>();

	setTimeout(callback: () => void, ms: number): number {
		const id = ++this.seq;
		this.tasks.set(id, { at: this.now + Math.max(0, ms), callback });
		return id;
	}

	clearTimeout(handle: unknown): void {
		this.tasks.delete(handle as number);
	}

	/** Delays of the timers pending now, sorted. */
	pendingDelays(): number[] {
		return [...this.tasks.values()].map((task) => task.at - this.now).sort((a, b) => a - b);
	}

	/** Advances time by `ms`, firing due timers in order and settling promises in between. */
	async advance(ms: number): Promise<void> {
		const target = this.now + ms;
		await flush();
		for (;;) {
			let nextId: number | null = null;
			let nextAt = Infinity;
			for (const [id, task] of this.tasks) {
				if (task.at <= target && task.at < nextAt) {
					nextAt = task.at;
					nextId = id;
				}
			}
			if (nextId === null) break;
			const task = this.tasks.get(nextId);
			this.tasks.delete(nextId);
			this.now = nextAt;
			task?.callback();
			await flush();
		}
		this.now = target;
		await flush();
	}
}

/** A child process that does what the test tells it to. */
export class FakeChild extends EventEmitter implements ChildLike {
	readonly pid: number | undefined;
	readonly stdin = { ended: false, end: () => { this.stdin.ended = true; } };
	readonly stdout = new EventEmitter();
	readonly stderr = new EventEmitter();
	readonly signals: KillSignal[] = [];
	exited = false;
	/** Called on kill(); e.g. exit on SIGKILL only. */
	onKill: (signal: KillSignal, child: FakeChild) => void = () => undefined;

	constructor(
		readonly command: string,
		readonly args: string[],
		readonly options: SpawnOptions,
		pid: number | undefined,
	) {
		super();
		this.pid = pid;
	}

	print(text: string): void {
		this.stdout.emit("data", text);
	}

	println(line: string): void {
		this.print(`${line}\n`);
	}

	listening(port: number): void {
		this.println(JSON.stringify({ event: "listening", host: "127.0.0.1", port, pid: this.pid }));
	}

	exit(code: number | null, signal: string | null = null): void {
		if (this.exited) return;
		this.exited = true;
		this.emit("exit", code, signal);
	}

	kill(signal: KillSignal = "SIGTERM"): boolean {
		this.signals.push(signal);
		this.onKill(signal, this);
		return true;
	}
}

export type Handler = (request: HttpRequest) => HttpResponse | Promise<HttpResponse>;

/** Records requests and answers them with a handler; throws ECONNREFUSED when the handler returns null. */
export class FakeTransport implements Transport {
	readonly requests: HttpRequest[] = [];

	constructor(public handler: (request: HttpRequest) => HttpResponse | null | Promise<HttpResponse | null>) {}

	async request(request: HttpRequest): Promise<HttpResponse> {
		this.requests.push(request);
		const response = await this.handler(request);
		if (response === null) {
			const error = new Error(`connect ECONNREFUSED ${request.url}`) as Error & { code: string };
			error.code = "ECONNREFUSED";
			throw error;
		}
		return response;
	}

	paths(): string[] {
		return this.requests.map((request) => `${request.method} ${new URL(request.url).pathname}`);
	}
}

export function json(status: number, body: unknown): HttpResponse {
	return { status, text: JSON.stringify(body) };
}
