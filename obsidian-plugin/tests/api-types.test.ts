/**
 * The committed API types must be what openapi-typescript makes of the saved
 * OpenAPI document (src/api/openapi.json). The Python test
 * tests/api/test_plugin_api_types.py checks that the saved document is the
 * sidecar's current one; together they fail `make test` when the plugin
 * drifts from the sidecar. Fix: `make api-types`.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { generateSchema, normalizeDocument } from "../scripts/schema-gen";

const api = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "src", "api");

describe("generated API types", () => {
	it("match a fresh generation from the saved OpenAPI document", async () => {
		const document = JSON.parse(readFileSync(path.join(api, "openapi.json"), "utf8")) as Record<string, unknown>;
		const fresh = await generateSchema(document);
		const committed = readFileSync(path.join(api, "schema.d.ts"), "utf8");
		expect(committed === fresh, "src/api/schema.d.ts is out of date: run `make api-types`").toBe(true);
	});

	it("hoists embedded $defs so that every reference resolves from the root", () => {
		const document = {
			openapi: "3.1.0",
			paths: { "/x": { post: { requestBody: { content: { "application/json": { schema: { $defs: { A: { type: "string" } }, properties: { a: { $ref: "#/$defs/A" } } } } } } } } },
		};
		const normalized = JSON.stringify(normalizeDocument(document));
		expect(normalized).toContain('"$ref":"#/components/schemas/A"');
		expect(normalized).not.toContain("$defs");
	});
});
