import { describe, expect, it } from "vitest";
import { SidecarClient } from "../src/api/client";
import type { AuditReport, StaleReport } from "../src/api/types";
import { AuditHub } from "../src/trust/audit-hub";
import { DashboardView } from "../src/ui/dashboard-view";
import { ExplorerMarkers } from "../src/ui/explorer-markers";
import { StaleListView } from "../src/ui/stale-view";
import { FakeClock, FakeTransport, json } from "./helpers/fakes";
import { FakeHost } from "./helpers/host";
import { recorded } from "./helpers/recorded";
import { WorkspaceLeaf } from "./mocks/obsidian";

const audit = recorded<AuditReport>("audit");
const stale = recorded<StaleReport>("stale");

function sidecar() {
	return new FakeTransport((request) => {
		const path = new URL(request.url).pathname;
		if (path === "/v1/trust/audit") return json(200, audit);
		if (path === "/v1/trust/stale") return json(200, stale);
		if (path === "/v1/trust/audits") return json(200, { audits: [] });
		return json(404, { error: { code: "not_found", message: `No route ${path}.`, detail: null } });
	});
}

describe("the shared audit", () => {
	it("costs one audit per burst of changes, shared by the dashboard, the stale list and the explorer markers", async () => {
		const transport = sidecar();
		const host = new FakeHost(transport);
		const clock = new FakeClock();
		const hub = new AuditHub(host.client, clock, 500);
		Object.assign(host, { audits: hub });
		const dashboard = new DashboardView(new WorkspaceLeaf(host.app) as never, host.host);
		const staleView = new StaleListView(new WorkspaceLeaf(host.app) as never, host.host);
		const markers = new ExplorerMarkers(host.app as never, hub, () => true);
		await dashboard.onOpen();
		await staleView.onOpen();
		await markers.refresh();
		const audits = () => transport.paths().filter((p) => p === "GET /v1/trust/audit").length;
		// Opening three consumers: one audit.
		expect(audits()).toBe(1);

		// An approval, three renames and a deletion in a row: one more audit, seen by all.
		for (let i = 0; i < 5; i++) hub.invalidate();
		await clock.advance(499);
		expect(audits()).toBe(1);
		await clock.advance(1);
		expect(audits()).toBe(2);
		expect(dashboard.data?.audit).toEqual(audit);
		expect(staleView.data?.audit).toEqual(audit);
	});

	it("shares a request already running, and records with its own", async () => {
		const transport = sidecar();
		const hub = new AuditHub(new SidecarClient(transport, { baseUrl: "http://127.0.0.1:9", token: "x" }), new FakeClock());
		await Promise.all([hub.audit(), hub.audit(), hub.fetch()]);
		expect(transport.requests).toHaveLength(1);
		await hub.audit();
		expect(transport.requests).toHaveLength(1);
		await hub.fetch({ record: true });
		expect(transport.requests.map((r) => r.url)).toEqual(["http://127.0.0.1:9/v1/trust/audit", "http://127.0.0.1:9/v1/trust/audit?record=true"]);
	});

	it("follows edits once typing pauses: the stale list and the dashboard update after one audit", async () => {
		const transport = sidecar();
		const host = new FakeHost(transport);
		const clock = new FakeClock();
		const hub = new AuditHub(host.client, clock, 500, 2_000);
		Object.assign(host, { audits: hub });
		const dashboard = new DashboardView(new WorkspaceLeaf(host.app) as never, host.host);
		const staleView = new StaleListView(new WorkspaceLeaf(host.app) as never, host.host);
		await dashboard.onOpen();
		await staleView.onOpen();
		const audits = () => transport.paths().filter((p) => p === "GET /v1/trust/audit").length;
		const staleReads = () => transport.paths().filter((p) => p === "GET /v1/trust/stale").length;
		const [auditsBefore, staleBefore] = [audits(), staleReads()];
		// typing: an edit every 700 ms for 7 s asks nothing while it goes on
		for (let i = 0; i < 10; i++) {
			hub.edited();
			await clock.advance(700);
		}
		expect(audits()).toBe(auditsBefore);
		// then the pause: one audit, and the stale list reads its list again with it
		await clock.advance(2_000 + 500);
		expect(audits()).toBe(auditsBefore + 1);
		expect(staleReads()).toBe(staleBefore + 1);
		hub.dispose();
	});
});
