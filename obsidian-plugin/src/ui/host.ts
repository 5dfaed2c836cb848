import type { App } from "obsidian";
import type { SidecarClient } from "../api/client";
import type { BatchPlan, BatchStage } from "../api/types";
import type { AuditHub } from "../trust/audit-hub";
import type { CandidateWatcher } from "../trust/candidates";

/** What views, modals and commands need from the plugin. */
export interface HarnessHost {
	readonly app: App;
	readonly client: SidecarClient;
	/** The audit shared by every view (one request per burst of changes). */
	readonly audits: AuditHub;
	/** The candidates of the next batch and which of them the person has not seen yet. */
	readonly candidates: CandidateWatcher;
	/** Opens a note, optionally at a 1-based line. */
	openNote(path: string, line?: number): Promise<void>;
	/** After the sidecar wrote notes: refresh badges and the shared audit. */
	afterWrite(): void;
	/** One notice for a failed user action (offline, refused, ...). */
	reportError(error: unknown): void;
	openBatchApproval(plan: BatchPlan): void;
	/** The plan was approved (or refused for good): "Approve pending batch" must not offer it again. */
	planConsumed(planId: string): void;
	planBatch(stage: BatchStage, paths?: string[]): Promise<void>;
	openPipelineRun(runId: string): Promise<void>;
}
