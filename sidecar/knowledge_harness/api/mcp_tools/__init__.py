"""MCP tool sets; each module exposes register(mcp, ctx)."""
