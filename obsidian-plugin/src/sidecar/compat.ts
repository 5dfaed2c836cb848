/**
 * The plugin's side of the version handshake with the sidecar (GET /health at
 * every start, see supervisor.ts), and what a person types to get or update `kh`.
 */

/** The level of the sidecar API this plugin speaks, sent to the sidecar at start. */
export const PLUGIN_API_LEVEL = 2;
/**
 * The lowest sidecar API level this plugin works with. 2: /health names its
 * levels, errors come in the person's language, GET /v1/batches/next.
 */
export const MIN_SIDECAR_API_LEVEL = 2;

/** Install commands, best first (docs/install.md). */
export const INSTALL_COMMANDS: readonly string[] = ["pipx install knowledge-harness", "uv tool install knowledge-harness"];
export const UPGRADE_COMMAND = "pipx upgrade knowledge-harness";
/** Where the sidecar is published (the install guide is its description). */
export const INSTALL_URL = "https://pypi.org/project/knowledge-harness/";
