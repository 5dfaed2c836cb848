"""The reasoning index (docs/reasoning-index.md)."""
