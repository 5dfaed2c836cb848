import type { HttpMethod, HttpResponse, Transport } from "./transport";
import type {
	AuditReport,
	AgentConnection,
	AuthorizationRequest,
	AuditTrend,
	Badge,
	BatchPlan,
	BatchPlanRequest,
	BadgeBatch,
	BatchRunRecord,
	CandidateList,
	DecisionChoices,
	DecisionRequest,
	DecisionResponse,
	DryRunValidation,
	IndexBuildReport,
	IndexCheckReport,
	IndexHeadings,
	IndexSearchResult,
	JobView,
	InitApplied,
	InitReport,
	PipelineRunDetail,
	PipelineRunList,
	PipelineRunStatus,
	ReviewResponse,
	Rollout,
	StaleReport,
} from "./types";

export type { HttpMethod, HttpRequest, HttpResponse, Transport } from "./transport";

/** Where the sidecar listens and the token it expects; null while it is not running. */
export interface SidecarEndpoint {
	/** e.g. "http://127.0.0.1:48123" (no trailing slash). */
	baseUrl: string;
	token: string;
}

export type EndpointSource = SidecarEndpoint | (() => SidecarEndpoint | null);

/** The sidecar answered with an error (4xx/5xx) or with a body that is not what the API promises. */
export class SidecarError extends Error {
	readonly status: number;
	readonly code: string;
	readonly detail: unknown;
	/** The language the sidecar wrote `message` in for the person (null: its own English words). */
	readonly lang: string | null;
	/** The sidecar's own English message (the same as `message` when it did not localize). */
	readonly messageEn: string;

	constructor(status: number, code: string, message: string, detail?: unknown, lang: string | null = null, messageEn?: string) {
		super(message);
		this.name = "SidecarError";
		this.status = status;
		this.code = code;
		this.detail = detail;
		this.lang = lang;
		this.messageEn = messageEn ?? message;
	}
}

/** No answer from the sidecar: it is not running, not reachable, or the request timed out. */
export class SidecarOfflineError extends Error {
	override readonly cause: unknown;

	constructor(message: string, cause?: unknown) {
		super(message);
		this.name = "SidecarOfflineError";
		this.cause = cause;
	}
}

/** The sidecar took longer than the request's timeout (it may still be working on it). */
export class SidecarTimeoutError extends SidecarOfflineError {
	readonly timeoutMs: number;

	constructor(timeoutMs: number) {
		super(`The sidecar did not answer within ${Math.round(timeoutMs / 1000)} s.`);
		this.name = "SidecarTimeoutError";
		this.timeoutMs = timeoutMs;
	}
}

/** How long each kind of request may take before the client gives up on it. */
export interface RequestTimeouts {
	/** Badges, notes, search, health: answered from caches. */
	quick: number;
	/** The audit and the stale list: read every note. */
	audit: number;
	/** Validation, planning, approval, index builds, pipeline steps: fetch pages, run judges, write. */
	long: number;
}

export const DEFAULT_TIMEOUTS: Readonly<RequestTimeouts> = Object.freeze({
	quick: 10_000,
	audit: 60_000,
	long: 600_000,
});

export interface ClientTimers {
	setTimeout(callback: () => void, ms: number): unknown;
	clearTimeout(handle: unknown): void;
}

export interface ClientOptions {
	timeouts?: Partial<RequestTimeouts>;
	/** Default: the window's timers. */
	timers?: ClientTimers;
	/** Told about every timed-out request (the plugin asks the supervisor for a liveness check). */
	onTimeout?: (error: SidecarTimeoutError) => void;
	/** The person's language ("ja", "en"), sent as Accept-Language: the sidecar's refusals come back in it. */
	language?: () => string;
}

const windowTimers: ClientTimers = {
	setTimeout: (callback, ms) => window.setTimeout(callback, ms),
	clearTimeout: (handle) => window.clearTimeout(handle as number),
};

// ---- response shapes (see the HTTP section of the contract) ----

