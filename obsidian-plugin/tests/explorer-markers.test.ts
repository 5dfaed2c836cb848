/** File explorer markers for disputed and stale notes: data attributes only, drawn by static rules in styles.css. */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { AuditReport, Badge } from "../src/api/types";
import {
	applyMarkers,
	clearMarkers,
	ExplorerMarkers,
	FILE_EXPLORER_VIEW,
	MARKER_ATTR,
	markersFromAudit,
} from "../src/ui/explorer-markers";
import { FakeHost, recordedTransport } from "./helpers/host";
import { recorded } from "./helpers/recorded";
import { WorkspaceLeaf } from "./mocks/obsidian";

const audit = recorded<AuditReport>("audit");
const badges = recorded<Record<string, Badge>>("badges");
const here = path.dirname(fileURLToPath(import.meta.url));

/** The file explorer's DOM as Obsidian renders a file item: .nav-file > .nav-file-title[data-path] > .nav-file-title-content. */
function explorerDom(paths: string[]): HTMLElement {
	const root = createDiv({ cls: "nav-files-container" });
	for (const p of paths) addItem(root, p);
	return root;
}

function addItem(root: HTMLElement, p: string): HTMLElement {
	const title = root.createDiv({ cls: "nav-file" }).createDiv({ cls: "nav-file-title", attr: { "data-path": p } });
	title.createDiv({ cls: "nav-file-title-content", text: p.split("/").pop() ?? p });
	return title;
}

function marked(root: HTMLElement): Record<string, string> {
	const out: Record<string, string> = {};
	for (const el of Array.from(root.querySelectorAll<HTMLElement>(`[${MARKER_ATTR}]`))) {
		out[el.getAttribute("data-path") ?? ""] = el.getAttribute(MARKER_ATTR) ?? "";
	}
	return out;
}

function withExplorer(paths: string[], enabled = { on: true }) {
	const host = new FakeHost(recordedTransport({ "GET /v1/trust/audit": "audit" }));
	const root = explorerDom(paths);
	const leaf = new WorkspaceLeaf(host.app);
	leaf.viewState = { type: FILE_EXPLORER_VIEW };
	leaf.view = { containerEl: root };
	host.app.workspace.leaves.push(leaf);
	const markers = new ExplorerMarkers(host.app as never, host.client, () => enabled.on);
	return { host, root, markers, enabled };
}

const expected: Record<string, string> = {};
for (const item of audit.stale) expected[item.path] = "stale";
for (const p of audit.disputed) expected[p] = "disputed";

describe("file explorer markers", () => {
	it("marks disputed and stale notes from the recorded audit (disputed wins)", () => {
		expect(audit.disputed.length).toBeGreaterThan(0);
		expect(audit.stale.length).toBeGreaterThan(0);
		expect(Object.fromEntries(markersFromAudit(audit))).toEqual(expected);
	});

	it("sets data-kh-trust on exactly those file items and removes it when they recover", () => {
		const root = explorerDom(Object.keys(badges));
		expect(applyMarkers(root, markersFromAudit(audit))).toBe(Object.keys(expected).length);
		expect(marked(root)).toEqual(expected);
		const [first] = audit.disputed;
		const fewer = markersFromAudit({ stale: audit.stale, disputed: audit.disputed.slice(1) });
		applyMarkers(root, fewer);
		expect(marked(root)[first]).toBe(audit.stale.some((s) => s.path === first) ? "stale" : undefined);
		clearMarkers(root);
		expect(marked(root)).toEqual({});
	});

	it("refreshes from the sidecar, follows newly rendered items and is switched off by the setting", async () => {
		const { root, markers, enabled } = withExplorer(Object.keys(badges));
		const styles = document.querySelectorAll("style, link").length;
		await markers.refresh();
		expect(marked(root)).toEqual(expected);
		// the explorer renders an item later (scrolling, a folder opened): it gets its marker too
		const late = audit.disputed[0];
		root.querySelector(`[data-path="${late}"]`)?.parentElement?.remove();
		const item = addItem(root, late);
		await new Promise((resolve) => window.setTimeout(resolve, 250));
		expect(item.getAttribute(MARKER_ATTR)).toBe("disputed");
		enabled.on = false;
		await markers.refresh();
		expect(marked(root)).toEqual({});
		expect(document.querySelectorAll("style, link").length).toBe(styles);
		markers.dispose();
	});

	it("keeps quiet when the sidecar is offline", async () => {
		const { root, markers, host } = withExplorer(Object.keys(badges));
		host.transport.handler = () => null;
		await expect(markers.refresh()).resolves.toBeUndefined();
		expect(marked(root)).toEqual({});
		expect(host.errors).toEqual([]);
		markers.dispose();
	});

	it("draws the markers with static rules in styles.css and Obsidian's colour variables", () => {
		const css = readFileSync(path.join(here, "..", "styles.css"), "utf8");
		expect(css).toContain('.nav-file-title[data-kh-trust="disputed"]');
		expect(css).toContain('.nav-file-title[data-kh-trust="stale"]');
		expect(css).toMatch(/data-kh-trust="disputed"\][^}]*var\(--color-red\)/);
	});
});
