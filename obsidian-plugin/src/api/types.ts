/**
 * Response and request types of the sidecar's HTTP API.
 *
 * Types of endpoints that exist in the sidecar come from `schema.d.ts`, which
 * `make api-types` generates from the sidecar's OpenAPI document: when the
 * sidecar changes, the type check fails here rather than at run time.
 *
 * Every answer the plugin reads is typed there; this file only gives the
 * schemas the names the code uses. The one exception is AgentConnection,
 * which falls back to its documented shape until the sidecar's OpenAPI
 * document has it.
 */
import type { components } from "./schema";

type Schemas = components["schemas"];

export type AuditReport = Schemas["AuditReport"];
export type AuditError = Schemas["AuditError"];
export type Badge = Schemas["Badge"];
export type BadgeQuote = Schemas["BadgeQuote"];
export type JobView = Schemas["JobView"];
/** POST /v1/trust/badges: each path's badge, or why it has none. */
export type BadgeBatch = Schemas["BadgeBatch"];
export type StaleReport = Schemas["StaleReport"];
export type StaleItem = Schemas["StaleItem"];
export type WindowItem = Schemas["WindowItem"];
export type ValidationFinding = Schemas["Finding"];
export type ValidatorInfo = Schemas["ValidatorInfo"];
export type QuoteSpan = Schemas["QuoteSpan"];
export type ValidationResult = Schemas["ValidationResult"];
export type IndexBuildReport = Schemas["BuildReport"];
export type IndexCheckReport = Schemas["CheckReport"];
export type IndexSearchResult = Schemas["SearchResult"];
export type IndexSearchHit = Schemas["SearchHit"];
export type IndexHeadings = Schemas["HeadingsResult"];

export type Trigger = Badge["triggers"][number];
export type Window = NonNullable<Badge["window"]>;
export const TRIGGERS: readonly Trigger[] = [
	"content_changed",
	"references_changed",
	"age_expired",
	"no_baseline",
	"evidence_unreachable",
	"evidence_missing",
	"future_dated",
];
export const WINDOWS: readonly Window[] = ["next_batch", "prepare", "watch"];
export const STATUSES = ["verified", "reviewed", "disputed", "unverified"] as const;
export type TrustStatus = (typeof STATUSES)[number];
export const LEVELS = [0, 1, 2, 3] as const;

/** The two frontmatter blocks the sidecar writes (docs/trust-policy.md); each is the note's own YAML. */
export type TrustBlocks = Schemas["TrustBlocks"];

// ---- POST /v1/trust/notes/{path}/validate?dry_run=true ----
export type DryRunValidation = Schemas["DryRunReport"];
export type DryRunClaim = Schemas["NoteClaim"];
export type DryRunSource = Schemas["DryRunSource"];
export type DryRunFinding = Schemas["NoteFinding"];

// ---- the approval gate: POST /v1/batches, GET /v1/batches/{id}, POST …/approve, GET /v1/runs/{id} ----
export type BatchStage = NonNullable<BatchPlanRequest["stage"]>;
/** POST /v1/batches body: stage, notes (restrict to these paths), today, judge; out_of_order defaults to false. */
export type BatchPlanRequest = Omit<Schemas["PlanRequest"], "out_of_order"> &
	Partial<Pick<Schemas["PlanRequest"], "out_of_order">>;
export type BatchPlan = Schemas["PlanView"];
/** GET /v1/batches/next: the stage the main button plans (canary, then pilot, then progressive) and each stage's limit. */
export type Rollout = Schemas["Rollout"];
export type BatchTarget = Schemas["PlanTarget"];
export type BatchRunRecord = Schemas["BatchRun"];
export type RunFileRecord = Schemas["RunFile"];
/** PENDING | WRITING | APPLIED | REFUSED | PROVISIONAL_RETAIN | NOT_APPLIED | ERROR. */
export type FileResult = RunFileRecord["result"];

// ---- the harness pipeline (/v1/pipeline/…) ----
export type ReasonExplanation = Schemas["ReasonExplanation"];
export type PipelineUncertainty = Schemas["Uncertainty"];
/** One operation's record: the contract's keys plus `reasons` (the codes explained in Japanese and English). */
export type PipelineRecord = Schemas["RecordView"];
export type PipelineRunStatus = Schemas["RunStatusView"];
export type PipelineQuestion = Schemas["Question"];
export type HumanBudget = Schemas["HumanBudget"];
/** GET /v1/pipeline/runs/{id}/detail: the status plus questions, the budget, tasks, label, artifacts. */
export type PipelineRunDetail = Schemas["RunDetail"];
export type PipelineRunSummary = Schemas["RunSummary"];
export type PipelineRunList = Schemas["RunList"];
/** GET /v1/pipeline/runs/{id}/review: the Review Packet with its SHA-256 and the candidate commit. */
export type ReviewResponse = Schemas["ReviewView"];
export type ReviewPacket = Schemas["ReviewPacket"];
/** GET /v1/pipeline/runs/{id}/authorization: what the person sees before authorizing a run. */
export type AuthorizationRequest = Schemas["AuthorizationRequest"];
/** POST /v1/pipeline/runs/{id}/decision body (`via` has a default in the sidecar; who decides comes from the token). */
export type DecisionRequest = Omit<Schemas["DecisionBody"], "via"> & Partial<Pick<Schemas["DecisionBody"], "via">>;
/** POST /v1/pipeline/runs/{id}/decision answer: the fixed Japanese message, the decision, record and status. */
export type DecisionResponse = Schemas["DecisionView"];
/** GET /v1/pipeline/decision-choices. */
export type DecisionChoiceInfo = Schemas["DecisionChoice"];
export type DecisionChoices = Schemas["DecisionChoices"];
export type DecisionChoice = DecisionChoiceInfo["code"];
export const DECISION_CHOICES: readonly DecisionChoice[] = ["approve", "revise", "reject", "policy"];

// ---- GET /v1/trust/candidates: the candidates of the next batch (what `kh discover` lists) ----
export type CandidateList = Schemas["CandidateList"];
export type CandidateItem = Schemas["CandidateItem"];

// ---- GET /v1/trust/init, POST /v1/trust/init/write: the first look at a vault (`kh init`) ----
export type InitReport = Schemas["InitReport"];
export type InitApplied = Schemas["InitApplied"];
export type CountedFigures = Schemas["CountedFigures"];

// ---- GET /v1/trust/audits ----
export type AuditTrend = Schemas["AuditTrend"];
export type AuditTrendPoint = Schemas["AuditTrendPoint"];

// ---- GET /v1/agent-connection (person token only) ----
/**
 * What an AI agent needs to connect over MCP. The schema's own type once the
 * sidecar's OpenAPI document has it (after `make api-types`); until then the
 * documented shape.
 */
export type AgentConnection = Schemas extends { AgentConnection: infer A }
	? A
	: { token: string; mcp_url: string; claude_command: string; codex_config: string };
