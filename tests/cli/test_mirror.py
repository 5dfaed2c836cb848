"""tests/cli/ mirrors cli/: every module of the `kh` command line has its tests/cli/test_<module>.py,
which runs that module's commands, and every test file here is one module's (docs/architecture.md, Tests)."""

from __future__ import annotations

from importlib import import_module
from pathlib import Path

import knowledge_harness.cli
from knowledge_harness.cli.root import COMMANDS

CLI = Path(knowledge_harness.cli.__file__).parent
HERE = Path(__file__).parent

# Test files here that mirror no single module, and why.
NOT_A_MODULE: dict[str, str] = {
    "test_mirror.py": "this check",
}
# Modules of cli/ with no door of their own (no commands, nothing a person sees), and why. Empty today:
# progress.py (the progress lines) and terminal.py (the prompts) have their tests here too.
NO_DOOR: dict[str, str] = {}


def _modules() -> set[str]:
    return {p.stem for p in CLI.glob("*.py") if p.stem != "__init__"}


def test_every_cli_module_has_its_test_file() -> None:
    missing = {m for m in _modules() - set(NO_DOOR) if not (HERE / f"test_{m}.py").is_file()}
    assert missing == set(), f"add tests/cli/test_<module>.py for {sorted(missing)}, or list the module in NO_DOOR"
    for module in NO_DOOR:
        assert not hasattr(import_module(f"knowledge_harness.cli.{module}"), "register"), f"{module} has commands"


def test_every_test_file_here_mirrors_a_cli_module() -> None:
    mirrors = {f"test_{m}.py" for m in _modules()}
    strays = {p.name for p in HERE.glob("test_*.py")} - mirrors - set(NOT_A_MODULE)
    assert strays == set(), f"{sorted(strays)} mirror no module of cli/"


def test_the_test_file_of_a_command_module_runs_its_commands() -> None:
    by_module: dict[str, set[str]] = {}
    for name, (module, _) in COMMANDS.items():
        by_module.setdefault(module, set()).add(name)
    for module, names in by_module.items():
        text = (HERE / f"test_{module}.py").read_text(encoding="utf-8")
        assert any(f'"{name}"' in text for name in names), f"test_{module}.py runs none of {sorted(names)}"
