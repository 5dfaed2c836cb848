"""Find the calls that read or write files in a module's source (used by test_file_access.py).

What counts: the builtin `open`, `io.open`; `os` functions that open, write, move, delete or list
files; every `shutil` and `tempfile` function but `shutil.which`; and the `pathlib.Path` methods that
read, write, move, delete or list (`read_text`, `write_bytes`, `open`, `unlink`, `replace`, `mkdir`,
`iterdir`, `glob`, ...). Metadata look-ups (`exists`, `stat`, `is_file`) are not counted: they
neither read nor change a file's content.

The scan is syntactic, so two spellings are told apart by shape: `x.replace(target)` (one
argument, no keywords) is `Path.replace`, while `str.replace(old, new)` and
`datetime.replace(tzinfo=...)` are not; `Name.open(...)` on a capitalized name is a class method
such as `Vault.open`, not `Path.open`.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

OS_FILE_FUNCTIONS = frozenset(
    {
        "open", "fdopen", "write", "read", "replace", "rename", "renames", "remove", "unlink", "mkdir",
        "makedirs", "rmdir", "removedirs", "truncate", "ftruncate", "chmod", "fchmod", "link", "symlink",
        "utime", "scandir", "listdir", "walk", "fsync",
    }
)  # fmt: skip
PATH_FILE_METHODS = frozenset(
    {
        "read_text", "read_bytes", "write_text", "write_bytes", "open", "unlink", "rename", "replace",
        "mkdir", "rmdir", "touch", "chmod", "symlink_to", "hardlink_to", "iterdir", "glob", "rglob",
    }
)  # fmt: skip
NOT_FILE_ACCESS = frozenset({"shutil.which"})  # looks an executable up on PATH


@dataclass(frozen=True)
class FileCall:
    module: str
    line: int
    call: str


def module_name(root: Path, path: Path) -> str:
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def file_calls(source: str, module: str) -> list[FileCall]:
    found: list[FileCall] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            name = _file_call_name(node)
            if name is not None:
                found.append(FileCall(module, node.lineno, name))
    return found


def _file_call_name(node: ast.Call) -> str | None:
    func = node.func
    if isinstance(func, ast.Name):
        return "open" if func.id == "open" else None
    if not isinstance(func, ast.Attribute):
        return None
    owner = func.value
    if isinstance(owner, ast.Name) and owner.id in {"os", "io", "shutil", "tempfile"}:
        qualified = f"{owner.id}.{func.attr}"
        if owner.id == "os":
            return qualified if func.attr in OS_FILE_FUNCTIONS else None
        if owner.id == "io":
            return qualified if func.attr == "open" else None
        return None if qualified in NOT_FILE_ACCESS else qualified
    if func.attr not in PATH_FILE_METHODS:
        return None
    if func.attr in {"replace", "rename"} and (len(node.args) != 1 or node.keywords):
        return None  # str.replace(old, new), datetime.replace(tzinfo=...)
    if func.attr in {"write_text", "write_bytes"} and len(node.args) != 1:
        return None  # Path.write_text(data, encoding=...); a store's write_text(run_id, name, text) is not
    if func.attr in {"read_text", "read_bytes"} and node.args:
        return None  # Path.read_text(encoding=...) takes no positional argument
    if func.attr == "open" and isinstance(owner, ast.Name) and owner.id[:1].isupper():
        return None  # a class method such as Vault.open(root)
    return f"Path.{func.attr}"
