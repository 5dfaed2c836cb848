import { SuggestModal } from "obsidian";
import type { IndexSearchHit } from "../api/types";
import { t } from "../i18n";
import { statusLabel } from "../trust/badge";
import { describeFailure } from "./errors";
import type { HarnessHost } from "./host";

export interface IndexSuggestion {
	hit: IndexSearchHit;
	/** A matched heading's title, or null for the note itself. */
	heading: string | null;
}

/** How many pages of headings (1,000 each) a jump reads at most before opening the note at its top. */
const MAX_HEADING_PAGES = 20;

interface HeadingNode {
	title?: string;
	line?: number;
	children?: HeadingNode[];
}

/** The 1-based line of the first heading titled `title` in a heading tree. */
export function findHeadingLine(headings: HeadingNode[], title: string): number | null {
	for (const node of headings) {
		if (node.title === title && typeof node.line === "number") return node.line;
		const inner = findHeadingLine(node.children ?? [], title);
		if (inner !== null) return inner;
	}
	return null;
}

/** Waits `ms`; injectable so that tests control the debounce. */
export type Sleep = (ms: number) => Promise<void>;

const windowSleep: Sleep = (ms) =>
	new Promise((resolve) => {
		window.setTimeout(resolve, ms);
	});

/** How long typing must pause before the index is searched. */
export const SEARCH_DEBOUNCE_MS = 250;

/**
 * Search over the reasoning index's manifest; choosing a heading opens the note
 * at its line. Typing is debounced (one request per pause, not per keystroke);
 * a failure is shown in the list itself, once, never as a notice per keystroke.
 */
export class IndexSearchModal extends SuggestModal<IndexSuggestion> {
	stale = false;
	/** The vault has no index yet: the hits come from the sidecar's plain text scan, said on each hit. */
	plain = false;
	/** The error shown in the list, if the last search failed. */
	error: string | null = null;
	private seq = 0;
	private last: IndexSuggestion[] = [];

	constructor(
		private readonly host: HarnessHost,
		private readonly sleep: Sleep = windowSleep,
		private readonly debounceMs = SEARCH_DEBOUNCE_MS,
	) {
		super(host.app);
		this.setPlaceholder(t("search.placeholder"));
		this.emptyStateText = t("search.empty");
	}

	override async getSuggestions(query: string): Promise<IndexSuggestion[]> {
		const seq = ++this.seq;
		if (query.trim().length === 0) return [];
		await this.sleep(this.debounceMs);
		// A newer keystroke came: keep what is shown, its own search follows.
		if (seq !== this.seq) return this.last;
		try {
			const result = await this.host.client.searchIndex(query, 20);
			if (seq !== this.seq) return this.last;
			this.stale = result.stale;
			this.plain = result.fallback === "plain";
			this.showError(null);
			this.last = result.hits.flatMap<IndexSuggestion>((hit) =>
				hit.matched_headings.length > 0
					? hit.matched_headings.map((heading) => ({ hit, heading }))
					: [{ hit, heading: null }],
			);
			return this.last;
		} catch (error) {
			this.showError(describeFailure(error));
			this.last = [];
			return [];
		}
	}

	private showError(message: string | null): void {
		this.error = message;
		this.emptyStateText = message ? t("search.failed", { message }) : t(this.plain ? "search.emptyPlain" : "search.empty");
	}

	override renderSuggestion(suggestion: IndexSuggestion, el: HTMLElement): void {
		el.addClass("kh-suggestion");
		el.createDiv({ text: suggestion.heading ? `${suggestion.hit.title} › ${suggestion.heading}` : suggestion.hit.title });
		const meta = [suggestion.hit.path];
		if (suggestion.hit.trust?.level !== null && suggestion.hit.trust?.level !== undefined) {
			meta.push(`L${suggestion.hit.trust.level} ${suggestion.hit.trust.status ? statusLabel(suggestion.hit.trust.status) : ""}`.trim());
		}
		if (this.plain) meta.push(t("search.plain"));
		else if (this.stale || suggestion.hit.note_changed) meta.push(t("search.stale"));
		el.createDiv({ cls: "kh-muted", text: meta.join(" · ") });
	}

	override onChooseSuggestion(suggestion: IndexSuggestion): void {
		void this.jump(suggestion);
	}

	async jump(suggestion: IndexSuggestion): Promise<number | undefined> {
		let line: number | undefined;
		if (suggestion.heading) {
			try {
				// heading trees come in pages (a note may hold thousands of headings): read on until found
				let offset: number | null | undefined = 0;
				for (let page = 0; page < MAX_HEADING_PAGES && line === undefined && typeof offset === "number"; page++) {
					const tree = await this.host.client.headings(suggestion.hit.path, offset);
					line = findHeadingLine(tree.headings, suggestion.heading) ?? undefined;
					offset = tree.next_offset;
				}
			} catch (error) {
				this.host.reportError(error);
			}
		}
		await this.host.openNote(suggestion.hit.path, line);
		return line;
	}
}