export interface Health {
	status: string;
	version: string;
	/** Absent from sidecars older than the handshake (API level 1). */
	api_level?: number;
	min_plugin_api_level?: number;
	plugin_compatible?: boolean | null;
}

/** What the plugin tells the sidecar about itself at start (GET /health). */
export interface PluginIdentity {
	version: string;
	apiLevel: number;
}

/** A parse problem of a note (e.g. broken frontmatter YAML). */
export interface NoteError {
	message: string;
	line: number | null;
	column: number | null;
}

export interface NoteSummary {
	path: string;
	title: string;
	size: number;
	/** Modification time, seconds since the epoch. */
	mtime: number;
	has_frontmatter: boolean;
	error: NoteError | null;
}

export interface NoteList {
	notes: NoteSummary[];
	total: number;
	next_cursor: string | null;
}

/** One note: parsed properties, hashes and any parse error. */
export interface NoteDetail extends NoteSummary {
	has_bom: boolean;
	line_endings: string;
	frontmatter_end_line: number | null;
	properties: Record<string, unknown>;
	/** SHA-256 of the file's bytes. */
	sha256: string;
	/** SHA-256 of the body (see verification.content_sha256). */
	content_sha256: string;
	references: string[];
	references_sha256: string;
}

export type QueryValue = string | number | boolean | null | undefined;

export interface RequestOptions {
	query?: Record<string, QueryValue>;
	/** Serialised as JSON. */
	body?: unknown;
	/** Send the bearer token (every route but /health needs it). Default true. */
	auth?: boolean;
	/** Which timeout applies (default "quick"). */
	timeout?: keyof RequestTimeouts;
	/**
	 * Names long work (the X-KH-Job header): GET /v1/jobs/{id} shows its steps, and when this
	 * client stops waiting (its timeout) it asks the sidecar to cancel it, so it does not run on.
	 */
	job?: string;
}

