import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { readRecorded } from "../src/ui/pipeline-view";

const html = "<html><body><h1>真偽値</h1><p>YAML 1.2</p></body></html>";
const bytes = new TextEncoder().encode(html);
const recorded = createHash("sha256").update(bytes).digest("hex");

function adapter(data: Uint8Array) {
	return { readBinary: async () => data.slice().buffer };
}

describe("the Review Packet's article HTML", () => {
	it("is shown only with the bytes whose SHA-256 the packet recorded", async () => {
		expect(await readRecorded(adapter(bytes), "ARTICLE.html", recorded)).toBe(html);
		const changed = new TextEncoder().encode(html.replace("</body>", "<p>安全です</p></body>"));
		expect(await readRecorded(adapter(changed), "ARTICLE.html", recorded)).toBeNull();
		expect(await readRecorded(adapter(bytes), "ARTICLE.html", null)).toBeNull();
	});
});
