"""The harness pipeline, O-01…O-13 (docs/pipeline.md).

See docs/design/pipeline.md for the contract the code relies on.
"""
