"""`kh index build VAULT [--json]` runs without Typer and Pydantic (it runs after every save) and
answers exactly as the Typer command does; every other form of the command goes to Typer."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import KH

REPORT_MODULES = (
    "import sys, runpy\n"
    "import knowledge_harness.cli as cli\n"
    "def stop():\n    raise SystemExit(0)\n"
    "cli._exit_now = stop  # the real one ends the process before the modules can be listed\n"
    "sys.argv = ['kh', *sys.argv[1:]]\n"
    "try:\n    cli.main()\nexcept SystemExit as exc:\n    code = exc.code\nelse:\n    code = 0\n"
    "loaded = sorted({m.split('.')[0] for m in sys.modules} & {'typer', 'pydantic', 'click', 'rich'})\n"
    "print('LOADED', ','.join(loaded), code, file=sys.stderr)\n"
)


def _kh(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(KH), *args], capture_output=True, text=True, timeout=120)


def _typer(*args: str) -> subprocess.CompletedProcess[str]:
    """The same command through Typer: `--workers 0` is the default, and takes the command line there."""
    return _kh(*args, "--workers", "0")


def _loaded(*args: str) -> tuple[list[str], str]:
    """The frameworks a `kh` command line imported, and its exit code."""
    done = subprocess.run([sys.executable, "-c", REPORT_MODULES, *args], capture_output=True, text=True, timeout=120)
    marker = [line for line in done.stderr.splitlines() if line.startswith("LOADED")][-1].split(" ")
    return [m for m in marker[1].split(",") if m], marker[2]


def _without_seconds(out: str) -> dict[str, object]:
    answer = json.loads(out)
    assert isinstance(answer.pop("seconds"), float)
    return dict(answer)


@pytest.mark.parametrize("order", ["vault first", "--json first"])
def test_the_plain_build_answers_as_the_typer_command_does(small_vault: Path, order: str) -> None:
    (small_vault / "broken.md").write_text("---\ntitle: [unclosed\n---\n# Broken\n", encoding="utf-8")
    args = (
        ["index", "build", str(small_vault), "--json"]
        if order == "vault first"
        else ["index", "build", "--json", str(small_vault)]
    )
    plain = _kh(*args)
    assert plain.returncode == 0, plain.stderr
    (small_vault / "a.md").write_text("---\ntitle: Alpha\n---\n# Alpha\n\nedited\n", encoding="utf-8")
    again = _kh(*args)
    through_typer = _typer("index", "build", str(small_vault), "--json")
    assert through_typer.returncode == 0, through_typer.stderr
    answer = _without_seconds(plain.stdout)
    assert answer == _without_seconds(again.stdout) == _without_seconds(through_typer.stdout)
    assert answer["notes"] == 3 and answer["fallback"] == 0
    assert [e["path"] for e in answer["errors"]] == ["broken.md"]  # type: ignore[index]


def test_the_plain_build_prints_the_same_lines_as_the_typer_command(small_vault: Path) -> None:
    (small_vault / "broken.md").write_text("---\ntitle: [unclosed\n---\n# Broken\n", encoding="utf-8")
    plain = _kh("index", "build", str(small_vault))
    through_typer = _typer("index", "build", str(small_vault))
    assert plain.returncode == through_typer.returncode == 0
    assert plain.stdout.startswith("Indexed 3 notes, ")
    assert plain.stdout.split(" in ")[0] == through_typer.stdout.split(" in ")[0]
    assert plain.stderr == through_typer.stderr and plain.stderr.startswith("  broken.md:")


def test_the_plain_build_loads_neither_typer_nor_pydantic(small_vault: Path) -> None:
    assert _loaded("index", "build", str(small_vault)) == ([], "0")
    assert _loaded("index", "build", "--json", str(small_vault)) == ([], "0")
    assert (small_vault / ".harness" / "index" / "manifest.json").is_file()


@pytest.mark.parametrize(
    "args",
    [
        ["index", "build", "{v}", "--full"],
        ["index", "build", "--workers", "1", "{v}"],
        ["-v", "index", "build", "{v}"],
        ["index", "build", "--help"],
    ],
)
def test_other_forms_of_the_command_go_to_typer(small_vault: Path, args: list[str]) -> None:
    loaded, code = _loaded(*(a.replace("{v}", str(small_vault)) for a in args))
    assert "typer" in loaded and code in ("0", "None")


@pytest.mark.parametrize(
    "args",
    [
        ["index", "build"],
        ["index", "build", "a", "b"],
        ["index", "build", "--json", "--json"],
        ["index", "build", "-x"],
    ],
)
def test_malformed_command_lines_are_typer_usage_errors(args: list[str]) -> None:
    done = _kh(*args)
    assert done.returncode == 2 and "Usage: kh index build" in done.stderr


def test_a_missing_vault_is_the_same_error_on_both_paths(tmp_path: Path) -> None:
    missing = str(tmp_path / "nowhere")
    plain, through_typer = _kh("index", "build", missing), _typer("index", "build", missing)
    assert plain.returncode == through_typer.returncode == 2
    assert plain.stderr == through_typer.stderr == f"kh: The vault folder does not exist: {missing}.\n"
    assert plain.stdout == ""
