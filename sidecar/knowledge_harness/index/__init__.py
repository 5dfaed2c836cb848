"""Seed 003: the reasoning index."""
