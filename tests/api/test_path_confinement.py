"""Hostile note paths over real HTTP: each is refused with a clear 4xx; nothing outside the vault is read."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import Sidecar, start_sidecar, stop_sidecar

SECRET = "TOP-SECRET-OUTSIDE-THE-VAULT"


@pytest.fixture(scope="module")
def confined(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sidecar]:
    base = tmp_path_factory.mktemp("confine")
    outside = base / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text(SECRET, encoding="utf-8")
    vault = base / "vault"
    (vault / "notes").mkdir(parents=True)
    (vault / "notes" / "ok.md").write_text("# OK\n", encoding="utf-8")
    (vault / "日本語.md").write_text("# 日本語\n", encoding="utf-8")
    (vault / ".obsidian").mkdir()
    (vault / ".obsidian" / "app.md").write_text(SECRET, encoding="utf-8")
    (vault / ".harness").mkdir()
    (vault / ".harness" / "x.md").write_text(SECRET, encoding="utf-8")
    (vault / "plain.txt").write_text(SECRET, encoding="utf-8")
    (vault / "link.md").symlink_to(outside / "secret.md")
    (vault / "linkdir").symlink_to(outside, target_is_directory=True)
    # links that stay inside the vault but lead into folders that are never notes
    (vault / ".git").mkdir()
    (vault / ".git" / "HEAD.md").write_text(SECRET, encoding="utf-8")
    (vault / ".trash").mkdir()
    (vault / ".trash" / "old.md").write_text(SECRET, encoding="utf-8")
    (vault / "to-obsidian.md").symlink_to(vault / ".obsidian" / "app.md")
    (vault / "to-harness.md").symlink_to(".harness/x.md")
    (vault / "notes" / "to-git.md").symlink_to("../.git/HEAD.md")
    (vault / "trashdir").symlink_to(vault / ".trash", target_is_directory=True)
    (vault / "obsidiandir").symlink_to(".obsidian", target_is_directory=True)
    running = start_sidecar(vault)
    yield running
    stop_sidecar(running)


HOSTILE = [
    ("..%2Foutside%2Fsecret.md", "dot-dot segment"),
    ("%2e%2e%2foutside%2fsecret.md", "percent-encoded dot-dot"),
    ("%252e%252e%252foutside%252fsecret.md", "double-encoded dot-dot"),
    ("notes%2F..%2F..%2Foutside%2Fsecret.md", "dot-dot after a folder"),
    ("%2Fetc%2Fpasswd", "absolute POSIX path"),
    ("~%2Fsecret.md", "home-relative path"),
    ("C:%2Fwindows%2Fsecret.md", "drive letter"),
    ("C:%5Cwindows%5Csecret.md", "drive letter with backslashes"),
    ("..%5Coutside%5Csecret.md", "backslash traversal"),
    ("notes%5Cok.md", "backslash separator"),
    ("notes%2Fok.md%00.txt", "NUL byte"),
    ("notes%2F%0Aok.md", "control character"),
    ("link.md", "symlink to a file outside"),
    ("linkdir%2Fsecret.md", "symlinked folder outside"),
    ("to-obsidian.md", "symlink into .obsidian"),
    ("to-harness.md", "symlink into .harness"),
    ("notes%2Fto-git.md", "symlink into .git"),
    ("trashdir%2Fold.md", "symlinked folder that is .trash"),
    ("obsidiandir%2Fapp.md", "symlinked folder that is .obsidian"),
    (".obsidian%2Fapp.md", "Obsidian config folder"),
    (".harness%2Fx.md", "sidecar data folder"),
    (".git%2Fconfig.md", "git folder"),
    ("plain.txt", "not a Markdown note"),
    ("notes%2F.%2Fok.md", "dot segment"),
    ("notes%2F%2Fok.md", "empty segment"),
    ("a" * 5000 + ".md", "very long path"),
    ("b" * 300 + ".md", "segment longer than 255 bytes"),
    ("notes%2Fmissing.md", "missing note"),
    ("%E2%80%AE%2F..%2Fsecret.md", "bidi override plus traversal"),
]


@pytest.mark.parametrize(("encoded", "why"), HOSTILE, ids=[why for _, why in HOSTILE])
def test_hostile_path_is_refused_with_a_clear_message(confined: Sidecar, encoded: str, why: str) -> None:
    with confined.client() as client:
        response = client.get(f"/v1/notes/{encoded}")
    assert 400 <= response.status_code < 500, why
    error = response.json()["error"]
    assert error["code"] in {"path_rejected", "not_found", "invalid_request"}
    assert error["message"].endswith(".")
    assert SECRET not in response.text


def test_listing_never_includes_files_outside_the_vault_or_excluded_folders(confined: Sidecar) -> None:
    with confined.client() as client:
        response = client.get("/v1/notes")
    assert [n["path"] for n in response.json()["notes"]] == ["notes/ok.md", "日本語.md"]
    assert SECRET not in response.text


def test_badge_and_validation_refuse_a_symlink_into_an_internal_folder(confined: Sidecar) -> None:
    with confined.client() as client:
        response = client.get("/v1/trust/notes/to-obsidian.md")
        assert response.status_code == 400
        assert response.json()["error"]["code"] == "path_rejected"
        assert SECRET not in response.text
        response = client.get("/v1/index/notes/to-harness.md/section", params={"line": 1})
        assert response.status_code in (400, 404) and SECRET not in response.text
        response = client.post("/v1/trust/notes/notes/to-git.md/validate", params={"dry_run": "true"})
        assert response.json()["error"]["code"] == "path_rejected"
        assert "leads into '.git' through a symbolic link" in response.json()["error"]["message"]


def test_nfd_request_finds_the_nfc_note_and_reports_the_nfc_name(confined: Sidecar) -> None:
    nfd = unicodedata.normalize("NFD", "日本語.md")
    with confined.client() as client:
        response = client.get("/v1/notes/" + httpx.URL(nfd).raw_path.decode())
    assert response.status_code == 200
    assert response.json()["path"] == "日本語.md"


def test_nfd_file_on_disk_is_listed_under_its_nfc_name(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    nfd_name = unicodedata.normalize("NFD", "ガイド.md")
    (vault / nfd_name).write_text("# ガイド\n", encoding="utf-8")
    running = start_sidecar(vault)
    try:
        with running.client() as client:
            listed = client.get("/v1/notes").json()["notes"]
            assert [n["path"] for n in listed] == ["ガイド.md"]
            assert client.get("/v1/notes/ガイド.md").json()["title"] == "ガイド"
    finally:
        stop_sidecar(running)


def test_listing_and_reading_agree_on_names_the_doors_refuse(tmp_path: Path) -> None:
    """A name with a tab, a line break, a backslash or a percent-escape cannot be asked for, so it
    is not listed either: it is reported as skipped, like a name that is not UTF-8."""
    vault = tmp_path / "vault"
    (vault / "sub\tdir").mkdir(parents=True)
    (vault / "sub\tdir" / "inner.md").write_text("# inner\n", encoding="utf-8")
    (vault / "image\t%41.png").write_bytes(b"not a note")  # not listed, and not worth an error either
    for name in ("tab\there.md", "line\nbreak.md", "back\\slash.md", "escaped%41.md", "100%.md", "plain.md"):
        (vault / name).write_text("# x\n", encoding="utf-8")
    running = start_sidecar(vault)
    try:
        with running.client() as client:
            listed = [n["path"] for n in client.get("/v1/notes").json()["notes"]]
            assert listed == ["100%.md", "plain.md"]
            for path in listed:
                assert client.get("/v1/notes/" + path.replace("%", "%25")).status_code == 200, path
            errors = {e["path"]: e["message"] for e in client.get("/v1/trust/audit").json()["errors"]}
    finally:
        stop_sidecar(running)
    assert errors == {
        "sub\\tdir": "The name holds a control character (a tab, a line break, ...); skipped.",
        "tab\\there.md": "The name holds a control character (a tab, a line break, ...); skipped.",
        "line\\nbreak.md": "The name holds a control character (a tab, a line break, ...); skipped.",
        "back\\slash.md": "The name holds a backslash; skipped.",
        "escaped%41.md": "The name holds a percent-escape such as %20; skipped.",
    }
