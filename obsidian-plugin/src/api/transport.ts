/**
 * The one thing the API client needs from the outside world: send an HTTP
 * request and hand back the status and body. Implementations must resolve for
 * every HTTP status (4xx and 5xx included) and reject only when no answer came
 * back at all (connection refused, timeout, ...).
 */
export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export interface HttpRequest {
	method: HttpMethod;
	url: string;
	headers: Record<string, string>;
	/** Request body, already serialised (JSON for this API). */
	body?: string;
	/** Aborted when the client stops waiting (its timeout). Obsidian's requestUrl cannot abort: the job cancel stops the work there. */
	signal?: AbortSignal;
}

export interface HttpResponse {
	status: number;
	/** Raw response body as text ("" when empty). */
	text: string;
}

export interface Transport {
	request(request: HttpRequest): Promise<HttpResponse>;
}
