"""The root group: `kh` lists its commands without importing them, and the list says what the commands say."""

from __future__ import annotations

import subprocess
import sys

import typer.main

from knowledge_harness.cli.root import COMMANDS, app, load_commands


def test_the_help_line_of_every_command_is_the_commands_own_first_line() -> None:
    for name, (module, short_help) in COMMANDS.items():
        command = load_commands(module)[name]
        first_line = (command.help or "").strip().splitlines()[0].strip()
        assert short_help == first_line, name


def test_every_registered_command_is_listed() -> None:
    registered = {name for module in {m for m, _ in COMMANDS.values()} for name in load_commands(module)}
    assert registered == set(COMMANDS)


def test_kh_help_imports_no_command_module() -> None:
    code = (
        "import sys\n"
        "from knowledge_harness.cli import main\n"
        "sys.argv = ['kh', '--help']\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "heavy = [m for m in sys.modules if m.startswith(('knowledge_harness.cli.', 'knowledge_harness.api', "
        "'knowledge_harness.trust', 'knowledge_harness.pipeline', 'mcp', 'fastapi', 'uvicorn')) "
        "and m != 'knowledge_harness.cli.root']\n"
        "print(sorted(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "Commands:" in out and "index" in out
    assert out.strip().splitlines()[-1] == "[]"


def test_kh_index_build_does_not_import_the_web_stack_or_the_trust_layer() -> None:
    code = (
        "import sys\n"
        "from knowledge_harness.cli import main\n"
        "sys.argv = ['kh', 'index', 'build', '--help']\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "heavy = [m for m in sys.modules if m.startswith(('knowledge_harness.api', 'knowledge_harness.trust', "
        "'knowledge_harness.pipeline', 'mcp', 'fastapi', 'uvicorn', 'httpx', 'ruamel'))]\n"
        "print(sorted(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "[]"


def test_an_unknown_command_is_a_usage_error() -> None:
    result = subprocess.run(
        [sys.executable, "-c", "from knowledge_harness.cli import main; main()", "nope"], capture_output=True, text=True
    )
    assert result.returncode == 2 and "nope" in result.stderr


def test_the_root_group_is_the_lazy_one() -> None:
    assert type(typer.main.get_command(app)).__name__ == "LazyCommands"
