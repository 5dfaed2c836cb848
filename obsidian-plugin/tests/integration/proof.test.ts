/**
 * The proof a person sees, from the REAL sidecar: a note validated against a
 * page served on loopback, planned as a canary and approved with the typed
 * digest; its badge then carries each claim with its quote and source, and the
 * plugin draws them in the badge's hover, its details and the stale list's
 * proof window (ja and en). Fails, never skips, when `kh` is missing.
 *
 * The same `kh` runs with a throwaway HOME (and Windows' profile folders) over
 * the environment every test gets (tests/global-setup.ts): everything it
 * writes outside the vault lands in the tests' config home, and the throwaway
 * HOME stays empty. A file there is one the suite would have put in yours.
 *
 * And long work with a Cancel: a plan whose first source page the test holds
 * back shows its step, and stops (storing nothing) when the plugin stops
 * waiting for it or the person presses Cancel; an index build that waits for
 * another writer of the vault (a process holding the vault's lock, as a `kh`
 * CLI run would) shows that phase and stops the same ways, leaving the last
 * index as it was.
 */
import { spawn } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { SidecarClient, SidecarTimeoutError } from "../../src/api/client";
import type { Badge } from "../../src/api/types";
import { applyLanguage, t } from "../../src/i18n";
import { createNodeHttpTransport, nodeSupervisorDeps } from "../../src/sidecar/node-runtime";
import { SidecarSupervisor } from "../../src/sidecar/supervisor";
import { badgeModel } from "../../src/trust/badge";
import { expectedChallenge } from "../../src/trust/challenge";
import { renderDetails } from "../../src/ui/details-modal";
import { rebuildIndex } from "../../src/ui/index-build";
import { IndexSearchModal } from "../../src/ui/index-search";
import { JobProgressNotice } from "../../src/ui/job-progress";
import { ProofModal } from "../../src/ui/proof-modal";
import { ValidateModal } from "../../src/ui/validate-modal";
import { StaleListView } from "../../src/ui/stale-view";
import { FakeTransport } from "../helpers/fakes";
import { FakeHost } from "../helpers/host";
import { Notice, WorkspaceLeaf } from "../mocks/obsidian";

const here = path.dirname(fileURLToPath(import.meta.url));
const khBin = process.env.KH_BIN || path.join(here, "..", "..", "..", ".venv", "bin", "kh");
const NOTE = "調査/鮮度.md";
const SENTENCES = ["標準設定の有効期限（TTL）は90日間です。", "期限を過ぎたノートは再検証の候補として一覧に表示されます。"];
const SLOW = ["調査/遅い一.md", "調査/遅い二.md", "調査/遅い三.md"];
const PAGE = `<!doctype html><html lang="ja"><head><meta charset="utf-8"><title>鮮度</title></head><body><h1>鮮度管理</h1>${SENTENCES.map((s) => `<p>${s}</p>`).join("")}</body></html>`;

/** Another writer of the vault: a process holding `.harness/lock` (the sidecar's flock) until released. */
async function holdVaultLock(vault: string): Promise<() => Promise<void>> {
	const script = "import fcntl, sys\nf = open(sys.argv[1], 'a')\nfcntl.flock(f, fcntl.LOCK_EX)\nprint('held', flush=True)\nsys.stdin.read()\n";
	const child = spawn(process.env.KH_TEST_PYTHON ?? "python3", ["-c", script, path.join(vault, ".harness", "lock")], { stdio: ["pipe", "pipe", "inherit"] });
	await new Promise((resolve, reject) => {
		child.stdout.once("data", resolve);
		child.once("error", reject);
	});
	const exited = new Promise((resolve) => child.once("exit", resolve));
	return async () => {
		child.stdin.end();
		await exited;
	};
}

function filesUnder(root: string): string[] {
	return readdirSync(root, { recursive: true, withFileTypes: true })
		.filter((entry) => !entry.isDirectory())
		.map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)));
}

