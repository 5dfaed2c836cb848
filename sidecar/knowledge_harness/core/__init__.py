"""Pure helpers that every layer may use (time, hashing, JSON, TOML, dates, text).

The lowest layer but one: it imports nothing of the project except the error tree (errors.py,
the lowest layer), so a helper can refuse bad input with the error the doors render.
"""
