import { SidecarClient } from "../../src/api/client";
import type { HttpRequest, HttpResponse } from "../../src/api/transport";
import type { BatchPlan, BatchStage } from "../../src/api/types";
import { AuditHub } from "../../src/trust/audit-hub";
import { CandidateWatcher, type UnseenSummary } from "../../src/trust/candidates";
import type { HarnessHost } from "../../src/ui/host";
import { App } from "../mocks/obsidian";
import { FakeTransport, json } from "./fakes";
import { hasRecorded, recorded } from "./recorded";

/** Answers "METHOD /path" (path decoded, no query) with a recorded response. */
export type Routes = Record<string, string | ((request: HttpRequest) => HttpResponse)>;

export function recordedTransport(routes: Routes): FakeTransport {
	return new FakeTransport((request) => {
		const url = new URL(request.url);
		const key = `${request.method} ${decodeURIComponent(url.pathname)}`;
		const route = routes[key];
		if (route === undefined) return json(404, { error: { code: "not_found", message: `No route ${url.pathname}.`, detail: null } });
		if (typeof route === "function") return route(request);
		return hasRecorded(route) ? json(200, recorded(route)) : json(404, { error: { code: "not_found", message: `No route ${url.pathname}.`, detail: null } });
	});
}

/** A stand-in for the plugin as the views see it; pass `fake.host` to views. */
export class FakeHost {
	readonly app = new App();
	readonly client: SidecarClient;
	readonly opened: { path: string; line?: number }[] = [];
	readonly errors: unknown[] = [];
	readonly plans: { stage: BatchStage; paths?: string[] }[] = [];
	readonly approvals: BatchPlan[] = [];
	readonly runs: string[] = [];
	readonly consumed: string[] = [];
	readonly audits: AuditHub;
	readonly candidates: CandidateWatcher;
	/** What the candidate watcher announced. */
	readonly candidateNotices: UnseenSummary[] = [];
	/** The candidate keys the person has seen (this device's local storage in the plugin). */
	seenStore: unknown = undefined;
	writes = 0;

	constructor(readonly transport: FakeTransport) {
		this.client = new SidecarClient(transport, { baseUrl: "http://127.0.0.1:9", token: "t".repeat(64) });
		this.audits = new AuditHub(this.client);
		this.candidates = new CandidateWatcher(
			this.client,
			{
				load: () => this.seenStore,
				save: (keys) => {
					this.seenStore = keys;
				},
			},
			(summary) => this.candidateNotices.push(summary),
		);
	}

	planConsumed(planId: string): void {
		this.consumed.push(planId);
	}

	/** This fake typed as the real host (its app is the mock App). */
	get host(): HarnessHost {
		return this as unknown as HarnessHost;
	}

	openNote(path: string, line?: number): Promise<void> {
		this.opened.push({ path, line });
		return Promise.resolve();
	}

	afterWrite(): void {
		this.writes += 1;
	}

	reportError(error: unknown): void {
		this.errors.push(error);
	}

	openBatchApproval(plan: BatchPlan): void {
		this.approvals.push(plan);
	}

	planBatch(stage: BatchStage, paths?: string[]): Promise<void> {
		this.plans.push({ stage, paths });
		return Promise.resolve();
	}

	openPipelineRun(runId: string): Promise<void> {
		this.runs.push(runId);
		return Promise.resolve();
	}
}
