/**
 * "Connect an AI agent (MCP)…" against a mock of the person-only endpoint
 * GET /v1/agent-connection: {token, mcp_url, claude_command, codex_config}.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { applyLanguage } from "../src/i18n";
import { AgentConnectionModal, maskSecret, type StdioTarget } from "../src/ui/agent-modal";
import { flush, json } from "./helpers/fakes";
import { FakeHost, recordedTransport } from "./helpers/host";
import { Notice } from "./mocks/obsidian";

const connection = {
	token: "agent-token-0123456789abcdef0123456789abcdef",
	mcp_url: "http://127.0.0.1:8765/mcp",
	claude_command: 'claude mcp add --transport http knowledge-harness http://127.0.0.1:8765/mcp --header "Authorization: Bearer agent-token-0123456789abcdef0123456789abcdef"',
	codex_command:
		"export KH_AGENT_TOKEN=agent-token-0123456789abcdef0123456789abcdef\ncodex mcp add knowledge-harness --url http://127.0.0.1:8765/mcp --bearer-token-env-var KH_AGENT_TOKEN",
	codex_config: '[mcp_servers.knowledge-harness]\nurl = "http://127.0.0.1:8765/mcp"\nbearer_token_env_var = "KH_AGENT_TOKEN"\n',
};

function openModal(answer = () => json(200, connection), target: StdioTarget | null = null) {
	const host = new FakeHost(recordedTransport({ "GET /v1/agent-connection": answer }));
	const modal = new AgentConnectionModal(host.host, target);
	modal.open();
	return { host, modal };
}

afterEach(() => {
	applyLanguage("en");
	Notice.shown.length = 0;
	vi.unstubAllGlobals();
});

describe("connect an AI agent", () => {
	it("asks the sidecar with the person's token and shows the address and both configurations", async () => {
		const { host, modal } = openModal();
		await flush();
		const request = host.transport.requests[0];
		expect(`${request.method} ${new URL(request.url).pathname}`).toBe("GET /v1/agent-connection");
		expect(request.headers.Authorization).toBe(`Bearer ${"t".repeat(64)}`);
		const el = modal.contentEl;
		expect(el.querySelector(".kh-agent-url code")?.textContent).toBe(connection.mcp_url);
		expect(el.querySelector(".kh-agent-claude pre")?.textContent).toBe(connection.claude_command);
		expect(el.querySelector(".kh-agent-codex pre")?.textContent).toBe(connection.codex_config);
		// Codex over HTTP: the export line first, complete
		const codex = el.querySelector(".kh-agent-codex-command pre")?.textContent ?? "";
		expect(codex.split("\n")[0]).toBe(`export KH_AGENT_TOKEN=${connection.token}`);
		expect(codex).toContain("--bearer-token-env-var KH_AGENT_TOKEN");
	});

	it("leads with kh mcp VAULT over stdio, quoted for the shell, each line with a copy button", async () => {
		const written: string[] = [];
		vi.stubGlobal("navigator", { clipboard: { writeText: (text: string) => (written.push(text), Promise.resolve()) } });
		const { modal } = openModal(undefined, { vaultPath: "/home/me/My Vault's notes", command: "/home/me/.local/bin/kh", fixedPort: true });
		await flush();
		const el = modal.contentEl;
		const headings = Array.from(el.querySelectorAll("h3")).map((h) => h.textContent);
		expect(headings[0]).toContain("stdio");
		const claude = el.querySelector(".kh-agent-stdio-claude pre")?.textContent;
		expect(claude).toBe("claude mcp add kh -- /home/me/.local/bin/kh mcp '/home/me/My Vault'\\''s notes'");
		expect(el.querySelector(".kh-agent-stdio-codex pre")?.textContent).toBe("codex mcp add kh -- /home/me/.local/bin/kh mcp '/home/me/My Vault'\\''s notes'");
		el.querySelector<HTMLButtonElement>(".kh-agent-stdio-claude .kh-copy")!.click();
		await flush();
		expect(written).toEqual([claude]);
		expect(el.querySelector(".kh-agent-port-warning")).toBeNull();
	});

	it("warns that the HTTP address changes when the port setting is 0", async () => {
		const { modal } = openModal(undefined, { vaultPath: "/v", command: "kh", fixedPort: false });
		await flush();
		expect(modal.contentEl.querySelector(".kh-agent-port-warning")?.textContent).toContain("changes at every start");
	});


	it("hides the agent token until asked, and copies it on request", async () => {
		const written: string[] = [];
		vi.stubGlobal("navigator", { clipboard: { writeText: (text: string) => (written.push(text), Promise.resolve()) } });
		const { modal } = openModal();
		await flush();
		const secret = modal.contentEl.querySelector(".kh-agent-secret")!;
		expect(secret.textContent).toBe(maskSecret(connection.token));
		expect(secret.textContent).not.toContain(connection.token.slice(0, 8));
		const [reveal, copy] = Array.from(modal.contentEl.querySelectorAll<HTMLButtonElement>(".kh-agent-token button"));
		reveal.click();
		expect(secret.textContent).toBe(connection.token);
		reveal.click();
		expect(secret.textContent).toBe(maskSecret(connection.token));
		copy.click();
		await flush();
		expect(written).toEqual([connection.token]);
		expect(Notice.shown).toContain("Copied to the clipboard.");
	});

	it("says so when the sidecar does not offer the endpoint yet", async () => {
		const { modal } = openModal(() => json(404, { error: { code: "not_found", message: "No route /v1/agent-connection.", detail: null } }));
		await flush();
		expect(modal.contentEl.querySelector(".kh-error")?.textContent).toBe("This sidecar does not offer that yet. Update Knowledge Harness.");
	});

	it("speaks Japanese when Obsidian does", async () => {
		applyLanguage("ja");
		const { modal } = openModal();
		await flush();
		expect(modal.titleEl.textContent).toBe("AI エージェントを接続（MCP）");
		expect(modal.contentEl.querySelector(".kh-agent-token .kh-agent-label")?.textContent).toBe("エージェント用トークン");
	});
});
