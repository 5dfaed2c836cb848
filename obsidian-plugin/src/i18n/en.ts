/**
 * English UI strings. This is the reference locale: every other locale must
 * provide the same keys (checked by the type of `ja.ts`).
 *
 * Placeholders are written `{name}` and filled in by `t()`.
 */
export const en = {
	"status.starting": "Sidecar starting…",
	"status.ready": "Sidecar ready",
	"status.offline": "Sidecar offline",
	"status.tooltip.starting": "Knowledge Harness is starting its sidecar.",
	"status.tooltip.ready": "Knowledge Harness sidecar is listening on port {port}.",
	"status.tooltip.offline": "Knowledge Harness sidecar is not running. Click to start it.",
	"status.tooltip.offlineError": "Knowledge Harness sidecar is not running: {error}. Click to start it.",

	"command.restart": "Restart sidecar",

	"notice.noFileSystem": "Knowledge Harness needs a vault stored on this computer's file system.",
	"notice.restarting": "Restarting the Knowledge Harness sidecar…",
	"notice.commandNotFound": "Knowledge Harness could not find the sidecar command \"{command}\". Set its full path in the plugin settings.",

	"error.commandNotFound": "command not found",
	"error.exited": "the sidecar exited (code {code})",
	"error.listeningTimeout": "the sidecar did not report its port in time",
	"error.healthTimeout": "the sidecar did not answer its health check in time",
	"error.spawnFailed": "the sidecar could not be started ({message})",

	"settings.command.name": "Sidecar command",
	"settings.command.desc": "The kh executable. Use its full path if Obsidian cannot find it on your PATH. Takes effect when the sidecar restarts.",
	"settings.args.name": "Extra arguments",
	"settings.args.desc": "Arguments placed before \"serve\", one per line. Leave empty for the kh executable.",
	"settings.port.name": "Port",
	"settings.port.desc": "Port on 127.0.0.1. 0 picks a free port at each start.",
	"settings.port.invalid": "Enter a whole number from 0 to 65535.",
	"settings.autoStart.name": "Start automatically",
	"settings.autoStart.desc": "Start the sidecar when Obsidian opens this vault.",
	"settings.language.name": "Language",
	"settings.language.desc": "Language of this plugin's interface. Reload the plugin to rename commands.",
	"settings.language.auto": "Same as Obsidian",
	"settings.restart.name": "Restart sidecar",
	"settings.restart.desc": "Stop the sidecar and start it again with the settings above.",
	"settings.restart.button": "Restart",
} as const;

export type MessageKey = keyof typeof en;
export type Messages = Record<MessageKey, string>;
