import { describe, expect, it } from "vitest";
import {
	encodeVaultPath,
	SidecarClient,
	SidecarError,
	SidecarOfflineError,
	SidecarTimeoutError,
	withoutTrailingSlashes,
} from "../src/api/client";
import { requestUrlTransport } from "../src/api/obsidian-transport";
import { FakeClock, FakeTransport, json } from "./helpers/fakes";
import { requestUrlMock, type MockRequestUrlParam } from "./mocks/obsidian";

const endpoint = { baseUrl: "http://127.0.0.1:5123/", token: "secret-token" };

describe("SidecarClient", () => {
	it("sends the bearer token on API routes but not on /health", async () => {
		const transport = new FakeTransport((request) => {
			if (request.url.endsWith("/health")) return json(200, { status: "ok", version: "0.1.0" });
			return json(200, { notes: [], total: 0, next_cursor: null });
		});
		const client = new SidecarClient(transport, endpoint);

		await expect(client.health()).resolves.toEqual({ status: "ok", version: "0.1.0" });
		await client.listNotes(50, "abc");

		const [health, list] = transport.requests;
		expect(health?.url).toBe("http://127.0.0.1:5123/health");
		expect(health?.headers.Authorization).toBeUndefined();
		expect(list?.method).toBe("GET");
		expect(list?.url).toBe("http://127.0.0.1:5123/v1/notes?limit=50&cursor=abc");
		expect(list?.headers.Authorization).toBe("Bearer secret-token");
	});

	it("omits empty query values and encodes note paths per segment", async () => {
		const transport = new FakeTransport(() => json(200, { path: "x" }));
		const client = new SidecarClient(transport, endpoint);
		await client.listNotes();
		await client.getNote("日本語/a b#1?.md");
		expect(transport.requests[0]?.url).toBe("http://127.0.0.1:5123/v1/notes");
		expect(transport.requests[1]?.url).toBe(
			"http://127.0.0.1:5123/v1/notes/%E6%97%A5%E6%9C%AC%E8%AA%9E/a%20b%231%3F.md",
		);
		expect(encodeVaultPath("/a/b.md")).toBe("a/b.md");
	});

	it("POSTs /v1/shutdown with the token", async () => {
		const transport = new FakeTransport(() => json(200, { status: "shutting_down" }));
		await new SidecarClient(transport, endpoint).shutdown();
		expect(transport.requests[0]).toMatchObject({
			method: "POST",
			url: "http://127.0.0.1:5123/v1/shutdown",
			headers: { Authorization: "Bearer secret-token" },
		});
	});

	it("maps error bodies to SidecarError", async () => {
		const transport = new FakeTransport(() =>
			json(404, { error: { code: "note_not_found", message: "No such note: x.md", detail: { path: "x.md" } } }),
		);
		const error = await new SidecarClient(transport, endpoint).getNote("x.md").catch((e: unknown) => e);
		expect(error).toBeInstanceOf(SidecarError);
		expect(error).toMatchObject({
			status: 404,
			code: "note_not_found",
			message: "No such note: x.md",
			detail: { path: "x.md" },
		});
	});

	it("maps other error answers to SidecarError with an http_ code", async () => {
		const transport = new FakeTransport(() => ({ status: 502, text: "Bad gateway" }));
		const error = await new SidecarClient(transport, endpoint).health().catch((e: unknown) => e);
		expect(error).toBeInstanceOf(SidecarError);
		expect(error).toMatchObject({ status: 502, code: "http_502", message: "Bad gateway" });

		const garbled = new FakeTransport(() => ({ status: 200, text: "<html>" }));
		await expect(new SidecarClient(garbled, endpoint).health()).rejects.toMatchObject({
			code: "invalid_response",
		});
	});

	it("maps transport failures to SidecarOfflineError", async () => {
		const transport = new FakeTransport(() => null);
		const error = await new SidecarClient(transport, endpoint).listNotes().catch((e: unknown) => e);
		expect(error).toBeInstanceOf(SidecarOfflineError);
		expect(error).not.toBeInstanceOf(SidecarError);
		expect((error as SidecarOfflineError).message).toContain("ECONNREFUSED");
	});

	it("is offline when there is no endpoint", async () => {
		const transport = new FakeTransport(() => json(200, {}));
		const client = new SidecarClient(transport, () => null);
		await expect(client.health()).rejects.toBeInstanceOf(SidecarOfflineError);
		expect(transport.requests).toHaveLength(0);
	});
});

describe("withoutTrailingSlashes", () => {
	it("drops every trailing slash and nothing else, fast on a long run of slashes", () => {
		expect(withoutTrailingSlashes("http://127.0.0.1:5123///")).toBe("http://127.0.0.1:5123");
		expect(withoutTrailingSlashes("http://127.0.0.1:5123")).toBe("http://127.0.0.1:5123");
		expect(withoutTrailingSlashes("///")).toBe("");
		const hostile = "/".repeat(200_000) + "x";
		expect(withoutTrailingSlashes(hostile)).toBe(hostile);
	});
});

