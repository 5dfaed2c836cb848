"""Pure helpers that every layer may use; this package imports nothing else of the project."""
