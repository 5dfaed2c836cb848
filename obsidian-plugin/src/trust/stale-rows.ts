import type { AuditReport, StaleReport, Trigger } from "../api/types";
import { WINDOWS } from "../api/types";
import { claimsText } from "./badge";

/**
 * The stale list as rows (pure): one row per note, its triggers as chips, in
 * groups the person can collapse and filter; and which rows a scrolled window
 * shows, so that a vault of 10,000 notes keeps a few dozen rows in the DOM.
 */

export type GroupKey = "stale" | "provisional" | "unrecorded" | "next_batch" | "prepare" | "watch" | "never" | "disputed" | "errors";

/** The order groups are shown in: what needs a validation first, then what only informs. */
export const GROUPS: readonly GroupKey[] = ["stale", "provisional", "unrecorded", "next_batch", "prepare", "watch", "never", "disputed", "errors"];

export interface StaleRow {
	path: string;
	group: GroupKey;
	/** The note's top folder ("" for the vault's root). */
	folder: string;
	/** The stale triggers (chips). */
	triggers: Trigger[];
	/** The window a stale note is also due in, shown as one more chip. */
	window: "next_batch" | "prepare" | "watch" | null;
	/** Level and status, the revalidation date, or a metadata error's line: filled by the view. */
	detail: {
		level?: number;
		status?: string;
		revalidateAfter?: string;
		daysLeft?: number | null;
		line?: number | null;
		message?: string;
		/** "n of m claims supported" for a note not every claim of which was supported ("" otherwise). */
		claims?: string;
	};
	/** Whether it can be put into a batch (disputed notes and metadata errors cannot). */
	selectable: boolean;
	/** The candidate reason the "new" mark is looked up by. */
	reason: string | null;
}

export interface Filter {
	/** "" for every trigger. */
	trigger: string;
	/** "" for every folder. */
	folder: string;
}

export type ListItem = { kind: "head"; group: GroupKey; count: number; collapsed: boolean } | { kind: "row"; row: StaleRow };

export function folderOf(path: string): string {
	const slash = path.indexOf("/");
	return slash < 0 ? "" : path.slice(0, slash);
}

/**
 * One row per note among the notes a batch can take (a stale note once, with
 * every trigger, even when it is also due in a window), then the disputed
 * notes and the metadata errors, which only inform.
 */
export function staleRows(stale: StaleReport, audit: AuditReport, neverValidated: readonly string[]): StaleRow[] {
	const rows: StaleRow[] = [];
	const taken = new Set<string>();
	const windowOf = new Map<string, "next_batch" | "prepare" | "watch">();
	for (const window of WINDOWS) for (const item of stale.windows[window] ?? []) if (!windowOf.has(item.path)) windowOf.set(item.path, window);
	for (const item of stale.stale) {
		if (taken.has(item.path)) continue;
		taken.add(item.path);
		rows.push({
			path: item.path,
			group: "stale",
			folder: folderOf(item.path),
			triggers: [...item.triggers],
			window: windowOf.get(item.path) ?? null,
			detail: { level: item.level, status: item.status, claims: rowClaims(item) },
			selectable: true,
			reason: "stale",
		});
	}
	recordRows(stale, rows, taken);
	for (const window of WINDOWS) {
		for (const item of stale.windows[window] ?? []) {
			if (taken.has(item.path)) continue;
			taken.add(item.path);
			rows.push({
				path: item.path,
				group: window,
				folder: folderOf(item.path),
				triggers: [],
				window: null,
				detail: { revalidateAfter: item.revalidate_after, daysLeft: item.days_left, claims: rowClaims(item) },
				selectable: true,
				reason: window,
			});
		}
	}
	for (const path of neverValidated) {
		if (taken.has(path)) continue;
		taken.add(path);
		rows.push({ path, group: "never", folder: folderOf(path), triggers: [], window: null, detail: {}, selectable: true, reason: "never_validated" });
	}
	for (const path of audit.disputed) {
		rows.push({ path, group: "disputed", folder: folderOf(path), triggers: [], window: null, detail: {}, selectable: false, reason: null });
	}
	for (const error of audit.errors) {
		rows.push({
			path: error.path,
			group: "errors",
			folder: folderOf(error.path),
			triggers: [],
			window: null,
			detail: { line: error.line ?? null, message: error.message },
			selectable: false,
			reason: null,
		});
	}
	return rows;
}

