import type { TrustBlocks } from "../api/types";

export type BlockName = keyof TrustBlocks;
export const BLOCK_NAMES: readonly BlockName[] = ["verification", "evidence"];

function scalar(value: unknown): string {
	if (value === null || value === undefined) return "null";
	if (typeof value === "string") return /^[\w./:@+-]*$/.test(value) && value.length > 0 ? value : JSON.stringify(value);
	if (typeof value === "number" || typeof value === "boolean") return String(value);
	return JSON.stringify(value);
}

function emit(value: unknown, indent: string, out: string[]): void {
	if (Array.isArray(value)) {
		for (const item of value) {
			if (item !== null && typeof item === "object" && !Array.isArray(item)) {
				const entries = Object.entries(item as Record<string, unknown>);
				entries.forEach(([key, inner], index) => {
					const lead = index === 0 ? `${indent}- ` : `${indent}  `;
					if (inner !== null && typeof inner === "object") {
						out.push(`${lead}${key}:`);
						emit(inner, `${indent}    `, out);
					} else {
						out.push(`${lead}${key}: ${scalar(inner)}`);
					}
				});
				if (entries.length === 0) out.push(`${indent}- {}`);
			} else {
				out.push(`${indent}- ${scalar(item)}`);
			}
		}
		return;
	}
	if (value !== null && typeof value === "object") {
		for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
			if (inner !== null && typeof inner === "object" && (Array.isArray(inner) ? inner.length > 0 : Object.keys(inner).length > 0)) {
				out.push(`${indent}${key}:`);
				emit(inner, `${indent}  `, out);
			} else if (Array.isArray(inner)) {
				out.push(`${indent}${key}: []`);
			} else if (inner !== null && typeof inner === "object") {
				out.push(`${indent}${key}: {}`);
			} else {
				out.push(`${indent}${key}: ${scalar(inner)}`);
			}
		}
	}
}

/**
 * A read-only, YAML-like rendering of one block for display (the sidecar
 * writes the real YAML). A missing block renders as `name: (none)`.
 */
export function blockLines(name: BlockName, value: Record<string, unknown> | null | undefined, none: string): string[] {
	if (!value) return [`${name}: ${none}`];
	const out = [`${name}:`];
	emit(value, "  ", out);
	return out;
}

export interface BlockDiffLine {
	text: string;
	/** same: in both; removed: only before; added: only after. */
	kind: "same" | "removed" | "added";
}

/** Marks which lines of `before` and `after` differ (by line content, order-preserving LCS). */
export function diffLines(before: string[], after: string[]): { before: BlockDiffLine[]; after: BlockDiffLine[] } {
	const n = before.length;
	const m = after.length;
	const table: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
	for (let i = n - 1; i >= 0; i--) {
		for (let j = m - 1; j >= 0; j--) {
			table[i][j] = before[i] === after[j] ? table[i + 1][j + 1] + 1 : Math.max(table[i + 1][j], table[i][j + 1]);
		}
	}
	const keepBefore = new Set<number>();
	const keepAfter = new Set<number>();
	let i = 0;
	let j = 0;
	while (i < n && j < m) {
		if (before[i] === after[j]) {
			keepBefore.add(i++);
			keepAfter.add(j++);
		} else if (table[i + 1][j] >= table[i][j + 1]) i++;
		else j++;
	}
	return {
		before: before.map((text, index) => ({ text, kind: keepBefore.has(index) ? "same" : "removed" })),
		after: after.map((text, index) => ({ text, kind: keepAfter.has(index) ? "same" : "added" })),
	};
}

/** Reads the two blocks out of a note's parsed properties (GET /v1/notes/{path}). */
export function blocksFromProperties(properties: Record<string, unknown> | null | undefined): TrustBlocks {
	const pick = (key: string): Record<string, unknown> | null => {
		const value = properties?.[key];
		return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
	};
	return { verification: pick("verification"), evidence: pick("evidence") };
}