/** A fresh id for a request's job (X-KH-Job). */
export function newJobId(): string {
	const bytes = new Uint8Array(12);
	crypto.getRandomValues(bytes);
	return `plugin-${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/** Encodes a vault-relative POSIX path for use in a URL, one segment at a time. */
export function encodeVaultPath(path: string): string {
	return path
		.replace(/^\/+/, "")
		.split("/")
		.map((segment) => encodeURIComponent(segment))
		.join("/");
}

/**
 * Typed client of the sidecar's HTTP API. It holds no logic beyond building
 * requests and mapping answers: adding an endpoint is one method calling
 * `request()`.
 */
export class SidecarClient {
	private readonly transport: Transport;
	private readonly endpoint: () => SidecarEndpoint | null;
	private readonly timeouts: RequestTimeouts;
	private readonly timers: ClientTimers;
	private readonly onTimeout: ((error: SidecarTimeoutError) => void) | undefined;
	private readonly language: (() => string) | undefined;

	constructor(transport: Transport, endpoint: EndpointSource, options: ClientOptions = {}) {
		this.transport = transport;
		this.endpoint = typeof endpoint === "function" ? endpoint : () => endpoint;
		this.timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
		this.timers = options.timers ?? windowTimers;
		this.onTimeout = options.onTimeout;
		this.language = options.language;
	}

	/** Liveness and, with `plugin`, the version handshake: the sidecar's version and API levels. */
	health(plugin?: PluginIdentity): Promise<Health> {
		const query = plugin ? { plugin_api: plugin.apiLevel, plugin_version: plugin.version } : undefined;
		return this.request<Health>("GET", "/health", { auth: false, query });
	}

	/** The stage a batch can be planned at now (canary, then pilot, then progressive) and each stage's limit. */
	nextStage(): Promise<Rollout> {
		return this.request<Rollout>("GET", "/v1/batches/next");
	}

	listNotes(limit?: number, cursor?: string | null): Promise<NoteList> {
		return this.request<NoteList>("GET", "/v1/notes", { query: { limit, cursor } });
	}

	getNote(path: string): Promise<NoteDetail> {
		return this.request<NoteDetail>("GET", `/v1/notes/${encodeVaultPath(path)}`);
	}

	async shutdown(): Promise<void> {
		await this.request<unknown>("POST", "/v1/shutdown");
	}

	// ---- trust ----

	audit(options: { record?: boolean } = {}): Promise<AuditReport> {
		return this.request<AuditReport>("GET", "/v1/trust/audit", {
			query: { record: options.record ? true : undefined },
			timeout: "audit",
		});
	}

	/** Past audits (coverage trend), recorded by the sidecar in `.harness/`. */
	auditTrend(): Promise<AuditTrend> {
		return this.request<AuditTrend>("GET", "/v1/trust/audits");
	}

	stale(): Promise<StaleReport> {
		return this.request<StaleReport>("GET", "/v1/trust/stale", { timeout: "audit" });
	}

	/** The candidates of the next batch (what `kh discover` lists); writes nothing. */
	candidates(): Promise<CandidateList> {
		return this.request<CandidateList>("GET", "/v1/trust/candidates", { timeout: "audit" });
	}

	/** The `kh init` report: why the audit counts what it counts, and a proposed [keywords] rule. */
	initReport(): Promise<InitReport> {
		return this.request<InitReport>("GET", "/v1/trust/init", { timeout: "audit" });
	}

	/**
	 * Writes the proposed rule the person confirmed to .harness/policy.toml (person token only).
	 * Refused (412) when the vault now proposes another rule, (409) over an existing policy without `force`.
	 */
	writeInitPolicy(proposedToml: string, force = false): Promise<InitApplied> {
		return this.request<InitApplied>("POST", "/v1/trust/init/write", {
			body: { proposed_toml: proposedToml, force },
			timeout: "audit",
		});
	}

	badge(path: string): Promise<Badge> {
		return this.request<Badge>("GET", `/v1/trust/notes/${encodeVaultPath(path)}`);
	}

	/** Many badges in one request (at most MAX_BADGE_PATHS paths); paths without one come back in `errors`. */
	badges(paths: string[]): Promise<BadgeBatch> {
		return this.request<BadgeBatch>("POST", "/v1/trust/badges", { body: { paths } });
	}

	validateNote(path: string, job?: string): Promise<DryRunValidation> {
		return this.request<DryRunValidation>("POST", `/v1/trust/notes/${encodeVaultPath(path)}/validate`, {
			query: { dry_run: true },
			timeout: "long",
			job,
		});
	}

	// ---- connecting an AI agent over MCP (person token only) ----

	/** The agent token, the MCP URL and ready-made Claude Code / Codex configuration. */
	agentConnection(): Promise<AgentConnection> {
		return this.request<AgentConnection>("GET", "/v1/agent-connection");
	}

	// ---- the approval gate ----

	planBatch(request: BatchPlanRequest, job?: string): Promise<BatchPlan> {
		return this.request<BatchPlan>("POST", "/v1/batches", { body: request, timeout: "long", job });
	}

	jobProgress(job: string): Promise<JobView> {
		return this.request<JobView>("GET", `/v1/jobs/${encodeURIComponent(job)}`);
	}

	/** Asks the sidecar to stop the job at its next step (the Cancel button, and a request this client gave up on). */
	cancelJob(job: string): Promise<JobView> {
		return this.request<JobView>("POST", `/v1/jobs/${encodeURIComponent(job)}/cancel`);
	}

	getBatch(planId: string): Promise<BatchPlan> {
		return this.request<BatchPlan>("GET", `/v1/batches/${encodeURIComponent(planId)}`);
	}

	approveBatch(planId: string, challenge: string): Promise<BatchRunRecord> {
		return this.request<BatchRunRecord>("POST", `/v1/batches/${encodeURIComponent(planId)}/approve`, {
			body: { challenge, via: "plugin" },
			timeout: "long",
		});
	}

	// ---- the reasoning index ----

	/** With `job`, GET /v1/jobs/{id} shows the build's phase and notes parsed, and a cancel stops it before it writes. */
	buildIndex(full = false, job?: string): Promise<IndexBuildReport> {
		return this.request<IndexBuildReport>("POST", "/v1/index/build", { query: { full: full ? true : undefined }, timeout: "long", job });
	}

	checkIndex(): Promise<IndexCheckReport> {
		return this.request<IndexCheckReport>("GET", "/v1/index/check", { timeout: "audit" });
	}

	searchIndex(q: string, limit = 20): Promise<IndexSearchResult> {
		return this.request<IndexSearchResult>("GET", "/v1/index/search", { query: { q, limit } });
	}

	/** One page of a note's heading tree; `next_offset` in the answer asks for the next one. */
	headings(path: string, offset = 0): Promise<IndexHeadings> {
		return this.request<IndexHeadings>("GET", `/v1/index/notes/${encodeVaultPath(path)}/headings`, {
			query: { offset: offset > 0 ? offset : undefined },
		});
	}

	// ---- the harness pipeline ----

	/** O-01 from a request note; capturing never starts processing. */
	capture(path: string): Promise<PipelineRunStatus> {
		return this.request<PipelineRunStatus>("POST", "/v1/pipeline/runs", { body: { note: path }, timeout: "long" });
	}

	listRuns(): Promise<PipelineRunList> {
		return this.request<PipelineRunList>("GET", "/v1/pipeline/runs");
	}

	runDetail(runId: string): Promise<PipelineRunDetail> {
		return this.request<PipelineRunDetail>("GET", `/v1/pipeline/runs/${encodeURIComponent(runId)}/detail`);
	}

	answer(runId: string, questionId: string, answer: string): Promise<PipelineRunStatus> {
		return this.request<PipelineRunStatus>("POST", `/v1/pipeline/runs/${encodeURIComponent(runId)}/answers`, {
			body: { question_id: questionId, answer, via: "plugin" },
			timeout: "long",
		});
	}

	runStatus(runId: string): Promise<PipelineRunStatus> {
		return this.request<PipelineRunStatus>("GET", `/v1/pipeline/runs/${encodeURIComponent(runId)}`);
	}

	/** The request's title, an excerpt, the publishability answer and who gave it (shown before authorizing). */
	authorization(runId: string): Promise<AuthorizationRequest> {
		return this.request<AuthorizationRequest>("GET", `/v1/pipeline/runs/${encodeURIComponent(runId)}/authorization`);
	}

	authorize(runId: string): Promise<PipelineRunStatus> {
		return this.request<PipelineRunStatus>("POST", `/v1/pipeline/runs/${encodeURIComponent(runId)}/authorize`, {
			body: { via: "plugin" },
			timeout: "long",
		});
	}

	advance(runId: string): Promise<PipelineRunStatus> {
		return this.request<PipelineRunStatus>("POST", `/v1/pipeline/runs/${encodeURIComponent(runId)}/advance`, { timeout: "long" });
	}

	/** The Review Packet of a run waiting for the publication decision (its SHA-256 and candidate commit). */
	review(runId: string): Promise<ReviewResponse> {
		return this.request<ReviewResponse>("GET", `/v1/pipeline/runs/${encodeURIComponent(runId)}/review`);
	}

	/** The four choices with their Japanese labels, effects and the message shown after each. */
	decisionChoices(): Promise<DecisionChoices> {
		return this.request<DecisionChoices>("GET", "/v1/pipeline/decision-choices");
	}

	/**
	 * O-11, the person's decision. An approval names the candidate commit and the
	 * Review Packet's SHA-256 and is refused (409) until the candidate is merged.
	 */
	decide(runId: string, decision: DecisionRequest): Promise<DecisionResponse> {
		return this.request<DecisionResponse>("POST", `/v1/pipeline/runs/${encodeURIComponent(runId)}/decision`, {
			body: { via: "plugin", ...decision },
			timeout: "long",
		});
	}

	/** Sends one request and returns the decoded JSON body, or throws SidecarError / SidecarOfflineError. */
	async request<T>(method: HttpMethod, path: string, options: RequestOptions = {}): Promise<T> {
		const endpoint = this.endpoint();
		if (!endpoint) {
			throw new SidecarOfflineError("The sidecar is not running.");
		}
		const headers: Record<string, string> = { Accept: "application/json" };
		const language = this.language?.();
		if (language) headers["Accept-Language"] = language;
		if (options.auth !== false) {
			headers.Authorization = `Bearer ${endpoint.token}`;
		}
		let body: string | undefined;
		if (options.body !== undefined) {
			body = JSON.stringify(options.body);
			headers["Content-Type"] = "application/json";
		}
		const url = withoutTrailingSlashes(endpoint.baseUrl) + path + buildQuery(options.query);

		if (options.job) headers["X-KH-Job"] = options.job;
		const timeoutMs = this.timeouts[options.timeout ?? "quick"];
		const abort = new AbortController();
		let response: HttpResponse;
		try {
			response = await this.withTimeout(this.transport.request({ method, url, headers, body, signal: abort.signal }), timeoutMs);
		} catch (error) {
			if (error instanceof SidecarTimeoutError) {
				// stop waiting, and stop the work: the connection where it can be aborted, the job in any case
				abort.abort();
				if (options.job) void this.cancelJob(options.job).catch(() => undefined);
				this.onTimeout?.(error);
				throw error;
			}
			throw new SidecarOfflineError(`No answer from the sidecar: ${describe(error)}`, error);
		}
		return decode<T>(response);
	}

	/** requestUrl has no timeout of its own: race the request against a timer. */
	private withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
		let handle: unknown = null;
		const timer = new Promise<never>((_resolve, reject) => {
			handle = this.timers.setTimeout(() => reject(new SidecarTimeoutError(ms)), ms);
		});
		return Promise.race([promise, timer]).finally(() => this.timers.clearTimeout(handle));
	}
}

function buildQuery(query: Record<string, QueryValue> | undefined): string {
	if (!query) return "";
	const parts: string[] = [];
	for (const [key, value] of Object.entries(query)) {
		if (value === undefined || value === null) continue;
		parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`);
	}
	return parts.length > 0 ? `?${parts.join("&")}` : "";
}

