"""Run `kh` at a real pseudo-terminal, as a person would.

The child gets a controlling terminal (pty.fork); the lines are typed ahead into it (the terminal
holds them until the program reads), and everything the terminal showed is collected. `TerminalRun`
parts the screen like a CompletedProcess: `record` is the JSON object the command printed, if any."""

from __future__ import annotations

import json
import os
import pty
import signal
import threading
from dataclasses import dataclass
from typing import Any


@dataclass
class TerminalRun:
    exit_code: int
    screen: str

    @property
    def returncode(self) -> int:
        return self.exit_code

    @property
    def record(self) -> Any:
        """The first JSON object the command printed (e.g. the run record of `kh batch approve`).

        A line typed ahead is echoed before the prompt, so the object may start on the prompt's line."""
        text = self.screen.replace("\r\n", "\n")
        decoder = json.JSONDecoder()
        for index, char in enumerate(text):
            if char == "{" and text[index + 1 : index + 2] == "\n":
                try:
                    return decoder.raw_decode(text, index)[0]
                except json.JSONDecodeError:
                    continue
        raise StopIteration


class TerminalProcess:
    def __init__(self, argv: list[str], typed: list[str], env: dict[str, str]) -> None:
        pid, master = pty.fork()
        if pid == 0:  # the child: stdin, stdout, stderr and the controlling terminal are the pty
            try:
                os.execve(argv[0], argv, env)
            finally:
                os._exit(127)
        self.pid, self._master = pid, master
        self._screen = bytearray()
        for line in typed:
            os.write(master, (line + "\n").encode("utf-8"))
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                chunk = os.read(self._master, 65536)
            except OSError:  # EIO: the child is gone and the terminal closed
                return
            if not chunk:
                return
            self._screen += chunk

    returncode: int | None = None

    def _reap(self, block: bool) -> int | None:
        if self.returncode is None:
            pid, status = os.waitpid(self.pid, 0 if block else os.WNOHANG)
            if pid == 0:
                return None
            self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def poll(self) -> int | None:
        return self._reap(block=False)

    def send_signal(self, sig: int) -> None:
        if self.returncode is None:
            os.kill(self.pid, sig)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def wait(self, timeout: float = 120.0) -> TerminalRun:
        self._reader.join(timeout)
        if self._reader.is_alive():
            self.kill()
            self._reader.join(5)
        code = self._reap(block=True)
        assert code is not None
        if self._master >= 0:
            os.close(self._master)
            self._master = -1
        return TerminalRun(code, bytes(self._screen).decode("utf-8", "replace"))

    def communicate(self, timeout: float = 120.0) -> tuple[str, str]:
        """Like Popen.communicate: (the printed JSON record or "", everything the terminal showed)."""
        run = self.wait(timeout)
        try:
            return json.dumps(run.record), run.screen
        except StopIteration:
            return "", run.screen


def spawn_at_terminal(argv: list[str], typed: list[str], *, env: dict[str, str]) -> TerminalProcess:
    return TerminalProcess(argv, typed, env)


def run_at_terminal(argv: list[str], typed: list[str], *, env: dict[str, str], timeout: float = 120.0) -> TerminalRun:
    return spawn_at_terminal(argv, typed, env=env).wait(timeout)
