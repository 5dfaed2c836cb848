import { Modal, Notice } from "obsidian";
import type { AgentConnection } from "../api/types";
import { t } from "../i18n";
import { describeFailure } from "./errors";
import type { HarnessHost } from "./host";

/** A word for a POSIX shell: as it is when safe, else in single quotes. */
export function shellQuote(word: string): string {
	return /^[\w./:@%+=-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Where the stdio lines point: the vault's folder and the command the plugin runs. */
export interface StdioTarget {
	vaultPath: string;
	/** The "Sidecar command" setting ("kh", or a full path). */
	command: string;
	/** False when the port setting is 0: the HTTP address then changes at each start. */
	fixedPort: boolean;
}

/** The lines that let Claude Code or Codex launch `kh mcp VAULT` themselves over stdio (no port, no token). */
export function stdioLines(target: StdioTarget): { claude: string; codex: string } {
	const launch = `${shellQuote(target.command)} mcp ${shellQuote(target.vaultPath)}`;
	return { claude: `claude mcp add kh -- ${launch}`, codex: `codex mcp add kh -- ${launch}` };
}

/** Shows a secret as dots until asked. */
export function maskSecret(secret: string): string {
	return "•".repeat(Math.min(secret.length, 24));
}

/**
 * "Connect an AI agent (MCP)…": the sidecar's MCP address, the agent token
 * (hidden until shown; /mcp accepts only this token, never the plugin's own)
 * and ready-made configuration for Claude Code and Codex, each with a copy button.
 */
export class AgentConnectionModal extends Modal {
	connection: AgentConnection | null = null;
	private revealed = false;

	constructor(
		private readonly host: HarnessHost,
		private readonly target: StdioTarget | null = null,
	) {
		super(host.app);
	}

	override onOpen(): void {
		this.setTitle(t("agent.title"));
		this.modalEl.addClass("kh-modal-wide");
		this.contentEl.createEl("p", { cls: "kh-muted", text: t("common.loading") });
		void this.load();
	}

	async load(): Promise<void> {
		try {
			this.connection = await this.host.client.agentConnection();
			this.render();
		} catch (error) {
			this.contentEl.empty();
			this.contentEl.createEl("p", { cls: "kh-error", text: describeFailure(error) });
		}
	}

	render(): void {
		const connection = this.connection;
		if (!connection) return;
		const el = this.contentEl;
		el.empty();
		el.createEl("p", { text: t("agent.intro") });

		// First the way that never breaks: the agent launches `kh mcp VAULT` itself (no port, no token).
		if (this.target) {
			const lines = stdioLines(this.target);
			el.createEl("h3", { cls: "kh-agent-heading", text: t("agent.stdioTitle") });
			el.createDiv({ cls: "kh-muted", text: t("agent.stdioDesc") });
			this.block(el, t("agent.claude"), t("agent.claudeDesc"), lines.claude, "kh-agent-stdio-claude");
			this.block(el, t("agent.codex"), t("agent.claudeDesc"), lines.codex, "kh-agent-stdio-codex");
		}

		el.createEl("h3", { cls: "kh-agent-heading", text: t("agent.httpTitle") });
		if (this.target && !this.target.fixedPort) el.createDiv({ cls: "kh-warning kh-agent-port-warning", text: t("agent.portChanges") });
		this.field(el, t("agent.url"), connection.mcp_url, "kh-agent-url");

		const token = el.createDiv({ cls: "kh-agent-field kh-agent-token" });
		token.createDiv({ cls: "kh-agent-label", text: t("agent.token") });
		const row = token.createDiv({ cls: "kh-agent-row" });
		const code = row.createEl("code", { cls: "kh-agent-secret", text: this.revealed ? connection.token : maskSecret(connection.token) });
		const reveal = row.createEl("button", { text: this.revealed ? t("agent.hide") : t("agent.show") });
		reveal.addEventListener("click", () => {
			this.revealed = !this.revealed;
			code.setText(this.revealed ? connection.token : maskSecret(connection.token));
			reveal.setText(this.revealed ? t("agent.hide") : t("agent.show"));
		});
		this.copyButton(row, connection.token);
		token.createDiv({ cls: "kh-muted", text: t("agent.tokenNote") });

		this.block(el, t("agent.claude"), t("agent.claudeDesc"), connection.claude_command, "kh-agent-claude");
		this.block(el, t("agent.codex"), t("agent.codexCommandDesc"), connection.codex_command, "kh-agent-codex-command");
		this.block(
			el,
			t("agent.codex"),
			t("agent.codexDesc"),
			connection.codex_config,
			"kh-agent-codex",
		);
	}

	private field(parent: HTMLElement, label: string, value: string, cls: string): void {
		const box = parent.createDiv({ cls: `kh-agent-field ${cls}` });
		box.createDiv({ cls: "kh-agent-label", text: label });
		const row = box.createDiv({ cls: "kh-agent-row" });
		row.createEl("code", { text: value });
		this.copyButton(row, value);
	}

	private block(parent: HTMLElement, label: string, desc: string, value: string, cls: string): void {
		const box = parent.createDiv({ cls: `kh-agent-field ${cls}` });
		box.createDiv({ cls: "kh-agent-label", text: label });
		box.createDiv({ cls: "kh-muted", text: desc });
		box.createEl("pre", { cls: "kh-agent-code", text: value });
		this.copyButton(box, value);
	}

	private copyButton(parent: HTMLElement, value: string): HTMLButtonElement {
		const button = parent.createEl("button", { cls: "kh-copy", text: t("agent.copy") });
		button.addEventListener("click", () => {
			void navigator.clipboard.writeText(value).then(
				() => new Notice(t("common.copied")),
				() => undefined,
			);
		});
		return button;
	}

	override onClose(): void {
		this.contentEl.empty();
		this.connection = null;
	}
}