describe("the proof behind a badge, from a real sidecar", () => {
	const root = mkdtempSync(path.join(tmpdir(), "kh-plugin-proof-"));
	const vault = path.join(root, "vault");
	const home = path.join(root, "home");
	const suiteEnv = { XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME, KH_CONFIG: process.env.KH_CONFIG, KH_SEARCH_CACHE: process.env.KH_SEARCH_CACHE };
	let site: Server;
	let url = "";
	let supervisor: SidecarSupervisor | null = null;
	let client: SidecarClient;
	let badge: Badge;
	/** Answers to the slow pages the test holds back until it releases them. */
	let held: (() => void)[] = [];
	const release = () => {
		for (const answer of held) answer();
		held = [];
	};
	const plans = () => (existsSync(path.join(vault, ".harness", "plans")) ? readdirSync(path.join(vault, ".harness", "plans")).filter((f) => f.endsWith(".json")) : []);

	/** The plugin's views as a test host, talking to the real sidecar. */
	function realHost(): FakeHost {
		const real = createNodeHttpTransport();
		const endpoint = supervisor!.endpoint!;
		return new FakeHost(
			new FakeTransport((request) => {
				const target = new URL(request.url);
				return real.request({ ...request, url: `${endpoint.baseUrl}${target.pathname}${target.search}`, headers: { ...request.headers, Authorization: `Bearer ${endpoint.token}` } });
			}),
		);
	}

	beforeAll(async () => {
		expect(existsSync(khBin), `sidecar binary not found at ${khBin}`).toBe(true);
		site = createServer((request, response) => {
			const answer = () => {
				response.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
				response.end(PAGE);
			};
			if (request.url?.startsWith("/slow")) held.push(answer);
			else answer();
		});
		await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
		const port = (site.address() as AddressInfo).port;
		url = `http://127.0.0.1:${String(port)}/freshness.html`;
		mkdirSync(path.join(vault, "調査"), { recursive: true });
		mkdirSync(home);
		const body = `# 鮮度\n\n${SENTENCES.join("\n\n")}\n\n## 参考資料\n\n- ${url}\n`;
		writeFileSync(path.join(vault, NOTE), `---\nprovenance:\n  origin: ai_generated\n  generator: claude\nreferences:\n  - ${url}\n---\n${body}`);
		SLOW.forEach((note, i) => {
			const slow = url.replace("freshness.html", `slow-${String(i)}.html`);
			writeFileSync(path.join(vault, note), `---\nprovenance:\n  origin: ai_generated\nreferences:\n  - ${slow}\n---\n# 遅い\n\n${SENTENCES[0]}\n`);
		});
		// a loopback page is reachable only by the machine's allowance, never by a vault file
		const machine = path.join(root, "machine.toml");
		writeFileSync(machine, `[evidence]\nallow_private_hosts = ["127.0.0.1:${String(port)}"]\n`);
		process.env.KH_CONFIG = machine;
		const profile = { HOME: home, USERPROFILE: home, APPDATA: path.join(home, "AppData", "Roaming"), LOCALAPPDATA: path.join(home, "AppData", "Local") };
		const deps = nodeSupervisorDeps({ env: () => ({ ...process.env, ...profile }) });
		supervisor = new SidecarSupervisor({ command: khBin, args: [], vaultPath: vault, port: 0 }, deps, {
			listeningTimeoutMs: 20_000,
			healthTimeoutMs: 10_000,
			healthIntervalMs: 100,
		});
		await supervisor.start();
		expect(supervisor.snapshot().state, supervisor.recentOutput().join("\n")).toBe("ready");
		client = new SidecarClient(createNodeHttpTransport(), supervisor.endpoint!);
		const plan = await client.planBatch({ stage: "canary", notes: [NOTE] });
		const record = await client.approveBatch(plan.plan_id, expectedChallenge(plan.digest));
		expect(record.run_status).toBe("SUCCEEDED");
		badge = await client.badge(NOTE);
	}, 60_000);

	afterEach(() => applyLanguage("en"));

	afterAll(async () => {
		release();
		await supervisor?.stop();
		await new Promise((resolve) => site.close(resolve));
		rmSync(root, { recursive: true, force: true });
	});

	it("carries each claim with the page's own words and the page's address", () => {
		const supported = (badge.quotes ?? []).filter((q) => q.verdict === "supported");
		expect(supported.map((q) => q.claim)).toEqual(SENTENCES);
		for (const q of supported) {
			expect(PAGE).toContain(q.quote);
			expect(q.source_url).toBe(url);
		}
	});

	it("shows claim, quote and source in the badge's hover, in English and Japanese", () => {
		const english = badgeModel(badge).tooltip;
		expect(english).toContain("Claims: 2 of 2 supported");
		expect(english).toContain(`✓ ${SENTENCES[0]}\n  “${SENTENCES[0]}”\n  ${url}`);
		applyLanguage("ja");
		const japanese = badgeModel(badge).tooltip;
		expect(japanese).toContain("主張: 2 件中 2 件が裏付けあり");
		expect(japanese).toContain(`  ${url}`);
	});

	it("shows them in the badge's details with a link to the source", () => {
		const el = createDiv();
		renderDetails(el, badge, null);
		const claims = el.querySelectorAll(".kh-badge-proof .kh-claim");
		expect(claims).toHaveLength(2);
		expect(claims[0].querySelector(".kh-claim-text")!.textContent.trim()).toBe(SENTENCES[0]);
		expect(claims[0].querySelector("blockquote")!.textContent).toBe(SENTENCES[0]);
		expect(claims[0].querySelector<HTMLAnchorElement>("a.kh-quote-link")!.href).toBe(url);
	});

	it("opens a stale row's proof on demand, read from the sidecar", async () => {
		// an edit makes the note stale: it is in the list, and its proof is one click away
		appendFileSync(path.join(vault, NOTE), "\n追記。\n");
		const host = realHost();
		const view = new StaleListView(new WorkspaceLeaf(host.app) as never, host.host);
		await view.onOpen();
		const open = vi.spyOn(ProofModal.prototype, "open");
		view.contentEl.querySelector<HTMLElement>(".kh-row-stale .kh-proof-open")!.click();
		expect(open).toHaveBeenCalledTimes(1);
		open.mockRestore();
		applyLanguage("ja");
		const modal = new ProofModal(host.host, NOTE);
		modal.open();
		await vi.waitFor(() => expect(modal.contentEl.querySelectorAll(".kh-claim")).toHaveLength(2));
		expect(modal.contentEl.querySelector(".kh-pill")!.textContent).toContain("裏付けあり");
		expect(modal.contentEl.querySelector<HTMLAnchorElement>("a.kh-quote-link")!.href).toBe(url);
	});

	it("keeps what it writes outside the vault in the tests' config home; the home folder stays empty", async () => {
		const configHome = process.env.KH_TEST_CONFIG_HOME ?? "";
		expect(configHome.startsWith(tmpdir())).toBe(true);
		for (const [name, value] of Object.entries(suiteEnv)) expect(value?.startsWith(configHome), name).toBe(true);
		await client.searchIndex("鮮度").catch(() => null); // the search layer, when the index is there
		expect(readdirSync(path.join(configHome, "knowledge-harness", "agent-tokens")).length).toBeGreaterThan(0);
		expect(filesUnder(home)).toEqual([]);
	});

	it("cancels a plan it stopped waiting for: the sidecar stops before the next note and stores nothing", async () => {
		const before = plans();
		const impatient = new SidecarClient(createNodeHttpTransport(), supervisor!.endpoint!, { timeouts: { quick: 5_000, audit: 5_000, long: 300 } });
		const job = "plugin-timeout-0001";
		const error = await impatient.planBatch({ stage: "pilot", notes: [SLOW[0], NOTE] }, job).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(SidecarTimeoutError);
		await vi.waitFor(async () => expect((await client.jobProgress(job)).cancel_requested).toBe(true));
		expect(await client.jobProgress(job)).toMatchObject({ state: "running", done: 0, total: 2, step: SLOW[0] });
		release(); // the held page answers: the plan reaches its next note and stops there
		await vi.waitFor(async () => expect((await client.jobProgress(job)).state).toBe("cancelled"), { timeout: 5_000 });
		expect(plans()).toEqual(before);
	});

	it("shows the plan's step and count, and its Cancel button stops it (ja)", async () => {
		applyLanguage("ja");
		const before = plans();
		const running = JobProgressNotice.run(client, "計画中", (job) => client.planBatch({ stage: "pilot", notes: [SLOW[1], NOTE] }, job), () => "done");
		const notice = Notice.instances.at(-1)!;
		const line = () => notice.noticeEl.querySelector(".kh-job-line")!.textContent;
		const job = notice.noticeEl.querySelector<HTMLElement>(".kh-job-label")!.dataset.job!;
		await vi.waitFor(() => expect(held.length).toBe(1)); // the sidecar is fetching the held page
		// the notice reads the job every second
		await vi.waitFor(() => expect(line()).toMatch(/^2 件中 1 件目: 調査\/遅い二\.md · \d+ 秒$/), { timeout: 3_000 });
		notice.noticeEl.querySelector<HTMLButtonElement>(".kh-job-cancel")!.click();
		expect(line()).toContain("キャンセルしています");
		await vi.waitFor(async () => expect((await client.jobProgress(job)).cancel_requested).toBe(true));
		release();
		expect(await running).toBeNull();
		expect(line()).toBe("キャンセルしました。何も保存していません。");
		expect(notice.noticeEl.querySelector(".kh-job-cancel")).toBeNull();
		expect(plans()).toEqual(before);
	});

	it("shows a validation's step, and closing its window stops the sidecar's work", async () => {
		const host = realHost();
		const modal = new ValidateModal(host.host, SLOW[2]);
		modal.open();
		const job = modal.job!;
		await vi.waitFor(() => expect(held.length).toBe(1)); // fetching the held page
		await vi.waitFor(() => expect(modal.contentEl.querySelector(".kh-job-line")!.textContent).toMatch(/^1 of 2: Fetching the cited pages · \d+ s$/), { timeout: 3_000 });
		const polls = vi.spyOn(host.host.client, "jobProgress");
		modal.close();
		await vi.waitFor(async () => expect((await client.jobProgress(job)).cancel_requested).toBe(true));
		await new Promise((resolve) => window.setTimeout(resolve, 1_200)); // past one poll of the watcher
		expect(polls).not.toHaveBeenCalled(); // the closed window stopped reading the job
		release(); // the page answers; the validation stops before judging
		await vi.waitFor(async () => expect((await client.jobProgress(job)).state).toBe("cancelled"), { timeout: 5_000 });
	});

	it("says when the search's hits come from a plain text scan: the vault has no index yet", async () => {
		expect(existsSync(path.join(vault, ".harness", "index", "manifest.json"))).toBe(false);
		const modal = new IndexSearchModal(realHost().host, () => Promise.resolve());
		const suggestions = await modal.getSuggestions("鮮度");
		expect(suggestions.map((s) => s.hit.path)).toContain(NOTE);
		const el = createDiv();
		modal.renderSuggestion(suggestions[0], el);
		expect(el.textContent).toContain("Plain text search: no index yet");
		expect(await modal.getSuggestions("存在しない語句")).toEqual([]);
		expect(modal.emptyStateText).toBe(t("search.emptyPlain"));
	});

	const indexFiles = () => {
		const root = path.join(vault, ".harness", "index");
		return Object.fromEntries(filesUnder(root).map((rel) => [rel, readFileSync(path.join(root, rel)).toString("base64")]));
	};

	it("rebuilds the index with its phase and a Cancel; a cancelled build leaves the last index as it was (ja)", async () => {
		const built = await rebuildIndex(client);
		expect(built?.notes).toBe(4);
		expect(Notice.instances.at(-1)!.noticeEl.querySelector(".kh-job-line")!.textContent).toMatch(/^Index built: 4 notes/);
		const before = indexFiles();
		writeFileSync(path.join(vault, "調査", "追加.md"), "# 追加\n\n新しいノート。\n");
		applyLanguage("ja");
		const release = await holdVaultLock(vault);
		try {
			const running = rebuildIndex(client);
			const notice = Notice.instances.at(-1)!;
			const line = () => notice.noticeEl.querySelector(".kh-job-line")!.textContent;
			const job = notice.noticeEl.querySelector<HTMLElement>(".kh-job-label")!.dataset.job!;
			await vi.waitFor(() => expect(line()).toMatch(/^別のプログラムが保管庫に書き込み中のため待機中 · \d+ 秒$/), { timeout: 3_000 });
			notice.noticeEl.querySelector<HTMLButtonElement>(".kh-job-cancel")!.click();
			await vi.waitFor(async () => expect((await client.jobProgress(job)).cancel_requested).toBe(true));
			// the cancel acts during the wait, while the other writer still holds the vault's lock
			expect(await running).toBeNull();
			expect(line()).toBe("キャンセルしました。何も保存していません。");
			expect(await client.jobProgress(job)).toMatchObject({ state: "cancelled", step: "wait" });
		} finally {
			await release();
		}
		expect(indexFiles()).toEqual(before);
		expect((await client.checkIndex()).fresh).toBe(false); // the last index, behind the vault by one note
	});

	it("cancels an index build it stopped waiting for, and the next build brings the index in step", async () => {
		const before = indexFiles();
		const release = await holdVaultLock(vault);
		const job = "plugin-index-timeout-01";
		try {
			const impatient = new SidecarClient(createNodeHttpTransport(), supervisor!.endpoint!, { timeouts: { quick: 5_000, audit: 5_000, long: 300 } });
			expect(await impatient.buildIndex(false, job).catch((e: unknown) => e)).toBeInstanceOf(SidecarTimeoutError);
			await vi.waitFor(async () => expect((await client.jobProgress(job)).cancel_requested).toBe(true));
			// the cancel acts during the wait: the other writer still holds the vault's lock
			await vi.waitFor(async () => expect(await client.jobProgress(job)).toMatchObject({ state: "cancelled", step: "wait" }), { timeout: 5_000 });
		} finally {
			await release();
		}
		expect(indexFiles()).toEqual(before);
		expect((await rebuildIndex(client))?.notes).toBe(5);
		expect((await client.checkIndex()).fresh).toBe(true);
	});
});
