import type { App } from "obsidian";
import type { SidecarClient } from "../api/client";
import type { BatchPlan, BatchStage } from "../api/types";

/** What views, modals and commands need from the plugin. */
export interface HarnessHost {
	readonly app: App;
	readonly client: SidecarClient;
	/** Opens a note, optionally at a 1-based line. */
	openNote(path: string, line?: number): Promise<void>;
	/** After the sidecar wrote notes: refresh badges and open views. */
	afterWrite(): void;
	/** One notice for a failed user action (offline, refused, ...). */
	reportError(error: unknown): void;
	openBatchApproval(plan: BatchPlan): void;
	planBatch(stage: BatchStage, paths?: string[]): Promise<void>;
	openPipelineRun(runId: string): Promise<void>;
}
