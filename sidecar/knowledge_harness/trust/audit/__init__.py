"""The audit wing: what each note's trust blocks are worth today (audit.py: states, the report, badges),
the stale triggers and windows (freshness.py), and `kh init`'s first look at a vault (onboarding.py).
It reads notes and the records behind them; it never validates or writes a note."""
