"""Trust: levels, evidence, the validator, approvals (docs/trust-policy.md, docs/glossary.md).

See docs/design/trust.md for the model the code relies on.
"""
