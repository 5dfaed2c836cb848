import type { SidecarClient } from "../api/client";
import type { IndexBuildReport } from "../api/types";
import { t } from "../i18n";
import { JobProgressNotice } from "./job-progress";

/**
 * The "Rebuild reasoning index" command: the build runs as a sidecar job, so
 * its notice shows the phase and the notes read of those to read, and its
 * Cancel (or the client's timeout) stops the build before it writes anything:
 * the previous index stays. Resolves with the report, or null when cancelled.
 */
export function rebuildIndex(client: SidecarClient, full = false): Promise<IndexBuildReport | null> {
	return JobProgressNotice.run(
		client,
		t("progress.index"),
		(job) => client.buildIndex(full, job),
		(report) => t("progress.indexDone", { notes: report.notes, headings: report.headings, seconds: report.seconds.toFixed(1) }),
	);
}
