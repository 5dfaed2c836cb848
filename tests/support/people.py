"""The actors tests hand to services directly (a test is the door that proved who acts)."""

from knowledge_harness import actors

PERSON = actors.person("terminal")
AGENT = actors.agent("mcp-http", "test-agent")
