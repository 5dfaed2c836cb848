"""Knowledge Harness: trust, a reasoning index and a harness pipeline for Obsidian vaults."""

__version__ = "0.1.0"
