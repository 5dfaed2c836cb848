"""Scope verification with Japanese names (NFC and NFD) in a real git repository."""

from __future__ import annotations

import json
import os
import subprocess
import unicodedata
from pathlib import Path

import pytest

from knowledge_harness.vault.paths import Vault
from knowledge_harness.vault.scope import (
    changed_between,
    git_changed_paths,
    is_git_repository,
    snapshot,
    verify_scope,
)

NFC_NAME = unicodedata.normalize("NFC", "メタデータ限定更新.md")
NFD_NAME = unicodedata.normalize("NFD", "ガイド.md")


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    (root / "キーワード").mkdir(parents=True)
    (root / "キーワード" / NFC_NAME).write_text("---\na: 1\n---\nbody\n", encoding="utf-8")
    (root / NFD_NAME).write_text("# guide\n", encoding="utf-8")
    (root / "plain.md").write_text("plain\n", encoding="utf-8")
    git(root, "init", "-q")
    git(root, "config", "user.email", "t@example.invalid")
    git(root, "config", "user.name", "t")
    git(root, "config", "core.quotePath", "true")  # git's default, which escapes Japanese names
    git(root, "add", "-A")
    git(root, "commit", "-qm", "init")
    return root


def test_git_reports_japanese_names_unquoted_and_in_nfc(repo: Path) -> None:
    (repo / "キーワード" / NFC_NAME).write_text("changed\n", encoding="utf-8")
    (repo / NFD_NAME).write_text("changed\n", encoding="utf-8")
    vault = Vault.open(repo)
    assert is_git_repository(repo)
    assert git_changed_paths(vault) == {f"キーワード/{NFC_NAME}", unicodedata.normalize("NFC", NFD_NAME)}


def test_exactly_the_planned_file_changing_passes(repo: Path) -> None:
    vault = Vault.open(repo)
    before, git_before = snapshot(vault), git_changed_paths(vault)
    target = f"キーワード/{NFC_NAME}"
    (repo / "キーワード" / NFC_NAME).write_text("---\na: 2\n---\nbody\n", encoding="utf-8")
    (repo / ".harness").mkdir()
    (repo / ".harness" / "run.json").write_text("{}")  # the sidecar's own records are not in scope
    report = verify_scope(vault, before, {target}, git_before=git_before)
    assert report.ok, report.message
    assert report.changed == [target]


def test_a_file_changed_outside_the_plan_fails_even_with_an_nfd_name(repo: Path) -> None:
    vault = Vault.open(repo)
    before, git_before = snapshot(vault), git_changed_paths(vault)
    target = f"キーワード/{NFC_NAME}"
    (repo / "キーワード" / NFC_NAME).write_text("new\n", encoding="utf-8")
    (repo / NFD_NAME).write_text("touched by someone else\n", encoding="utf-8")
    report = verify_scope(vault, before, {target}, git_before=git_before)
    assert not report.ok
    assert report.unexpected == [unicodedata.normalize("NFC", NFD_NAME)]
    assert report.git_unexpected == [unicodedata.normalize("NFC", NFD_NAME)]
    assert "outside the plan" in report.message


def test_a_planned_file_that_did_not_change_fails(repo: Path) -> None:
    vault = Vault.open(repo)
    before = snapshot(vault)
    report = verify_scope(vault, before, {"plain.md"}, git_before=git_changed_paths(vault))
    assert not report.ok
    assert report.missing == ["plain.md"]


def test_files_dirty_before_the_run_are_not_blamed_on_it(repo: Path) -> None:
    (repo / "plain.md").write_text("the person's own edit\n", encoding="utf-8")
    vault = Vault.open(repo)
    before, git_before = snapshot(vault), git_changed_paths(vault)
    target = f"キーワード/{NFC_NAME}"
    (repo / "キーワード" / NFC_NAME).write_text("new\n", encoding="utf-8")
    report = verify_scope(vault, before, {target}, git_before=git_before)
    assert report.ok, report.message


def test_a_new_untracked_file_is_an_unexpected_change(repo: Path) -> None:
    vault = Vault.open(repo)
    before, git_before = snapshot(vault), git_changed_paths(vault)
    (repo / "キーワード" / NFC_NAME).write_text("new\n", encoding="utf-8")
    (repo / "新しいノート.md").write_text("x\n", encoding="utf-8")
    report = verify_scope(vault, before, {f"キーワード/{NFC_NAME}"}, git_before=git_before)
    assert report.unexpected == ["新しいノート.md"]


def test_a_file_name_that_is_not_utf8_is_tracked_under_a_printable_key(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    root.mkdir()
    raw_name = os.fsencode(root) + b"/caf\xe9.bin"
    with open(raw_name, "wb") as handle:
        handle.write(b"one")
    before = snapshot(Vault.open(root))
    assert list(before) == ["caf\\xe9.bin"]
    json.dumps(list(before), ensure_ascii=False).encode("utf-8")  # storable as it is
    with open(raw_name, "wb") as handle:
        handle.write(b"two")
    assert changed_between(before, snapshot(Vault.open(root))) == {"caf\\xe9.bin"}
