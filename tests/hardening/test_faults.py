"""Fault injection with real processes and real files.

- a disk full during a metadata write: a real 64 KB tmpfs when we may mount one (root), and
  ENOSPC injected at the writer's boundary (os.fsync) in a subprocess everywhere → the note is
  byte-identical, no temp file is left, and the error is one clear sentence;
- `kh index build` killed (SIGKILL) part-way → the previous index is still readable and
  `kh index check` answers;
- badge and audit requests arriving while a long operation (a full index build) runs in the
  sidecar → answered correctly;
- evidence-site faults (every cited site refusing connections) under many dry-run validations →
  clear per-note answers, the sidecar keeps serving.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time
import urllib.parse
from pathlib import Path

import pytest
from bench.make_vault import make_vault

from ..conftest import KH, start_sidecar, stop_sidecar, use_machine_config

FUZZ = os.environ.get("HYPOTHESIS_PROFILE") == "fuzz" or os.environ.get("KH_FUZZ") == "1"

NOTE = "---\ntitle: 鮮度\nprovenance:\n  origin: ai_generated\nverification:\n  status: unverified\n  level: 1\n---\n# 鮮度\n\n本文。\n"

WRITER = textwrap.dedent(
    """
    import errno, hashlib, json, os, sys
    from knowledge_harness.errors import HarnessError
    from knowledge_harness.vault.paths import Vault
    from knowledge_harness.vault.writer import write_trust_blocks

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    if sys.argv[2] == "inject":
        os.fsync = full
    elif sys.argv[2] == "inject-create":
        from knowledge_harness.vault import atomic
        atomic._new_temp_file = full
    vault = Vault.open(sys.argv[1])
    raw = (vault.root / "note.md").read_bytes()
    try:
        write_trust_blocks(
            vault, "note.md", {"status": "verified", "level": 2, "padding": "x" * int(sys.argv[3])}, None,
            hashlib.sha256(raw).hexdigest(),
        )
    except HarnessError as exc:
        print(json.dumps({"code": exc.code, "message": exc.message}))
        sys.exit(exc.exit_code)
    print(json.dumps({"code": "ok"}))
    """
)


def _run_writer(vault: Path, mode: str, padding: int) -> tuple[int, dict[str, str]]:
    out = subprocess.run(
        [sys.executable, "-c", WRITER, str(vault), mode, str(padding)], capture_output=True, text=True, timeout=60
    )
    assert "Traceback" not in out.stderr, out.stderr
    return out.returncode, json.loads(out.stdout.strip().splitlines()[-1])


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".tmp-") or p.name.endswith(".kh-tmp"))


@pytest.mark.parametrize("where", ["inject", "inject-create"], ids=["at fsync", "creating the temp file"])
def test_enospc_injected_at_the_writer_leaves_the_note_untouched(tmp_path: Path, where: str) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "note.md").write_text(NOTE, encoding="utf-8")
    before = (vault / "note.md").read_bytes()
    code, answer = _run_writer(vault, where, 10)
    assert code == 1
    assert answer["code"] == "write_failed"
    assert "No space left on device" in answer["message"] and "unchanged" in answer["message"]
    assert (vault / "note.md").read_bytes() == before
    assert _leftovers(vault) == []


@pytest.fixture
def tiny_tmpfs(tmp_path: Path) -> object:
    mount = tmp_path / "tmpfs"
    mount.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a tmpfs needs root")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def test_a_real_full_disk_leaves_the_note_untouched(tiny_tmpfs: Path) -> None:
    vault = tiny_tmpfs / "vault"
    vault.mkdir()
    (vault / "note.md").write_text(NOTE, encoding="utf-8")
    before = (vault / "note.md").read_bytes()
    (vault / "filler.bin").write_bytes(b"\0" * 40_000)  # leave less room than the new note needs
    code, answer = _run_writer(vault, "real", 60_000)
    assert code == 1, answer
    assert answer["code"] == "write_failed"
    assert "No space left on device" in answer["message"]
    assert (vault / "note.md").read_bytes() == before
    assert _leftovers(vault) == []


def _index_ok(vault: Path) -> dict[str, object]:
    manifest = json.loads((vault / ".harness" / "index" / "manifest.json").read_text(encoding="utf-8"))
    for entry in manifest["notes"]:
        layer = vault / ".harness" / "index" / "notes" / f"{entry['id']}.json"
        assert json.loads(layer.read_text(encoding="utf-8"))["path"] == entry["path"]
    return manifest  # type: ignore[no-any-return]


@pytest.mark.parametrize("delay", [0.05, 0.4, 1.0])
def test_sigkill_during_an_index_build_keeps_the_previous_index_readable(tmp_path: Path, delay: float) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    make_vault(vault, 1500, seed=3)
    first = subprocess.run([str(KH), "index", "build", str(vault)], capture_output=True, text=True, timeout=300)
    assert first.returncode == 0, first.stderr
    before = _index_ok(vault)
    for note in sorted(vault.rglob("*.md"))[::7]:  # change many notes so the next build has work to do
        note.write_text(note.read_text(encoding="utf-8") + "\n## 追記\n\n追加。\n", encoding="utf-8")
    build = subprocess.Popen([str(KH), "index", "build", str(vault), "--full"], stdout=subprocess.PIPE)
    time.sleep(delay)
    build.send_signal(signal.SIGKILL)
    build.wait(timeout=30)
    after = _index_ok(vault)  # the previous index or the new one, each complete
    assert len(after["notes"]) == len(before["notes"])  # type: ignore[arg-type]
    check = subprocess.run([str(KH), "index", "check", str(vault)], capture_output=True, text=True, timeout=120)
    assert check.returncode in (0, 1), check.stderr
    rebuilt = subprocess.run([str(KH), "index", "build", str(vault)], capture_output=True, text=True, timeout=300)
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert subprocess.run([str(KH), "index", "check", str(vault)], timeout=120).returncode == 0


def test_badge_and_audit_are_answered_during_a_long_operation(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    make_vault(vault, 2000, seed=4)
    notes = sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*.md"))
    sidecar = start_sidecar(vault)
    try:
        with sidecar.client() as client:
            expected_audit = client.get("/v1/trust/audit").json()
            expected_badges = {n: client.get(f"/v1/trust/notes/{urllib.parse.quote(n)}").json() for n in notes[:20]}
            build_answer: dict[str, object] = {}

            def long_build() -> None:
                with sidecar.client() as other:
                    other.timeout = 600  # type: ignore[assignment]
                    response = other.post("/v1/index/build", params={"full": "true"})
                    build_answer["status"] = response.status_code

            worker = threading.Thread(target=long_build)
            worker.start()
            answered = 0
            while worker.is_alive() or answered < 20:
                note = notes[answered % 20]
                badge = client.get(f"/v1/trust/notes/{urllib.parse.quote(note)}")
                assert badge.status_code == 200 and badge.json() == expected_badges[note]
                if answered % 5 == 0:
                    audit = client.get("/v1/trust/audit")
                    assert audit.status_code == 200 and audit.json() == expected_audit
                answered += 1
            worker.join(timeout=600)
            assert build_answer["status"] == 200
    finally:
        stop_sidecar(sidecar)


@pytest.mark.fuzz
def test_evidence_site_faults_under_many_dry_runs_give_clear_per_note_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every note cites a site that refuses connections (a closed loopback port, allow-listed)."""
    vault = tmp_path / "vault"
    (vault / "Keywords").mkdir(parents=True)
    (vault / ".harness").mkdir()
    import socket

    with socket.socket() as s:  # a port with nothing listening
        s.bind(("127.0.0.1", 0))
        dead_port = s.getsockname()[1]
    use_machine_config(monkeypatch, tmp_path, f'[evidence]\nallow_private_hosts = ["127.0.0.1:{dead_port}"]\n')
    count = 100 if FUZZ else 8  # the 100-note batch under `make fuzz`; short in `make test`
    for i in range(count):
        (vault / "Keywords" / f"k{i:03d}.md").write_text(
            "---\nprovenance:\n  origin: ai_generated\nverification:\n  status: unverified\n  level: 1\n---\n"
            f"# K{i}\n\nThe river number {i} flows into the sea near the old town.\n\n"
            f"## References\n\n- http://127.0.0.1:{dead_port}/page/{i}\n",
            encoding="utf-8",
        )
    before = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in vault.rglob("*.md")}
    sidecar = start_sidecar(vault)
    try:
        with sidecar.client() as client:
            statuses: list[int] = []
            for i in range(count):
                answer = client.post(f"/v1/trust/notes/Keywords/k{i:03d}.md/validate", params={"dry_run": "true"})
                statuses.append(answer.status_code)
                assert answer.status_code < 500, answer.text
                body = answer.json()
                if answer.status_code == 200:
                    statuses_text = json.dumps(body, ensure_ascii=False)
                    proposed = body.get("proposed") or {}
                    verification = proposed.get("verification") or {}
                    assert verification.get("level", 0) < 2, statuses_text[:500]  # never promoted without evidence
                    assert "unreachable" in statuses_text or "fetch" in statuses_text.lower(), statuses_text[:500]
                else:
                    assert body["error"]["message"]
            assert client.get("/health").status_code == 200
            assert client.get("/v1/trust/audit").status_code == 200
    finally:
        stop_sidecar(sidecar)
    assert {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in vault.rglob("*.md")} == before
