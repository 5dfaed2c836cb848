"""A vault the sidecar cannot write to: `kh index build`, `kh batch plan`, `kh pipeline capture`
and `kh audit --record` answer one clear line (exit 1), print no traceback and change nothing.

Read-only for real: a tmpfs remounted read-only (root) or a vault without write permission
(other users). Everywhere: a `.harness` that is a file, so nothing can be created in it.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from ..conftest import KH, start_sidecar, stop_sidecar
from ..support.evidence_site import EvidenceSite

REQUEST = "---\nharness: request\n---\n# Request\n\nWrite a short post about Mount Fuji.\n"
NOTE = "---\nprovenance: {origin: ai_generated}\nreferences:\n  - https://example.org/a\n---\n# A\n\nText.\n"
COMMANDS = [
    ("index", "build", "{v}"),
    ("batch", "plan", "{v}"),
    ("pipeline", "capture", "{v}", "request.md"),
    ("audit", "{v}", "--record"),
]


def _fill(vault: Path) -> None:
    (vault / "Keywords").mkdir(parents=True)
    (vault / "Keywords" / "a.md").write_text(NOTE, encoding="utf-8")
    (vault / "request.md").write_text(REQUEST, encoding="utf-8")


def _state(vault: Path) -> dict[str, str]:
    return {
        p.relative_to(vault).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
        for p in sorted(vault.rglob("*"))
    }


@contextlib.contextmanager
def _read_only(tmp_path: Path, fill: Callable[[Path], None]) -> Iterator[Path]:
    """A vault filled by `fill`, then made read-only for real (a read-only tmpfs as root, else modes)."""
    if os.geteuid() != 0:
        root = tmp_path / "vault"
        fill(root)
        folders = [root, *(p for p in root.rglob("*") if p.is_dir())]
        for folder in folders:
            folder.chmod(0o555)
        try:
            yield root
        finally:
            for folder in folders:
                folder.chmod(0o755)
        return
    mount = tmp_path / "ro"
    mount.mkdir()
    if shutil.which("mount") is None:
        pytest.skip("no mount command")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        fill(mount / "vault")
        subprocess.run(["mount", "-o", "remount,ro", str(mount)], check=True, capture_output=True)
        yield mount / "vault"
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True)


@pytest.fixture(params=["read-only", "harness-is-a-file"])
def vault(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Path]:
    if request.param == "harness-is-a-file":
        root = tmp_path / "vault"
        _fill(root)
        (root / ".harness").write_text("not a folder\n", encoding="utf-8")
        yield root
        return
    with _read_only(tmp_path, _fill) as root:
        yield root


@pytest.mark.parametrize("command", COMMANDS, ids=[" ".join(c[:2]) for c in COMMANDS])
def test_one_clear_line_and_nothing_changed(vault: Path, command: tuple[str, ...]) -> None:
    before = _state(vault)
    args = [part.format(v=vault) for part in command]
    result = subprocess.run([str(KH), *args], capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode in (1, 2), (result.stdout, result.stderr)  # refused / input error
    assert "Traceback" not in result.stderr
    [line] = result.stderr.strip().splitlines()
    assert line.startswith("kh: ") and line.endswith(".")
    assert ".harness" in line
    assert _state(vault) == before


def test_a_dry_run_that_fetched_a_page_it_cannot_keep_says_so(tmp_path: Path) -> None:
    site = EvidenceSite().start()
    machine = tmp_path / "machine-config.toml"  # only the machine configuration allows a private host
    machine.write_text(f'[evidence]\nallow_private_hosts = ["{site.allow_entry}"]\n', encoding="utf-8")

    def fill(root: Path) -> None:
        (root / ".harness").mkdir(parents=True)
        (root / ".harness" / "policy.toml").write_text("[evidence]\ntimeout_seconds = 5\n", encoding="utf-8")
        (root / "fuji.md").write_text(
            f"---\nreferences:\n  - {site.url}/en/fuji\n---\n# Fuji\n\nMount Fuji is 3,776 metres high.\n",
            encoding="utf-8",
        )

    try:
        with _read_only(tmp_path, fill) as root:
            before = _state(root)
            result = subprocess.run(
                [str(KH), "validate", str(root), "fuji.md", "--dry-run"],
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
                env={**os.environ, "KH_CONFIG": str(machine)},
            )
            assert result.returncode == 1, (result.stdout, result.stderr)
            assert "Traceback" not in result.stderr
            [line] = result.stderr.strip().splitlines()
            assert line.startswith("kh: Cannot write to the vault (.harness/evidence: ")
            assert line.endswith("nothing was changed (saving the evidence snapshots).")
            assert _state(root) == before
    finally:
        site.stop()


def test_recording_an_audit_on_a_read_only_vault_answers_507(tmp_path: Path) -> None:
    """Red-team item 6: `GET /v1/trust/audit?record=true` answered 500 with a traceback there."""
    with _read_only(tmp_path, _fill) as root:
        before = _state(root)
        sidecar = start_sidecar(root)
        try:
            with sidecar.client() as client:
                assert client.get("/v1/trust/audit").status_code == 200
                recorded = client.get("/v1/trust/audit", params={"record": "true"})
                assert recorded.status_code == 507, recorded.text
                assert recorded.json()["error"]["code"] == "not_writable"
                assert client.get("/health").status_code == 200
        finally:
            stop_sidecar(sidecar)
        assert _state(root) == before
