"""The reasoning index (docs/reasoning-index.md).

See docs/design/reasoning-index.md for the design the code relies on.
"""