describe("requestUrl transport", () => {
	it("passes throw:false and returns error statuses as answers", async () => {
		const seen: MockRequestUrlParam[] = [];
		requestUrlMock.handler = (param) => {
			seen.push(param);
			return Promise.resolve({ status: 401, text: '{"error":{"code":"unauthorized","message":"Missing token."}}' });
		};
		const client = new SidecarClient(requestUrlTransport, endpoint);
		await expect(client.listNotes()).rejects.toMatchObject({ status: 401, code: "unauthorized" });
		expect(seen[0]).toMatchObject({
			url: "http://127.0.0.1:5123/v1/notes",
			method: "GET",
			throw: false,
			headers: { Authorization: "Bearer secret-token" },
		});
	});

	it("turns a rejected requestUrl into SidecarOfflineError", async () => {
		requestUrlMock.handler = () => Promise.reject(new Error("net::ERR_CONNECTION_REFUSED"));
		const client = new SidecarClient(requestUrlTransport, endpoint);
		await expect(client.health()).rejects.toBeInstanceOf(SidecarOfflineError);
	});
});

describe("request timeouts", () => {
	it("gives up on a hung request after its timeout and reports it, so the supervisor can check the sidecar", async () => {
		const clock = new FakeClock();
		const timedOut: SidecarTimeoutError[] = [];
		const transport = new FakeTransport(() => new Promise<null>(() => undefined));
		const client = new SidecarClient(transport, endpoint, {
			timers: clock,
			timeouts: { quick: 10_000, audit: 60_000 },
			onTimeout: (error) => timedOut.push(error),
		});
		const badge = client.badge("a.md");
		const audit = client.audit();
		let badgeError: unknown = null;
		let auditError: unknown = null;
		badge.catch((error: unknown) => (badgeError = error));
		audit.catch((error: unknown) => (auditError = error));
		await clock.advance(9_999);
		expect(badgeError).toBeNull();
		await clock.advance(1);
		expect(badgeError).toBeInstanceOf(SidecarTimeoutError);
		// A timeout is a kind of "no answer": views treat it like offline, without a notice per badge.
		expect(badgeError).toBeInstanceOf(SidecarOfflineError);
		expect(auditError).toBeNull();
		await clock.advance(50_000);
		expect(auditError).toBeInstanceOf(SidecarTimeoutError);
		expect(timedOut.map((e) => e.timeoutMs)).toEqual([10_000, 60_000]);
		expect(clock.pendingDelays()).toEqual([]);
	});

	it("clears its timer when the answer comes in time", async () => {
		const clock = new FakeClock();
		const client = new SidecarClient(new FakeTransport(() => json(200, { status: "ok", version: "1" })), endpoint, { timers: clock });
		await expect(client.health()).resolves.toEqual({ status: "ok", version: "1" });
		expect(clock.pendingDelays()).toEqual([]);
	});
});

describe("the person's language at the sidecar's edge", () => {
	const refusal = {
		error: {
			code: "refused",
			message: "パイロットのバッチは、先にカナリアのバッチが成功してから計画できます。",
			detail: { stage: "pilot", missing_stage: "canary" },
			lang: "ja",
			message_en: "A pilot batch comes after a canary batch that succeeded, … or pass --out-of-order",
		},
	};

	it("sends the interface's language and reads the sidecar's localized refusal", async () => {
		let language = "ja";
		const transport = new FakeTransport(() => json(409, refusal));
		const client = new SidecarClient(transport, endpoint, { language: () => language });
		const error = await client.planBatch({ stage: "pilot" }).catch((e: unknown) => e);
		expect(transport.requests[0]?.headers["Accept-Language"]).toBe("ja");
		expect(error).toBeInstanceOf(SidecarError);
		expect(error).toMatchObject({ code: "refused", lang: "ja", message: refusal.error.message });
		expect((error as SidecarError).messageEn).toContain("--out-of-order");
		language = "en";
		await client.planBatch({ stage: "pilot" }).catch(() => undefined);
		expect(transport.requests[1]?.headers["Accept-Language"]).toBe("en");
	});

	it("shows a refusal in the person's language alone, and an older sidecar's English labelled", async () => {
		const { describeFailure } = await import("../src/ui/errors");
		const { applyLanguage } = await import("../src/i18n");
		applyLanguage("ja");
		try {
			const localized = new SidecarError(409, "refused", refusal.error.message, refusal.error.detail, "ja", refusal.error.message_en);
			expect(describeFailure(localized)).toBe(refusal.error.message);
			expect(describeFailure(localized)).not.toContain("--");
			const older = new SidecarError(409, "conflict", "Already approved.");
			expect(describeFailure(older)).toContain("Already approved.");
			expect(describeFailure(older)).not.toBe("Already approved.");
		} finally {
			applyLanguage("en");
		}
	});
});
