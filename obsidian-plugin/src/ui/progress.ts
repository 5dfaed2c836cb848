import { Notice } from "obsidian";

/**
 * A notice that stays while a long request runs and is updated in place
 * ("… 3 s"), then shows the outcome for a few seconds. One notice per run,
 * never one per tick.
 */
export class ProgressNotice {
	private readonly notice: Notice;
	private readonly started = Date.now();
	private timer: number | null = null;

	constructor(private readonly label: string) {
		this.notice = new Notice(label, 0);
		this.timer = window.setInterval(() => {
			const seconds = Math.round((Date.now() - this.started) / 1000);
			this.notice.setMessage(`${this.label} ${seconds} s`);
		}, 1000);
	}

	update(message: string): void {
		this.notice.setMessage(message);
	}

	/** Replaces the message with the outcome and hides it after `ms`. */
	finish(message: string, ms = 4000): void {
		this.stop();
		this.notice.setMessage(message);
		window.setTimeout(() => this.notice.hide(), ms);
	}

	private stop(): void {
		if (this.timer !== null) window.clearInterval(this.timer);
		this.timer = null;
	}

	/** Runs `task`, keeping the notice up to date. */
	static async run<T>(label: string, task: () => Promise<T>, done: (result: T) => string): Promise<T> {
		const progress = new ProgressNotice(label);
		try {
			const result = await task();
			progress.finish(done(result));
			return result;
		} catch (error) {
			progress.finish(label, 0);
			throw error;
		}
	}
}
