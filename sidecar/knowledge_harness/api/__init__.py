"""The HTTP and MCP doors onto the service layer."""
