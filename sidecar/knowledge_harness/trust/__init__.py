"""Trust: levels, evidence, the validator, approvals (docs/trust-policy.md, docs/glossary.md)."""
