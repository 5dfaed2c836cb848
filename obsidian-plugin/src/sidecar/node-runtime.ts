/**
 * Production implementations of the supervisor's dependencies. The plugin is
 * desktop-only (manifest `isDesktopOnly: true`), so node's modules are there.
 * The health check and the shutdown request use plain node http because they
 * run while Obsidian may be unloading the plugin; the plugin's own API calls
 * go through `requestUrl` (see api/obsidian-transport.ts).
 */
import { spawn } from "child_process";
import { randomBytes } from "crypto";
import { request as httpRequest } from "http";
import { delimiter } from "path";
import type { HttpRequest, HttpResponse, Transport } from "../api/transport";
import type { ChildLike, SpawnFn, SupervisorDeps, Timers } from "./supervisor";

/** Spawns without a shell; stdout and stderr decoded as UTF-8. */
export const nodeSpawn: SpawnFn = (command, args, options) => {
	const child = spawn(command, args, {
		env: options.env,
		stdio: options.stdio,
		shell: false,
		windowsHide: true,
	});
	child.stdout?.setEncoding("utf8");
	child.stderr?.setEncoding("utf8");
	const like: ChildLike = {
		get pid() {
			return child.pid;
		},
		stdin: child.stdin,
		stdout: child.stdout,
		stderr: child.stderr,
		kill: (signal) => child.kill(signal),
		on: (event: "exit" | "error", listener: (...args: never[]) => void) => {
			child.on(event, listener as (...args: unknown[]) => void);
			return like;
		},
	};
	return like;
};

/** A fresh token: 32 random bytes as 64 hex characters. */
export function randomToken(): string {
	return randomBytes(32).toString("hex");
}

/** Plain HTTP over node's http module, one connection per request. */
export function createNodeHttpTransport(timeoutMs = 5_000): Transport {
	return {
		request(request: HttpRequest): Promise<HttpResponse> {
			return new Promise<HttpResponse>((resolve, reject) => {
				const headers: Record<string, string> = { ...request.headers };
				if (request.body !== undefined) {
					headers["Content-Length"] = String(new TextEncoder().encode(request.body).length);
				}
				const req = httpRequest(
					request.url,
					{ method: request.method, headers, agent: false, timeout: timeoutMs },
					(res) => {
						res.setEncoding("utf8");
						let text = "";
						res.on("data", (chunk: string) => {
							text += chunk;
						});
						res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
						res.on("error", reject);
					},
				);
				req.on("timeout", () => req.destroy(new Error(`Request timed out after ${timeoutMs} ms`)));
				req.on("error", reject);
				if (request.body !== undefined) req.write(request.body);
				req.end();
			});
		},
	};
}

export const windowTimers: Timers = {
	setTimeout: (callback, ms) => window.setTimeout(callback, ms),
	clearTimeout: (handle) => window.clearTimeout(handle as number),
};

/** The dependencies the plugin runs with. */
export function nodeSupervisorDeps(overrides: Partial<SupervisorDeps> = {}): SupervisorDeps {
	return {
		spawn: nodeSpawn,
		transport: createNodeHttpTransport(),
		timers: windowTimers,
		randomToken,
		env: () => ({ ...process.env }),
		pathDelimiter: delimiter,
		...overrides,
	};
}
