"""Shared fixtures: real vaults on disk, a real `kh serve` subprocess on loopback."""

from __future__ import annotations

import errno
import functools
import hashlib
import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, settings

REPO = Path(__file__).resolve().parent.parent
EXAMPLE_VAULT = REPO / "examples" / "vault"
KH = Path(sys.executable).with_name("kh")

settings.register_profile("ci", max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("fuzz", max_examples=20_000, deadline=None, suppress_health_check=list(HealthCheck))
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

PERSON_TOKEN = "test-token-0123456789abcdef"
AGENT_TOKEN = "agent-token-0123456789abcdef"
# The machine configuration every test (and every `kh` it starts) sees: the example vault's notes
# cite the demo evidence site on 127.0.0.1:8731, which only the machine configuration may allow.
DEFAULT_MACHINE_CONFIG = '[evidence]\nallow_private_hosts = ["127.0.0.1:8731"]\n'


def pytest_configure(config: pytest.Config) -> None:
    """Under pytest-xdist (`make test` runs two workers) the controller serves the demo evidence site
    on 127.0.0.1:8731 for the whole run; every worker's `evidence_site` fixture finds it and uses it
    (a worker's own server would vanish when that worker finishes first)."""
    if os.environ.get("PYTEST_XDIST_WORKER") or not getattr(config.option, "numprocesses", None):
        return
    server = _serve_site()
    if server is not None:
        config.stash[_SITE] = server


def pytest_unconfigure(config: pytest.Config) -> None:
    server = config.stash.get(_SITE, None)
    if server is not None:
        server.shutdown()
        server.server_close()


_SITE = pytest.StashKey["_SiteServer"]()


@pytest.fixture(autouse=True, scope="session")
def _machine_config_outside_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Tests never read or write the developer's own config or cache directories (agent tokens, machine
    configuration, search layers): XDG_CONFIG_HOME, KH_CONFIG and KH_SEARCH_CACHE point into a temporary folder."""
    home = tmp_path_factory.mktemp("config-home")
    config = home / "machine.toml"
    config.write_text(DEFAULT_MACHINE_CONFIG, encoding="utf-8")
    saved = {key: os.environ.get(key) for key in ("XDG_CONFIG_HOME", "KH_CONFIG", "KH_SEARCH_CACHE")}
    os.environ["XDG_CONFIG_HOME"] = str(home)
    os.environ["KH_CONFIG"] = str(config)
    os.environ["KH_SEARCH_CACHE"] = str(home / "search-cache")  # search layers never land in the user's cache
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


@pytest.fixture(autouse=True)
def _machine_config_per_test() -> Iterator[None]:
    """A test may point KH_CONFIG elsewhere (tests/support/pipeline_helpers.write_configs); the next one starts clean."""
    saved = os.environ.get("KH_CONFIG")
    try:
        yield
    finally:
        if saved is not None:
            os.environ["KH_CONFIG"] = saved


def use_machine_config(monkeypatch: pytest.MonkeyPatch, folder: Path, text: str) -> Path:
    """Point KH_CONFIG (this process and the `kh` it starts) at a machine configuration with `text`."""
    path = folder / "machine-config.toml"
    path.write_text(text, encoding="utf-8")
    monkeypatch.setenv("KH_CONFIG", str(path))
    return path


@pytest.fixture
def small_vault(tmp_path: Path) -> Path:
    """Two notes, one in a Japanese folder: the vault of `kh serve`'s tests (the HTTP guards in tests/api,
    the command's options in tests/cli). tests/index/test_build.py defines its own `small_vault`."""
    vault = tmp_path / "vault"
    (vault / "フォルダ").mkdir(parents=True)
    (vault / "a.md").write_text("---\ntitle: Alpha\n---\n# Alpha\n", encoding="utf-8")
    (vault / "フォルダ" / "日本語.md").write_text("# 日本語のノート\n", encoding="utf-8")
    return vault


@pytest.fixture
def example_vault(tmp_path: Path) -> Path:
    """A private copy of examples/vault (tests never touch the original)."""
    return copy_example_vault(tmp_path / "vault")


def copy_example_vault(dest: Path) -> Path:
    """Copy examples/vault as committed: notes, the demo policy and its adoption record (the record
    behind its levels), none of what `make run` built."""
    shutil.copytree(EXAMPLE_VAULT, dest, symlinks=True, ignore=_generated_harness_files)
    return dest


def _generated_harness_files(folder: str, names: list[str]) -> set[str]:
    """Keep only the committed demo policy of .harness/: `make run` leaves an index, snapshots
    and runs in examples/vault/.harness/ that must not leak into tests."""
    if Path(folder).name == ".harness":
        return {name for name in names if name not in ("policy.toml", "adoptions")}
    return set()


