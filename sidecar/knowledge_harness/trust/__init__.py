"""Seed 000: trust levels, evidence, the validator, approvals."""