/** A stale row's "n of m" only for a reviewed note; a window row's (Fresh L2: verified or reviewed) when partial. */
function rowClaims(item: { status?: string; claims_supported?: number | null; claims_total?: number | null }): string {
	if (item.status !== undefined && item.status !== "reviewed") return "";
	return claimsText(item.claims_supported, item.claims_total);
}

/** Notes whose written level counts as L0: written by a failed run, or resting on no record. */
function recordRows(stale: StaleReport, rows: StaleRow[], taken: Set<string>): void {
	for (const item of stale.provisional ?? []) {
		if (taken.has(item.path)) continue;
		taken.add(item.path);
		const detail = { message: item.run_id };
		rows.push({ path: item.path, group: "provisional", folder: folderOf(item.path), triggers: [], window: null, detail, selectable: true, reason: "provisional" });
	}
	for (const item of stale.unrecorded ?? []) {
		if (taken.has(item.path)) continue;
		taken.add(item.path);
		const detail = { level: item.level, message: item.reason };
		rows.push({ path: item.path, group: "unrecorded", folder: folderOf(item.path), triggers: [], window: null, detail, selectable: true, reason: "unrecorded" });
	}
}

export function matches(row: StaleRow, filter: Filter): boolean {
	if (filter.folder !== "" && row.folder !== filter.folder) return false;
	if (filter.trigger !== "" && !row.triggers.includes(filter.trigger as Trigger)) return false;
	return true;
}

/** The rows the filter lets through, by group: a head per group that has any, its rows unless collapsed. */
export function listItems(rows: readonly StaleRow[], filter: Filter, collapsed: ReadonlySet<GroupKey>): ListItem[] {
	const byGroup = new Map<GroupKey, StaleRow[]>(GROUPS.map((group) => [group, []]));
	for (const row of rows) if (matches(row, filter)) byGroup.get(row.group)?.push(row);
	const items: ListItem[] = [];
	for (const group of GROUPS) {
		const members = byGroup.get(group) ?? [];
		if (members.length === 0) continue;
		const isCollapsed = collapsed.has(group);
		items.push({ kind: "head", group, count: members.length, collapsed: isCollapsed });
		if (!isCollapsed) for (const row of members) items.push({ kind: "row", row });
	}
	return items;
}

/** Counts per trigger and per folder among the rows (the filters' choices). */
export function facets(rows: readonly StaleRow[]): { triggers: Map<string, number>; folders: Map<string, number> } {
	const triggers = new Map<string, number>();
	const folders = new Map<string, number>();
	for (const row of rows) {
		for (const trigger of row.triggers) triggers.set(trigger, (triggers.get(trigger) ?? 0) + 1);
		folders.set(row.folder, (folders.get(row.folder) ?? 0) + 1);
	}
	return { triggers, folders: new Map([...folders].sort(([a], [b]) => a.localeCompare(b))) };
}

/** The items [start, end) a scroller of `viewport` pixels at `scrollTop` shows, with `overscan` items either side. */
export function visibleRange(scrollTop: number, viewport: number, itemHeight: number, total: number, overscan = 10): [number, number] {
	const first = Math.floor(Math.max(0, scrollTop) / itemHeight);
	const shown = Math.ceil(Math.max(viewport, itemHeight) / itemHeight) + 1;
	const start = Math.max(0, Math.min(total, first - overscan));
	const end = Math.min(total, first + shown + overscan);
	return [start, Math.max(start, end)];
}

/**
 * The notes the main button puts into the batch of `stage`: the selection in
 * the list's order, at most the stage's limit (the rest wait for the next plan).
 */
export function batchNotes(selection: readonly string[], limit: number): { notes: string[]; left: number } {
	const notes = selection.slice(0, Math.max(0, limit));
	return { notes, left: selection.length - notes.length };
}
