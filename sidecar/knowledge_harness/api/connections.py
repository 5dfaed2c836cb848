"""Connection limits of `kh serve`: idle and half-sent requests cannot lock the plugin out.

Red-team item 4: about 1,100 sockets opened without a token and left idle kept the plugin
offline (the process ran out of file descriptors: 1,024 here, 256 for a GUI app on macOS), and a
tokenless 100 MB header stalled `/health` for 10 s. uvicorn's protocol is extended so that

- a connection not inside a request (before its first request, between requests, or still
  sending its head) is closed after `head_timeout` seconds: idle sockets and slow heads end;
- a request head (request line and headers) over `max_head_bytes` is answered 431 and closed,
  before its bytes pile up in memory;
- above `max_connections` open connections, each new one closes the connections that have
  been waiting longest without a request in progress: a flood of idle sockets makes room for
  the plugin's next request instead of starving it (a request in progress is never cut);
- the number of headers is capped by the ASGI guard (api/security.py), which answers 431.

`max_connections` follows the file-descriptor limit (half of it), which `raise_fd_limit`
first lifts to the hard limit where the system allows.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

try:
    import resource
except ImportError:  # Windows: no RLIMIT_NOFILE; the connection cap stays at MAX_CONNECTIONS
    resource = None  # type: ignore[assignment]

HEAD_TIMEOUT_SECONDS = 10.0
KEEP_ALIVE_SECONDS = 5
MAX_HEAD_BYTES = 64 * 1024
MAX_CONNECTIONS = 1000
# file descriptors kept for the sidecar's own work: vault files, git, worker processes, sockets out
_RESERVED_FDS = 64
_WANTED_FDS = 4096


@dataclass(frozen=True, slots=True)
class ConnectionLimits:
    head_timeout: float = HEAD_TIMEOUT_SECONDS
    max_head_bytes: int = MAX_HEAD_BYTES
    max_connections: int = MAX_CONNECTIONS


def raise_fd_limit() -> int:
    """Lift the soft file-descriptor limit towards the hard one (macOS GUI apps start at 256);
    returns the soft limit in force."""
    if resource is None:
        return MAX_CONNECTIONS * 2
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = _WANTED_FDS if hard == resource.RLIM_INFINITY else min(hard, _WANTED_FDS)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
        except (ValueError, OSError):
            pass
    return soft


def default_limits() -> ConnectionLimits:
    soft = raise_fd_limit()
    fds = MAX_CONNECTIONS * 2 if resource is None or soft == resource.RLIM_INFINITY else soft
    return ConnectionLimits(max_connections=max(16, min(MAX_CONNECTIONS, (fds - _RESERVED_FDS) // 2)))


def _base_protocol() -> type[Any]:
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    except ImportError:  # httptools not installed: h11, whose own event size limit also applies
        return H11Protocol
    return HttpToolsProtocol


def bounded_protocol(limits: ConnectionLimits, base: type[Any] | None = None) -> type[Any]:
    """uvicorn's HTTP protocol class (httptools, else h11) with `limits` applied."""
    parent: type[Any] = base or _base_protocol()

    # connections without a request in progress, longest waiting first (a dict keeps insertion order)
    waiting: dict[Any, None] = {}

    class Bounded(parent):  # type: ignore[misc]
        _kh_timer: asyncio.TimerHandle | None = None
        _kh_head_bytes = 0

        def connection_made(self, transport: asyncio.Transport) -> None:
            super().connection_made(transport)
            self._kh_waiting()
            self._kh_make_room()

        def connection_lost(self, exc: Exception | None) -> None:
            self._kh_cancel()
            waiting.pop(self, None)
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            # the rest of a body whose request was answered before reading it (a 401, a 413) still
            # belongs to that request: not to the next head (its timer still runs from the answer)
            draining = self._kh_draining()
            super().data_received(data)
            if self.transport.is_closing():
                return
            if self._kh_busy():
                self._kh_cancel()
                waiting.pop(self, None)
                self._kh_head_bytes = 0
                return
            if draining:
                return
            # still no complete head: every byte of this read belongs to one
            self._kh_head_bytes += len(data)
            if self._kh_head_bytes > limits.max_head_bytes:
                self._kh_refuse()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._kh_waiting()

        # -- the limits ----------------------------------------------------------------------
        def _kh_busy(self) -> bool:
            cycle = self.cycle
            return cycle is not None and not cycle.response_complete

        def _kh_draining(self) -> bool:
            cycle = self.cycle
            return cycle is not None and cycle.response_complete and cycle.more_body

        def _kh_waiting(self) -> None:
            """No request in progress: the head of the next one must arrive within head_timeout."""
            self._kh_cancel()
            self._kh_head_bytes = 0
            waiting.pop(self, None)
            waiting[self] = None
            self._kh_timer = self.loop.call_later(limits.head_timeout, self._kh_expire)

        def _kh_cancel(self) -> None:
            if self._kh_timer is not None:
                self._kh_timer.cancel()
                self._kh_timer = None

        def _kh_close(self) -> None:
            self._kh_cancel()
            waiting.pop(self, None)
            self.connections.discard(self)
            self.transport.close()

        def _kh_expire(self) -> None:
            self._kh_timer = None
            if not self._kh_busy() and not self.transport.is_closing():
                self._kh_close()

        def _kh_refuse(self) -> None:
            body = b"Request header fields too large."
            self.transport.write(
                b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-type: text/plain; charset=utf-8\r\n"
                b"connection: close\r\ncontent-length: " + str(len(body)).encode() + b"\r\n\r\n" + body
            )
            self._kh_close()

        def _kh_make_room(self) -> None:
            excess = len(self.connections) - limits.max_connections
            while excess > 0 and waiting:
                victim = next(iter(waiting))
                if victim is self:  # the newest is last; only it is left
                    break
                if victim._kh_busy():  # a state this table missed: never cut a request
                    waiting.pop(victim, None)
                    continue
                victim._kh_close()
                excess -= 1

    Bounded.__name__ = Bounded.__qualname__ = f"Bounded{parent.__name__}"
    return Bounded
