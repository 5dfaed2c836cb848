"""Red-team item 4: about 1,100 idle sockets opened without a token kept the plugin offline, and a
tokenless 100 MB header stalled `/health`. uvicorn with the sidecar's bounded protocol
(api/connections.py), in process with short limits, and the real `kh serve` at a low fd limit.
The 1,100-socket flood at the default limit of 1,024 runs under `make fuzz`."""

from __future__ import annotations

import asyncio
import contextlib
import os
import resource
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from knowledge_harness.api.connections import ConnectionLimits, bounded_protocol

from ..conftest import Sidecar, start_sidecar, stop_sidecar

LIMITS = ConnectionLimits(head_timeout=0.5, max_head_bytes=8 * 1024, max_connections=20)


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """A plain ASGI app: /slow takes longer than the head timeout, everything else answers at once."""
    if scope["type"] != "http":
        return
    if scope["path"] == "/slow":
        await asyncio.sleep(1.0)
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
    await send({"type": "http.response.body", "body": b"ok"})


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    config = uvicorn.Config(
        app, host="127.0.0.1", port=0, http=bounded_protocol(LIMITS), log_level="error", lifespan="off"
    )
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    while not srv.started:
        time.sleep(0.01)
    port = srv.servers[0].sockets[0].getsockname()[1]
    yield f"127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(5)


def _connect(address: str) -> socket.socket:
    host, port = address.split(":")
    sock = socket.create_connection((host, int(port)), timeout=3)
    return sock


def _closed_within(sock: socket.socket, seconds: float) -> bytes | None:
    """What the server sent before closing, or None if it kept the socket open that long."""
    sock.settimeout(seconds)
    got = b""
    try:
        while chunk := sock.recv(65536):
            got += chunk
    except TimeoutError:
        return None
    except ConnectionResetError:
        pass
    return got


def test_an_idle_socket_and_a_slow_head_are_closed(server: str) -> None:
    idle = _connect(server)
    slow = _connect(server)
    slow.sendall(b"GET / HTTP/1.1\r\n")
    for _ in range(3):  # one header line now and then, never the end of the head
        time.sleep(0.2)
        with contextlib.suppress(OSError):
            slow.sendall(b"X-A: b\r\n")
    assert _closed_within(idle, 2) == b""
    assert _closed_within(slow, 2) == b""


def test_a_head_over_the_limit_is_answered_431_and_closed(server: str) -> None:
    sock = _connect(server)
    with contextlib.suppress(OSError):
        sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 64 * 1024)
    answer = _closed_within(sock, 2)
    assert answer is not None and answer.startswith(b"HTTP/1.1 431"), answer


def test_a_request_in_progress_outlives_the_head_timeout(server: str) -> None:
    r = httpx.get(f"http://{server}/slow", timeout=5)
    assert r.status_code == 200 and r.text == "ok"


def test_idle_sockets_over_the_cap_make_room_for_a_new_request(server: str) -> None:
    idle = [_connect(server) for _ in range(60)]
    try:
        r = httpx.get(f"http://{server}/health", timeout=2)
        assert r.status_code == 200
        closed = sum(_closed_within(s, 0.05) == b"" for s in idle)
        assert closed >= 60 - LIMITS.max_connections  # the oldest idle ones went first
    finally:
        for s in idle:
            s.close()


def _low_fd_limit(limit: int) -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))


def _serve_with_fd_limit(vault: Path, limit: int) -> Sidecar:
    """`kh serve` started with RLIMIT_NOFILE = `limit` (soft and hard, as a GUI app on macOS may get)."""
    real_popen = subprocess.Popen

    def popen(*args: Any, **kwargs: Any) -> Any:
        return real_popen(*args, preexec_fn=lambda: _low_fd_limit(limit), **kwargs)

    subprocess.Popen = popen  # type: ignore[misc]
    try:
        return start_sidecar(vault)
    finally:
        subprocess.Popen = real_popen  # type: ignore[misc]


def flood(sidecar: Sidecar, count: int) -> tuple[int, float]:
    """Open `count` idle tokenless sockets, then ask /health; its status and seconds."""
    sockets: list[socket.socket] = []
    try:
        for _ in range(count):
            try:
                sockets.append(socket.create_connection(("127.0.0.1", sidecar.port), timeout=2))
            except OSError:
                break
        started = time.perf_counter()
        r = httpx.get(f"{sidecar.url}/health", timeout=5)
        return r.status_code, time.perf_counter() - started
    finally:
        for s in sockets:
            s.close()


def test_idle_sockets_past_the_fd_limit_leave_health_and_the_person_answering(example_vault: Path) -> None:
    sidecar = _serve_with_fd_limit(example_vault, 256)
    try:
        status, _ = flood(sidecar, 400)
        assert status == 200
        with sidecar.client() as client:
            assert client.get("/v1/trust/audit").status_code == 200
            many = {f"X-H{i}": "v" for i in range(101)}
            assert client.get("/health", headers=many).status_code == 431
            assert client.get("/health", headers={"Host": "[::1]junk"}).status_code == 421
            assert client.get("/health", headers={"Host": f"127.0.0.1:{sidecar.port}x"}).status_code == 421
    finally:
        stop_sidecar(sidecar)


@pytest.mark.fuzz
@pytest.mark.skipif(not os.environ.get("KH_FUZZ"), reason="the 1,100-socket flood runs under make fuzz")
def test_eleven_hundred_idle_sockets_at_the_default_fd_limit(example_vault: Path) -> None:
    sidecar = _serve_with_fd_limit(example_vault, 1024)
    try:
        status, seconds = flood(sidecar, 1100)
        print(f"/health under 1,100 idle sockets: {status} in {seconds * 1000:.1f} ms")
        assert status == 200
    finally:
        stop_sidecar(sidecar)