# The example vault's notes cite http://127.0.0.1:8731/… and its policy allow-lists that host, so
# plans validate for real only when examples/evidence-site is served there: the address is part of the
# committed notes (and of their references hashes), so this one port cannot be picked free. Instead
# every test session listens on it with SO_REUSEPORT: two sessions on one machine (two worktrees,
# two helpers) each keep their own listener, the kernel spreads connections over the live ones, and
# one session ending never takes the site away from another. Under xdist the controller holds the
# listener for the whole run (a worker's would close when that worker finishes first). A server on
# the port without SO_REUSEPORT (`make run`) is used as is when it serves the very same files; any
# other occupant fails the tests with a clear message.
SITE = REPO / "examples" / "evidence-site"
HOST, PORT = "127.0.0.1", 8731


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


class _SiteServer(ThreadingHTTPServer):
    allow_reuse_port = True
    daemon_threads = True


def _serve_site() -> _SiteServer | None:
    """Listen on HOST:PORT in a daemon thread; None when a server without SO_REUSEPORT holds the port."""
    try:
        server = _SiteServer((HOST, PORT), functools.partial(_QuietHandler, directory=str(SITE)))
    except OSError as exc:
        if exc.errno != errno.EADDRINUSE:
            raise
        return None
    threading.Thread(target=server.serve_forever, daemon=True, name="evidence-site").start()
    return server


def _serves_our_site() -> bool:
    expected = hashlib.sha256((SITE / "freshness.html").read_bytes()).hexdigest()
    try:
        response = httpx.get(f"http://{HOST}:{PORT}/freshness.html", timeout=5)
    except httpx.HTTPError:
        return False
    return response.status_code == 200 and hashlib.sha256(response.content).hexdigest() == expected


@pytest.fixture(scope="session")
def evidence_site() -> Iterator[str]:
    url = f"http://{HOST}:{PORT}/"
    server = None if os.environ.get("PYTEST_XDIST_WORKER") else _serve_site()  # a worker uses the controller's
    if server is None:
        if not _serves_our_site():
            pytest.fail(
                f"Port {PORT} on {HOST} is not serving examples/evidence-site (something else holds it); "
                "stop it (the example vault's notes cite that address) and rerun.",
                pytrace=False,
            )
        yield url
        return
    try:
        yield url
    finally:
        server.shutdown()
        server.server_close()


@dataclass
class Sidecar:
    url: str
    port: int
    token: str
    process: subprocess.Popen[bytes]
    vault: Path
    agent_token: str = AGENT_TOKEN

    def client(self, *, token: bool = True) -> httpx.Client:
        """A client with the person token (the plugin's), or none."""
        headers = {"Authorization": f"Bearer {self.token}"} if token else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=30)

    def agent_client(self) -> httpx.Client:
        """A client with the agent token (what Claude Code or Codex holds)."""
        return httpx.Client(base_url=self.url, headers={"Authorization": f"Bearer {self.agent_token}"}, timeout=30)


def start_sidecar(
    vault: Path,
    token: str = PERSON_TOKEN,
    *extra: str,
    env: dict[str, str] | None = None,
    agent_token: str | None = AGENT_TOKEN,
) -> Sidecar:
    """`kh serve` on a free port. With agent_token=None no KH_AGENT_TOKEN is set: the sidecar uses the
    vault's own agent token (`kh agent-token VAULT`), as `make run` serves it."""
    env = {**os.environ, **(env or {}), "KH_TOKEN": token}
    env.pop("KH_AGENT_TOKEN", None)
    if agent_token is not None:
        env["KH_AGENT_TOKEN"] = agent_token
    proc = subprocess.Popen(
        [str(KH), "serve", "--vault", str(vault), "--port", "0", "--exit-on-stdin-close", *extra],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line:
        err = proc.stderr.read().decode() if proc.stderr else ""
        raise RuntimeError(f"kh serve did not start: {err}")
    event = json.loads(line)
    assert event["event"] == "listening"
    return Sidecar(f"http://127.0.0.1:{event['port']}", event["port"], token, proc, vault, agent_token or "")


def stop_sidecar(sidecar: Sidecar) -> None:
    if sidecar.process.poll() is None:
        sidecar.process.terminate()
        try:
            sidecar.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            sidecar.process.kill()
            sidecar.process.wait()


@pytest.fixture
def sidecar(example_vault: Path) -> Iterator[Sidecar]:
    """A real `kh serve` subprocess on a copy of the example vault."""
    running = start_sidecar(example_vault)
    try:
        yield running
    finally:
        stop_sidecar(running)
