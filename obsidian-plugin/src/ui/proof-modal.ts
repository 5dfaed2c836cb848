import { quotesOf } from "../trust/proof";
import type { HarnessHost } from "./host";
import { NoteLoadModal } from "./note-modal";
import { renderBadgeProof } from "./quotes";

/**
 * A stale list row's proof: the note's claims with their quotes and source
 * links, read when the person asks (one badge request), so that a list of
 * 10,000 notes never carries them all.
 */
export class ProofModal extends NoteLoadModal {
	constructor(host: HarnessHost, path: string) {
		super(host, path, "proof.title");
	}

	protected override async render(): Promise<void> {
		const badge = await this.host.client.badge(this.path);
		this.contentEl.empty();
		renderBadgeProof(this.contentEl, quotesOf(badge));
	}
}
