import { Notice } from "obsidian";
import { newJobId, SidecarError, type SidecarClient } from "../api/client";
import type { JobView } from "../api/types";
import { type MessageKey, t } from "../i18n";

/** How often the notice asks the sidecar where the work is. */
export const POLL_MS = 1000;

/** "Note 3 of 8: Keywords/鮮度.md · 12 s" (pure). */
export function jobLine(view: JobView): string {
	const seconds = Math.round(view.elapsed_seconds);
	if (view.cancel_requested && view.state === "running") return t("job.cancelling");
	const coded = STEP_NAMES[view.step];
	if (view.total === null || view.total === 0) return coded ? t("job.phase", { step: t(coded), seconds }) : t("job.elapsed", { seconds });
	return t("job.step", { done: Math.min(view.done + 1, view.total), total: view.total, step: coded ? t(coded) : view.step, seconds });
}

/**
 * The sidecar names its steps with codes, shown here in the person's language:
 * a validation's (fetch, then judge: the agent judge's wait is its judge step)
 * and an index build's (wait, scan, parse, links). A plan's steps are note paths.
 */
export const STEP_NAMES: Readonly<Record<string, MessageKey>> = {
	fetch: "job.stepName.fetch",
	judge: "job.stepName.judge",
	wait: "job.stepName.wait",
	scan: "job.stepName.scan",
	parse: "job.stepName.parse",
	links: "job.stepName.links",
};

/**
 * Long work in the sidecar with its steps and counts and a Cancel that stops
 * it there: the request names a job (X-KH-Job), this notice reads the job's
 * progress every second, and Cancel asks the sidecar to stop at the next step.
 * The outcome replaces the notice; a cancelled job says so, never as an error.
 */
export class JobProgressNotice {
	readonly job = newJobId();
	readonly notice: Notice;
	readonly line: HTMLElement;
	readonly cancel: HTMLButtonElement;
	private timer: number | null = null;

	constructor(
		private readonly client: SidecarClient,
		label: string,
	) {
		const fragment = createFragment();
		fragment.createDiv({ cls: "kh-job-label", text: label, attr: { "data-job": this.job } });
		this.line = fragment.createDiv({ cls: "kh-muted kh-job-line" });
		this.cancel = fragment.createEl("button", { cls: "kh-notice-button kh-job-cancel", text: t("job.cancel") });
		this.cancel.addEventListener("click", () => void this.requestCancel());
		this.notice = new Notice(fragment, 0);
		this.timer = window.setInterval(() => void this.poll(), POLL_MS);
	}

	/** Reads the job once and shows where it is (a job not started yet shows nothing new). */
	async poll(): Promise<void> {
		try {
			this.line.setText(jobLine(await this.client.jobProgress(this.job)));
		} catch {
			// not registered yet, or the sidecar is busy: the next tick tries again
		}
	}

	async requestCancel(): Promise<void> {
		this.cancel.disabled = true;
		this.line.setText(t("job.cancelling"));
		await this.client.cancelJob(this.job).catch(() => undefined);
	}

	finish(message: string, ms = 4000): void {
		if (this.timer !== null) window.clearInterval(this.timer);
		this.timer = null;
		this.cancel.remove();
		this.line.setText(message);
		window.setTimeout(() => this.notice.hide(), ms);
	}

	/** Runs `task(job)`; resolves with its result, or null when the person cancelled it. */
	static async run<T>(client: SidecarClient, label: string, task: (job: string) => Promise<T>, done: (result: T) => string): Promise<T | null> {
		const progress = new JobProgressNotice(client, label);
		try {
			const result = await task(progress.job);
			progress.finish(done(result));
			return result;
		} catch (error) {
			if (error instanceof SidecarError && error.code === "cancelled") {
				progress.finish(t("job.cancelled"));
				return null;
			}
			progress.finish(label, 0);
			throw error;
		}
	}
}

/**
 * Steps and a Cancel inside a window (the validation's): the line follows the
 * job every second; Cancel (or closing the window) stops the sidecar's work.
 */
export function watchJob(client: SidecarClient, job: string, parent: HTMLElement, cancel: () => void): { stop: () => void } {
	const line = parent.createDiv({ cls: "kh-muted kh-job-line" });
	const button = parent.createEl("button", { cls: "kh-job-cancel", text: t("job.cancel") });
	button.addEventListener("click", cancel);
	const timer = window.setInterval(() => {
		client.jobProgress(job).then(
			(view) => line.setText(jobLine(view)),
			() => undefined,
		);
	}, POLL_MS);
	return { stop: () => window.clearInterval(timer) };
}
