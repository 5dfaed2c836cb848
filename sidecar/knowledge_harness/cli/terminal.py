"""The person at the terminal: the CLI's proof that a person, not a script, pulls the trigger.

Approvals, run authorization, answers and publication decisions read what the person types from
the controlling terminal. Without one (a pipe, a script, an agent's shell) they are refused before
anything changes; no flag bypasses this. What it cannot stop: a program that runs as the same OS
user and fakes a terminal (docs/security.md says so plainly).
"""

from __future__ import annotations

import os
import sys

from .. import actors
from ..actors import Actor
from ..errors import PersonRequired

CONFIRM_WORD = "yes"


def _open_terminal() -> int | None:
    """A descriptor of the controlling terminal, or None when there is no interactive terminal."""
    if not sys.stdin.isatty():
        return None
    if os.name == "nt":  # no /dev/tty: the console behind stdin is the terminal
        return sys.stdin.fileno()
    try:
        return os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY)
    except OSError:
        return None


def _close(fd: int) -> None:
    if fd != sys.stdin.fileno():
        os.close(fd)


def person_at_terminal(action: str) -> Actor:
    """The person at this terminal; refused (exit 1) when there is no interactive terminal."""
    terminal = _open_terminal()
    if terminal is None:
        raise PersonRequired(
            f"{action} needs a person at an interactive terminal, and there is none; nothing was changed."
        )
    _close(terminal)
    return actors.person("terminal")


def person_if_at_terminal() -> Actor | None:
    """The person when an interactive terminal is there (nothing is asked), else None."""
    terminal = _open_terminal()
    if terminal is None:
        return None
    _close(terminal)
    return actors.person("terminal")


def ask(prompt: str) -> str:
    """One line typed at the controlling terminal (never read from a pipe)."""
    terminal = _open_terminal()
    if terminal is None:
        raise PersonRequired("There is no interactive terminal to ask on; nothing was changed.")
    sys.stdout.flush()
    sys.stderr.flush()
    line = b""
    try:
        os.write(terminal, prompt.encode("utf-8"))
        while not line.endswith(b"\n"):
            chunk = os.read(terminal, 1)
            if not chunk:
                break
            line += chunk
    finally:
        _close(terminal)
    if not line:
        raise PersonRequired("Nothing was typed at the terminal; nothing was changed.")
    return line.decode("utf-8", "replace").rstrip("\r\n")


def confirm(question: str) -> bool:
    """True when the person types `yes` at the terminal."""
    return ask(f"{question} Type {CONFIRM_WORD} to go on: ").strip().lower() == CONFIRM_WORD
