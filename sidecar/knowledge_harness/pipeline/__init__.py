"""Seed 004: the harness pipeline."""
