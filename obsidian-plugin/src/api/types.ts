/**
 * Response and request types of the sidecar's HTTP API.
 *
 * Types of endpoints that exist in the sidecar come from `schema.d.ts`, which
 * `make api-types` generates from the sidecar's OpenAPI document: when the
 * sidecar changes, the type check fails here rather than at run time.
 *
 * The rest are written by hand, after the contract, for endpoints whose
 * answers are untyped in the OpenAPI document (`{[key: string]: unknown}`)
 * or that the sidecar does not serve yet. Each says which.
 */
import type { components } from "./schema";

type Schemas = components["schemas"];

// ---- generated ----
export type AuditReport = Schemas["AuditReport"];
export type AuditError = Schemas["AuditError"];
export type Badge = Schemas["Badge"];
export type StaleReport = Schemas["StaleReport"];
export type StaleItem = Schemas["StaleItem"];
export type WindowItem = Schemas["WindowItem"];
export type ValidationFinding = Schemas["Finding"];
export type ValidationResult = Schemas["ValidationResult"];
export type IndexBuildReport = Schemas["BuildReport"];
export type IndexCheckReport = Schemas["CheckReport"];
export type IndexSearchResult = Schemas["SearchResult"];
export type IndexSearchHit = Schemas["SearchHit"];
export type IndexHeadings = Schemas["HeadingsResult"];

export type Trigger = Badge["triggers"][number];
export type Window = NonNullable<Badge["window"]>;
export const TRIGGERS: readonly Trigger[] = ["content_changed", "references_changed", "age_expired", "no_baseline"];
export const WINDOWS: readonly Window[] = ["next_batch", "prepare", "watch"];
export const STATUSES = ["verified", "reviewed", "disputed", "unverified"] as const;
export type TrustStatus = (typeof STATUSES)[number];
export const LEVELS = [0, 1, 2, 3] as const;

/** The two frontmatter blocks the sidecar writes (see DESIGN.md, trust model). */
export interface TrustBlocks {
	verification: Record<string, unknown> | null;
	evidence: Record<string, unknown> | null;
}

// ---- hand-written: POST /v1/trust/notes/{path}/validate?dry_run=true (untyped in OpenAPI) ----
export interface DryRunClaim {
	id: string;
	text: string;
	line?: number | null;
	end_line?: number | null;
	references?: string[];
	kind?: string;
}

export interface DryRunSource {
	source_id: string;
	url: string;
	final_url?: string | null;
	status?: number | null;
	ok?: boolean;
	error?: string | null;
	message?: string | null;
	title?: string | null;
	fetched_at?: string | null;
	snapshot_sha256?: string | null;
	verdict?: string | null;
}

export interface DryRunFinding extends ValidationFinding {
	line?: number | null;
	end_line?: number | null;
	text?: string | null;
}

export interface DryRunValidation {
	path: string;
	title?: string;
	dry_run: boolean;
	claims: DryRunClaim[];
	sources: DryRunSource[];
	result: ValidationResult;
	findings: DryRunFinding[];
	current: TrustBlocks;
	proposed: TrustBlocks;
	snapshots_written?: string[];
}

// ---- hand-written: the approval gate's answers (untyped objects in OpenAPI) ----
export type BatchStage = "canary" | "pilot" | "progressive";

export interface BatchTarget {
	path: string;
	sha256_before: string;
	proposed: TrustBlocks;
	/** The blocks as they are now, when the plan carries them. */
	current?: TrustBlocks;
	findings?: DryRunFinding[];
}

export interface BatchPlan {
	plan_id: string;
	digest: string;
	stage?: string;
	targets: BatchTarget[];
	expires_at: string;
	created_at?: string;
}

/** POST /v1/batches body (generated): stage, notes (restrict to these paths), today, judge. */
export type BatchPlanRequest = Schemas["PlanRequest"];

/** APPLIED | REFUSED | PROVISIONAL_RETAIN (kept open to values the sidecar adds). */
export type FileResult = string;

export interface RunFileRecord {
	path: string;
	result: FileResult;
	reasons?: string[];
	reason?: string | null;
}

export interface BatchRunRecord {
	run_id: string;
	plan_id?: string;
	digest?: string;
	/** Process integrity. */
	/** SUCCEEDED | FAILED. */
	run_status: string;
	consumption?: string;
	/** Result integrity, e.g. APPLIED or PROVISIONAL_RETAIN. */
	result?: string | null;
	result_status?: string | null;
	failure?: string | null;
	scope?: { ok: boolean; message: string };
	files?: RunFileRecord[];
	results?: RunFileRecord[];
	reasons?: string[];
}

// ---- hand-written: the harness pipeline (/v1/pipeline/…), not served yet ----
export interface ReasonExplanation {
	code: string;
	ja: string;
	en: string;
}

export interface PipelineUncertainty {
	item: string;
	impact: string;
	code?: string | null;
}

export interface PipelineRecord {
	operation: string;
	run_id: string;
	input_refs: string[];
	state_before: string | null;
	state_after: string;
	result: string;
	reason_codes: string[];
	/** The sidecar's explanations of reason_codes, when it sends them. */
	reasons?: ReasonExplanation[];
	summary_ja: string;
	uncertainties: PipelineUncertainty[];
	created_at: string;
	producer: string;
}

export interface PipelineRunStatus {
	run_id: string;
	state: string;
	waiting_for: string | null;
	records: PipelineRecord[];
	human_decisions?: number;
	human_decision_budget?: number;
}

export interface PipelineQuestion {
	question_id: string;
	operation: string;
	kind: string;
	question_ja: string;
	question_en: string;
	choices: string[];
	asked_at: string;
	answer: string | null;
}

/** GET /v1/pipeline/runs/{id}/detail (untyped in OpenAPI): the status plus questions, tasks, label. */
export interface PipelineRunDetail extends PipelineRunStatus {
	questions?: PipelineQuestion[];
	human_questions_asked?: number;
	tasks?: { task_id: string; operation: string; kind: string; status: string }[];
	label?: { by: string; via: string; at: string } | null;
	request?: { source: string; path?: string | null; title: string };
}

export interface PipelineRunSummary {
	run_id: string;
	state: string;
	waiting_for: string | null;
	title?: string;
	path?: string | null;
	created_at?: string;
	updated_at?: string;
}

export type DecisionChoice = "approve" | "revise" | "reject" | "policy";
export const DECISION_CHOICES: readonly DecisionChoice[] = ["approve", "revise", "reject", "policy"];

export interface DecisionRequest {
	choice: DecisionChoice;
	instructions?: string;
	blocks?: string[];
}

export interface AuditTrendPoint {
	today: string;
	coverage: number;
	fresh_l2: number;
	evidence_capable: number;
	threshold?: number;
}
