import { requestUrl } from "obsidian";
import type { HttpRequest, HttpResponse, Transport } from "./transport";

/**
 * Production transport for the plugin: Obsidian's `requestUrl`, which is not
 * subject to CORS. `throw: false` so that error statuses come back as answers
 * and only a failed connection rejects.
 */
export const requestUrlTransport: Transport = {
	async request(request: HttpRequest): Promise<HttpResponse> {
		const response = await requestUrl({
			url: request.url,
			method: request.method,
			headers: request.headers,
			body: request.body,
			contentType: request.body === undefined ? undefined : "application/json",
			throw: false,
		});
		return { status: response.status, text: response.text };
	},
};
