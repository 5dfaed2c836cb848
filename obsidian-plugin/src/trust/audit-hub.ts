import type { SidecarClient } from "../api/client";
import type { AuditReport } from "../api/types";

export interface HubTimers {
	setTimeout(callback: () => void, ms: number): unknown;
	clearTimeout(handle: unknown): void;
}

const windowTimers: HubTimers = {
	setTimeout: (callback, ms) => window.setTimeout(callback, ms),
	clearTimeout: (handle) => window.clearTimeout(handle as number),
};

/** How long after the last edit the shared audit is asked again. */
export const EDIT_SETTLE_MS = 2_000;

export type AuditListener = (report: AuditReport) => void;

/**
 * One audit shared by everything that shows it (dashboard, stale list, file
 * explorer markers). A burst of changes — an approval, renames, the sidecar
 * coming back — invalidates it any number of times and costs one audit;
 * callers asking while one runs share it.
 */
export class AuditHub {
	private report: AuditReport | null = null;
	private fresh = false;
	private inFlight: Promise<AuditReport> | null = null;
	private timer: unknown = null;
	private editTimer: unknown = null;
	private readonly listeners = new Set<AuditListener>();

	constructor(
		private readonly client: Pick<SidecarClient, "audit">,
		private readonly timers: HubTimers = windowTimers,
		private readonly debounceMs = 500,
		/** Quiet time after the last edit before the views follow it (typing is one burst). */
		private readonly editSettleMs = EDIT_SETTLE_MS,
	) {}

	/** The last report received, if any. */
	latest(): AuditReport | null {
		return this.report;
	}

	/** The current audit: the last report while nothing invalidated it, else one (shared) request. */
	audit(): Promise<AuditReport> {
		if (this.report && this.fresh) return Promise.resolve(this.report);
		return this.fetch();
	}

	/** Asks the sidecar now (sharing a request already running); `record` always sends its own. */
	fetch(options: { record?: boolean } = {}): Promise<AuditReport> {
		if (this.inFlight && !options.record) return this.inFlight;
		const request = this.client.audit(options).then(
			(report) => {
				if (this.inFlight === request) this.inFlight = null;
				this.report = report;
				this.fresh = true;
				for (const listener of Array.from(this.listeners)) listener(report);
				return report;
			},
			(error: unknown) => {
				if (this.inFlight === request) this.inFlight = null;
				throw error;
			},
		);
		if (!options.record) this.inFlight = request;
		return request;
	}

	/** Something changed: one audit after the burst settles, handed to every subscriber. */
	invalidate(): void {
		this.fresh = false;
		if (this.timer !== null) this.timers.clearTimeout(this.timer);
		this.timer = this.timers.setTimeout(() => {
			this.timer = null;
			if (this.listeners.size === 0) return;
			this.fetch().catch(() => undefined);
		}, this.debounceMs);
	}

	/**
	 * A note was edited: the stale list, the explorer dots, the candidate count
	 * and the dashboard follow once the edits settle (one audit per pause in typing).
	 */
	edited(): void {
		if (this.editTimer !== null) this.timers.clearTimeout(this.editTimer);
		this.editTimer = this.timers.setTimeout(() => {
			this.editTimer = null;
			this.invalidate();
		}, this.editSettleMs);
	}

	/** Called with every new report; returns the function that unsubscribes. */
	subscribe(listener: AuditListener): () => void {
		this.listeners.add(listener);
		return () => {
			this.listeners.delete(listener);
		};
	}

	dispose(): void {
		if (this.timer !== null) this.timers.clearTimeout(this.timer);
		if (this.editTimer !== null) this.timers.clearTimeout(this.editTimer);
		this.timer = null;
		this.editTimer = null;
		this.listeners.clear();
	}
}
