/**
 * Production implementations of the supervisor's dependencies. The plugin is
 * desktop-only (manifest `isDesktopOnly: true`), so node's modules are there.
 * The health check and the shutdown request use plain node http because they
 * run while Obsidian may be unloading the plugin; the plugin's own API calls
 * go through `requestUrl` (see api/obsidian-transport.ts).
 */
import { spawn } from "child_process";
import { randomBytes } from "crypto";
import { accessSync, constants as fsConstants, statSync } from "fs";
import { request as httpRequest } from "http";
import { delimiter, isAbsolute, join, resolve } from "path";
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

function isExecutableFile(file: string, windows: boolean): boolean {
	try {
		if (!statSync(file).isFile()) return false;
		if (!windows) accessSync(file, fsConstants.X_OK);
		return true;
	} catch {
		return false;
	}
}

/**
 * The file `command` runs, as spawn would find it: a path as it is, a bare
 * name in the environment's PATH (with PATHEXT on Windows); null when none.
 */
export function locateCommand(
	command: string,
	env: Record<string, string | undefined>,
	platform: string = process.platform,
	pathDelimiter: string = delimiter,
): string | null {
	const windows = platform === "win32";
	const extensions = windows ? ["", ...(env.PATHEXT ?? env.Pathext ?? ".EXE;.CMD;.BAT;.COM").split(";").filter(Boolean)] : [""];
	const withExtensions = (base: string) => extensions.map((extension) => base + extension);
	if (command.includes("/") || (windows && command.includes("\\"))) {
		const base = isAbsolute(command) ? command : resolve(command);
		return withExtensions(base).find((file) => isExecutableFile(file, windows)) ?? null;
	}
	const key = Object.keys(env).find((name) => name.toUpperCase() === "PATH") ?? "PATH";
	for (const dir of (env[key] ?? "").split(pathDelimiter)) {
		if (!dir) continue;
		const found = withExtensions(join(dir, command)).find((file) => isExecutableFile(file, windows));
		if (found) return found;
	}
	return null;
}

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
					{ method: request.method, headers, agent: false, timeout: timeoutMs, signal: request.signal },
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
		locate: (command, env) => locateCommand(command, env),
		...overrides,
	};
}
