import { SidecarError, SidecarOfflineError } from "../api/client";
import { t } from "../i18n";

/** True when the sidecar answered 404 because it does not serve the route (an older sidecar). */
export function isNotServed(error: unknown): boolean {
	return error instanceof SidecarError && error.status === 404 && /^No route /.test(error.message);
}

/** A one-sentence, translated description of a failed request. */
export function describeFailure(error: unknown): string {
	if (error instanceof SidecarOfflineError) return t("error.offline");
	if (isNotServed(error)) return t("error.notServed");
	if (error instanceof SidecarError) return t("error.sidecar", { message: error.message });
	return error instanceof Error ? error.message : String(error);
}