function decode<T>(response: HttpResponse): T {
	const { status, text } = response;
	let parsed: unknown = undefined;
	let parsedOk = false;
	if (text.trim().length > 0) {
		try {
			parsed = JSON.parse(text);
			parsedOk = true;
		} catch {
			parsedOk = false;
		}
	}

	if (status >= 200 && status < 300) {
		if (text.trim().length === 0) return undefined as T;
		if (!parsedOk) {
			throw new SidecarError(status, "invalid_response", "The sidecar sent a response that is not JSON.", text.slice(0, 200));
		}
		return parsed as T;
	}

	const error = parsedOk ? errorBody(parsed) : null;
	if (error) {
		throw new SidecarError(status, error.code, error.message, error.detail, error.lang, error.messageEn);
	}
	const snippet = text.trim().slice(0, 200);
	throw new SidecarError(status, `http_${status}`, snippet || `The sidecar answered HTTP ${status}.`);
}

interface ErrorEnvelope {
	code: string;
	message: string;
	detail: unknown;
	lang: string | null;
	messageEn: string | undefined;
}

/** Reads `{"error": {"code", "message", "detail", "lang"?, "message_en"?}}`; null when the body has another shape. */
function errorBody(body: unknown): ErrorEnvelope | null {
	if (!isRecord(body) || !isRecord(body.error)) return null;
	const { code, message, detail, lang, message_en } = body.error;
	if (typeof code !== "string" || typeof message !== "string") return null;
	return {
		code,
		message,
		detail,
		lang: typeof lang === "string" ? lang : null,
		messageEn: typeof message_en === "string" ? message_en : undefined,
	};
}

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describe(error: unknown): string {
	if (error instanceof Error) return error.message;
	return String(error);
}

/** The base URL without its trailing slashes (a loop: `/\/+$/` is quadratic on a run of slashes). */
export function withoutTrailingSlashes(url: string): string {
	let end = url.length;
	while (end > 0 && url.charCodeAt(end - 1) === 47) end--;
	return url.slice(0, end);
}
