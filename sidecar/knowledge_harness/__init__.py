"""Knowledge Harness: trust, a reasoning index and a harness pipeline for Obsidian vaults."""

__version__ = "0.1.0"

# The HTTP surface's level, raised whenever the plugin needs something an older sidecar lacks; the
# plugin compares it with the level it needs at every start (GET /health) and says plainly which
# side is too old (docs/install.md). 1: before /health named levels; 2: levels, localized errors
# (Accept-Language), the next rollout stage (GET /v1/batches/next).
API_LEVEL = 2
# The oldest plugin API level this sidecar serves (the plugin sends its own to GET /health).
MIN_PLUGIN_API_LEVEL = 1
