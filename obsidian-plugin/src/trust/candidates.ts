import type { SidecarClient } from "../api/client";
import type { CandidateItem, CandidateList } from "../api/types";

/** The local-storage key of the candidates the person has seen (this device: the person looked here). */
export const SEEN_STORAGE_KEY = "knowledge-harness-seen-candidates";
/** At most one "new candidates" notice per this interval; candidates that appear meanwhile wait for the next. */
export const NOTICE_INTERVAL_MS = 30 * 60 * 1000;
/** The most candidate keys kept as seen (a vault's candidates; beyond this the oldest are dropped). */
export const MAX_SEEN = 20_000;

export interface SeenStore {
	load(): unknown;
	save(keys: string[]): void;
}

/** What the notice and the status bar say: the candidates the person has not seen, by reason. */
export interface UnseenSummary {
	count: number;
	byReason: Record<string, number>;
	total: number;
}

export type CandidateListener = (summary: UnseenSummary) => void;

/** A candidate is new again when its reason changes (a validated note that went stale). */
export function candidateKey(item: Pick<CandidateItem, "path" | "reason">): string {
	return `${item.reason}\u0000${item.path}`;
}

function storedKeys(raw: unknown): string[] {
	if (!Array.isArray(raw)) return [];
	return raw.filter((key): key is string => typeof key === "string").slice(-MAX_SEEN);
}

/**
 * Tells the person when the sidecar's discovery has candidates for the next
 * batch that they have not looked at: one notice at most every
 * NOTICE_INTERVAL_MS (never one per note), and a count for the status bar.
 * Opening the stale list marks everything shown as seen.
 */
export class CandidateWatcher {
	private list: CandidateList | null = null;
	private current = new Set<string>();
	private readonly seen: Set<string>;
	/** Keys already announced in this session (a later notice only for keys not announced yet). */
	private readonly announced = new Set<string>();
	private lastNoticeAt = -Infinity;
	private inFlight: Promise<CandidateList> | null = null;
	private readonly listeners = new Set<CandidateListener>();

	constructor(
		private readonly client: Pick<SidecarClient, "candidates">,
		private readonly store: SeenStore,
		private readonly notify: (summary: UnseenSummary) => void,
		private readonly now: () => number = () => Date.now(),
		private readonly intervalMs = NOTICE_INTERVAL_MS,
	) {
		this.seen = new Set(storedKeys(store.load()));
	}

	/** The last list received, if any. */
	latest(): CandidateList | null {
		return this.list;
	}

	/** True when the last list has this note for this reason. */
	isCandidate(item: Pick<CandidateItem, "path" | "reason">): boolean {
		return this.current.has(candidateKey(item));
	}

	isNew(item: Pick<CandidateItem, "path" | "reason">): boolean {
		return !this.seen.has(candidateKey(item));
	}

	unseen(): CandidateItem[] {
		return (this.list?.candidates ?? []).filter((item) => this.isNew(item));
	}

	summary(): UnseenSummary {
		const unseen = this.unseen();
		const byReason: Record<string, number> = {};
		for (const item of unseen) byReason[item.reason] = (byReason[item.reason] ?? 0) + 1;
		return { count: unseen.length, byReason, total: this.list?.candidates.length ?? 0 };
	}

	/** Asks the sidecar (sharing a request already running), then announces what is new, throttled. */
	check(): Promise<CandidateList> {
		if (this.inFlight) return this.inFlight;
		const request = this.client.candidates().then(
			(list) => {
				this.inFlight = null;
				this.receive(list);
				return list;
			},
			(error: unknown) => {
				this.inFlight = null;
				throw error;
			},
		);
		this.inFlight = request;
		return request;
	}

	/** The person looked at the candidates (the stale list): none of them is new any more. */
	markSeen(): void {
		const keys = (this.list?.candidates ?? []).map(candidateKey);
		const before = this.seen.size;
		for (const key of keys) this.seen.add(key);
		if (this.seen.size !== before) this.save();
		this.emit();
	}

	subscribe(listener: CandidateListener): () => void {
		this.listeners.add(listener);
		return () => {
			this.listeners.delete(listener);
		};
	}

	dispose(): void {
		this.listeners.clear();
	}

	private receive(list: CandidateList): void {
		this.list = list;
		// Forget what is no longer a candidate: if it comes back, it is new again.
		const current = new Set(list.candidates.map(candidateKey));
		this.current = current;
		let pruned = false;
		for (const key of Array.from(this.seen)) {
			if (!current.has(key)) {
				this.seen.delete(key);
				pruned = true;
			}
		}
		if (pruned) this.save();
		const fresh = this.unseen().map(candidateKey).filter((key) => !this.announced.has(key));
		const summary = this.summary();
		if (fresh.length > 0 && this.now() - this.lastNoticeAt >= this.intervalMs) {
			this.lastNoticeAt = this.now();
			for (const key of fresh) this.announced.add(key);
			this.notify(summary);
		}
		this.emit(summary);
	}

	private save(): void {
		this.store.save(Array.from(this.seen).slice(-MAX_SEEN));
	}

	private emit(summary: UnseenSummary = this.summary()): void {
		for (const listener of Array.from(this.listeners)) listener(summary);
	}
}
