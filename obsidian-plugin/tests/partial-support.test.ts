import { afterEach, describe, expect, it } from "vitest";
import type { AuditReport, Badge, StaleReport } from "../src/api/types";
import { applyLanguage } from "../src/i18n";
import { badgeClaims, badgeModel, claimsText } from "../src/trust/badge";
import { staleRows } from "../src/trust/stale-rows";
import { recorded } from "./helpers/recorded";

/** Recorded from the real sidecar: a reviewed note after a plan that counted its claims (3 of 4 supported). */
const partial = recorded<Badge>("badge-partial");
const stalePartial = recorded<StaleReport>("stale-partial");
const audit = recorded<AuditReport>("audit");
const badges = recorded<Record<string, Badge>>("badges");

describe("partial support: n of m claims", () => {
	afterEach(() => applyLanguage("en"));

	it("the hover of a reviewed note says how many of its claims were supported (en and ja)", () => {
		expect([partial.status, partial.claims_supported, partial.claims_total]).toEqual(["reviewed", 3, 4]);
		expect(badgeModel(partial).tooltip.split("\n")).toContain("3 of 4 claims supported");
		applyLanguage("ja");
		expect(badgeModel(partial).tooltip.split("\n")).toContain("主張 4 件中 3 件を確認");
	});

	it("a note validated before the counts were written shows no n of m", () => {
		const old = Object.values(badges).find((b) => b.status === "reviewed");
		expect(old).toBeDefined();
		expect(old?.claims_total ?? null).toBeNull();
		expect(badgeClaims(old as Badge)).toBe("");
		expect(badgeModel(old as Badge).tooltip).not.toContain("claims supported");
	});

	it("says nothing when every claim was supported, and only for reviewed notes", () => {
		expect(claimsText(4, 4)).toBe("");
		expect(claimsText(1, 5)).toBe("1 of 5 claims supported");
		expect(badgeClaims({ ...partial, status: "disputed" })).toBe("");
	});

	it("the stale list row of that note carries its n of m", () => {
		const row = staleRows(stalePartial, audit, []).find((r) => r.path === partial.path);
		expect(row?.group).toBe("stale");
		expect(row?.detail.claims).toBe("3 of 4 claims supported");
		const others = staleRows(stalePartial, audit, []).filter((r) => r.path !== partial.path);
		expect(others.every((r) => !r.detail.claims)).toBe(true);
	});
});
