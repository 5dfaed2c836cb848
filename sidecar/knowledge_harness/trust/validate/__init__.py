"""The validation wing: claims, evidence (fetching, extraction, snapshots), the validator and its judges,
the judge queue and budget, and the dry-run validation of one note (validation_service.py). It proposes
trust blocks; it never writes a note."""
