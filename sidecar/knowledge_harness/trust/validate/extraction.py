"""HTML → main text in a separate process that can be killed when it takes too long.

Extraction (trafilatura, lxml) is pure CPU and cannot be interrupted inside a thread: a hostile
page (3 MB of HTML, 100,000 links) kept a worker thread busy for 45 s after its fetch had timed
out, and the sidecar's other requests waited on the GIL behind it. So the text is extracted in
a worker process; when the caller's deadline passes (the fetch timeout, see evidence.py) the
worker is killed with SIGKILL and the page fails with `extract_timeout`. The sidecar itself
only waits on a pipe meanwhile.

Workers are started on first use (from the fork server, see `_context`; never forked from the
sidecar, which runs threads), kept idle for the next page (at most `MAX_IDLE`) in the owner's
ExtractionPool, and exit on their own when the
sidecar goes away (their pipe closes). `extract_in_worker` is the one entry point.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import threading
import weakref
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any

import anyio

MAX_IDLE = 2
START_SECONDS = 60.0  # a cold worker imports lxml and trafilatura; not counted in a page's deadline


class ExtractionFailed(Exception):
    """The worker died or could not start; `message` is one sentence."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _serve(conn: Connection) -> None:  # pragma: no cover - runs in the worker process
    from .main_text import extract_main_text

    with contextlib.suppress(Exception):
        import trafilatura  # noqa: F401 - imported once here, before the first page's deadline starts
    conn.send(("ready", None))
    while True:
        try:
            html, url = conn.recv()
        except (EOFError, OSError, KeyboardInterrupt):
            return  # the sidecar went away
        try:
            conn.send(("ok", extract_main_text(html, url)))
        except Exception as exc:  # reported to the caller as a failed page
            conn.send(("error", f"{type(exc).__name__}: {str(exc)[:200]}"))


def _context() -> Any:
    """Workers fork from multiprocessing's fork server where there is one (Linux, macOS): a fresh,
    single-threaded process started once that has imported the extractor already, so a new
    worker is ready in milliseconds rather than the ~1 s an import of lxml and trafilatura takes
    (each pool's first page, each test). Elsewhere they are spawned. Never forked from the
    sidecar itself: it runs threads."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["knowledge_harness.trust.validate.main_text", "trafilatura"])
    return context


class _Worker:
    def __init__(self) -> None:
        context = _context()
        self.conn, child = context.Pipe()
        self.process: BaseProcess = context.Process(target=_serve, args=(child,), daemon=True)
        self.process.start()
        child.close()

    def wait_ready(self, seconds: float) -> None:
        try:
            ready = self.conn.poll(seconds) and self.conn.recv()[0] == "ready"
        except (EOFError, OSError):
            ready = False
        if not ready:
            self.kill()
            raise ExtractionFailed("The text extraction worker did not start.")

    def call(self, html: str, url: str | None) -> Any:
        try:
            self.conn.send((html, url))
            return self.conn.recv()
        except (EOFError, OSError) as exc:
            raise ExtractionFailed("The text extraction worker stopped unexpectedly.") from exc

    def alive(self) -> bool:
        return self.process.is_alive()

    def kill(self) -> None:
        # the pipe is not closed here: a thread abandoned in recv() may still use it; the child's
        # death wakes that thread (EOF) and the pipe is closed when the last reference goes
        with contextlib.suppress(Exception):
            self.process.kill()
        with contextlib.suppress(Exception):
            self.process.join(5)


def _kill_all(idle: list[_Worker]) -> None:
    for worker in idle:
        worker.kill()
    idle.clear()


class ExtractionPool:
    """The idle extraction workers of one owner (the sidecar's AppContext, a Fetcher, a pipeline
    run's fetcher): at most MAX_IDLE are kept for the next page. `close()` kills them; so does the
    pool's collection or the interpreter's exit, whichever comes first."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._idle: list[_Worker] = []
        self._finalizer = weakref.finalize(self, _kill_all, self._idle)

    def acquire(self) -> _Worker:
        with self._lock:
            while self._idle:
                worker = self._idle.pop()
                if worker.alive():
                    return worker
                worker.kill()
        worker = _Worker()
        worker.wait_ready(START_SECONDS)
        return worker

    def release(self, worker: _Worker) -> None:
        with self._lock:
            if len(self._idle) < MAX_IDLE and worker.alive():
                self._idle.append(worker)
                return
        worker.kill()

    def idle(self) -> int:
        with self._lock:
            return len(self._idle)

    def close(self) -> None:
        with self._lock:
            idle = list(self._idle)
            self._idle.clear()
        for worker in idle:
            worker.kill()


async def acquire_worker(pool: ExtractionPool) -> _Worker:
    """A ready worker (spawned when none is idle); call this before a page's deadline starts."""
    return await anyio.to_thread.run_sync(pool.acquire)


async def extract_in_worker(
    pool: ExtractionPool, worker: _Worker, html: str, url: str | None
) -> tuple[str, str | None, str | None]:
    """(text, title, published) computed in `worker`; cancelling the caller kills the worker.

    The worker goes back to `pool` only when it answered; on cancellation (a deadline) or any
    error it is killed, so nothing keeps running after the caller gave up.
    """
    answered = False
    try:
        status, value = await anyio.to_thread.run_sync(worker.call, html, url, abandon_on_cancel=True)
        answered = True
    finally:
        if answered:
            pool.release(worker)
        else:
            worker.kill()  # also ends the abandoned thread: its recv() sees the pipe close
    if status != "ok":
        raise ExtractionFailed(f"The text extraction failed ({value}).")
    text, title, published = value
    return str(text), title, published
