"""The harness pipeline, O-01…O-13 (docs/pipeline.md)."""
