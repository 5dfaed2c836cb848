import { SidecarError, SidecarOfflineError, SidecarTimeoutError } from "../api/client";
import { currentLocale, hasMessage, type MessageKey, t } from "../i18n";

/** True when the sidecar answered 404 because it does not serve the route (an older sidecar). */
export function isNotServed(error: unknown): boolean {
	return error instanceof SidecarError && error.status === 404 && /^No route /.test(error.messageEn);
}

const CODE_KEYS: Record<string, MessageKey> = {
	not_found: "error.code.not_found",
	path_rejected: "error.code.path_rejected",
	invalid_note: "error.code.invalid_note",
	invalid_input: "error.code.invalid_input",
	invalid_request: "error.code.invalid_input",
	payload_too_large: "error.code.payload_too_large",
	unauthorized: "error.code.unauthorized",
};

const STATUS_KEYS: Record<number, MessageKey> = {
	401: "error.code.unauthorized",
	409: "error.code.conflict",
	412: "error.code.precondition_failed",
	413: "error.code.payload_too_large",
	423: "error.code.busy",
	502: "error.code.external",
};

/**
 * A translated description of a failed request. When the sidecar wrote its
 * message for the person in the interface's language (it does for the
 * Accept-Language the plugin sends), that message alone: it names the next
 * step in the plugin's terms. Otherwise (an older sidecar) a sentence in the
 * interface's language for the error's code or status, then the sidecar's
 * own English message labelled as such.
 */
export function describeFailure(error: unknown): string {
	if (error instanceof SidecarTimeoutError) return t("error.timeout");
	if (error instanceof SidecarOfflineError) return t("error.offline");
	if (isNotServed(error)) return t("error.notServed");
	if (error instanceof SidecarError && error.lang !== null && error.lang === currentLocale()) return error.message;
	if (error instanceof SidecarError) {
		const key = CODE_KEYS[error.code] ?? STATUS_KEYS[error.status];
		if (key) return `${t(key)} ${t("error.detail", { message: error.message })}`;
		return t("error.sidecar", { message: error.message });
	}
	return error instanceof Error ? error.message : String(error);
}

/** Replaces what `el` shows with the description of a failed request. */
export function showFailure(el: HTMLElement, error: unknown): void {
	el.empty();
	el.createDiv({ cls: "kh-error", text: describeFailure(error) });
}

/** A code the sidecar sends (verdict, run status, result, state, …) with its translated label: "Applied (APPLIED)". */
export function codeLabel(code: string | null | undefined): string {
	if (!code) return "—";
	const key = `code.${code}`;
	if (!hasMessage(key)) return code;
	const label = t(key);
	// "Supported (supported)" says one word twice: the code only when the label does not already say it
	const plain = code.toLowerCase().replace(/_/g, " ");
	return label.toLowerCase() === plain ? label : `${label} (${code})`;
}
