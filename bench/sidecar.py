"""A `kh serve` for a benchmark: started on a free loopback port, stopped when done."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

KH = Path(sys.executable).with_name("kh")
TOKEN = "bench-token-0123456789abcdef"


def serve(vault: Path, machine: Path | None = None) -> tuple[subprocess.Popen[bytes], str]:
    """Start the sidecar on `vault` (with `machine` as its machine configuration); (process, base URL)."""
    config = {"KH_CONFIG": str(machine)} if machine else {}
    proc = subprocess.Popen(
        [str(KH), "serve", "--vault", str(vault), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={**os.environ, **config, "KH_TOKEN": TOKEN},
    )
    assert proc.stdout is not None
    port = json.loads(proc.stdout.readline())["port"]
    return proc, f"http://127.0.0.1:{port}"


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
