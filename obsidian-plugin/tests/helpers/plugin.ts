import KnowledgeHarnessPlugin from "../../src/main";
import { SidecarSupervisor, type SupervisorConfig } from "../../src/sidecar/supervisor";
import type { SidecarLogModal } from "../../src/ui/log-modal";
import { App, FileSystemAdapter, type Plugin as MockPlugin } from "../mocks/obsidian";
import { FakeChild, FakeClock, FakeTransport, json } from "./fakes";

/** The plugin with the sidecar supervisor wired to fakes (a manual clock, fake children, a fake /health). */
export class TestPlugin extends KnowledgeHarnessPlugin {
	readonly clock = new FakeClock();
	readonly children: FakeChild[] = [];
	readonly configs: SupervisorConfig[] = [];
	readonly logs: SidecarLogModal[] = [];
	/** GET /health never answers while true. */
	healthHung = false;
	/** What GET /health answers: a sidecar of this plugin's API level unless a test says otherwise. */
	health: Record<string, unknown> = { status: "ok", version: "0.1.0", api_level: 2, min_plugin_api_level: 1, plugin_compatible: true };
	/** What a new child does right after it is spawned (default: nothing; the test makes it listen). */
	onSpawn: (child: FakeChild) => void = () => undefined;

	protected override createSupervisor(config: SupervisorConfig): SidecarSupervisor {
		this.configs.push(config);
		return new SidecarSupervisor(config, {
			spawn: (command, args, options) => {
				const child = new FakeChild(command, args, options, 4242 + this.children.length);
				child.onKill = (_signal, c) => c.exit(null, "SIGTERM");
				this.children.push(child);
				queueMicrotask(() => this.onSpawn(child));
				return child;
			},
			transport: new FakeTransport(() =>
				this.healthHung ? new Promise<null>(() => undefined) : json(200, this.health),
			),
			timers: this.clock,
			randomToken: () => "t".repeat(64),
			env: () => ({}),
		});
	}

	override showSidecarLog(): SidecarLogModal {
		const modal = super.showSidecarLog();
		this.logs.push(modal);
		return modal;
	}
}

export function makePlugin(data: unknown, adapter: unknown = new FileSystemAdapter("/home/me/vault"), app = new App(adapter)) {
	const plugin = new TestPlugin(app as never, { id: "knowledge-harness", name: "Knowledge Harness", version: "0.1.0" } as never);
	const mock = plugin as unknown as MockPlugin;
	mock.data = data;
	return { app, plugin, mock };
}
